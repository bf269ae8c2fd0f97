"""Colomino cell reading diagnosis with the field cached: the stages after finding the
field, run again and again on the same photos in seconds.

Usage: ``python benchmarks/colomino_cells_diag.py DIR [DIR ...] [--cache CACHE_DIR]
[--limit N] [-v]``.

The first run finds every photo's field (:func:`vision.colomino_field.locate_field`) and
stores ``(H, n, score, canon)`` in ``CACHE_DIR`` (default ``DIR/.field_cache``); later
runs read it back, so only the cell reading (:mod:`vision.colomino_recognition`) runs.
Each photo is bucketed by :func:`colomino_recognition_diag.diagnose` (the truth is used
only there); prints the buckets and cell-error counts per folder, and with ``-v`` one
line per photo that is not perfect. Results equal the plain diagnosis as long as the
field finder is unchanged since the cache was written (delete the cache otherwise).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from colomino_recognition_diag import diagnose  # noqa: E402

from vision import colomino_recognition as cr  # noqa: E402
from vision.recognize import NothingFound  # noqa: E402


def cached_locate(cache: Path, key: str):
    """A stand-in for ``locate_field`` reading/writing ``cache/key.pkl``."""
    real = cr.locate_field.__wrapped__ if hasattr(cr.locate_field, "__wrapped__") else (
        cr.locate_field)

    def locate(image):
        path = cache / f"{key}.pkl"
        if path.exists():
            got = pickle.loads(path.read_bytes())
            if got is None:
                raise NothingFound("no board found")
            return got
        try:
            got = real(image)
        except NothingFound:
            path.write_bytes(pickle.dumps(None))
            raise
        path.write_bytes(pickle.dumps(got))
        return got

    locate.__wrapped__ = real
    return locate


def cached_photos(folder: Path, cache: Path, limit: int):
    """Yield ``(truth file, truth)`` of the Colomino photos of ``folder`` (the first
    ``limit``, 0 = all) with ``cr.locate_field`` reading its field from ``cache``
    (:func:`cached_locate`) while each is handled; the real one is restored after."""
    cache.mkdir(parents=True, exist_ok=True)
    files = sorted(f for f in folder.glob("*.json") if f.with_suffix(".jpg").exists())
    if limit:
        files = files[:limit]
    real = cr.locate_field
    try:
        for f in files:
            truth = json.loads(f.read_text())
            if truth.get("game") != "colomino":
                continue
            cr.locate_field = cached_locate(cache, f.stem)
            yield f, truth
    finally:
        cr.locate_field = real


def run_folder(folder: Path, cache: Path, limit: int, verbose: bool):
    """Buckets and details (Counters) of one folder; prints per photo with ``verbose``."""
    buckets: Counter = Counter()
    details: Counter = Counter()
    for f, truth in cached_photos(folder, cache, limit):
        bucket, det, _ = diagnose(f.with_suffix(".jpg"), truth)
        buckets[bucket] += 1
        details.update(det)
        if verbose and bucket != "perfect":
            print(f"  {f.stem}: {bucket} {dict(det)}")
    return buckets, details


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--cache", default="")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args(argv)
    for d in args.dirs:
        folder = Path(d)
        cache = Path(args.cache) / folder.name if args.cache else folder / ".field_cache"
        buckets, details = run_folder(folder, cache, args.limit, args.v)
        total = sum(buckets.values())
        errs = sum(details.values()) - details["base unknown"]
        print(f"{folder.name}: photos {total}: "
              + ", ".join(f"{k} {v}" for k, v in buckets.most_common())
              + f" | cell errors {errs}: "
              + ", ".join(f"{k} {v}" for k, v in details.most_common()), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
