"""Wauri recognition accuracy on simulator photos, with the orientation question split out.

``boardcam evaluate DIR --game wauri`` scores answers against the truth as written. A
Wauri board looks the same turned by 180°, and the recogniser follows the convention
"south's row is nearer the image bottom"; the simulator sometimes puts the photographer
elsewhere (its truth says ``south_side``). This script reports both figures:

* *as written*: pits and stores exactly counted, as ``boardcam evaluate`` counts them;
* *counting only*: the truth turned to the recogniser's orientation when that is the
  only difference (min over the two orientations), i.e. how well seeds are counted;
* the raw per-cavity error histogram and the median time / JPEG-decode ratio, in wall
  time and in CPU time of this process (steadier on a shared machine; OpenCV is held to
  one thread for both the decode and the recognition).

Usage::

    nice .venv/bin/python benchmarks/wauri_recognition_eval.py /tmp/wauri_normal_777777
"""

from __future__ import annotations

import collections
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))



def main(argv=None) -> int:
    import numpy as np

    from vision.evaluation import _decode_seconds, find_photos
    from vision.image_io import decode_photo
    from vision.recognize import NothingFound
    from vision.wauri_recognition import counts_of, flip_counts, recognize

    argv = sys.argv[1:] if argv is None else argv
    folder = Path(argv[0])
    limit = int(argv[1]) if len(argv) > 1 else None
    photos = find_photos(folder, "wauri")[:limit]
    n = pits_ok = pits_ok_any = perfect = perfect_any = failures = 0
    by_side = collections.Counter()
    errs = collections.Counter()
    by_truth = collections.defaultdict(lambda: [0, 0])
    ratios = []
    cpu_ratios = []
    import cv2

    for path, truth in photos:
        data = path.read_bytes()
        dec = _decode_seconds(data)
        threads = cv2.getNumThreads()
        cv2.setNumThreads(1)
        c0 = time.process_time()
        for _ in range(3):
            image = decode_photo(data)
        cpu_dec = (time.process_time() - c0) / 3
        cv2.setNumThreads(threads)
        t0 = time.perf_counter()
        c0 = time.process_time()
        try:
            ans = recognize(image)
        except NothingFound:
            ans = None
        ratios.append((time.perf_counter() - t0) / dec)
        cpu_ratios.append((time.process_time() - c0) / max(cpu_dec, 1e-6))
        n += 1
        want = counts_of(truth["state"])
        if ans is None:
            failures += 1
            continue
        got = counts_of(ans)
        a = sum(x == y for x, y in zip(want, got, strict=True))
        b = sum(x == y for x, y in zip(flip_counts(want), got, strict=True))
        pits_ok += a
        pits_ok_any += max(a, b)
        perfect += a == 14
        perfect_any += max(a, b) == 14
        by_side[(truth.get("south_side"), a >= b)] += 1
        use = want if a >= b else flip_counts(want)
        for x, y in zip(use, got, strict=True):
            errs[y - x] += 1
            by_truth[min(x, 20)][0] += x == y
            by_truth[min(x, 20)][1] += 1
    print(f"photos {n}  no board found {failures}")
    print(f"pits+stores exact as written : {pits_ok}/{14 * n} "
          f"({100.0 * pits_ok / max(14 * n, 1):.2f} %), boards perfect {perfect}")
    print(f"pits+stores exact up to 180° : {pits_ok_any}/{14 * n} "
          f"({100.0 * pits_ok_any / max(14 * n, 1):.2f} %), boards perfect {perfect_any}")
    print("orientation (truth south_side, read as written?):", dict(by_side))
    print("count error histogram (read - true):", dict(sorted(errs.items())))
    print("exact by true count:", {k: f"{v[0]}/{v[1]}" for k, v in sorted(by_truth.items())})
    if ratios:
        print(f"median time/decode ratio {statistics.median(ratios):.2f} "
              f"(mean {np.mean(ratios):.2f}); CPU time {statistics.median(cpu_ratios):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
