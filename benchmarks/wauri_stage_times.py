"""Where the Wauri recogniser spends its CPU time, stage by stage.

Usage: ``python benchmarks/wauri_stage_times.py DIR [DIR ...] [--limit N]`` (DIRs hold
photos, e.g. simulator datasets or ``sample_images``). Every photo is recognised once
(one OpenCV thread, ``process_time``) with the main stages of ``vision.pit_layout`` and
``vision.wauri_recognition`` wrapped by a timer; prints the median JPEG decode time and,
per stage, its calls and CPU milliseconds per photo. Stages nest (``find_boards``
contains ``polish_fit``, which contains ``cavity_response`` ...), so the column does not
add up; the timer itself costs a little per call. (find_boards takes the plain lattice's
fits from a generator, so its refits show under ``_refit_pits`` only.)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent

STAGES = {
    "pit_layout": ("find_boards", "_lattice_pool", "_spot_images", "_pit_spots",
                   "pit_candidates", "lattice_fits", "_refit_pits", "_chained", "polish_fit",
                   "_polish_rounds", "polish_further", "cavity_response", "cavity_contrast",
                   "_ghost_penalty", "_body_fits", "_quad_fits", "_region_fits",
                   "table_lattice_homographies", "fit_cavities", "rectify"),
    "wauri_recognition": ("recognize", "count_view"),
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--limit", type=int, default=30, help="photos per folder")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from vision import pit_layout, wauri_recognition
    from vision.recognize import NothingFound

    cv2.setNumThreads(1)
    spent: Counter = Counter()
    calls: Counter = Counter()

    def timed(name, fn):
        def wrapper(*a, **k):
            t0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                spent[name] += time.process_time() - t0
                calls[name] += 1
        return wrapper

    for mod in (pit_layout, wauri_recognition):
        for name in STAGES[mod.__name__.rsplit(".", 1)[1]]:
            setattr(mod, name, timed(name, getattr(mod, name)))

    decode, n = [], 0
    for folder in args.folders:
        for path in sorted(Path(folder).glob("*.jpg"))[: args.limit]:
            data = np.frombuffer(path.read_bytes(), np.uint8)
            t0 = time.process_time()
            image = cv2.imdecode(data, cv2.IMREAD_COLOR)
            decode.append(time.process_time() - t0)
            try:
                wauri_recognition.recognize(image)
            except NothingFound:
                pass
            n += 1
    if not n:
        print("no photos")
        return 1
    print(f"photos {n}: median decode {statistics.median(decode) * 1000:.1f} ms")
    print(f"{'stage':26s} {'calls/photo':>11s} {'ms/photo':>9s}")
    for name, s in spent.most_common():
        print(f"{name:26s} {calls[name] / n:11.1f} {s * 1000 / n:9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
