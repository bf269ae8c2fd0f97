"""Colomino field stage: CPU time per step of :func:`vision.colomino_field.locate_field`.

Usage: ``python benchmarks/colomino_field_steps.py DIR [DIR ...] [--limit N] [--root ROOT]``.

The steps (module functions of :mod:`vision.colomino_field` and
:mod:`vision.square_grid`, looked up through their modules) are wrapped with CPU-time
(``process_time``) counters; times are inclusive (``_straighten`` contains
``refine_grid``, which contains the crossing fit). Reported per photo and as a ratio
to the JPEG decode of the same photos (one OpenCV thread). ``--root``: import
``vision`` from another checkout (e.g. an exported earlier revision) to compare the
steps before and after; a revision without ``square_grid._fit_crossings`` has its
``cv2.findHomography`` calls in ``square_grid`` timed as the crossing fit instead.
Runs are not interleaved: on a shared machine compare runs made back to back.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

STEPS_FIELD = ["_grid_in_candidate", "_straighten", "_settle_size", "_field_evidence",
               "_colour_cluster_quads", "quad_candidates", "fit_grid", "_rim_of",
               "refine_grid", "outline_from_mask", "ruler_grid", "rim_evidence",
               "_print_quads"]
STEPS_GRID = ["robust_homography", "_fit_crossings", "_consensus_line", "_msac_costs",
              "_rectangle_hypotheses", "line_ridges", "ridge_maps"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--limit", type=int, default=10, help="photos per folder")
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]))
    args = ap.parse_args(argv)
    sys.path.insert(0, args.root)
    from vision import colomino_field as cf
    from vision import square_grid as sg
    from vision.recognize import NothingFound

    cv2.setNumThreads(1)
    spent: Counter = Counter()

    def wrap(mod, name: str) -> None:
        fn = getattr(mod, name)

        def timed(*a, **k):
            t0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                spent[name] += time.process_time() - t0

        setattr(mod, name, timed)

    for name in STEPS_FIELD:
        if hasattr(cf, name):
            wrap(cf, name)
    for name in STEPS_GRID:
        if hasattr(sg, name):
            wrap(sg, name)
    if not hasattr(sg, "_fit_crossings"):
        class _TimedCv2:
            def __getattr__(self, attr):
                return getattr(cv2, attr)

            def findHomography(self, *a, **k):  # noqa: N802 (OpenCV's name)
                t0 = time.process_time()
                try:
                    return cv2.findHomography(*a, **k)
                finally:
                    spent["_fit_crossings"] += time.process_time() - t0

        sg.cv2 = _TimedCv2()
    files = [f for d in args.dirs for f in sorted(Path(d).glob("*.jpg"))[:args.limit]]
    if not files:
        print("no photos")
        return 1
    decode = total = 0.0
    for f in files:
        data = np.frombuffer(f.read_bytes(), np.uint8)
        t0 = time.process_time()
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
        decode += time.process_time() - t0
        t0 = time.process_time()
        try:
            cf.locate_field(image)
        except NothingFound:
            pass
        total += time.process_time() - t0
    k = len(files)
    print(f"{args.root}: photos {k}, decode {decode / k * 1e3:.1f} ms, locate_field "
          f"{total / k * 1e3:.1f} ms = {total / decode:.2f}x decode")
    for name, v in spent.most_common():
        print(f"  {name:22s} {v / k * 1e3:7.1f} ms/photo  {v / decode:5.2f}x decode")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
