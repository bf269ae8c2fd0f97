"""Wauri counting error by true pile size (0, 1, 2, 3, 4, >=5 seeds; pits and stores apart).

Runs :func:`vision.wauri_recognition.recognize` on every photo of a simulator dataset and
compares the answered counts with the truth, in the orientation that fits better (the
orientation question is scored by ``benchmarks/wauri_recognition_eval.py``). Prints, per
true count bucket, the cavities, the share counted exactly and the mean signed error
(negative = under-counted), then the seeds miscounted (sum of absolute errors) and the
share of all cavities counted exactly.

Usage::

    nice .venv/bin/python benchmarks/wauri_recognition_piles.py /tmp/w3_dev_n
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))



def main(argv=None) -> int:
    import cv2

    from vision import wauri_recognition as wr
    from vision.evaluation import find_photos
    from vision.recognize import NothingFound

    argv = sys.argv[1:] if argv is None else argv
    root = Path(argv[0])
    stats = collections.defaultdict(lambda: [0, 0, 0])  # bucket -> [n, exact, sum err]
    photos = boards = perfect = abs_err = seeds = 0
    for path, truth in find_photos(root, "wauri"):
        img = cv2.imread(str(path))
        photos += 1
        try:
            ans = wr.recognize(img)
        except NothingFound:
            continue
        boards += 1
        got = wr.counts_of(ans)
        want = wr.counts_of(truth["state"])
        flipped = wr.flip_counts(want)
        wrong = sum(a != b for a, b in zip(got, want, strict=True))
        wrong_flipped = sum(a != b for a, b in zip(got, flipped, strict=True))
        if wrong_flipped < wrong:
            want, wrong = flipped, wrong_flipped
        perfect += wrong == 0
        abs_err += sum(abs(a - b) for a, b in zip(got, want, strict=True))
        seeds += sum(want)
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            kind = "store" if k >= 12 else "pit"
            bucket = (kind, min(w, 5))
            s = stats[bucket]
            s[0] += 1
            s[1] += g == w
            s[2] += g - w
    print(f"photos {photos}, boards found {boards}, all 14 counts exact {perfect}")
    tot = [0, 0]
    for kind in ("pit", "store"):
        for b in range(6):
            n, exact, err = stats.get((kind, b), [0, 0, 0])
            tot[0] += n
            tot[1] += exact
            if n:
                label = f"{b}" if b < 5 else ">=5"
                print(f"{kind:5s} true {label:>3s}: n={n:3d} exact {100 * exact / n:5.1f} %"
                      f"  mean err {err / n:+.2f}")
    if tot[0]:
        print(f"seeds miscounted (sum of |error|): {abs_err} of {seeds}")
        print(f"all cavities: {tot[0]}, exact {100 * tot[1] / tot[0]:.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
