"""``boardcam wauri play|moves|best`` end to end through the dispatcher."""

from __future__ import annotations

import json

import pytest

START = {
    "game": "wauri",
    "south": [4] * 6,
    "north": [4] * 6,
    "stores": {"south": 0, "north": 0},
    "to_move": "south",
}


def js(obj) -> str:
    return json.dumps(obj)


def test_play_literal_json(cli):
    result = cli("wauri", "play", js(START), "3", "5")
    assert result.code == 0 and result.err == ""
    assert result.json() == {
        "game": "wauri",
        "south": [4, 4, 0, 5, 0, 6],
        "north": [5, 5, 5, 4, 4, 4],
        "stores": {"south": 2, "north": 0},
        "to_move": "north",
        "winner": None,
    }


def test_play_no_moves_reports_the_winner(cli):
    over = dict(START, south=[0] * 6, north=[2, 0, 0, 0, 0, 0], stores={"south": 20, "north": 26})
    result = cli("wauri", "play", js(over))
    assert result.code == 0 and result.json()["winner"] == "south"


def test_play_file_forms(cli, tmp_path):
    path = tmp_path / "pos.json"
    path.write_text(js(START), encoding="utf-8")
    a = cli("wauri", "play", str(path), "1")
    b = cli("wauri", "play", f"@{path}", "1")
    assert a.code == b.code == 0 and a.json() == b.json()
    assert a.json()["to_move"] == "north"


def test_play_output_feeds_back_in(cli):
    first = cli("wauri", "play", js(START), "3")
    second = cli("wauri", "play", first.out, "1")
    direct = cli("wauri", "play", js(START), "3", "1")
    assert second.json() == direct.json()


def test_play_illegal_move_exits_1_naming_it(cli):
    result = cli("wauri", "play", js(START), "3", "6", "2", "2")
    # 3 (extra), 6 (passes), north 2, north 2 again: empty
    assert result.code == 1
    answer = result.json()
    assert answer["legal"] is False and answer["played"] == 3
    assert answer["problems"] == ["move 4 (pit 2 for north): pit is empty"]
    assert answer["position"]["to_move"] == "north"


def test_play_variant_game_over_exits_1(cli):
    pos = dict(START, south=[0, 0, 0, 0, 0, 2], north=[0, 0, 0, 0, 0, 3])
    main = cli("wauri", "play", js(pos), "6", "6")
    assert main.code == 0 and main.json()["winner"] is None
    variant = cli("wauri", "play", js(pos), "6", "6", "--variant")
    assert variant.code == 1
    assert variant.json()["problems"] == [
        "move 2 (pit 6 for north): the game is over (south won)"
    ]


@pytest.mark.parametrize("bad", ["0", "7", "x", "3.0", "", "1,2"])
def test_play_malformed_move_exits_2(cli, bad):
    result = cli("wauri", "play", js(START), "1", bad)
    assert result.code == 2 and result.out == ""
    assert result.err.startswith("boardcam: error: move 2: ")
    assert result.err.count("\n") == 1


@pytest.mark.parametrize(
    ("position", "needle"),
    [
        (js(dict(START, north=[4, 4, 4, -1, 4, 4])), "north[3] (pit 4): must be a non-negative"),
        (js(dict(START, game="kalah")), "game: must be 'wauri'"),
        (js(dict(START, to_move="west")), "to_move"),
        (js(dict(START, south=[4, 4, 4])), "south: must have 6 pits"),
        (js(dict(START, extra=1)), "unknown key 'extra'"),
        ("{not json", "POSITION: not valid JSON"),
        ("@/nonexistent/pos.json", "POSITION: no such file"),
        ("missing.json", "POSITION: no such file"),
        ("[]", "position: must be a JSON object"),
    ],
)
def test_malformed_positions_exit_2(cli, position, needle):
    for command in (["play", position, "1"], ["moves", position], ["best", position]):
        result = cli("wauri", *command)
        assert result.code == 2, (command, result.out)
        assert needle in result.err and "Traceback" not in result.err
        assert result.err.startswith("boardcam: error: ") and result.err.count("\n") == 1


