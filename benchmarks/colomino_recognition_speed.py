"""Colomino recognition speed: CPU time of recognition vs JPEG decode, per photo.

Usage: ``python benchmarks/colomino_recognition_speed.py DIR [--limit N]`` (DIR holds
simulator photos). Reports the median ratio of recognition CPU time (decoded image →
answer) to ``cv2.imdecode`` CPU time of the same bytes; CPU time (``process_time``)
is used because wall-clock ratios are meaningless on a loaded, shared machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np


def cpu(fn, repeats: int = 3) -> float:
    """Smallest CPU time of ``repeats`` calls of ``fn`` (seconds)."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--limit", type=int, default=20)
    args = ap.parse_args(argv)
    from vision import colomino_recognition as cr
    from vision.recognize import NothingFound

    cv2.setNumThreads(1)
    ratios = []
    for path in sorted(Path(args.folder).glob("*.jpg"))[: args.limit]:
        data = np.frombuffer(path.read_bytes(), np.uint8)
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)

        def run(image=image):
            try:
                cr.recognize(image)
            except NothingFound:
                pass

        run()  # warm-up (imports, caches)
        dec = cpu(lambda data=data: cv2.imdecode(data, cv2.IMREAD_COLOR))
        rec = cpu(run, repeats=2)
        ratios.append(rec / dec)
        print(f"{path.name}: decode {dec * 1000:.1f} ms, recognise {rec * 1000:.1f} ms, "
              f"ratio {rec / dec:.2f}")
    if not ratios:
        print("no photos")
        return 1
    print(f"median ratio {statistics.median(ratios):.2f} over {len(ratios)} photos")
    return 0


if __name__ == "__main__":
    sys.exit(main())
