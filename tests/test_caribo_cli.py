"""``boardcam caribo ...`` end to end: JSON answers and exit codes 0/1/2."""

from __future__ import annotations

import pytest

from engines.caribo import parse_board, parse_figure
from engines.caribo.puzzles import BUTTERFLY, check_solution

SEED_ROWS = "0,0,34WS,56SW,0 - e0,12WB,34BW,0,0 - 12BR,B,23SB,61BS,34GS"


def assert_malformed(result, *words):
    assert result.code == 2
    assert result.out == ""
    assert result.err.startswith("boardcam: error: ")
    assert result.err.count("\n") == 1 and "Traceback" not in result.err
    for word in words:
        assert word in result.err


def test_check_valid(cli):
    result = cli("caribo", "check", SEED_ROWS)
    assert result.code == 0
    assert result.json() == {"valid": True, "problems": [], "details": []}


def test_check_invalid(cli):
    result = cli("caribo", "check", SEED_ROWS.replace("34WS", "45WS"))
    assert result.code == 1
    data = result.json()
    assert data["valid"] is False and data["problems"]
    assert all(isinstance(p, str) for p in data["problems"])
    assert "45WS at row 0, col 2" in data["problems"][0]
    assert data["details"][0]["kind"] == "mismatch"


def test_check_with_figure(cli, tmp_path):
    solved = cli("caribo", "solve", BUTTERFLY)
    assert solved.code == 0
    solution = solved.json()["solution"]
    (tmp_path / "sol.txt").write_text(solution + "\n")
    (tmp_path / "fig.txt").write_text(BUTTERFLY)
    ok = cli("caribo", "check", f"@{tmp_path / 'sol.txt'}", "--figure", f"@{tmp_path / 'fig.txt'}")
    assert ok.code == 0 and ok.json()["valid"] is True
    # a rotated solution still solves the figure
    turned = parse_board(solution).rotated(2).notation()
    assert cli("caribo", "check", turned, "--figure", BUTTERFLY).code == 0
    # the seed excerpt is a valid laying but not a full butterfly
    partial = cli("caribo", "check", SEED_ROWS, "--figure", BUTTERFLY)
    assert partial.code == 1
    assert any("is empty" in p for p in partial.json()["problems"])


@pytest.mark.parametrize(
    "argv, words",
    [
        (["caribo", "check", "S,13WS"], ["SOLUTION", "row 0, col 1", "not adjacent"]),
        (["caribo", "check", "S - S"], ["SOLUTION", "row 1", "alternate"]),
        (["caribo", "check", "S,0 - e0"], ["SOLUTION", "row 1", "cells"]),
        (["caribo", "check", "S,,W"], ["SOLUTION", "empty cell"]),
        (["caribo", "check", "\x00garbage\xff{}"], ["SOLUTION"]),
        (["caribo", "check", "S", "--figure", "1,S"], ["FIGURE", "0 or 1"]),
        (["caribo", "check", "@/nonexistent/file"], ["SOLUTION", "no such file"]),
        (["caribo", "solve", "1,2"], ["FIGURE", "row 0, col 1", "unknown colour"]),
        (["caribo", "solve", "1,S,S"], ["FIGURE", "laid twice"]),
        (["caribo", "solve", "0,0 - e0,0"], ["FIGURE", "no cell"]),
        (["caribo", "solve"], ["FIGURE or --name"]),
        (["caribo", "solve", "--name", "nope"], ["--name", "unknown figure"]),
        (["caribo", "moves", "S", "--hand", "S"], ["--hand", "already on the board"]),
        (["caribo", "moves", "S", "--hand", "WS,34WS"], ["--hand", "twice"]),
        (["caribo", "moves", "S", "--hand", "W,Q"], ["--hand", "unknown colour"]),
        (["caribo", "moves", "S,S", "--hand", "W"], ["BOARD", "twice"]),
        (["caribo", "moves", "{]", "--hand", "W"], ["BOARD"]),
        (["caribo", "moves", "S"], ["--hand"]),
        (["caribo", "frobnicate"], ["invalid choice"]),
    ],
)
def test_malformed_input_exits_2(cli, argv, words):
    assert_malformed(cli(*argv), *words)


