"""The rules API: each endpoint answers exactly what the ``boardcam`` command answers."""

from __future__ import annotations

import json

import pytest
from web_scaffolding import colomino_column

from companion_web import rules

START = {"game": "wauri", "south": [4] * 6, "north": [4] * 6,
         "stores": {"south": 0, "north": 0}, "to_move": "south"}  # fmt: skip
EMPTY9 = {"game": "colomino", "size": 9, "rows": [["."] * 9 for _ in range(9)]}


def after(*placements):
    state = {"game": "colomino", "size": 9, "rows": [["."] * 9 for _ in range(9)]}
    for row, col, tile in placements:
        state["rows"][row][col] = tile
    return state


def test_caribo_moves_match_the_cli(client, cli):
    response = client.post("/api/caribo/moves", json={"board": "S", "hand": "WS"})
    assert response.status_code == 200
    body = response.get_json()
    assert body["negative"] is False
    assert body["answer"] == cli("caribo", "moves", "S", "--hand", "WS").json()
    assert {"row": -1, "col": 0, "tile": "23WS"} in body["answer"]


def test_caribo_opening_move_on_an_empty_board(client):
    body = client.post("/api/caribo/moves", json={"board": "", "hand": "S"}).get_json()
    assert body["answer"] == [{"row": 0, "col": 0, "tile": "S"}]


def test_caribo_check_reports_the_mismatched_edge(client):
    body = client.post("/api/caribo/check", json={"solution": "S,W"}).get_json()
    assert body["negative"] is True
    assert body["answer"]["valid"] is False
    assert body["answer"]["details"] == [
        {"kind": "mismatch", "cells": [[0, 0], [0, 1]], "edge": 2, "colours": ["S", "W"]}
    ]
    ok = client.post("/api/caribo/check", json={"solution": "S,34WS"}).get_json()
    assert ok == {"answer": {"valid": True, "problems": [], "details": []}, "negative": False}


def test_caribo_check_against_a_figure(client):
    figure = "1,1"
    good = client.post("/api/caribo/check", json={"solution": "S,34WS", "figure": figure})
    assert good.get_json()["answer"]["valid"] is True
    bad = client.post("/api/caribo/check", json={"solution": "S", "figure": figure}).get_json()
    assert bad["answer"]["valid"] is False and bad["negative"] is True


def test_caribo_solve_small_figure_and_check_the_solution(client):
    body = client.post("/api/caribo/solve", json={"figure": "1,1 - e1,0"}).get_json()
    solution = body["answer"]["solution"]
    assert solution
    check = client.post("/api/caribo/check", json={"solution": solution, "figure": "1,1 - e1,0"})
    assert check.get_json()["answer"]["valid"] is True


@pytest.mark.parametrize(
    "path, body, field",
    [
        ("/api/caribo/moves", {"board": "S"}, "hand"),
        ("/api/caribo/moves", {"board": 5, "hand": "S"}, "board"),
        ("/api/caribo/check", {}, "solution"),
        ("/api/caribo/solve", {"figure": ""}, "figure"),
        ("/api/colomino/score", {"before": EMPTY9}, "after"),
        ("/api/wauri/play", {"position": START, "moves": ["3"]}, "moves"),
        ("/api/wauri/best", {"position": "south"}, "position"),
    ],
)
def test_malformed_requests_are_400_naming_the_field(client, path, body, field):
    response = client.post(path, json=body)
    assert response.status_code == 400
    assert response.get_json()["error"].startswith(field)


def test_non_json_body_is_400(client):
    response = client.post("/api/caribo/moves", data="board=S", content_type="text/plain")
    assert response.status_code == 400
    assert response.get_json()["error"].startswith("body")


def test_engine_format_errors_are_400_with_the_engines_message(client):
    response = client.post("/api/caribo/moves", json={"board": "S,XX", "hand": "S"})
    assert response.status_code == 400
    assert "XX" in response.get_json()["error"]


def test_colomino_score_of_a_legal_turn_and_an_illegal_one(client, cli, tmp_path):
    turn = after((8, 1, "BRRG"))
    body = client.post("/api/colomino/score", json={"before": EMPTY9, "after": turn}).get_json()
    assert body["negative"] is False
    assert body["answer"]["placements"] == [{"row": 8, "col": 1, "tile": "BRRG"}]
    assert body["answer"]["points"] == 0
    back = client.post("/api/colomino/score", json={"before": turn, "after": EMPTY9}).get_json()
    assert back["negative"] is True
    assert back["answer"]["legal"] is False and back["answer"]["problems"]


def test_colomino_score_with_side_walls(client, cli):
    column, top = colomino_column()
    after_top = json.loads(json.dumps(column))
    after_top["rows"][top["row"]][top["col"]] = top["tile"]
    for walls, points in ((True, 1), (False, 0)):
        request = {"before": column, "after": after_top, "side_walls": walls}
        body = client.post("/api/colomino/score", json=request).get_json()
        assert body["answer"]["points"] == points
    bad = client.post("/api/colomino/score", json={"before": column, "after": after_top,
                                                   "side_walls": "yes"})  # fmt: skip
    assert bad.status_code == 400 and bad.get_json()["error"].startswith("side_walls")


