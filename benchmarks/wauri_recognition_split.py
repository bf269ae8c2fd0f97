"""Where the Wauri count errors come from, on cached board views (right fits only).

Reads caches of ``benchmarks/wauri_recognition_views.py``, re-counts every right fit as
the recogniser does (:func:`wauri_recognition_views.reading_of`, then
:func:`vision.wauri_recognition.best_counts`) and prints, per cavity kind and true count,
the cavities, how many were answered exactly / high / low, the mean visible peaks and the
mean answer; then the wrong cavities by named class:

- ``seen``: a cavity the top view shows every seed of (pits of up to 4 seeds, stores of
  up to 12) whose peaks differ from the truth (detection: a missed or false peak);
- ``pile``: a pit of 5+ seeds or a store of 13+ (the count is placed by the total);
- ``moved``: a cavity whose peaks equal the truth but whose answer does not (the total
  moved a pile's hidden seeds there);

and per board the seeds the peaks do not show (48 minus the peaks) against the seeds the
truth hides (true minus peaks, summed over cavities where positive).

Usage::

    nice .venv/bin/python benchmarks/wauri_recognition_split.py CACHE.pkl ... [--dump F]
"""

from __future__ import annotations

import argparse
import collections
import pickle
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def main(argv=None) -> int:
    import numpy as np
    from wauri_recognition_views import right_fit_counts


    ap = argparse.ArgumentParser()
    ap.add_argument("caches", nargs="+")
    ap.add_argument("--dump", help="pickle the per-board records here")
    args = ap.parse_args(argv)
    rows = collections.defaultdict(lambda: np.zeros(5))  # n, exact, high, low, vis sum
    ans = collections.defaultdict(float)
    classes = collections.Counter()
    records = []
    for path in args.caches:
        for it, r, counts in right_fit_counts(path):
            want = list(it["true"])
            records.append({"cache": str(path), "photo": it["photo"], "true": want,
                            "counts": list(counts), "visible": list(r.visible),
                            "spill": r.spill, "peaks": r.seeds_px,
                            "seeds_view": it.get("seeds_view")})
            for k, (g, w) in enumerate(zip(counts, want, strict=True)):
                store = k >= 12
                key = ("s" if store else "p", min(w, 20 if store else 9))
                v = r.visible[k]
                rows[key] += np.array([1, g == w, g > w, g < w, v])
                ans[key] += g
                if g == w:
                    continue
                if w <= (12 if store else 4) and v != w:
                    name = "seen"
                elif w >= (13 if store else 5):
                    name = "pile"
                else:
                    name = "moved"
                classes[("store" if store else "pit", name, "high" if g > w else "low")] += 1
    for key in sorted(rows):
        n, ex, hi, lo, vs = rows[key]
        print(f"{key[0]}{key[1]:2d}: n {int(n):3d} exact {int(ex):3d} high {int(hi):3d} "
              f"low {int(lo):3d}  peaks {vs / n:5.2f}  answer {ans[key] / n:5.2f}")
    print("wrong cavities by class:")
    for key, c in sorted(classes.items()):
        print(f"  {key[0]:5s} {key[1]:5s} {key[2]:4s} {c}")
    hid = np.array([[48 - sum(x["visible"]),
                     sum(max(0, w - v) for w, v in zip(x["true"], x["visible"], strict=True))]
                    for x in records])
    if len(hid):
        print(f"boards {len(hid)}: seeds not shown (48 - peaks) median {np.median(hid[:, 0])}, "
              f"seeds hidden (true - peaks, > 0) median {np.median(hid[:, 1])}")
    if args.dump:
        with open(args.dump, "wb") as f:
            pickle.dump(records, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
