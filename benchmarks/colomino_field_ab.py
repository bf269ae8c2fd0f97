"""Colomino field stage A/B: CPU time and answers of an earlier revision's
``locate_field`` against the working tree's, photo by photo, in one process.

Usage: ``python benchmarks/colomino_field_ab.py DIR [DIR ...] --base REV [--limit N]
[--runs R]``.
The base revision's ``vision/colomino_field.py`` and ``vision/square_grid.py`` are
imported under other names (:func:`ab_timing.load_revision`); the cell reading is not
run, so the comparison is not disturbed by work on :mod:`vision.colomino_recognition`.
An answer is the homography to the canonical view (every bit of every element), the
size, the grid score and a digest of the canonical view, or "no board"; timing as in
:func:`ab_timing.compare` (smallest CPU time of three runs each, interleaved).
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
from pathlib import Path

from ab_timing import arguments, compare, folder_photos, load_revision, report

ROOT = Path(__file__).resolve().parent.parent


class FieldOnly:
    """A recogniser-like wrapper whose ``recognize`` is a field module's
    ``locate_field``, answered as plain JSON values."""

    def __init__(self, field_module):
        self.field = field_module

    def recognize(self, image):
        Hc, n, score, canon = self.field.locate_field(image)
        return {"H": [float(v).hex() for v in Hc.ravel()], "n": int(n),
                "score": float(score).hex(),
                "canon": hashlib.sha1(canon.tobytes()).hexdigest()}


def main(argv=None) -> int:
    args = arguments(__doc__).parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from vision import colomino_field as new

    with tempfile.TemporaryDirectory() as tmp:
        base = load_revision(args.base, Path(tmp), "colomino_field", ["square_grid"])
        photos = folder_photos(args.folders, args.limit)
        rows, differ = compare(FieldOnly(base), FieldOnly(new), photos, runs=args.runs)
    return report(rows, differ)


if __name__ == "__main__":
    sys.exit(main())