def test_wauri_play_and_best(client, cli):
    body = client.post("/api/wauri/play", json={"position": START, "moves": [3]}).get_json()
    assert body["answer"]["south"] == [4, 4, 0, 5, 5, 5]
    assert body["answer"]["to_move"] == "south" and body["answer"]["winner"] is None
    best = client.post("/api/wauri/best", json={"position": START, "time": 0.2}).get_json()
    assert best["answer"]["move"] in range(1, 7)
    assert best["answer"]["seconds"] < 1.0
    assert client.post("/api/wauri/best", json={"position": START, "time": 99}).status_code == 400


def test_wauri_pit_out_of_range_is_400(client):
    response = client.post("/api/wauri/play", json={"position": START, "moves": [9]})
    assert response.status_code == 400
    assert "9" in response.get_json()["error"]


def test_rules_unavailable_is_503(client, monkeypatch):
    monkeypatch.setattr(rules, "available", lambda game: False)
    response = client.post("/api/wauri/best", json={"position": START})
    assert response.status_code == 503
    assert response.get_json() == {"error": "rules for wauri are not available yet"}


def test_a_slow_engine_is_cut_off_with_a_422_saying_what_to_change(tmp_path):
    """A question that runs over the limit is one this server cannot answer for this
    input: 422 with a message naming the question, the limit and what to change."""
    from companion_web import create_app

    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "RULES_TIMEOUT": 0.05})
    response = app.test_client().post("/api/wauri/best", json={"position": START})
    assert response.status_code == 422
    message = response.get_json()["error"]
    assert message.startswith("wauri best: no answer within the server's limit of 0.05 s")
    assert "shorter search" in message


def test_the_solver_over_its_limit_on_a_large_figure_is_422(tmp_path):
    from companion_web import create_app
    from companion_web.caribo_pages import figure_library

    figure = next(f["figure"] for f in figure_library() if f["name"] == "rectangle-6x6")
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "RULES_TIMEOUT": 0.02})
    response = app.test_client().post("/api/caribo/solve", json={"figure": figure})
    assert response.status_code == 422
    assert "try a smaller figure" in response.get_json()["error"]


def test_an_engine_crash_is_500_with_a_message(client, monkeypatch):
    """A crash is the server's fault (500), still JSON with a message for the page."""
    monkeypatch.setattr(
        rules, "run_command", lambda argv, *, cwd, timeout: (70, "", "Traceback\nKeyError: 3\n")
    )
    response = client.post("/api/wauri/best", json={"position": START})
    assert response.status_code == 500
    assert response.get_json() == {"error": "the wauri rules engine failed (KeyError: 3)"}


def test_a_timed_out_worker_is_replaced(tmp_path):
    assert rules.run_command(["wauri", "best", "--help"], cwd=str(tmp_path), timeout=1e-4) is None
    code, out, _err = rules.run_command(["wauri", "--help"], cwd=str(tmp_path), timeout=30)
    assert code == 0 and "best" in out


def test_a_dead_worker_is_a_failure_not_an_answer(tmp_path):
    worker = rules._Worker()
    worker.process.kill()
    worker.process.wait()
    with pytest.raises((OSError, EOFError)):
        worker.ask(["wauri", "--help"], str(tmp_path), 10)
    worker.close()
    # a worker that died while idle is not handed out again
    idle = rules._take_worker()
    idle.process.kill()
    idle.process.wait()
    rules._give_back(idle)
    assert rules.run_command(["wauri", "--help"], cwd=str(tmp_path), timeout=30)[0] == 0


def test_worker_runs_in_the_requested_folder(tmp_path):
    (tmp_path / "pos.json").write_text(
        '{"game": "wauri", "south": [4,4,4,4,4,4], "north": [4,4,4,4,4,4],'
        ' "stores": {"south": 0, "north": 0}, "to_move": "south"}'
    )
    code, out, err = rules.run_command(["wauri", "play", "pos.json", "1"], cwd=str(tmp_path),
                                       timeout=30)  # fmt: skip
    assert code == 0, err
    assert '"south": [0, 5, 5, 5, 5, 4]' in out


def test_interpret_exit_codes():
    assert rules._interpret("wauri", "play", 0, '{"a": 1}\n', "") == rules.RulesAnswer(0, {"a": 1})
    negative = rules._interpret("wauri", "play", 1, "", "boardcam: error: move 2: pit 4 is empty\n")
    assert negative.negative and negative.data["problems"] == ["move 2: pit 4 is empty"]
    with pytest.raises(rules.RulesInputError, match="^BOARD: bad"):
        rules._interpret("caribo", "moves", 2, "", "boardcam: error: BOARD: bad\n")
    with pytest.raises(rules.RulesUnavailable):
        rules._interpret("caribo", "moves", 2, "", "boardcam: error: argument: invalid choice\n")
    with pytest.raises(rules.RulesFailure, match="not JSON"):
        rules._interpret("caribo", "moves", 0, "Traceback", "")
    with pytest.raises(rules.RulesFailure, match="failed"):
        rules._interpret("caribo", "moves", 3, "", "Traceback ...\nKeyError: 1\n")
