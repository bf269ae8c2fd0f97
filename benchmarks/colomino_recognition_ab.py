"""Colomino recognition A/B: CPU time and answers of an earlier revision against the
working tree, photo by photo, in one process.

Usage: ``python benchmarks/colomino_recognition_ab.py DIR [DIR ...] --base REV
[--limit N] [--runs R]`` (DIRs hold photos, e.g. simulator datasets or ``sample_images``). The
base revision's ``vision/colomino_recognition.py``, ``vision/colomino_field.py`` and
``vision/square_grid.py`` are read
with ``git show`` and imported under other names (the rest of ``vision`` and ``engines``
is the working tree's). For every photo the two recognisers run interleaved (smallest
CPU time of three runs each, ``process_time``, one OpenCV thread), so the load of a
shared machine falls on both alike; the JPEG decode of the same bytes is timed too.
Prints the median times and ratios and every photo whose answer differs (rows, size,
layout, confidences, centres, or found / not found).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from ab_timing import arguments, compare, folder_photos, load_revision, report

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    args = arguments(__doc__).parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from vision import colomino_recognition as new

    with tempfile.TemporaryDirectory() as tmp:
        base = load_revision(args.base, Path(tmp), "colomino_recognition",
                             ["square_grid", "colomino_field", "colour"])
        photos = folder_photos(args.folders, args.limit, name_has="colomino")
        rows, differ = compare(base, new, photos, runs=args.runs)
    return report(rows, differ)


if __name__ == "__main__":
    sys.exit(main())
