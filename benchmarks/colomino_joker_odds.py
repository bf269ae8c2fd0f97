"""Colomino: how likely an empty-looking cell holds a white joker (fit and check).

Usage::

    python benchmarks/colomino_joker_odds.py --fit DEV_DIR [DEV_DIR ...] [--cache C]
    python benchmarks/colomino_joker_odds.py CHECK_DIR [CHECK_DIR ...] [--cache C]

Every photo whose field the recogniser finds at the truth's size (fields cached as in
``colomino_cells_diag.py``; a photo with more than eight cells wrong between empty and
joker is a misfitted field and left out) gives the cells :func:`joker_probability` may
judge: not read as tiles, beside a tile or at the field's edge. With ``--fit`` the
logistic model (:data:`JOKER_ODDS_COEF`) is fitted to them (L2 ``--l2``, IRLS) and its
weights printed; otherwise the module's model is checked: jokers found by the cascade
(:func:`find_jokers`), then, of the cells not found, per bin of the probability, the
cells and the jokers among them (the bin's share should match its probability), and how
many empty cells the warning (:data:`JOKER_WARN`) names and how many of them are jokers.
The truth is used only here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from colomino_cells_diag import cached_photos  # noqa: E402

from vision import colomino_recognition as cr  # noqa: E402
from vision.recognize import NothingFound  # noqa: E402


def cells(folders, cache: str):
    """``(features (m, 10), joker truth (m,), found by the cascade (m,), p (m,))``."""
    got: dict = {}
    real_p, real_fj = cr.joker_probability, cr.find_jokers

    def probe_p(tri_n, centre, loo, is_tile, tri, shade):
        got["f"] = cr.joker_features(tri_n, centre, loo, is_tile, tri, shade)
        got["p"] = real_p(tri_n, centre, loo, is_tile, tri, shade)
        return got["p"]

    def probe_fj(*a, **k):
        got["j"] = out = real_fj(*a, **k)
        return out

    X, y, found, prob = [], [], [], []
    cr.joker_probability, cr.find_jokers = probe_p, probe_fj
    try:
        for folder in map(Path, folders):
            where = Path(cache) / folder.name if cache else folder / ".field_cache"
            for f, truth in cached_photos(folder, where, 0):
                cr._TRACE = trace = {}
                got.clear()
                try:
                    ans = cr.recognize(cv2.imread(str(f.with_suffix(".jpg"))))
                except NothingFound:
                    continue
                finally:
                    cr._TRACE = None
                want = truth["state"]["rows"]
                n = ans["size"]
                if n != len(want) or got.get("f") is None or "turns" not in trace:
                    continue
                swaps = sum((ans["rows"][r][c] == ".") != (want[r][c] == ".")
                            for r in range(n) for c in range(n)
                            if {ans["rows"][r][c], want[r][c]} <= {".", "*"})
                if swaps > 8:
                    continue

                def spec(a, t=trace["turns"]):
                    return np.rot90(a, -t, axes=(0, 1))

                feats, ok = (spec(a) for a in got["f"])
                p = spec(got["p"])
                jk = np.zeros((n, n), bool)
                for _, r, c in got["j"]:
                    jk[r, c] = True
                jk = spec(jk)
                for r, c in zip(*np.nonzero(ok | jk), strict=True):
                    if want[r][c] in ".*":
                        X.append(feats[r, c])
                        y.append(want[r][c] == "*")
                        found.append(bool(jk[r, c]))
                        prob.append(float(p[r, c]))
    finally:
        cr.joker_probability, cr.find_jokers = real_p, real_fj
    return np.array(X), np.array(y), np.array(found), np.array(prob)


def fit(X: np.ndarray, y: np.ndarray, l2: float) -> np.ndarray:
    """Logistic regression by IRLS, the intercept (column 0) not penalised."""
    b = np.zeros(X.shape[1])
    pen = l2 * np.eye(len(b))
    pen[0, 0] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-X @ b))
        H = X.T @ (X * (p * (1 - p))[:, None]) + pen
        b = b + np.linalg.solve(H, X.T @ (y - p) - pen @ b)
    return b


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--cache", default="")
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--l2", type=float, default=1.0)
    args = ap.parse_args(argv)
    X, y, found, p = cells(args.dirs, args.cache)
    print(f"cells {len(y)}, jokers {int(y.sum())}, found by the cascade "
          f"{int((found & y).sum())} (+{int((found & ~y).sum())} false)")
    if args.fit:
        b = fit(X, y.astype(float), args.l2)
        print("JOKER_ODDS_COEF = (" + ", ".join(f"{v:.3f}" for v in b) + ")")
        return 0
    rest = ~found
    for lo, hi in ((0, 0.01), (0.01, 0.05), (0.05, 0.2), (0.2, 0.5), (0.5, 1.01)):
        sel = rest & (p >= lo) & (p < hi)
        print(f"  not found, p in [{lo:.2f}, {min(hi, 1):.2f}): {int(sel.sum())} cells, "
              f"{int(y[sel].sum())} jokers, mean p {p[sel].mean() if sel.any() else 0:.3f}")
    warned = rest & (p >= cr.JOKER_WARN)
    print(f"warned (p >= {cr.JOKER_WARN}): {int(warned.sum())} cells, {int(y[warned].sum())} "
          f"jokers; jokers missed and not warned {int((rest & ~warned & y).sum())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
