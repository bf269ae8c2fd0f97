"""Interleaved A/B of CARIBO recognition with a boolean flag of the lattice stage off / on.

Usage::

    nice .venv/bin/python benchmarks/caribo_lattice_flag_ab.py DIR [DIR ...]
        [--flag MIXED_PRUNE] [--runs 1] [--limit N]

For every photo (``*.jpg``) :func:`vision.caribo_recognition.recognize` runs with
``vision.caribo_lattice.<flag>`` False, then True, ``runs`` times each, interleaved, in
one process (the load of a shared machine falls on both alike); the smallest CPU time
(``process_time``) of each is kept. Prints the photos whose answers (notation, or "no
tiles") differ, the number of lattice candidates of each, and the total and median CPU
time per photo with their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import cv2
import numpy as np
from caribo_recognition_diagnose import lattice_candidates

from vision import caribo_lattice
from vision import caribo_recognition as cr
from vision.recognize import NothingFound


def _answer(image: np.ndarray) -> str:
    try:
        return cr.recognize(image)["notation"]
    except NothingFound:
        return "-"


def _count(image: np.ndarray) -> int:
    return len(lattice_candidates(image)[4])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--flag", default="MIXED_PRUNE")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args(argv)
    photos = [p for d in args.dirs for p in sorted(Path(d).glob("*.jpg"))]
    if args.limit:
        photos = photos[:args.limit]
    t_off, t_on, n_off, n_on = [], [], [], []
    for photo in photos:
        image = cv2.imread(str(photo))
        best, answers, counts = {False: [], True: []}, {}, {}
        for _ in range(max(args.runs, 1)):
            for value in (False, True):
                setattr(caribo_lattice, args.flag, value)
                t0 = time.process_time()
                answers[value] = _answer(image)
                best[value].append(time.process_time() - t0)
        for value in (False, True):
            setattr(caribo_lattice, args.flag, value)
            counts[value] = _count(image)
        t_off.append(min(best[False]))
        t_on.append(min(best[True]))
        n_off.append(counts[False])
        n_on.append(counts[True])
        same = "" if answers[False] == answers[True] else "  ANSWER DIFFERS"
        print(f"{photo.parent.name}/{photo.name:26s} candidates {counts[False]:2d} -> "
              f"{counts[True]:2d}  CPU {t_off[-1]:.2f} -> {t_on[-1]:.2f} s{same}", flush=True)
    print(f"photos {len(photos)}: candidates {sum(n_off)} -> {sum(n_on)}; recognize CPU total "
          f"{sum(t_off):.1f} -> {sum(t_on):.1f} s ({sum(t_on) / max(sum(t_off), 1e-9):.2f}x), "
          f"median {statistics.median(t_off):.2f} -> {statistics.median(t_on):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
