"""Wauri board finder A/B: CPU time and fits of an earlier revision's
``vision/pit_layout.py`` against the working tree's, photo by photo, in one process.

Usage: ``python benchmarks/wauri_board_ab.py DIR [DIR ...] --base REV [--limit N]
[--runs R] [--keep K]`` (DIRs hold photos; in a folder of mixed games every photo is
tried). Only the board finder is compared (:func:`vision.pit_layout.find_boards` with
``keep`` fits), so work on the counting beside it does not blur the comparison. A fit
*differs* when the set of fits the recogniser accepts (its template-score, pits-located
and contrast limits, :mod:`vision.wauri_recognition`) changes, or when an accepted fit's
14 cavity centres move by more than ``--tol`` px, its contrast by more than 1e-6 or its
pits located / orientation change. Times: smallest CPU time of ``runs`` interleaved runs
each (``process_time``, one OpenCV thread), and the ``cv2.imdecode`` of the same bytes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
from ab_timing import load_revision

ROOT = Path(__file__).resolve().parent.parent


def _accepted(mod, fits):
    from vision import wauri_recognition as wr

    return [f for f in fits if f.template_score >= wr.MIN_TEMPLATE_SCORE
            and f.pits_found >= wr.MIN_PITS_FOUND and f.contrast >= wr.MIN_CONTRAST_TRACKING]


def _describe(mod, image, keep):
    pyr = mod.Pyramid(image)
    t0 = time.process_time()
    fits = mod.find_boards(pyr, keep)
    return time.process_time() - t0, _accepted(mod, fits)


def _diff(a, b, tol: float) -> str:
    """Empty when the two accepted fit lists agree, else a short description."""
    if len(a) != len(b):
        return f"fits {len(a)} -> {len(b)}"
    for k, (fa, fb) in enumerate(zip(a, b, strict=True)):
        move = float(np.linalg.norm(fa.centres_px() - fb.centres_px(), axis=1).max())
        if move > tol:
            return f"fit {k}: centres moved {move:.2f} px"
        if abs(fa.contrast - fb.contrast) > 1e-6:
            return f"fit {k}: contrast {fa.contrast:.4f} -> {fb.contrast:.4f}"
        if fa.pits_found != fb.pits_found or fa.across != fb.across:
            return f"fit {k}: pits {fa.pits_found} -> {fb.pits_found}"
    return ""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--base", required=True, help="git revision to compare against")
    ap.add_argument("--limit", type=int, default=40, help="photos per folder")
    ap.add_argument("--runs", type=int, default=2, help="timed runs per photo and side")
    ap.add_argument("--keep", type=int, default=1, help="fits asked of find_boards")
    ap.add_argument("--tol", type=float, default=0.01, help="centre movement allowed (px)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from vision import pit_layout as new

    cv2.setNumThreads(1)
    with tempfile.TemporaryDirectory() as tmp:
        base = load_revision(args.base, Path(tmp), "pit_layout", [])
        photos = [path for folder in args.folders
                  for path in sorted(Path(folder).glob("*.jpg"))[: args.limit]]
        rows, differ = [], []
        for path in photos:
            data = np.frombuffer(path.read_bytes(), np.uint8)
            image = cv2.imdecode(data, cv2.IMREAD_COLOR)
            tb = tn = td = float("inf")
            for run in range(args.runs):
                t, fa = _describe(base, image, args.keep)
                tb = min(tb, t)
                t, fb = _describe(new, image, args.keep)
                tn = min(tn, t)
                t0 = time.process_time()
                cv2.imdecode(data, cv2.IMREAD_COLOR)
                td = min(td, time.process_time() - t0)
                if run == 0:
                    why = _diff(fa, fb, args.tol)
                    if why:
                        differ.append(f"{path}: {why}")
            rows.append((tb, tn, td))
    if not rows:
        print("no photos")
        return 1
    tb, tn = [r[0] for r in rows], [r[1] for r in rows]
    print(f"photos {len(rows)}: median CPU find_boards base {statistics.median(tb) * 1000:.1f}"
          f" ms, new {statistics.median(tn) * 1000:.1f} ms; median ratio to decode base "
          f"{statistics.median([r[0] / r[2] for r in rows]):.2f}, new "
          f"{statistics.median([r[1] / r[2] for r in rows]):.2f}; total base/new "
          f"{sum(tb) / sum(tn):.2f}x")
    print(f"fits differing: {len(differ)}")
    for line in differ:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
