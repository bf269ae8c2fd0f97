"""Wauri board finder A/B: CPU time and fits of an earlier revision's
``vision/pit_layout.py`` against the working tree's, photo by photo, in one process.

Usage: ``python benchmarks/wauri_board_ab.py DIR [DIR ...] --base REV [--limit N]
[--runs R] [--keep K]`` (DIRs hold photos; in a folder of mixed games every photo is
tried). Only the board finder is compared (:func:`vision.pit_layout.find_boards` with
``keep`` fits), so work on the counting beside it does not blur the comparison. A fit
*differs* when the set of fits the recogniser accepts (its template-score, pits-located
and contrast limits, :mod:`vision.wauri_recognition`) changes, or when an accepted fit's
14 cavity centres move by more than ``--tol`` px, its contrast by more than 1e-6 or its
pits located / orientation change. Times as in :func:`ab_timing.compare`: smallest CPU
time of ``runs`` interleaved runs each (``process_time``, one OpenCV thread), and the
``cv2.imdecode`` of the same bytes.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from ab_timing import arguments, compare, folder_photos, load_revision, report

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
    ap = arguments(__doc__, limit=40, runs=2)
    ap.add_argument("--keep", type=int, default=1, help="fits asked of find_boards")
    ap.add_argument("--tol", type=float, default=0.01, help="centre movement allowed (px)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from vision import pit_layout as new

    with tempfile.TemporaryDirectory() as tmp:
        base = load_revision(args.base, Path(tmp), "pit_layout", [])
        rows, differ = compare(base, new, folder_photos(args.folders, args.limit),
                               runs=args.runs,
                               call=lambda mod, image: _describe(mod, image, args.keep),
                               differ_by=lambda a, b: _diff(a, b, args.tol))
    return report(rows, differ, timed=" find_boards", what="fits")


if __name__ == "__main__":
    sys.exit(main())
