"""Drift of the CARIBO lattice candidates from the truth tiles, near vs far (uses the truth).

Usage::

    nice .venv/bin/python benchmarks/caribo_lattice_drift.py DIR [DIR ...]

For every photo (``*.jpg`` + ``*.json`` from ``boardcam dataset``) every candidate of
:func:`vision.caribo_lattice.find_lattice` is compared with the truth tiles: each truth
tile centre is taken into the candidate's world frame and its distance from the nearest
cell centre (pitch units) is its *offset*; a tile with offset > 0.3 is off its cell. The
candidate with the fewest tiles off (then the smallest mean offset) is the *closest*.
Per photo: the closest candidate's index, tiles off / tiles, mean offset of the near half
and the far half of the tiles (near = larger local pixel pitch of the truth homography,
i.e. closer to the camera) and its relative scale. Ends with counts: photos whose closest
candidate has no tile off, and photos whose off tiles are all in the far half (drift)
vs the others. The truth is only read here, never inside the recogniser.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np
from caribo_lattice_scale import relative_scale
from caribo_recognition_diagnose import lattice_candidates

from engines.caribo import parse_board, to_axial
from vision import hexlattice


def truth_lattice(truth: dict) -> tuple[np.ndarray, np.ndarray] | None:
    """``(H_truth, centres (n, 2))``: the homography from the truth tiles' axial world
    centres to their pixel centres (full resolution), or None below four tiles."""
    board = parse_board(truth["state"]["notation"])
    fs = board.first_row_shifted
    pieces = truth["pieces"]
    if len(pieces) < 4:
        return None
    ax = np.array([to_axial(p["row"], p["col"], fs) for p in pieces], float)
    px = np.array([p["center_px"] for p in pieces], float)
    H, _ = cv2.findHomography(hexlattice.axial_to_world(ax), px, 0)
    return (H, px) if H is not None else None


def offsets(H: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Distance ``(n,)`` (pitch units of ``H``) of each centre from its nearest cell."""
    w = hexlattice.apply_homography(np.linalg.inv(H), centres)
    ax = hexlattice.world_to_axial(w)
    return np.hypot(*(w - hexlattice.axial_to_world(hexlattice.round_axial(ax))).T)


def local_pitch(H: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Pixel length ``(n,)`` of one world step at each image point under ``H``."""
    w = hexlattice.apply_homography(np.linalg.inv(H), centres)
    a = hexlattice.apply_homography(H, w + [0.5, 0.0])
    b = hexlattice.apply_homography(H, w - [0.5, 0.0])
    return np.hypot(*(a - b).T)


def photo_drift(photo: Path) -> dict | None:
    """The closest candidate's drift figures for one photo (None: < 4 truth tiles)."""
    truth = json.loads(photo.with_suffix(".json").read_text())
    tl = truth_lattice(truth)
    if tl is None:
        return None
    Ht, px = tl
    _, scale, _, _, found = lattice_candidates(cv2.imread(str(photo)))
    S = np.diag([1 / scale, 1 / scale, 1.0])
    lp = local_pitch(Ht, px)
    near = lp >= np.median(lp)
    best = None
    for i, lat in enumerate(found):
        H = S @ lat[0]
        off = offsets(H, px)
        key = (int((off > 0.3).sum()), float(off.mean()))
        if best is None or key < best[0]:
            best = (key, i, off, relative_scale(H, truth))
    if best is None:
        return {"photo": photo.name, "n": len(px), "cands": 0}
    (n_off, _), i, off, rel = best
    bad = off > 0.3
    return {"photo": photo.name, "n": len(px), "cands": len(found), "closest": i,
            "off": n_off, "near": float(off[near].mean()), "far": float(off[~near].mean()),
            "scale": rel, "far_only": bool(bad.any() and not (bad & near).any()),
            "perspective": float(lp.max() / lp.min())}


def main(argv: list[str]) -> int:
    right = drift = other = none = total = 0
    for d in argv:
        for photo in sorted(Path(d).glob("*.jpg")):
            r = photo_drift(photo)
            if r is None:
                continue
            total += 1
            if r["cands"] == 0:
                none += 1
                print(f"{photo.parent.name}/{r['photo']:24s} no candidates", flush=True)
                continue
            right += r["off"] == 0
            drift += r["far_only"]
            other += r["off"] > 0 and not r["far_only"]
            print(f"{photo.parent.name}/{r['photo']:24s} cand {r['closest']}/{r['cands']} "
                  f"off {r['off']:2d}/{r['n']:2d} near {r['near']:.2f} far {r['far']:.2f} "
                  f"scale {r['scale']:.2f} persp {r['perspective']:.2f}"
                  f"{'  DRIFT' if r['far_only'] else ''}", flush=True)
    print(f"photos {total} (>= 4 tiles): closest candidate right {right}, off only on the far "
          f"half {drift}, off elsewhere {other}, no candidates {none}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
