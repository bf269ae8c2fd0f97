"""Cache the rectified board views of a Wauri simulator dataset, for counting experiments.

Finding the board costs most of a recognition; counting a rectified view costs ~30 ms.
This script runs the board finder once per photo (:func:`vision.wauri_recognition.
read_board`), rectifies the found board exactly as the recogniser does and stores, per
photo, the top view (BGR), its view -> board-mm matrix, the fit's board-mm -> photo
homography, the true counts turned to the fit's orientation, and whether the fit is
right (all 14 cavity centres within a third of a pit radius of the truth), and the
truth's seed centres per cavity mapped into the view (``seeds_view``, for diagnosis).

``--score`` then re-counts every cached view with the current code (:func:`reading_of`:
count_view, pile_spill and bowl_check as their flags say, then best_counts) and prints
the cavities counted exactly on right fits by true count (pits p0..p6+, stores
s0..s6+) and how many of each were read high / low, the boards whose 12 pits are exact
but a store is not (and those whose stores add up right but split wrong), how often the
peaks alone equal the truth where a top view shows every seed (pits of up to 4, stores
of up to 12: detection, not the pile guess), the boards perfect and the sum of |count
error|: a change of the counter is
measured in seconds, on boards found right only. The cache holds the board fits of the
code that built it: rebuild it after board-finder changes.

Usage::

    nice .venv/bin/python benchmarks/wauri_recognition_views.py /tmp/wc6_5400 CACHE.pkl
    nice .venv/bin/python benchmarks/wauri_recognition_views.py --score CACHE.pkl ...
"""

from __future__ import annotations

import argparse
import collections
import pickle
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def build(folder: Path, out: Path) -> None:
    """Run the board finder on every photo of ``folder`` and pickle the views to ``out``."""
    import cv2
    import numpy as np

    from vision import pit_layout as pl
    from vision import wauri_recognition as wr
    from vision.evaluation import find_photos
    from vision.recognize import NothingFound

    items = []
    for path, truth in find_photos(folder, "wauri"):
        img = cv2.imread(str(path))
        try:
            reading = wr.read_board(img)
        except NothingFound:
            items.append({"photo": path.name, "found": False})
            continue
        fit = reading.fit
        pyr = pl.Pyramid(img)
        ppm = float(np.clip(fit.px_per_mm(), 0.8, 1.5))
        view, to_mm = pl.rectify(pyr, fit.homography, ppm, pl.BOARD_HALF_X, pl.BOARD_HALF_Y)
        by_name = {p["pit"]: p for p in truth["pieces"]}
        tc = np.array([by_name[n]["center_px"] for n in wr.NAMES])
        flip = wr.flip_counts(list(range(14)))
        d0 = np.hypot(*(reading.centres_px - tc).T)
        d1 = np.hypot(*(reading.centres_px - tc[flip]).T)
        flipped = bool(d1.mean() < d0.mean())
        d = d1 if flipped else d0
        pit_px = np.median(np.hypot(*(tc[1:6] - tc[0:5]).T)) * 25.0 / 62.0
        want = wr.counts_of(truth["state"])
        # the truth's seed centres per cavity, mapped into the top view (fit orientation)
        img_to_view = np.linalg.inv(fit.homography @ to_mm)
        seeds = []
        for n in wr.NAMES:
            pts = np.asarray(by_name[n].get("seeds_px", []), np.float64).reshape(-1, 2)
            seeds.append(cv2.perspectiveTransform(pts.reshape(-1, 1, 2), img_to_view)
                         .reshape(-1, 2) if len(pts) else np.zeros((0, 2)))
        items.append({"seeds_view": wr.flip_counts(seeds) if flipped else seeds,
                      "photo": path.name, "found": True, "view": view, "to_mm": to_mm,
                      "shape": img.shape[:2],
                      "hom": fit.homography,
                      "true": wr.flip_counts(want) if flipped else want,
                      "fit_ok": bool((d < pit_px / 3).all())})
    with open(out, "wb") as f:
        pickle.dump(items, f)
    print(f"{folder}: {len(items)} photos, found {sum(i['found'] for i in items)}, "
          f"fitted right {sum(i.get('fit_ok', False) for i in items)}")


