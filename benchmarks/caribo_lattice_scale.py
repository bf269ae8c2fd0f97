"""Scale and choice of the CARIBO lattice candidates, photo by photo (uses the truth).

Usage::

    nice .venv/bin/python benchmarks/caribo_lattice_scale.py DIR [DIR ...]

For every photo (``*.jpg`` + ``*.json`` from ``boardcam dataset``) every candidate of
:func:`vision.caribo_lattice.find_lattice` is read by the tile reader and printed as
``R``/``.`` (right lattice, :func:`caribo_recognition_diagnose.lattice_right`), its scale
relative to the truth (the median world distance between neighbouring truth tiles, 1.0 for
the true pitch, 0.5 for a lattice twice too coarse, 0.58 for a sqrt(3) one) and the reading
quality. The candidate the reader picks before refitting is marked ``*``. Ends with the
counts: photos with a right candidate first / read / present at all. The truth is only
read here, never inside the recogniser.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np
from caribo_recognition_diagnose import lattice_candidates, lattice_right
from scipy.spatial import cKDTree

from vision import caribo_recognition as cr
from vision import hexlattice
from vision.recognize import NothingFound


def relative_scale(H: np.ndarray, truth: dict) -> float:
    """Median world distance (pitch units of ``H``, full resolution) between each truth
    tile and its nearest truth neighbour: 1 on the true scale."""
    c = np.array([p["center_px"] for p in truth["pieces"]], float)
    if len(c) < 2:
        return float("nan")
    w = hexlattice.apply_homography(np.linalg.inv(H), c)
    d, _ = cKDTree(w).query(w, k=2)
    return float(np.median(d[:, 1]))


def candidates(photo: Path) -> list[dict]:
    """Every lattice candidate of ``photo`` with its scale, rightness and quality."""
    truth = json.loads(photo.with_suffix(".json").read_text())
    image = cv2.imread(str(photo))
    small, scale, lab_det, tdist, found = lattice_candidates(image)
    S = np.diag([1 / scale, 1 / scale, 1.0])
    out = []
    for lat in found:
        try:
            answer, _, quality = cr._read_tiles(image, small, scale, lab_det, tdist, lat, None)
            n = len(answer["tiles"])
        except NothingFound:
            quality, n = float("-inf"), 0
        out.append({"right": lattice_right(S @ lat[0], truth),
                    "scale": relative_scale(S @ lat[0], truth), "quality": quality,
                    "tiles": n, "pitch": lat[3]})
    return out


def main(argv: list[str]) -> int:
    first = read = present = total = 0
    for d in argv:
        for photo in sorted(Path(d).glob("*.jpg")):
            cands = candidates(photo)
            total += 1
            chosen = None
            for i, c in enumerate(cands):
                if c["quality"] > float("-inf") and (
                        chosen is None or c["quality"] > cands[chosen]["quality"]
                        + cr.QUALITY_MARGIN):
                    chosen = i
            first += bool(cands) and cands[0]["right"]
            read += chosen is not None and cands[chosen]["right"]
            present += any(c["right"] for c in cands)
            text = " ".join(
                f"{'R' if c['right'] else '.'}{c['scale']:.2f}/{c['quality']:.1f}"
                f"{'*' if i == chosen else ''}" for i, c in enumerate(cands))
            print(f"{photo.parent.name}/{photo.name:24s} {text}", flush=True)
    print(f"photos {total}: right first {first}, right read {read}, right present {present}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