def test_solve_and_impossible(cli):
    result = cli("caribo", "solve", "0,1,1 - e1,1,1 - 0,1,1")
    assert result.code == 0
    solution = result.json()["solution"]
    assert check_solution(parse_board(solution), parse_figure("0,1,1 - e1,1,1 - 0,1,1")) == []
    assert solution.startswith("0,") and " - e" in solution  # the figure's own grid
    big = " - ".join(("e" if r % 2 else "") + ",".join(["1"] * 7) for r in range(6))
    impossible = cli("caribo", "solve", big)  # 42 cells > 36 tiles
    assert impossible.code == 1 and impossible.json() == {"solution": None}
    limited = cli("caribo", "solve", "--name", "butterfly", "--node-limit", "3")
    assert limited.code == 1 and limited.json() == {"solution": None, "gave_up": True}
    assert_malformed(cli("caribo", "solve", "1", "--node-limit", "0"), "--node-limit")
    assert_malformed(cli("caribo", "solve", "1", "--node-limit", "x"), "--node-limit")


def test_solve_keeps_tiles_already_laid(cli):
    result = cli("caribo", "solve", "0,1,1 - e1,S,1")
    assert result.code == 0
    solution = parse_board(result.json()["solution"])
    assert solution.tiles[(1, 1)].code == "S" and len(solution) == 5
    assert check_solution(solution, parse_figure("0,1,1 - e1,1,1")) == []
    # the brief's completion of the seed's three rows cannot become a whole butterfly
    rows = SEED_ROWS + " - " + BUTTERFLY.split(" - ", 3)[3]
    stuck = cli("caribo", "solve", rows)
    assert stuck.code == 1 and stuck.json() == {"solution": None}


def test_solve_by_name_and_figures_listing(cli):
    listing = cli("caribo", "figures")
    assert listing.code == 0
    names = [f["name"] for f in listing.json()]
    assert "butterfly" in names and len(names) >= 21
    result = cli("caribo", "solve", "--name", "triangle-4")
    assert result.code == 0 and result.json()["solution"].count(",") >= 9


def test_moves_opening_and_second_tile(cli):
    opening = cli("caribo", "moves", "", "--hand", "S,WS")
    assert opening.code == 0
    assert opening.json() == [
        {"row": 0, "col": 0, "tile": "S"},
        {"row": 0, "col": 0, "tile": "12WS"},
    ]
    second = cli("caribo", "moves", "S", "--hand", "WS,B")
    assert second.code == 0
    moves = second.json()
    assert len(moves) == 24
    assert {(m["row"], m["col"]) for m in moves} == {
        (-1, -1), (-1, 0), (0, -1), (0, 1), (1, -1), (1, 0)
    }
    # a code in --hand means any rotation of that tile
    assert cli("caribo", "moves", "S", "--hand", "56WS").json() == moves


def test_moves_in_given_grid(cli):
    result = cli("caribo", "moves", SEED_ROWS, "--hand", "WR,GY,S")
    assert result.code == 0
    assert result.json() == [
        {"row": -1, "col": 2, "tile": "S"},
        {"row": 3, "col": 2, "tile": "S"},
    ]
    none = cli("caribo", "moves", SEED_ROWS, "--hand", "GY")
    assert none.code == 0 and none.json() == []


def test_suggest(cli):
    opening = cli("caribo", "suggest", "", "--hand", "S,WS")
    assert opening.code == 0
    assert opening.json()["move"] == {"row": 0, "col": 0, "tile": "S"}
    move = cli("caribo", "suggest", SEED_ROWS, "--hand", "GY,S,RW").json()["move"]
    assert move in cli("caribo", "moves", SEED_ROWS, "--hand", "GY,S,RW").json()
    forced = cli("caribo", "suggest", SEED_ROWS, "--hand", "GY")
    assert forced.code == 0 and forced.json()["move"] == "pass"
    assert_malformed(cli("caribo", "suggest", "S", "--hand", "S"), "--hand")
    # the whole set on the table: nothing to suggest
    full = cli("caribo", "solve", "--name", "butterfly").json()["solution"]
    over = cli("caribo", "suggest", full, "--hand", "")
    assert over.code == 1 and over.json()["move"] is None
