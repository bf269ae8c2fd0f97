"""Colomino recognition diagnosis: attribute every failure on simulator photos to a stage.

Usage: ``python benchmarks/colomino_recognition_diag.py DIR [--limit N] [-v]``.

For each photo (with its truth JSON written by ``boardcam dataset``) the recogniser runs
once and the result is put in one bucket:

* ``not found`` — no board was reported (exit 1 of ``recognize``);
* ``size`` — 9×9 read as 12×12 or back;
* ``grid`` — the read field corners are more than 0.3 cell from the true ones;
* ``orientation`` — the cells are right in another turn but the base was claimed known;
* ``cells`` — the grid is right, some cells are misread (counted by kind: tile read as
  empty, empty as tile, joker errors, colour confusions truth→read per triangle);
* ``perfect``.

The truth is used only here, never by the recogniser. Prints counts and, with ``-v``,
one line per photo.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision import colomino_recognition as cr  # noqa: E402
from vision.evaluation import _rot_rows  # noqa: E402
from vision.recognize import NothingFound  # noqa: E402


def _cell_pitch(corners: np.ndarray, n: int) -> float:
    return float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1))) / n


def diagnose(img_path: Path, truth: dict):
    """Bucket, details (Counter) and CPU seconds for one photo."""
    image = cv2.imread(str(img_path))
    want = truth["state"]["rows"]
    n = len(want)
    t0 = time.process_time()
    try:
        ans = cr.recognize(image)
    except NothingFound:
        return "not found", Counter(), time.process_time() - t0
    dt = time.process_time() - t0
    if ans["size"] != n:
        return "size", Counter(), dt
    true_c = np.array(truth["board_corners_px"], float)
    got_c = np.array(ans["field_corners_px"], float)
    pitch = _cell_pitch(true_c, n)
    d = max(float(np.min(np.linalg.norm(got_c - p, axis=1))) for p in true_c) / pitch
    if d > 0.3:
        return "grid", Counter({f"grid_err_cells={d:.1f}": 1}), dt
    rows = ans["rows"]
    cands = [rows]
    for _ in range(3):
        cands.append(_rot_rows(cands[-1]))
    errs = [sum(a != b for ra, rb in zip(c, want, strict=True)
                for a, b in zip(ra, rb, strict=True)) for c in cands]
    if errs[0] > 0 and min(errs) == 0 and ans.get("base_known", True):
        return "orientation", Counter(), dt
    best = cands[int(np.argmin(errs))] if ans.get("base_known") is False else rows
    det = Counter()
    for ra, rb in zip(best, want, strict=True):
        for got, tru in zip(ra, rb, strict=True):
            if got == tru:
                continue
            if len(tru) == 4 and got == ".":
                det["tile→empty"] += 1
            elif tru == "." and len(got) == 4:
                det["empty→tile"] += 1
            elif tru == "*" or got == "*":
                det[f"joker {tru}→{got}"] += 1
            else:
                for a, b in zip(tru, got, strict=True):
                    if a != b:
                        det[f"colour {a}→{b}"] += 1
    if ans.get("base_known") is False:
        det["base unknown"] += 1
    return ("perfect" if not det or list(det) == ["base unknown"] else "cells"), det, dt


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args(argv)
    files = sorted(Path(args.dir).glob("*.json"))
    files = [f for f in files if f.with_suffix(".jpg").exists()]
    if args.limit:
        files = files[:args.limit]
    buckets: Counter = Counter()
    details: Counter = Counter()
    times = []
    for f in files:
        truth = json.loads(f.read_text())
        if truth.get("game") != "colomino":
            continue
        bucket, det, dt = diagnose(f.with_suffix(".jpg"), truth)
        buckets[bucket] += 1
        details.update(det)
        times.append(dt)
        if args.v:
            cond = truth.get("conditions", {})
            print(f"{f.stem}: {bucket} {dict(det)} {dt:.2f}s "
                  f"light={cond.get('light_kind')} K={cond.get('kelvin', 0):.0f} "
                  f"table={cond.get('table', {}).get('kind')}", flush=True)
    total = sum(buckets.values())
    print(f"photos {total}: " + ", ".join(f"{k} {v}" for k, v in buckets.most_common()))
    print("cell errors: " + ", ".join(f"{k} {v}" for k, v in details.most_common()))
    if times:
        print(f"median CPU time {np.median(times):.2f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
