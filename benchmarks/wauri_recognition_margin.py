"""How often tracking claims a wrong turn, on readings drawn from the count model.

Plays random Wauri turns with the engine (positions 0-40 plies into random games), draws
the visible seed peaks of the position after the turn from
:func:`vision.seed_counting.visible_mean_sigma` (Gaussian, spread ``--noise`` times the
model's, rounded, at a photo detection rate drawn log-normally with sd ``--rate-sd``)
and asks :func:`vision.wauri_recognition.track` for the turn. Prints turns right and
wrong among those explained for several margins (``MIN_MARGIN`` is the one used), and
with ``--no-rate`` the same with the detection rate held at 1. No photos: this measures
the decision rule, not the counter (``benchmarks/wauri_tracking.py`` does photos).

Usage::

    nice .venv/bin/python benchmarks/wauri_recognition_margin.py --turns 600 --noise 1.0
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    import numpy as np
    from wauri_tracking import play_turn

    from engines.wauri import WauriState
    from vision import pit_layout as pl
    from vision import seed_counting as sc
    from vision import wauri_recognition as wr

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=600)
    ap.add_argument("--noise", type=float, default=1.0)
    ap.add_argument("--rate-sd", type=float, default=0.25)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-rate", action="store_true")
    args = ap.parse_args(argv)
    if args.no_rate:
        wr.RATES = (1.0,)
    fit = pl.BoardFit(np.eye(3), 1.0, 14, False, 0.8)
    rng = random.Random(args.seed)
    nrng = np.random.default_rng(args.seed)
    rejected = 0
    results = []  # (margin, right)
    for _ in range(args.turns):
        state = WauriState()
        for _ply in range(rng.randrange(0, 40)):
            if state.is_over():
                break
            state.push(rng.choice(list(state.legal_moves())))
        if state.is_over():
            continue
        before = state.position()
        pits = play_turn(state, rng)
        counts = np.array(wr.state_counts(state.position()))
        rate = float(np.exp(nrng.normal(0.0, args.rate_sd)))
        mean, sigma = sc.visible_mean_sigma(counts, np.array(wr.STORES), rate)
        vis = np.maximum(0, np.round(mean + nrng.normal(0, 1, 14) * sigma * args.noise))
        vis = tuple(int(v) for v in vis)
        reading = wr.BoardReading(vis, (1.0,) * 14, vis, fit.centres_px(), fit, 0.8,
                                  tuple(np.zeros((0, 2)) for _ in vis))
        best, ranked = wr.track(before, reading)
        if best is None:
            rejected += 1
            continue
        right = best.moves == pits and best.position == state.position()
        results.append((wr.margin(ranked), right))
    res = np.array(results, dtype=float).reshape(-1, 2)
    print(f"turns {len(res) + rejected}, rejected as misread {rejected} "
          f"(noise {args.noise}, rate sd {args.rate_sd}, rate fitted: {not args.no_rate})")
    for th in (1.0, 2.0, wr.MIN_MARGIN, 4.0, 6.0):
        ok = res[:, 0] >= th
        print(f"margin >= {th:.1f}{' (MIN_MARGIN)' if th == wr.MIN_MARGIN else ''}: "
              f"right explained {int((ok & (res[:, 1] == 1)).sum())}, "
              f"WRONG explained {int((ok & (res[:, 1] == 0)).sum())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
