"""``boardcam colomino score|moves`` end to end through the CLI dispatcher."""

from __future__ import annotations

import json

import pytest
from test_colomino_helpers import field, filled

from engines.colomino import default_layout, state_to_json

F = field()


def js(state):
    return json.dumps(state_to_json(state))


def three_court_turn():
    before = filled([(8, 1), (8, 3), (8, 5), (8, 7), (7, 3), (7, 4)])
    after = before.with_cells({(8, c): F(8, c) for c in (2, 4, 6)})
    return before, after


def test_score_best_order(cli):
    before, after = three_court_turn()
    res = cli("colomino", "score", js(before), js(after))
    assert res.code == 0, res.err
    out = res.json()
    assert out == {
        "placements": [
            {"row": 8, "col": 2, "tile": F(8, 2)},
            {"row": 8, "col": 6, "tile": F(8, 6)},
            {"row": 8, "col": 4, "tile": F(8, 4)},
        ],
        "courts": [
            {"row": 8, "col": 2, "kind": "open", "multiplier": 1},
            {"row": 8, "col": 6, "kind": "open", "multiplier": 2},
            {"row": 8, "col": 4, "kind": "closed", "multiplier": 3},
        ],
        "yellow": 3,
        "blue": 3,
        "points": 9,
    }
    assert res.err == ""


def test_score_files_and_at_files(cli, tmp_path):
    before, after = three_court_turn()
    (tmp_path / "before.json").write_text(js(before))
    (tmp_path / "after.txt").write_text(js(after))
    res = cli("colomino", "score", str(tmp_path / "before.json"), "@" + str(tmp_path / "after.txt"))
    assert res.code == 0 and res.json()["points"] == 9


def test_score_side_walls_option(cli):
    before = filled([(8, 1), (7, 1), (7, 0)])
    after = before.with_cells({(8, 0): F(8, 0)})
    assert cli("colomino", "score", js(before), js(after)).json()["yellow"] == 1
    res = cli("colomino", "score", js(before), js(after), "--side-walls")
    assert (res.json()["yellow"], res.json()["blue"]) == (0, 1)


def test_score_illegal_turn_exits_1(cli):
    before = filled([(8, 3)])
    after = before.with_cells({(8, 2): "RRRR", (6, 3): F(6, 3)})
    res = cli("colomino", "score", js(before), js(after))
    assert res.code == 1
    out = res.json()
    assert out["legal"] is False
    assert "rows[8][2]: south edge R of RRRR does not match the south rim marking G" in (
        out["problems"]
    )
    assert any("rows[6][3]: not connected" in p for p in out["problems"])


def test_score_removed_tile_exits_1(cli):
    before = filled([(8, 3)])
    res = cli("colomino", "score", js(before), js(filled([])))
    assert res.code == 1 and res.json()["problems"] == [f"rows[8][3]: tile {F(8, 3)} was removed"]


def test_score_different_sizes_exits_1(cli):
    nine = {"game": "colomino", "size": 9, "rows": [["."] * 9 for _ in range(9)]}
    twelve = {"game": "colomino", "size": 12, "rows": [["."] * 12 for _ in range(12)]}
    res = cli("colomino", "score", json.dumps(nine), json.dumps(twelve))
    assert res.code == 1 and res.json() == {"legal": False,
                                            "problems": ["size: before is 9, after is 12"]}


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("BEFORE_BAD_COLOUR", "EMPTY"), "BEFORE: rows[3][7]: unknown colour 'X' in 'RXGB'"),
        (("EMPTY", "{not json"), "AFTER: not valid JSON"),
        (("EMPTY", "/nonexistent/after.json"), "AFTER: no such file"),
        (("EMPTY", '{"game": "colomino", "size": 10, "rows": []}'), "AFTER: size: 10 is not"),
        (("EMPTY", '{"game": "colomino", "size": 9, "rows": [[]]}'), "AFTER: rows: has 1 rows"),
        (("EMPTY",), "the following arguments are required"),
    ],
)
def test_score_malformed_input_exits_2_with_one_line(cli, args, fragment):
    empty = {"game": "colomino", "size": 9, "rows": [["."] * 9 for _ in range(9)]}
    bad = json.loads(json.dumps(empty))
    bad["rows"][3][7] = "RXGB"
    subst = {"EMPTY": json.dumps(empty), "BEFORE_BAD_COLOUR": json.dumps(bad)}
    res = cli("colomino", "score", *[subst.get(a, a) for a in args])
    assert res.code == 2
    assert res.out == ""
    assert res.err.startswith("boardcam: error: ") and res.err.count("\n") == 1
    assert fragment in res.err
    assert "Traceback" not in res.err


def test_moves_lists_single_placements(cli):
    board = filled([(8, 3)])
    res = cli("colomino", "moves", js(board), "--rack", f"{F(8, 4)},{F(8, 4)},*")
    assert res.code == 0, res.err
    out = res.json()
    assert {"row": 8, "col": 4, "tile": F(8, 4)} in out
    assert {"row": 7, "col": 3, "tile": "*"} in out
    assert len(out) == len({json.dumps(m, sort_keys=True) for m in out})
    assert all(set(m) == {"row", "col", "tile"} for m in out)
    south = default_layout(9).rim["south"]
    assert all(m["tile"] == "*" or m["row"] != 8 or m["tile"][2] == south[m["col"]] for m in out)


def test_moves_nothing_fits_is_an_empty_list(cli):
    board = filled([])
    res = cli("colomino", "moves", js(board), "--rack", "")
    assert res.code == 0 and res.json() == []


@pytest.mark.parametrize(
    ("rack", "fragment"),
    [("RRGB,RQGB", "--rack[1]: unknown colour 'Q'"), ("RRG", "--rack[0]: tile code 'RRG'"),
     ("RRGB,,*", "--rack: empty tile code at position 2")],
)
def test_moves_bad_rack_exits_2(cli, rack, fragment):
    res = cli("colomino", "moves", js(filled([])), "--rack", rack)
    assert res.code == 2 and fragment in res.err and res.err.count("\n") == 1


def test_moves_requires_rack_and_board(cli):
    res = cli("colomino", "moves", js(filled([])))
    assert res.code == 2 and "--rack" in res.err
    res = cli("colomino", "moves", "[1]", "--rack", "*")
    assert res.code == 2 and "BOARD: board: expected a JSON object" in res.err
