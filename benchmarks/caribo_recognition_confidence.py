"""Reliability of the CARIBO recogniser's confidences on photos with truth files.

Usage::

    .venv/bin/python benchmarks/caribo_recognition_confidence.py DIR [DIR ...]

For every photo (``*.jpg`` + ``*.json`` from ``boardcam dataset``) the answer's tiles are
matched to the truth pieces by pixel centre (within 0.3 tile pitch), the answer's 60°
turn relative to the truth is the one that makes most tiles agree, and a tile counts as
right when its code, turned back, equals the truth's. Prints, per confidence bin, the
mean stated confidence and the observed fraction right (tiles), and the same for whole
boards (answer ``confidence`` vs. board perfect as in ``boardcam evaluate``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

from engines.caribo import Tile
from vision import caribo_recognition as cr
from vision.evaluation import compare_states
from vision.recognize import NothingFound

BINS = ((0.0, 0.5), (0.5, 0.8), (0.8, 0.9), (0.9, 0.99), (0.99, 1.01))


def tile_outcomes(answer: dict, truth: dict) -> list[tuple[float, bool]]:
    """``(confidence, right)`` for every tile of ``answer`` against the truth file."""
    pieces = truth["pieces"]
    tc = np.array([p["center_px"] for p in pieces], float)
    if len(tc) > 1:
        d = np.hypot(*(tc[:, None] - tc[None]).transpose(2, 0, 1))
        pitch = float(np.median(np.sort(d, axis=1)[:, 1]))
    else:
        pitch = 50.0
    pairs = []
    for t in answer["tiles"]:
        dist = np.hypot(*(tc - np.array(t["center_px"])).T)
        i = int(np.argmin(dist))
        pairs.append((t, pieces[i]["tile"] if dist[i] < 0.3 * pitch else None))

    def agree(k):
        return sum(1 for t, want in pairs
                   if want and Tile.parse(t["tile"]).rotated(k).code == want)

    k = max(range(6), key=agree)
    return [(t["confidence"], bool(want) and Tile.parse(t["tile"]).rotated(k).code == want)
            for t, want in pairs]


def main(folders: list[str]) -> None:
    """Print the reliability tables for the photos in ``folders``."""
    tiles, boards = [], []
    for folder in folders:
        for photo in sorted(Path(folder).glob("*.jpg")):
            truth = json.loads(photo.with_suffix(".json").read_text())
            try:
                answer = cr.recognize(cv2.imread(str(photo)))
            except NothingFound:
                boards.append((0.0, False))
                continue
            tiles += tile_outcomes(answer, truth)
            perfect = compare_states("caribo", truth["state"], answer).perfect
            boards.append((answer["confidence"], perfect))
    for name, rows in (("tiles", tiles), ("boards", boards)):
        arr = np.array(rows, float).reshape(-1, 2)
        print(f"{name}: n={len(arr)}")
        for lo, hi in BINS:
            m = (arr[:, 0] >= lo) & (arr[:, 0] < hi)
            if m.any():
                print(f"  confidence [{lo:.2f}, {min(hi, 1.0):.2f}): n={int(m.sum()):4d}  "
                      f"stated {arr[m, 0].mean():.3f}  observed {arr[m, 1].mean():.3f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
