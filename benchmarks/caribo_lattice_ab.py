"""Interleaved A/B timing of the CARIBO lattice search: a git revision vs the working tree.

Usage::

    nice .venv/bin/python benchmarks/caribo_lattice_ab.py DIR [DIR ...] --base REV
        [--runs 3]

``vision/caribo_lattice.py`` and ``vision/hexlattice.py`` of ``REV`` are imported beside
the working tree's. For every photo (``*.jpg``) the detection image and paint mask are made
once (the working tree's reader helpers), both versions of
:func:`vision.caribo_lattice.find_lattice` answer once (every homography and pitch
compared bit for bit), then run interleaved ``runs`` times each (``--runs 0``: none, only
the photos whose candidates differ are printed) (smallest CPU time,
``process_time``), so the load of a shared machine falls on both alike. Prints the photos
whose candidates differ, the total and median CPU time per photo of each and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
from ab_timing import load_revision

from vision import caribo_lattice
from vision import caribo_recognition as cr


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return len(a) == len(b) and all(np.array_equal(x[0], y[0]) and x[3] == y[3]
                                    for x, y in zip(a, b, strict=True))


def _cpu(fn, *args) -> float:
    t0 = time.process_time()
    fn(*args)
    return time.process_time() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--base", required=True)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = load_revision(args.base, Path(tmp), "caribo_lattice", ["hexlattice"])
        tb, tn, differ = [], [], []
        for d in args.dirs:
            for photo in sorted(Path(d).glob("*.jpg")):
                image = cv2.imread(str(photo))
                _, scale, lab, _, paint = cr.detection_inputs(image)
                if not _same(base.find_lattice(lab, paint, scale),
                             caribo_lattice.find_lattice(lab, paint, scale)):
                    differ.append(f"{photo.parent.name}/{photo.name}")
                b, n = [], []
                for _ in range(args.runs):
                    b.append(_cpu(base.find_lattice, lab, paint, scale))
                    n.append(_cpu(caribo_lattice.find_lattice, lab, paint, scale))
                if args.runs > 0:  # --runs 0: only which photos differ
                    tb.append(min(b))
                    tn.append(min(n))
    for name in differ:
        print("differs:", name)
    if not tb:
        print(f"candidates differ on {len(differ)} photos")
        return 0
    print(f"photos {len(tb)}, candidates differ on {len(differ)}; find_lattice CPU total "
          f"{sum(tb):.2f} -> {sum(tn):.2f} s ({sum(tn) / max(sum(tb), 1e-9):.2f}x), median "
          f"{statistics.median(tb) * 1000:.0f} -> {statistics.median(tn) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
