"""Colomino field stage: does the field found depend on the order of the crossings?

Usage: ``python benchmarks/colomino_field_draws.py DIR [DIR ...] [--limit N] [--draws K]
[-v]``.

A robust fit by random sampling (RANSAC, USAC) is deterministic for one input (its
generator is seeded) but its answer is one draw: the same crossings handed over in
another order give another sample, and, where few crossings agree, another field. This
benchmark runs :func:`vision.colomino_field.locate_field` ``K`` times per photo, the
first time as is, then with the crossing pairs of every grid refinement
(:func:`vision.square_grid.refine_grid`) shuffled by a seeded permutation (draw ``d``)
before they are fitted — the crossings and what they measure are the same, only their
order differs. The shuffle is put in front of ``cv2.findHomography`` as called by
:mod:`vision.square_grid`, and in front of ``square_grid._fit_crossings`` where that
exists. Reports the photos whose answer changes between draws (size, a field corner
moved by more than ``--tol`` cells, or found / not found), and with the truth (a
``boardcam dataset`` JSON) the field bench bucket of each draw
(:mod:`colomino_field_bench`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from colomino_field_bench import corner_error_cells, field_corners  # noqa: E402

from vision import colomino_field as cf  # noqa: E402
from vision import square_grid as sg  # noqa: E402
from vision.recognize import NothingFound  # noqa: E402


class _Shuffled:
    """Stands in for the ``cv2`` module inside :mod:`vision.square_grid`: every
    attribute is OpenCV's, but ``findHomography`` gets its point pairs in the order of
    a permutation drawn from ``rng`` (None: as given)."""

    def __init__(self, rng):
        self.rng = rng

    def __getattr__(self, name):
        return getattr(cv2, name)

    def findHomography(self, src, dst, *args, **kwargs):  # noqa: N802 (OpenCV's name)
        if self.rng is not None and len(src) > 1:
            p = self.rng.permutation(len(src))
            src, dst = np.ascontiguousarray(src[p]), np.ascontiguousarray(dst[p])
        return cv2.findHomography(src, dst, *args, **kwargs)


def run_draw(image: np.ndarray, draw: int):
    """``locate_field(image)`` with the crossings of draw ``draw`` (0: as given):
    ``(n, corners (4, 2) in photo pixels)`` or None."""
    rng = None if draw == 0 else np.random.default_rng(draw)
    shuffler = _Shuffled(rng)
    saved_cv2 = sg.cv2
    saved_fit = getattr(sg, "_fit_crossings", None)
    sg.cv2 = shuffler
    if saved_fit is not None and rng is not None:
        def fit(src, dst, *args, **kwargs):
            p = rng.permutation(len(src))
            return saved_fit(np.ascontiguousarray(src[p]), np.ascontiguousarray(dst[p]),
                             *args, **kwargs)
        sg._fit_crossings = fit
    try:
        Hc, n, _, _ = cf.locate_field(image)
    except NothingFound:
        return None
    finally:
        sg.cv2 = saved_cv2
        if saved_fit is not None:
            sg._fit_crossings = saved_fit
    return n, field_corners(Hc, n)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--limit", type=int, default=0, help="photos per folder")
    ap.add_argument("--draws", type=int, default=3, help="runs per photo (first: as is)")
    ap.add_argument("--tol", type=float, default=0.02, help="corner change that counts, cells")
    ap.add_argument("-v", action="store_true", help="one line per photo")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    changed = []
    buckets = [Counter() for _ in range(args.draws)]
    photos = 0
    for d in args.dirs:
        files = sorted(Path(d).glob("*.jpg"))
        if args.limit:
            files = files[:args.limit]
        for f in files:
            photos += 1
            image = cv2.imread(str(f), cv2.IMREAD_COLOR)
            truth_path = f.with_suffix(".json")
            truth = json.loads(truth_path.read_text()) if truth_path.exists() else None
            got = [run_draw(image, k) for k in range(args.draws)]
            labels = []
            for k, g in enumerate(got):
                if truth is None:
                    label = "no board" if g is None else f"{g[0]}x{g[0]}"
                elif truth.get("game") != "colomino":
                    label = "no board" if g is None else "false board"
                elif g is None:
                    label = "not found"
                elif g[0] != len(truth["state"]["rows"]):
                    label = "size"
                else:
                    err = corner_error_cells(g[1], np.array(truth["board_corners_px"], float),
                                             g[0])
                    label = "grid" if err > 0.3 else "ok"
                buckets[k][label] += 1
                labels.append(label)
            ref = got[0]
            moved = 0.0
            why = ""
            for g in got[1:]:
                if (g is None) != (ref is None):
                    why = "found / not found"
                elif g is not None and g[0] != ref[0]:
                    why = f"size {ref[0]} / {g[0]}"
                elif g is not None:
                    pitch = float(np.mean(np.linalg.norm(
                        ref[1] - np.roll(ref[1], -1, axis=0), axis=1))) / ref[0]
                    moved = max(moved, float(np.abs(g[1] - ref[1]).max()) / pitch)
            if not why and moved > args.tol:
                why = f"corner moved {moved:.3f} cell"
            if why:
                changed.append(f"{f}: {why} ({', '.join(labels)})")
            if args.v:
                print(f"{f}: {', '.join(labels)} {why}", flush=True)
    print(f"photos {photos}, draws {args.draws}: answer changes between draws on "
          f"{len(changed)}")
    for k, b in enumerate(buckets):
        print(f"  draw {k}: " + ", ".join(f"{key} {v}" for key, v in b.most_common()))
    for c in changed:
        print(f"  {c}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
