"""``boardcam recognize``: photo → board state JSON (SPEC)."""

from __future__ import annotations

import sys

from companion_web.cli_support import (
    EXIT_MALFORMED,
    EXIT_NEGATIVE,
    check_json_text,
    emit,
    read_argument,
)
from vision.recognize import GAMES, NothingFound, RecognizerUnavailable, checked_answer


def register(sub) -> None:
    p = sub.add_parser("recognize", help="read a photo of the table into a board state")
    p.add_argument("--game", required=True, choices=GAMES)
    p.add_argument("image", metavar="IMAGE")
    p.add_argument("--calibration", metavar="FILE")
    p.add_argument("--overlay", metavar="OUT.png")
    p.add_argument("--previous", metavar="STATE")
    p.set_defaults(func=run)


def run(args) -> int:
    from vision.image_io import read_photo
    from vision.recognize import recognizer_module

    try:
        module = recognizer_module(args.game)
    except RecognizerUnavailable as exc:
        sys.stderr.write(f"boardcam: error: {exc}\n")
        return EXIT_MALFORMED
    image = read_photo(args.image)
    previous = read_argument(args.previous, "--previous") if args.previous else None
    if previous is not None:
        check_json_text(previous, "--previous")
    calibration = None
    if args.calibration:
        from calibration import load_calibration  # provided with the colour calibration

        calibration = load_calibration(args.calibration)
    try:
        answer = checked_answer(args.game, module.recognize(image, previous=previous,
                                                            calibration=calibration))
    except NothingFound as exc:
        emit({"game": args.game, "error": str(exc), "confidence": 0.0, "warnings": [str(exc)]})
        return EXIT_NEGATIVE
    if args.overlay:
        module.write_overlay(image, answer, args.overlay)
    emit(answer)
    return 0
