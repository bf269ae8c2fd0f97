"""``boardcam render`` and ``boardcam dataset`` end to end."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

SOLUTION = "0,0,34WS,56SW,0 - e0,12WB,34BW,0,0 - 12BR,B,23SB,61BS,34GS"
WAURI = {"game": "wauri", "south": [4, 4, 4, 4, 4, 4], "north": [0, 5, 5, 5, 5, 5],
         "stores": {"south": 0, "north": 0}, "to_move": "south"}


def test_render_caribo_writes_photo_and_truth(cli, tmp_path):
    out = tmp_path / "c.jpg"
    r = cli("render", "--game", "caribo", SOLUTION, str(out), "--seed", "4",
            "--difficulty", "hard", "--width", "480", "--height", "360")
    assert r.code == 0, r.err
    assert r.json()["image"] == str(out)
    img = cv2.imread(str(out))
    assert img.shape == (360, 480, 3)
    truth = json.loads((tmp_path / "c.json").read_text())
    assert truth["state"] == {"game": "caribo", "notation": SOLUTION}
    assert truth["difficulty"] == "hard" and truth["seed"] == 4 and truth["image"] == "c.jpg"
    assert len(truth["pieces"]) == 9


def test_render_from_file_json_states(cli, tmp_path):
    pos = tmp_path / "pos.json"
    pos.write_text(json.dumps(WAURI))
    r = cli("render", "--game", "wauri", f"@{pos}", str(tmp_path / "w.jpeg"),
            "--width", "400", "--height", "300")
    assert r.code == 0, r.err
    truth = json.loads((tmp_path / "w.json").read_text())
    assert truth["state"] == WAURI
    board = {"game": "colomino", "size": 9, "rows": [["."] * 9 for _ in range(8)]
             + [["*"] + ["."] * 8]}
    r = cli("render", "--game", "colomino", json.dumps(board), str(tmp_path / "k.jpg"),
            "--width", "400", "--height", "300", "--difficulty", "easy")
    assert r.code == 0, r.err
    truth = json.loads((tmp_path / "k.json").read_text())
    assert truth["state"]["rows"][8][0] == "*"


@pytest.mark.parametrize("args,needle", [
    (["--game", "caribo", "0,0,34XS", "OUT"], "34XS"),
    (["--game", "colomino", "not json", "OUT"], "JSON object"),
    (["--game", "colomino", "{\"game\": \"colomino\", \"size\": 9", "OUT"], "not valid JSON"),
    (["--game", "wauri", json.dumps({**WAURI, "south": [4, 4]}), "OUT"], "south"),
    (["--game", "caribo", SOLUTION, "OUT", "--width", "300"], "together"),
    (["--game", "caribo", SOLUTION, "OUT", "--width", "10", "--height", "10"], "--width"),
    (["--game", "caribo", SOLUTION, "OUT", "--seed", "x"], "--seed"),
    (["--game", "caribo", SOLUTION, "OUT", "--difficulty", "extreme"], "difficulty"),
    (["--game", "chess", SOLUTION, "OUT"], "game"),
    (["--game", "caribo", "@/nonexistent/state.txt", "OUT"], "no such file"),
    (["--game", "caribo", "", "OUT"], "empty"),
])
def test_render_malformed_input_exits_2(cli, tmp_path, args, needle):
    args = [str(tmp_path / "o.jpg") if a == "OUT" else a for a in args]
    r = cli("render", *args)
    assert r.code == 2
    assert r.err.startswith("boardcam: error:") and needle in r.err
    assert r.err.count("\n") == 1 and "Traceback" not in r.err


def test_render_bad_output_path(cli, tmp_path):
    r = cli("render", "--game", "caribo", SOLUTION, str(tmp_path / "x.png"))
    assert r.code == 2 and ".jpg" in r.err
    r = cli("render", "--game", "caribo", SOLUTION, str(tmp_path / "no" / "x.jpg"))
    assert r.code == 2 and "directory" in r.err


def test_dataset_is_deterministic(cli, tmp_path):
    args = ["dataset", "--game", "all", "--count", "3", "--difficulty", "normal", "--seed", "9",
            "--width", "320", "--height", "240", "--quiet"]
    a, b = tmp_path / "a", tmp_path / "b"
    assert cli(*args, str(a)).code == 0
    r = cli(*args, str(b))
    assert r.code == 0 and r.json()["photos"] == 3
    index = json.loads((a / "index.json").read_text())
    assert [p["game"] for p in index["photos"]] == ["caribo", "colomino", "wauri"]
    for p in index["photos"]:
        assert (a / p["image"]).read_bytes() == (b / p["image"]).read_bytes()
        truth = json.loads((a / p["truth"]).read_text())
        assert truth["game"] == p["game"] and truth["image_size"] == [320, 240]
        # each photo re-renders alone from its truth seed
        one = tmp_path / f"one_{p['game']}.jpg"
        state = truth["state"] if p["game"] != "caribo" else truth["state"]["notation"]
        r = cli("render", "--game", p["game"], json.dumps(state) if isinstance(state, dict)
                else state, str(one), "--seed", str(truth["seed"]), "--difficulty", "normal",
                "--width", "320", "--height", "240")
        assert r.code == 0, r.err
        assert one.read_bytes() == (a / p["image"]).read_bytes()


def test_dataset_malformed(cli, tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    assert cli("dataset", "--count", "0", str(tmp_path / "d")).code == 2
    assert cli("dataset", "--game", "go", str(tmp_path / "d")).code == 2
    r = cli("dataset", "--count", "1", str(f))
    assert r.code == 2 and "not a directory" in r.err


def test_decoded_jpeg_is_a_plausible_photo(tmp_path, cli):
    out = tmp_path / "p.jpg"
    assert cli("render", "--game", "caribo", SOLUTION, str(out), "--width", "320",
               "--height", "240").code == 0
    img = cv2.imread(str(out)).astype(np.float32)
    assert 20 < img.mean() < 235  # exposed, not black or white
    assert img.std() > 8  # not flat


def test_same_bytes_across_processes(tmp_path):
    """Determinism must not depend on the process (e.g. Python's string hash seed)."""
    import os
    import subprocess
    import sys

    outs = []
    for hashseed in ("1", "2"):
        out = tmp_path / f"p{hashseed}.jpg"
        env = dict(os.environ, PYTHONHASHSEED=hashseed)
        code = (
            "from companion_web.cli import main; import sys; "
            f"sys.exit(main(['render', '--game', 'caribo', {SOLUTION!r}, {str(out)!r}, "
            "'--seed', '5', '--width', '240', '--height', '180']))"
        )
        subprocess.run([sys.executable, "-c", code], check=True, env=env,
                       capture_output=True)
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
