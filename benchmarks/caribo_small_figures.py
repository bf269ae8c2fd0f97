"""CARIBO recognition on small figures: one, two and three tiles, as at a game's start.

Renders each small figure below with the table simulator (``render_state``, the same
renderer as ``boardcam render``/``dataset``) on ``--seeds`` tables per size and reads it
with the recogniser; prints per figure size the boards read perfectly, the photos with
"no CARIBO tiles found" and the median tile count read. The figures are rows cut from
laid figures (their shared edges match).

    python benchmarks/caribo_small_figures.py [--seeds 8] [--difficulty normal] [--first 7001]

Session 6 (lead, HEAD 36f71e6, 8 seeds 7001-7008 at normal): 1 tile 0 of 8 perfect (6
"no tiles"), 2 tiles 1 of 8 (4), 3 tiles 2 of 8 (2). The cause is the lattice search's
penalty on a lattice holding the figure in fewer than three cells
(``vision.caribo_lattice._seed_candidates``, "too coarse", score - 1): the true lattice of
a one- or two-tile figure is such a lattice, so candidates at 0.6-0.8 of the tile pitch
win. Without the penalty: 2, 4 and 5 of 8 perfect (11 of 24, 8 "no tiles"); a larger
scale range (max pitch 3 instead of 2 x sqrt(paint area)) alone changes nothing. But on
370 big-figure photos (lead's check set 585858/585859, engineers' dev and held-out sets
6000-6003, 6100-6103) dropping the penalty loses 12 perfect boards and gains 4 (piece
errors worse on 17 photos, e.g. 0 -> 26: a too coarse lattice wins; better on 12). A fix needs to
tell "the figure IS one or two tiles" from "one or two coarse cells hold a bigger
figure" (e.g. how much of the paint lies outside those cells, the tile outlines inside a
coarse cell); not done.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision import caribo_recognition  # noqa: E402
from vision.evaluation import compare_states  # noqa: E402
from vision.recognize import NothingFound  # noqa: E402
from vision.simulator.dataset import render_state  # noqa: E402

FIGURES = {1: "23GY", 2: "34WY,34RY", 3: "12GS,34BG,56GB"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=8, help="tables per figure size")
    ap.add_argument("--first", type=int, default=7001, help="first simulator seed")
    ap.add_argument("--difficulty", default="normal", choices=("easy", "normal", "hard"))
    args = ap.parse_args(argv)
    print("tiles | photos | perfect | no tiles | median tiles read")
    for size, notation in FIGURES.items():
        perfect = empty = 0
        read = []
        for seed in range(args.first, args.first + args.seeds):
            photo = render_state("caribo", notation, seed, args.difficulty)
            img = cv2.imdecode(np.frombuffer(photo.jpeg, np.uint8), cv2.IMREAD_COLOR)
            try:
                answer = caribo_recognition.recognize(img)
            except NothingFound:
                empty += 1
                read.append(0)
                continue
            read.append(len(answer["tiles"]))
            perfect += compare_states("caribo", photo.truth["state"], answer).perfect
        print(f"{size} | {args.seeds} | {perfect} | {empty} | {statistics.median(read):g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
