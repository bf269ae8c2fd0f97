"""TEST SCAFFOLDING for the web companion tests — never used by production code.

- :func:`truth_recognizer`: a *fake* recogniser that ignores the pixels and returns the
  ground-truth JSON of a sample picture. It exists only to exercise the page's overlay
  drawing and the API plumbing while the real recognisers do not exist; it is injected
  through the app's ``RECOGNIZER`` config in tests. It proves nothing about recognition.
- :func:`write_y4m`: a YUV4MPEG2 (I420) file from a BGR image, for Chromium's fake camera.
- :func:`sample_picture`: a sample picture of a game (``sample_images/`` if it has one,
  else a picture rendered by the simulator into a cache folder, else a plain synthetic
  picture) and its truth JSON if known.
- :class:`LiveServer`: the app under waitress on a free port in a background thread.
"""

from __future__ import annotations

import io
import json
import shutil
import threading
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_images"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
]
SCAFFOLD_WARNING = "TEST SCAFFOLDING: truth JSON of a sample picture, not a recognition"

# Small, fixed positions used when a picture has to be rendered for the tests.
RENDER_STATES = {
    "caribo": "0,0,34WS,56SW,0 - e0,12WB,34BW,0,0 - 12BR,B,23SB,61BS,34GS",
    "colomino": json.dumps(
        {"game": "colomino", "size": 9,
         "rows": [["."] * 9 for _ in range(8)] + [[".", "BRRG"] + ["."] * 7]}
    ),  # fmt: skip
}


def truth_answer(truth: dict) -> dict:
    """The recogniser-shaped answer built from a truth file (TEST SCAFFOLDING)."""
    state = dict(truth["state"])
    pieces = truth.get("pieces") or []
    key = {"caribo": "tiles", "colomino": "cells", "wauri": "pits"}[state["game"]]
    state[key] = [{**p, "confidence": 1.0} for p in pieces]
    state["confidence"] = 1.0
    state["warnings"] = [SCAFFOLD_WARNING]
    return state


def truth_recognizer(truths: dict[str, dict]):
    """A fake ``RECOGNIZER`` answering every photo of a game with that game's truth."""

    def fake(game, image, *, previous=None, calibration=None):
        from vision.recognize import RecognizerUnavailable

        if game not in truths:
            raise RecognizerUnavailable(f"recognition for {game} is not available yet")
        return truth_answer(truths[game])

    return fake


def write_y4m(path: Path, bgr: np.ndarray, frames: int = 10, fps: int = 10) -> Path:
    """Write ``frames`` copies of ``bgr`` as a YUV4MPEG2 4:2:0 file (even size enforced)."""
    h, w = bgr.shape[:2]
    bgr = bgr[: h - h % 2, : w - w % 2]
    h, w = bgr.shape[:2]
    i420 = cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420)
    with open(path, "wb") as out:
        out.write(f"YUV4MPEG2 W{w} H{h} F{fps}:1 Ip A1:1 C420jpeg\n".encode("ascii"))
        for _ in range(frames):
            out.write(b"FRAME\n")
            out.write(i420.tobytes())
    return path


def synthetic_picture(width: int = 1280, height: int = 720, seed: int = 0) -> np.ndarray:
    """A plain table-like picture (wood colour, a few shapes) when no sample exists."""
    rng = np.random.default_rng(seed)
    img = np.full((height, width, 3), (60, 110, 160), np.uint8)
    for _ in range(12):
        centre = (int(rng.integers(100, width - 100)), int(rng.integers(100, height - 100)))
        colour = tuple(int(c) for c in rng.integers(0, 255, 3))
        cv2.circle(img, centre, 40, colour, -1)
    return img


def sample_picture(game: str, cache: Path) -> tuple[np.ndarray, dict | None]:
    """A picture of ``game`` and its truth (``None`` when only a synthetic one exists)."""
    for photo in sorted(SAMPLES.rglob("*.jpg")) if SAMPLES.is_dir() else []:
        truth_path = photo.with_suffix(".json")
        if truth_path.is_file():
            truth = json.loads(truth_path.read_text(encoding="utf-8"))
            if truth.get("game") == game:
                return cv2.imread(str(photo)), truth
    if game in RENDER_STATES:
        cache.mkdir(parents=True, exist_ok=True)
        photo = cache / f"{game}-render.jpg"
        if not photo.is_file():
            render_with_simulator(game, RENDER_STATES[game], photo)
        if photo.is_file():
            truth = json.loads(photo.with_suffix(".json").read_text(encoding="utf-8"))
            return cv2.imread(str(photo)), truth
    return synthetic_picture(), None


