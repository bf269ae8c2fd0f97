"""Colomino cell confidences against the truth: how often a cell stated at a given
confidence is read right (calibration), with the fields cached as in
``colomino_cells_diag.py``.

Usage: ``python benchmarks/colomino_cells_calib.py DIR [DIR ...] [--cache CACHE_DIR]
[--limit N] [--dump FILE] [-v]``.

For every photo found, every cell's read code (SPEC orientation) is compared with the
truth; cells are binned by their stated ``confidence``. Prints, per folder and over all,
the share of cells right in each bin and for the cells stated >= 0.99 (the honesty
bar: a cell stated >= 0.99 must be right >= 99 % of the time), plus the boards perfect
and the cell errors. ``--dump`` writes the per-cell records (folder, photo, row, col,
truth, read, confidence) as JSON lines for further diagnosis; ``-v`` lists the wrong
cells stated >= 0.99. The truth is used only here, never by the recogniser.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from colomino_cells_diag import cached_photos  # noqa: E402

from vision import colomino_recognition as cr  # noqa: E402
from vision.recognize import NothingFound  # noqa: E402

BINS = (0.0, 0.5, 0.8, 0.9, 0.95, 0.99, 1.001)


def _spec_features(trace: dict) -> dict:
    """The recogniser's per-cell evidence (``cr._TRACE``) in SPEC orientation, as plain
    floats per cell: colour posteriors (smallest and product over the triangles), the
    tile score in robust sd of the plain cells from the split, the kind of reading."""
    if "score" not in trace:
        return {}
    turns = trace.get("turns", 0)

    def spec(a):
        return np.rot90(a, -turns, axes=(0, 1))

    sd = max(trace["sd"], 1e-3)
    out = {
        "pmin": spec(trace["p1"].min(axis=-1)),
        "pprod": spec(trace["p1"].prod(axis=-1)),
        "z": spec((trace["score"] - trace["thr"]) / sd),
        "score": spec(trace["score"]),
        "thr": spec(np.full(trace["score"].shape, trace["thr"])),
        "kind": spec(np.select([trace["joker"] > 0, trace["solid"], trace["washed"],
                                trace["pale"], trace["uncovered"], trace["is_tile"]],
                               [5, 4, 3, 2, 6, 1], 0)),
        "joker": spec(trace["joker"]),
        "clip": spec(trace["clip"]),
    }
    return {k: np.asarray(v, float) for k, v in out.items()}


def traced_answers(folder: Path, cache: Path, limit: int):
    """Yield ``(truth file, truth, answer, per-cell evidence)`` for the photos of
    :func:`colomino_cells_diag.cached_photos` whose board the recogniser finds at the
    truth's size; the evidence is :func:`_spec_features` of the recogniser's trace."""
    for f, truth in cached_photos(folder, cache, limit):
        cr._TRACE = trace = {}
        try:
            ans = cr.recognize(cv2.imread(str(f.with_suffix(".jpg"))))
        except NothingFound:
            continue
        finally:
            cr._TRACE = None
        if ans["size"] == len(truth["state"]["rows"]):
            yield f, truth, ans, _spec_features(trace)


def run_folder(folder: Path, cache: Path, limit: int):
    """Per-cell records ``(photo, row, col, truth, read, conf)`` and perfect count."""
    recs, perfect, found = [], 0, 0
    for f, truth, ans, feats in traced_answers(folder, cache, limit):
        want = truth["state"]["rows"]
        found += 1
        wrong = 0
        for cell in ans["cells"]:
            r, c = cell["row"], cell["col"]
            got, tru = ans["rows"][r][c], want[r][c]
            wrong += got != tru
            recs.append((f.stem, r, c, tru, got, float(cell["confidence"]),
                         {k: v[r, c] for k, v in feats.items()}))
        perfect += wrong == 0
    return recs, perfect, found


def summary(name: str, recs, perfect: int, found: int) -> str:
    """One line: boards perfect, cell errors, right share per confidence bin and >= 0.99."""
    conf = np.array([r[5] for r in recs])
    ok = np.array([r[3] == r[4] for r in recs])
    parts = []
    for lo, hi in zip(BINS[:-1], BINS[1:], strict=True):
        sel = (conf >= lo) & (conf < hi)
        if sel.any():
            parts.append(f"[{lo:.2f},{min(hi, 1):.2f}) {ok[sel].mean() * 100:.2f}%"
                         f" of {sel.sum()}")
    hi = conf >= 0.99
    top = (f"cells>=0.99 right {ok[hi].mean() * 100:.3f}% ({(~ok[hi]).sum()} wrong of "
           f"{hi.sum()})") if hi.any() else "no cell >= 0.99"
    return (f"{name}: boards {perfect}/{found} perfect, cell errors {(~ok).sum()} | {top}"
            f" | " + "; ".join(parts))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--cache", default="")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--dump", default="")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args(argv)
    allrecs, allp, allf = [], 0, 0
    dump = open(args.dump, "w") if args.dump else None  # noqa: SIM115
    try:
        for d in args.dirs:
            folder = Path(d)
            cache = Path(args.cache) / folder.name if args.cache else folder / ".field_cache"
            recs, perfect, found = run_folder(folder, cache, args.limit)
            print(summary(folder.name, recs, perfect, found), flush=True)
            if args.v:
                for r in recs:
                    if r[3] != r[4] and r[5] >= 0.99:
                        print(f"  {r[0]} ({r[1]},{r[2]}) truth {r[3]} read {r[4]} conf {r[5]}")
            if dump:
                for r in recs:
                    feats = {k: round(float(v), 5) for k, v in r[6].items()}
                    dump.write(json.dumps([folder.name, *r[:6], feats]) + "\n")
            allrecs += recs
            allp += perfect
            allf += found
    finally:
        if dump:
            dump.close()
    if len(args.dirs) > 1:
        print(summary("all", allrecs, allp, allf))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
