"""Colomino cell reading under small field moves: how many cells change their answer when
the located field is moved by a fraction of a cell (a real field estimate is never
better than about 0.03 cell), with the fields cached as in ``colomino_cells_diag.py``.

Usage: ``python benchmarks/colomino_cells_jitter.py DIR [DIR ...] [--cache CACHE_DIR]
[--limit N] [--shift CELLS] [--draws K] [--seed S] [--json OUT] [--set NAME=VALUE]
[-v]``.

For every photo the cell reading runs on the cached field and then ``--draws`` times on
the same field with each of its four corners moved by ``--shift`` of a cell in x and in
y (signs drawn at random, seeded by the photo's name and ``--seed``, so the same moves
are drawn for every revision); the canonical view is warped again from the photo. A
cell *flips* when its read code differs from the one on the cached field. Prints per
folder and over all: boards perfect and wrong cells on the cached field, the mean wrong
cells over the moved fields, the flips (total over the draws) and the photos whose
answer changed; ``-v`` lists every flip (photo, draw, SPEC row/col, truth, cached read,
moved read); ``--set`` (repeatable) sets a constant of
:mod:`vision.colomino_recognition` first (e.g. ``TILE_SHIFT_MAX=0``), to compare two
choices in one checkout. The truth is used only for the right/wrong counts.
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from colomino_cells_diag import cached_photos  # noqa: E402

from vision import colomino_recognition as cr  # noqa: E402
from vision.colomino_field import CELL, MARGIN_CELLS  # noqa: E402
from vision.recognize import NothingFound  # noqa: E402


def moved_field(image: np.ndarray, got, shift: float, rng: np.random.Generator):
    """The cached field ``got = (Hc, n, score, canon)`` with its four corners moved by
    ``shift`` cell in x and y (random signs): the same tuple, canon warped again."""
    Hc, n, score, canon = got
    M = MARGIN_CELLS * CELL
    e = M + n * CELL
    src = np.array([[M, M], [e, M], [e, e], [M, e]], np.float32)
    dst = src + (rng.choice([-1.0, 1.0], size=(4, 2)) * shift * CELL).astype(np.float32)
    J = cv2.getPerspectiveTransform(src, dst)
    H2 = J @ Hc
    canon2 = cv2.warpPerspective(image, H2, canon.shape[1::-1], flags=cv2.INTER_LINEAR)
    return H2, n, score, canon2


def _wrong(rows, want) -> int:
    return sum(a != b for ra, rb in zip(rows, want, strict=True)
               for a, b in zip(ra, rb, strict=True))


def run_folder(folder: Path, cache: Path, limit: int, shift: float, draws: int, seed: int,
               verbose: bool, per_photo: dict):
    tot: Counter = Counter()
    for f, truth in cached_photos(folder, cache, limit):
        want = truth["state"]["rows"]
        image = cv2.imread(str(f.with_suffix(".jpg")))
        try:
            base = cr.recognize(image)
        except NothingFound:
            continue
        if base["size"] != len(want):
            continue
        got = cr.locate_field(image)
        tot["photos"] += 1
        w0 = _wrong(base["rows"], want)
        tot["perfect"] += w0 == 0
        tot["wrong"] += w0
        rng = np.random.default_rng([zlib.crc32(f.stem.encode()), seed])
        real = cr.locate_field
        flips_photo = 0
        wrong_moved = []
        try:
            for d in range(draws):
                field = moved_field(image, got, shift, rng)
                cr.locate_field = lambda _img, _f=field: _f
                try:
                    ans = cr.recognize(image)
                except NothingFound:
                    continue
                if ans["size"] != len(want):
                    continue
                wrong_moved.append(_wrong(ans["rows"], want))
                tot["perfect_moved"] += wrong_moved[-1] == 0
                tot["draws"] += 1
                for r, (ra, rb) in enumerate(zip(base["rows"], ans["rows"], strict=True)):
                    for c, (a, b) in enumerate(zip(ra, rb, strict=True)):
                        if a != b:
                            flips_photo += 1
                            tru = want[r][c]
                            tot["flip_to_right"] += b == tru
                            tot["flip_to_wrong"] += a == tru
                            if verbose:
                                print(f"  {f.parent.name}/{f.stem} d{d} ({r},{c}) "
                                      f"truth {tru} cached {a} moved {b}")
        finally:
            cr.locate_field = real
        tot["flips"] += flips_photo
        tot["photos_changed"] += flips_photo > 0
        tot["wrong_moved"] += sum(wrong_moved)
        per_photo[f"{f.parent.name}/{f.stem}"] = {"wrong": w0, "moved": wrong_moved,
                                                  "flips": flips_photo}
    return tot


def _line(name: str, t: Counter) -> str:
    d = max(t["draws"], 1)
    return (f"{name}: {t['photos']} photos, perfect {t['perfect']}, wrong {t['wrong']}; "
            f"moved ({t['draws']} draws): perfect {t['perfect_moved'] / d * t['photos']:.1f} "
            f"per set, wrong {t['wrong_moved'] / d * t['photos']:.1f} per set; flips "
            f"{t['flips']} ({t['flip_to_right']} to right, {t['flip_to_wrong']} to wrong) in "
            f"{t['photos_changed']} photos")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--cache", default="")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--shift", type=float, default=0.04)
    ap.add_argument("--draws", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default="")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args(argv)
    for item in args.set:
        name, value = item.split("=", 1)
        setattr(cr, name, type(getattr(cr, name))(value))
    cv2.setNumThreads(1)
    total: Counter = Counter()
    per_photo: dict = {}
    for d in args.dirs:
        folder = Path(d)
        cache = Path(args.cache) / folder.name if args.cache else folder / ".field_cache"
        t = run_folder(folder, cache, args.limit, args.shift, args.draws, args.seed, args.v,
                       per_photo)
        print(_line(folder.name, t), flush=True)
        total.update(t)
    if len(args.dirs) > 1:
        print(_line("all", total))
    if args.json:
        Path(args.json).write_text(json.dumps(per_photo, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
