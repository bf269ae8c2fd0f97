"""Golden whole games (tests/data/wauri/, made by the naive reference), engine and CLI.

``game_main_endgame`` was also traced by hand: 5 and 6 are south extra moves, 1 passes,
north's 6 is an extra move, then single seeds walk forward until north's 6 drops the
last north seed into north's store -- north is to move with an empty row and wins.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engines.wauri import Position, Rule, WauriState

DATA = Path(__file__).resolve().parent / "data" / "wauri"
GAMES = sorted(DATA.glob("game_*.json"))


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_golden_set_is_complete():
    names = {p.stem for p in GAMES}
    assert len(names) >= 10
    rules = {load(p)["rule"] for p in GAMES}
    assert rules == {"main", "variant"}
    # the set shows the rules disagreeing at least once
    assert any(load(p)["other_rule"]["winner"] != load(p)["winner"] for p in GAMES)


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_golden_game_engine(path):
    game = load(path)
    state = WauriState(Position.from_json(game["start"]), Rule(game["rule"]))
    for pit in game["moves"]:
        assert state.winner() is None
        state.push(pit)
    final = state.position().to_json()
    final["winner"] = state.winner()
    assert final == game["final"]
    assert state.winner() == game["winner"] and state.is_over()
    # the other rule: the same moves stay legal for moves_legal moves
    other = game["other_rule"]
    state = WauriState(Position.from_json(game["start"]), Rule(other["rule"]))
    for pit in game["moves"][: other["moves_legal"]]:
        state.push(pit)
    assert state.winner() == other["winner"]
    if other["moves_legal"] < len(game["moves"]):
        assert state.is_over()


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_golden_game_cli(cli, path, tmp_path):
    game = load(path)
    start = tmp_path / "start.json"
    start.write_text(json.dumps(game["start"]), encoding="utf-8")
    flags = ["--variant"] if game["rule"] == "variant" else []
    result = cli("wauri", "play", str(start), *map(str, game["moves"]), *flags)
    assert result.code == 0, result.err
    assert result.json() == game["final"]

    other = game["other_rule"]
    flags = ["--variant"] if other["rule"] == "variant" else []
    result = cli("wauri", "play", f"@{start}", *map(str, game["moves"]), *flags)
    if other["moves_legal"] == len(game["moves"]):
        assert result.code == 0
        assert result.json()["winner"] == other["winner"]
    else:
        assert result.code == 1
        answer = result.json()
        assert answer["legal"] is False and answer["played"] == other["moves_legal"]
        assert answer["position"]["winner"] == other["winner"]
        k = other["moves_legal"] + 1
        assert answer["problems"][0].startswith(f"move {k} (pit {game['moves'][k - 1]} for ")
        assert answer["problems"][0].endswith("the game is over (" + other["winner"] + " won)")