def test_moves(cli):
    result = cli("wauri", "moves", js(dict(START, south=[0, 0, 3, 0, 0, 1])))
    assert result.code == 0
    assert result.json() == {
        "to_move": "south",
        "moves": [{"pit": 3, "extra_move": False}, {"pit": 6, "extra_move": True}],
        "winner": None,
    }
    over = cli("wauri", "moves", js(dict(START, north=[0] * 6)), "--variant")
    assert over.code == 1 and over.json() == {"to_move": "south", "moves": [], "winner": "north"}


def test_best_from_the_start(cli):
    result = cli("wauri", "best", js(START), "--time", "0.2")
    assert result.code == 0
    answer = result.json()
    assert answer["move"] in range(1, 7)
    assert answer["depth"] >= 4 and answer["nodes"] > 100
    assert answer["proven"] is False and answer["result"] is None
    assert isinstance(answer["evaluation"], int | float)
    assert answer["rule"] == "main" and answer["to_move"] == "south"
    assert answer["pv"][0] == {"player": "south", "pit": answer["move"]}


def test_best_proven_win(cli):
    pos = dict(START, south=[0, 0, 0, 0, 2, 1], north=[5, 0, 0, 0, 0, 0])
    answer = cli("wauri", "best", js(pos)).json()
    assert answer["move"] == 6 and answer["proven"] is True
    assert answer["result"] == "win" and answer["winner"] == "south"
    assert answer["plies_to_end"] == 3 and answer["evaluation"] == 10_000 - 3


def test_best_proven_loss_under_the_variant(cli):
    # south's only move 1 -> S2 passes the turn; north 6 -> store empties north's row
    pos = dict(START, south=[1, 0, 0, 0, 0, 0], north=[0, 0, 0, 0, 0, 1], to_move="south")
    answer = cli("wauri", "best", js(pos), "--variant").json()
    assert answer["proven"] is True and answer["result"] == "loss"
    assert answer["winner"] == "north" and answer["evaluation"] < -9000
    assert answer["rule"] == "variant"


def test_best_on_a_finished_position_exits_1(cli):
    over = dict(START, south=[0] * 6)
    result = cli("wauri", "best", js(over))
    assert result.code == 1
    assert result.json()["move"] is None and result.json()["winner"] == "south"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--time", "abc"], "--time: 'abc' is not a number"),
        (["--time", "0"], "--time: must be > 0"),
        (["--time", "nan"], "--time"),
        (["--depth", "0"], "--depth: must be 1-200"),
        (["--depth", "x"], "--depth"),
    ],
)
def test_best_bad_options_exit_2(cli, args, needle):
    result = cli("wauri", "best", js(START), *args)
    assert result.code == 2 and needle in result.err


def test_best_depth_limit(cli):
    answer = cli("wauri", "best", js(START), "--depth", "3", "--time", "5").json()
    assert answer["depth"] == 3 and answer["seconds"] < 5


def test_too_many_seeds_exit_2(cli):
    pos = dict(START, south=[1000, 0, 0, 0, 0, 0], north=[1, 0, 0, 0, 0, 0])
    result = cli("wauri", "play", js(pos))
    assert result.code == 2 and "position: 1001 seeds in total" in result.err


def test_best_with_big_pits(cli):
    # laps of 13+ seeds inside the search
    pos = dict(START, south=[0, 13, 0, 26, 0, 14], north=[1, 0, 40, 0, 0, 2])
    answer = cli("wauri", "best", js(pos), "--time", "0.2").json()
    assert answer["move"] in (2, 4, 6) and answer["depth"] >= 2


def test_subcommand_required(cli):
    assert cli("wauri").code == 2
