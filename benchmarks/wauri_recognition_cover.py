"""Wauri pile counting with and without the empty-pit comparison (``BOWL_CHECK``).

:func:`vision.wauri_recognition.bowl_check` compares every round pit with the pits read
empty in the same photo: peaks where the floor looks like the bare bowl are dropped, and
each pit's seed-covered share (:func:`vision.seed_counting.pit_cover`) joins the count
likelihood. This script reads every photo of each simulator dataset twice (the flag off,
then on; same board fit), scores the integer counts against the truth in the orientation
that fits better, and prints per dataset the cavities exactly counted and the perfect
boards, off -> on, then the covered share by true count of the round pits (mean ± sd),
measured on the boards whose 14 cavity centres lie within a third of a pit radius of the
truth (the diagnosis behind :func:`vision.seed_counting.cover_mean_sigma`).

Usage::

    nice .venv/bin/python benchmarks/wauri_recognition_cover.py /tmp/wc5_n /tmp/wc5_h
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _exact(got, want, flip_counts) -> int:
    return max(sum(a == b for a, b in zip(got, w, strict=True))
               for w in (want, flip_counts(want)))


def main(argv=None) -> int:
    import cv2
    import numpy as np

    from vision import wauri_recognition as wr
    from vision.evaluation import find_photos
    from vision.recognize import NothingFound

    argv = sys.argv[1:] if argv is None else argv
    cover_by_true = collections.defaultdict(list)
    saved = wr.BOWL_CHECK
    try:
        for folder in argv:
            n = 0
            exact = [0, 0]
            perfect = [0, 0]
            for path, truth in find_photos(Path(folder), "wauri"):
                img = cv2.imread(str(path))
                n += 1
                want = wr.counts_of(truth["state"])
                for on in (False, True):
                    wr.BOWL_CHECK = on
                    try:
                        reading = wr.read_board(img)
                    except NothingFound:
                        break
                    counts, _ = wr.best_counts(reading)
                    e = _exact(counts, want, wr.flip_counts)
                    exact[on] += e
                    perfect[on] += e == 14
                if not on or reading.cover is None:
                    continue
                by_name = {p["pit"]: p for p in truth["pieces"]}
                tc = np.array([by_name[k]["center_px"] for k in wr.NAMES])
                pit_px = np.median(np.hypot(*(tc[1:6] - tc[0:5]).T)) * 25.0 / 62.0
                flip = wr.flip_counts(list(range(14)))
                d0 = np.hypot(*(reading.centres_px - tc).T)
                d1 = np.hypot(*(reading.centres_px - tc[flip]).T)
                flipped = d1.mean() < d0.mean()
                true = wr.flip_counts(want) if flipped else want
                if ((d1 if flipped else d0) < pit_px / 3).all():
                    for k in range(12):
                        if np.isfinite(reading.cover[k]):
                            cover_by_true[min(true[k], 12)].append(reading.cover[k])
            print(f"{folder}: {n} photos, cavities exact (up to 180°) {exact[0]} -> "
                  f"{exact[1]} of {14 * n}, boards perfect {perfect[0]} -> {perfect[1]}")
    finally:
        wr.BOWL_CHECK = saved
    print("round pits: covered share by true count (12 = 12 or more)")
    for t, v in sorted(cover_by_true.items()):
        print(f"  {t:2d}: {np.mean(v):.2f} ± {np.std(v):.2f}  (n={len(v)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
