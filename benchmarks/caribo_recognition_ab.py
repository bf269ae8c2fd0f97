"""Interleaved A/B of the CARIBO recogniser: a git revision vs the working tree.

Usage::

    nice .venv/bin/python benchmarks/caribo_recognition_ab.py DIR [DIR ...] --base REV
        [--limit 30] [--runs 3]

``vision/caribo_recognition.py`` and ``vision/colour.py`` of ``REV`` are imported beside
the working tree's (the lattice search is the working tree's for both, so only the tile
reading is compared). For every photo (``*.jpg``, OpenCV decode) both answer once
(compared as JSON), then run interleaved ``runs`` times each (smallest CPU time), as
:func:`ab_timing.compare` does; prints the median CPU times, their ratio to the JPEG
decode and the photos whose answers differ.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from ab_timing import arguments, compare, folder_photos, load_revision, report

from vision import caribo_recognition as cr


def main(argv=None) -> int:
    """Command line: see the module docstring."""
    args = arguments(__doc__).parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = load_revision(args.base, Path(tmp), "caribo_recognition",
                             ["hexlattice", "colour", "caribo_lattice"])
        rows, differ = compare(base, cr, folder_photos(args.folders, args.limit), args.runs)
    return report(rows, differ)


if __name__ == "__main__":
    sys.exit(main())
