"""Does a paint calibration help CARIBO recognition? Measured on simulator photos.

Usage::

    .venv/bin/python benchmarks/caribo_recognition_calibration.py [--difficulty normal]
        [--seeds 40] [--lamp-only]

The simulator draws a photo's light, table and paint set from its seed alone (not from
the figure), so for one seed it can photograph (a) all 36 tiles (the calibration photo,
as ``boardcam calibrate caribo`` expects) and (b) a figure, under the same light with
the same paints. For every seed whose calibration photo is read as 36 tiles, the figure
photo is recognised without and with the calibration fitted from (a); the script prints
boards perfect and tile errors both ways (``compare_states`` as ``boardcam evaluate``).
"""

from __future__ import annotations

import argparse
import sys

import cv2
import numpy as np

from calibration import fit_paints
from vision import caribo_recognition as cr
from vision.evaluation import compare_states
from vision.recognize import NothingFound
from vision.simulator.dataset import render_state
from vision.simulator.photo import rng_for
from vision.simulator.scene import sample_conditions

FULL_SET = ("0,0,R,45RG,0 - e0,12RW,34WR,0,0 - 12WY,34SW,W,34BW,56WG - e56YS,12WS,56WB,56BG,"
            "56GR - 0,S,56SB,12GB,0 - e0,0,B,12RB,0 - 0,23BR,23YB,61BY,0 - e23SR,61BS,45SY,Y,"
            "45YR - 61RS,23GS,61SG,45GY,23RY - e0,G,23YG,0,0 - 0,0,61GW,61YW,0")
"""All 36 tiles (the figure of ``sample_images/caribo_easy_107``)."""
FIGURES = (
    "0,0,34WS,56SW,0 - e0,12WB,34BW,0,0 - 12BR,B,23SB,61BS,34GS",
    "0,23SY,S,45SG - e0,34YS,34GS,0 - 61SB,12YB,12GY,23YG - e45WB,56BY,0,0",
)


def _photo(state: str, seed: int, difficulty: str) -> np.ndarray:
    """The simulator's photo of ``state`` as a decoded JPEG (quality 85), BGR uint8."""
    photo = render_state("caribo", {"game": "caribo", "notation": state}, seed, difficulty)
    ok, buf = cv2.imencode(".jpg", photo.image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--difficulty", default="normal")
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--lamp-only", action="store_true")
    args = ap.parse_args(argv)
    tally = {"without": [0, 0], "with": [0, 0]}
    photos = skipped = 0
    for seed in range(args.seeds):
        cond = sample_conditions(rng_for(seed, "caribo", "conditions"), args.difficulty)
        if args.lamp_only and cond.light_kind != "lamp":
            continue
        try:
            answer, colours = cr.recognize_with_colours(_photo(FULL_SET, seed, args.difficulty))
        except NothingFound:
            answer, colours = {"tiles": []}, None
        if len(answer["tiles"]) != 36:
            skipped += 1
            print(f"seed {seed}: calibration photo read as {len(answer['tiles'])} tiles, skipped")
            continue
        cal = fit_paints([t["tile"] for t in answer["tiles"]], colours)
        for notation in FIGURES:
            state = {"game": "caribo", "notation": notation}
            image = _photo(notation, seed, args.difficulty)
            photos += 1
            line = [f"seed {seed} {cond.light_kind} {cond.kelvin:.0f}K"]
            for key, calib in (("without", None), ("with", cal)):
                try:
                    got = cr.recognize(image, calibration=calib)
                except NothingFound:
                    got = {"notation": ""}
                c = compare_states("caribo", state, got)
                tally[key][0] += c.perfect
                tally[key][1] += c.piece_errors
                line.append(f"{key}: {c.piece_errors} errors")
            print("  ".join(line), flush=True)
    print(f"{photos} figure photos ({skipped} seeds skipped: calibration photo not read as 36)")
    for key, (perfect, errors) in tally.items():
        print(f"{key} calibration: {perfect}/{photos} boards perfect, {errors} tile errors")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
