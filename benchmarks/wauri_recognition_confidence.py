"""How honest are the Wauri per-cavity count confidences? Calibration on cached board views.

Reads the caches of ``benchmarks/wauri_recognition_views.py`` (right fits only), counts
every view as the recogniser does (:func:`vision.wauri_recognition.best_counts`) and
scores the confidence each answered count gets (:func:`vision.wauri_recognition.
count_confidences`) against the truth: Brier score and log-loss over all cavities, and per
confidence band the cavities, their mean confidence and the share answered right (stores
apart), then the cavities warned as pile guesses (count above the peaks seen, confidence
below :data:`vision.wauri_recognition.GUESS_CONFIDENCE`) and how many of them were right.

``--flat`` scores the flat-prior confidence (each cavity's own reading, no total) instead
of the confidence given the 48-seed total that ``recognize`` reports.

Usage::

    nice .venv/bin/python benchmarks/wauri_recognition_confidence.py CACHE.pkl ... [--flat]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

BANDS = ((0.0, 0.2), (0.2, 0.4), (0.4, 0.6), (0.6, 0.8), (0.8, 0.95), (0.95, 1.01))


def main(argv=None) -> int:
    import numpy as np
    from wauri_recognition_views import right_fit_counts

    from vision import wauri_recognition as wr

    ap = argparse.ArgumentParser()
    ap.add_argument("caches", nargs="+")
    ap.add_argument("--flat", action="store_true", help="flat-prior confidences")
    args = ap.parse_args(argv)
    conf, right, store, guess = [], [], [], []
    for path in args.caches:
        for it, r, counts in right_fit_counts(path):
            c = wr.count_confidences(r.visible, counts, cover=r.cover, scale=r.cover_scale,
                                     spill=r.spill, parallax=r.parallax,
                                     total=None if args.flat else wr.GAME_SEEDS)
            for k in range(14):
                conf.append(c[k])
                right.append(counts[k] == it["true"][k])
                store.append(k >= 12)
                guess.append(counts[k] > r.visible[k] and c[k] < wr.GUESS_CONFIDENCE)
    c, y, s, g = (np.array(x) for x in (conf, right, store, guess))
    p_right = np.clip(np.where(y, c, 1.0 - c), 1e-6, 1.0)
    print(f"cavities {len(c)}: Brier {((c - y) ** 2).mean():.4f}, "
          f"log-loss {-np.log(p_right).mean():.4f}")
    for lo, hi in BANDS:
        m = (c >= lo) & (c < hi)
        if not m.any():
            continue
        st = m & s
        st_right = f"{y[st].mean():.2f}" if st.any() else "-"
        print(f"  confidence [{lo:.2f}, {min(hi, 1.0):.2f}): {m.sum():4d} cavities, mean "
              f"{c[m].mean():.2f}, right {y[m].mean():.2f} (stores {st.sum()}, right "
              f"{st_right})")
    print(f"warned pile guesses {g.sum()}, right {y[g].mean() if g.any() else 0:.2f}; "
          f"wrong without a warning {(~g & ~y).sum()} of {(~g).sum()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
