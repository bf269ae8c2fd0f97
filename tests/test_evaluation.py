"""The accuracy harness scores answers exactly (rotation-aware for CARIBO)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from engines.caribo import format_board, parse_board
from vision.evaluation import compare_states, evaluate_photo, find_photos, summarize

SAMPLE = "0,0,34WS,56SW,0 - e0,12WB,34BW,0,0 - 12BR,B,23SB,61BS,34GS"


def test_caribo_identical_is_perfect():
    c = compare_states("caribo", {"notation": SAMPLE}, {"notation": SAMPLE})
    assert c.perfect and c.piece_errors == 0 and c.pieces == 9 and c.segments == 54


def test_caribo_any_rotation_is_perfect():
    board = parse_board(SAMPLE)
    for k in range(6):
        rotated = format_board(board.rotated(k))
        c = compare_states("caribo", {"notation": SAMPLE}, {"notation": rotated})
        assert c.perfect, (k, rotated)


def test_caribo_one_wrong_rotation_counts_one_tile_and_its_segments():
    wrong = SAMPLE.replace("23SB", "34SB")
    c = compare_states("caribo", {"notation": SAMPLE}, {"notation": wrong})
    assert not c.perfect and c.piece_errors == 1 and c.segment_errors == 2


def test_caribo_missing_and_invented_tiles():
    missing = SAMPLE.replace("34GS", "0")
    c = compare_states("caribo", {"notation": SAMPLE}, {"notation": missing})
    assert c.piece_errors == 1 and c.segment_errors == 6
    c = compare_states("caribo", {"notation": SAMPLE}, {})
    assert c.piece_errors == 9 and c.segment_errors == 54


def _colomino(n=9):
    rows = [["." for _ in range(n)] for _ in range(n)]
    rows[n - 1][0] = "RGBY"
    rows[n - 2][0] = "*"
    return {"game": "colomino", "size": n, "rows": rows}


def test_colomino_cells_and_edges():
    truth = _colomino()
    assert compare_states("colomino", truth, truth).perfect
    answer = json.loads(json.dumps(truth))
    answer["rows"][8][0] = "RGBB"
    answer["rows"][0][0] = "*"
    c = compare_states("colomino", truth, answer)
    assert c.piece_errors == 2 and c.segment_errors == 1 + 4


def test_colomino_unknown_base_tries_all_four_turns():
    truth = _colomino()
    answer = json.loads(json.dumps(truth))
    # turn the answer 90° counter-clockwise three times = once clockwise... use the helper
    from vision.evaluation import _rot_rows

    answer["rows"] = _rot_rows(truth["rows"])
    assert not compare_states("colomino", truth, answer).perfect
    answer["base_known"] = False
    assert compare_states("colomino", truth, answer).perfect


def test_wauri_counts():
    truth = {"game": "wauri", "south": [4] * 6, "north": [4] * 6,
             "stores": {"south": 0, "north": 0}, "to_move": "south"}
    answer = json.loads(json.dumps(truth))
    answer["north"][2] = 6
    c = compare_states("wauri", truth, answer)
    assert c.piece_errors == 1 and c.segment_errors == 2 and c.pieces == 14


def test_folder_evaluation_with_a_recogniser_that_reads_truth(tmp_path):
    # Harness test only: the "recogniser" here returns the stored truth.
    img = np.full((60, 80, 3), 128, np.uint8)
    ok, buf = cv2.imencode(".jpg", img)
    assert ok
    for i, diff in enumerate(["normal", "hard"]):
        (tmp_path / f"p{i}.jpg").write_bytes(buf.tobytes())
        truth = {"game": "caribo", "state": {"game": "caribo", "notation": SAMPLE},
                 "difficulty": diff}
        (tmp_path / f"p{i}.json").write_text(json.dumps(truth))
    (tmp_path / "stray.json").write_text("{}")
    photos = find_photos(tmp_path)
    assert len(photos) == 2
    results = [evaluate_photo(p, t, lambda game, image, t=t: dict(t["state"])) for p, t in photos]
    groups = summarize(results)
    assert [(g.difficulty, g.photos, g.perfect) for g in groups] == [("normal", 1, 1),
                                                                    ("hard", 1, 1)]
    assert groups[0].to_json()["perfect_percent"] == 100.0


def test_evaluate_command_runs_with_its_progress_bar(cli, tmp_path):
    """``boardcam evaluate`` end to end on a committed sample photo, progress bar on (the
    bar's library must be a declared dependency: a fresh install once lacked it)."""
    sample = Path(__file__).resolve().parents[1] / "sample_images"
    out = tmp_path / "eval.json"
    r = cli("evaluate", str(sample), "--game", "wauri", "--limit", "1", "--json", str(out))
    assert r.code == 0, r.err
    assert "wauri" in r.out
    (row,) = json.loads(out.read_text())["summary"]
    assert row["game"] == "wauri" and row["photos"] == 1


def test_evaluate_command_bad_folder_exits_2(cli, tmp_path):
    r = cli("evaluate", str(tmp_path / "missing"))
    assert r.code == 2 and "not a folder" in r.err and "Traceback" not in r.err
