"""Which stage of the CARIBO recogniser fails, photo by photo (uses the truth files).

Usage::

    .venv/bin/python benchmarks/caribo_recognition_diagnose.py DIR [DIR ...]

For every photo (``*.jpg`` + ``*.json`` from ``boardcam dataset``) the recogniser's
lattice candidates are checked against the truth pieces: a lattice is *right* when every
truth tile centre falls within 0.3 pitch of a distinct lattice cell centre and every
tile's corners lie at the lattice's tile radius (so half- or double-scale lattices are
wrong). Each photo is then attributed to the first failing stage:

``ok`` board perfect · ``lattice-none`` no candidate right · ``lattice-choice`` a right
candidate existed but another was read · ``occupancy`` the right lattice, but tiles
missed or invented · ``colour`` the right cells, wrong codes · ``no-tiles`` nothing found.

Prints one line per photo and the counts per stage. The truth is only read here, never
inside the recogniser.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from vision import caribo_lattice, hexlattice
from vision import caribo_recognition as cr
from vision.evaluation import compare_states
from vision.recognize import NothingFound


def lattice_right(H: np.ndarray, truth: dict) -> bool:
    """Whether the full-resolution lattice homography ``H`` puts every truth tile on its
    own cell, at the right scale."""
    pieces = truth["pieces"]
    if not pieces:
        return False
    centres = np.array([p["center_px"] for p in pieces], float)
    Hinv = np.linalg.inv(H)
    ax = hexlattice.world_to_axial(hexlattice.apply_homography(Hinv, centres))
    cells = hexlattice.round_axial(ax)
    resid = hexlattice.axial_to_world(ax) - hexlattice.axial_to_world(cells)
    if np.hypot(*resid.T).max() > 0.3:
        return False
    if len({tuple(c) for c in cells}) != len(cells):
        return False
    radii = []
    for p in pieces:
        w = hexlattice.apply_homography(Hinv, np.array(p["corners_px"], float))
        c = hexlattice.apply_homography(Hinv, np.array([p["center_px"]], float))
        radii.append(np.hypot(*(w - c).T).mean())
    r = float(np.median(radii))  # a tile's circumradius ≈ 0.97 / sqrt(3) ≈ 0.56 pitch
    return 0.42 < r < 0.72


def lattice_candidates(image: np.ndarray):
    """The reader's detection inputs and every lattice candidate of a BGR photo:
    ``(small, scale, lab_det, tdist, found)`` (``found`` best first, possibly empty)."""
    small, scale, lab_det, tdist, paint = cr.detection_inputs(image)
    found = caribo_lattice.find_lattice(lab_det, paint, scale) or []
    return small, scale, lab_det, tdist, found


def diagnose(photo: Path) -> tuple[str, str]:
    """``(stage, detail)`` for one photo."""
    truth = json.loads(photo.with_suffix(".json").read_text())
    image = cv2.imread(str(photo))
    small, scale, lab_det, tdist, found = lattice_candidates(image)
    S = np.diag([1 / scale, 1 / scale, 1.0])
    rights = [lattice_right(S @ lat[0], truth) for lat in found]
    best = None
    for i, lattice in enumerate(found):
        try:
            answer, _, quality = cr._read_tiles(image, small, scale, lab_det, tdist, lattice,
                                                None)
        except NothingFound:
            continue
        if best is None or quality > best[2] + cr.QUALITY_MARGIN:
            best = (answer, i, quality)
    marks = "".join("R" if r else "." for r in rights)
    if best is None:
        return ("no-tiles" if not any(rights) else "lattice-choice"), f"cands={marks}"
    answer, chosen, _ = best
    cmp = compare_states("caribo", truth["state"], answer)
    detail = (f"cands={marks} chose={chosen} tiles {len(answer['tiles'])}/"
              f"{len(truth['pieces'])} piece_err={cmp.piece_errors} seg_err="
              f"{cmp.segment_errors}")
    if cmp.perfect:
        return "ok", detail
    if not any(rights):
        return "lattice-none", detail
    if not rights[chosen]:
        return "lattice-choice", detail
    if len(answer["tiles"]) != len(truth["pieces"]):
        return "occupancy", detail
    return "colour", detail


def main(argv: list[str]) -> int:
    counts: Counter[str] = Counter()
    for d in argv:
        for photo in sorted(Path(d).glob("*.jpg")):
            t0 = time.process_time()
            stage, detail = diagnose(photo)
            counts[stage] += 1
            print(f"{photo.name:32s} {stage:15s} {detail}  "
                  f"({time.process_time() - t0:.1f} s)", flush=True)
    total = sum(counts.values())
    print("stages:", ", ".join(f"{k} {v}/{total}" for k, v in counts.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