def score(cache: Path) -> tuple[int, int]:
    """Re-count the cached right fits; print exact by true count; return (exact, n)."""
    import numpy as np


    stats = collections.defaultdict(lambda: [0, 0, 0, 0])  # n, exact, over, under
    perfect = boards = abs_err = 0
    sum_ok_split_bad = pits_ok_stores_bad = 0
    seen = np.zeros((2, 4), np.int64)  # pits <= 4 / stores <= 12 seeds: n, exact, high, low
    for it, reading, counts in right_fit_counts(cache):
        want = it["true"]
        boards += 1
        perfect += list(counts) == list(want)
        abs_err += int(np.abs(np.array(counts) - np.array(want)).sum())
        for k, (g, w) in enumerate(zip(counts, want, strict=True)):
            b = ("store" if k >= 12 else "pit", min(w, 6))
            stats[b][0] += 1
            stats[b][1] += g == w
            stats[b][2] += g > w
            stats[b][3] += g < w
        for k, w in enumerate(want):
            # the peaks themselves where a top view shows every seed (one layer)
            if w <= (12 if k >= 12 else 4):
                v = reading.visible[k]
                seen[int(k >= 12)] += np.array([1, v == w, v > w, v < w])
        pits_ok = list(counts[:12]) == list(want[:12])
        stores_bad = list(counts[12:]) != list(want[12:])
        pits_ok_stores_bad += pits_ok and stores_bad
        sum_ok_split_bad += stores_bad and counts[12] + counts[13] == want[12] + want[13]
    n = sum(v[0] for v in stats.values())
    ex = sum(v[1] for v in stats.values())
    row = "  ".join(f"{kind[0]}{t}{'+' if t == 6 else ''} {stats[(kind, t)][1]}/"
                    f"{stats[(kind, t)][0]}" for kind in ("pit", "store") for t in range(7)
                    if stats[(kind, t)][0])
    over = "  ".join(f"{kind[0]}{t}{'+' if t == 6 else ''} +{stats[(kind, t)][2]}/"
                     f"-{stats[(kind, t)][3]}" for kind in ("pit", "store") for t in range(7)
                     if stats[(kind, t)][0])
    print(f"{cache.name}: boards {boards} perfect {perfect}, cavities exact {ex}/{n}, "
          f"|err| {abs_err}\n  {row}\n  read high/low: {over}\n  boards with all pits exact "
          f"and a store wrong {pits_ok_stores_bad}; stores' sum right, split wrong "
          f"{sum_ok_split_bad}\n  peaks = truth: pits of <= 4 seeds {seen[0, 1]}/{seen[0, 0]} "
          f"(high {seen[0, 2]}, low {seen[0, 3]}), stores of <= 12 {seen[1, 1]}/{seen[1, 0]} "
          f"(high {seen[1, 2]}, low {seen[1, 3]})")
    return ex, n


def right_fit_counts(cache):
    """``(item, reading, counts)`` for every cached view of a right fit in the pickle
    ``cache``, re-counted with the current code (:func:`reading_of`, then
    :func:`vision.wauri_recognition.best_counts`)."""
    from vision import wauri_recognition as wr

    with open(cache, "rb") as f:
        items = pickle.load(f)
    for it in items:
        if not it.get("fit_ok"):
            continue
        reading = reading_of(it["view"], it["to_mm"], it["hom"], it.get("shape"))
        counts, _ = wr.best_counts(reading)
        yield it, reading, counts


def reading_of(view, to_mm, hom, shape=None):
    """A :class:`vision.wauri_recognition.BoardReading` of a cached view, read as
    :func:`vision.wauri_recognition._read_fit` reads it (no board fit object: centres
    are zeros). ``shape``: the photo's ``(H, W)`` (the cache's ``"shape"``; caches built
    before session 14 lack it: then the spill's old "away", up in the photo)."""
    import numpy as np

    from vision import wauri_recognition as wr

    readings = wr.count_view(view, to_mm)
    spill = wr.pile_spill(view, to_mm, hom @ to_mm, shape) if wr.PILE_SPILL else None
    parallax = (wr.pit_parallax(to_mm, hom @ to_mm, shape)
                if wr.PILE_SPILL and wr.BARE_BAND else None)
    cover, scale = None, None
    if wr.BOWL_CHECK:
        readings, cover, scale = wr.bowl_check(view, to_mm, readings)
    return wr.BoardReading(
        tuple(r.estimate for r in readings), tuple(r.sigma for r in readings),
        tuple(r.visible for r in readings), np.zeros((14, 2)), None, 1.0,
        tuple(r.peaks for r in readings), cover, scale, spill, parallax)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--score", action="store_true")
    args = ap.parse_args(argv)
    if args.score:
        tot = [0, 0]
        for p in args.paths:
            e, n = score(Path(p))
            tot[0] += e
            tot[1] += n
        print(f"total exact {tot[0]}/{tot[1]}")
        return 0
    build(Path(args.paths[0]), Path(args.paths[1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