def render_with_simulator(game: str, state: str, photo: Path) -> None:
    """Render ``state`` with the simulator (``boardcam render``) if that command exists."""
    import subprocess
    import sys

    subprocess.run(
        [sys.executable, "-m", "companion_web.cli", "render", "--game", game, "--seed", "1",
         "--width", "1280", "--height", "720", state, str(photo)],
        capture_output=True, timeout=120, check=False, cwd=ROOT,
    )  # fmt: skip


def fit_frame(bgr: np.ndarray, truth: dict | None, size=(1280, 720)):
    """Letterbox ``bgr`` into a ``size`` frame (a camera's 16:9) and move the truth's
    pixel coordinates (every ``*_px`` field of the pieces) with it.

    Chromium's fake camera crops a 4:3 file to the requested 16:9, which would move the
    pixels away from the truth; a frame that already has the camera's shape is delivered
    as it is.
    """
    width, height = size
    h, w = bgr.shape[:2]
    scale = min(width / w, height / h)
    new_w, new_h = round(w * scale), round(h * scale)
    ox, oy = (width - new_w) // 2, (height - new_h) // 2
    frame = np.zeros((height, width, 3), np.uint8)
    frame[oy : oy + new_h, ox : ox + new_w] = cv2.resize(
        bgr, (new_w, new_h), interpolation=cv2.INTER_AREA
    )
    if truth is None:
        return frame, None

    def move(value):
        if isinstance(value, list) and len(value) == 2 and all(
            isinstance(v, int | float) for v in value
        ):
            return [value[0] * scale + ox, value[1] * scale + oy]
        if isinstance(value, list):
            return [move(v) for v in value]
        return value

    truth = json.loads(json.dumps(truth))
    for piece in truth.get("pieces") or []:
        for key in list(piece):
            if key.endswith("_px"):
                piece[key] = move(piece[key])
    return frame, truth


def jpeg_bytes(bgr: np.ndarray, quality: int = 85) -> bytes:
    """Encode a BGR image as JPEG bytes."""
    ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return buf.tobytes()


def png_bytes(bgr: np.ndarray) -> bytes:
    """Encode a BGR image as PNG bytes."""
    ok, buf = cv2.imencode(".png", bgr)
    assert ok
    return buf.tobytes()


class LiveServer:
    """Serve ``app`` with waitress on 127.0.0.1:<free port> in a daemon thread."""

    def __init__(self, app, url_scheme: str = "http"):
        import waitress

        self.server = waitress.create_server(
            app, host="127.0.0.1", port=0, threads=4, url_scheme=url_scheme
        )
        self.app = app
        self.port = self.server.effective_port
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        try:
            self.server.run()
        except OSError:  # closed while stopping
            pass

    def start(self) -> LiveServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        import logging

        logging.getLogger("waitress").setLevel(logging.CRITICAL)  # keep-alive channels at exit
        self.server.close()
        self.thread.join(5)


def upload(data: bytes, name: str = "photo.jpg") -> dict:
    """A multipart form body for the Flask test client with ``image`` = ``data``."""
    return {"image": (io.BytesIO(data), name)}


def colomino_column(size: int = 9, col: int = 0, top: int = 1) -> tuple[dict, dict]:
    """A legal Colomino board with one column of tiles from the base line up to row
    ``top`` (each the engine's first legal fit, no pattern more than twice), and the
    engine's first legal placement ``{"row", "col", "tile"}`` in the cell above it."""
    from collections import Counter

    from engines.colomino import Board, Tile, full_tile_set, parse_state, state_to_json

    empty = {"game": "colomino", "size": size, "rows": [["."] * size for _ in range(size)]}
    board = Board.from_state(parse_state(empty))
    patterns = sorted({Tile.parse(t).pattern for t in full_tile_set() if t != "*"})
    used: Counter = Counter()

    def fit(row):
        return next(
            p
            for p in board.legal_placements(patterns)
            if (p.row, p.col) == (row, col) and used[p.tile.pattern] < 2
        )

    for row in range(size - 1, top - 1, -1):
        placement = fit(row)
        board.put(row, col, placement.tile)
        used[placement.tile.pattern] += 1
    return state_to_json(board.to_state()), fit(top - 1).to_json()
