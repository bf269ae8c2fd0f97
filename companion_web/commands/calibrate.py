"""``boardcam calibrate caribo PHOTO [-o FILE]``: learn the six paints from one photo.

The photo must show all 36 CARIBO tiles (any arrangement). The recogniser reads it with
nominal paints; because the set is known, the global assignment tells which tile is
which, and every paint's colour under the user's light is the mean of its segments.
Prints the calibration JSON (format in :mod:`calibration.paints`) and writes it to
``-o FILE`` when given.
"""

from __future__ import annotations

import sys

from companion_web.cli_support import EXIT_NEGATIVE, UsageError, emit


def register(sub) -> None:
    p = sub.add_parser("calibrate", help="learn the paint colours from a photo of the full set")
    p.add_argument("game", choices=("caribo",))
    p.add_argument("photo", metavar="PHOTO")
    p.add_argument("-o", "--output", metavar="FILE", help="write the calibration here")
    p.set_defaults(func=run)


def run(args) -> int:
    from calibration import fit_paints, save_calibration
    from vision.caribo_recognition import recognize_with_colours
    from vision.image_io import read_photo
    from vision.recognize import NothingFound

    image = read_photo(args.photo)
    try:
        answer, colours = recognize_with_colours(image)
    except NothingFound as exc:
        sys.stderr.write(f"boardcam: calibrate: {exc}\n")
        emit({"error": str(exc)})
        return EXIT_NEGATIVE
    n = len(answer["tiles"])
    if n != 36:
        msg = f"the photo must show all 36 tiles; {n} were found"
        emit({"error": msg, "tiles_found": n})
        return EXIT_NEGATIVE
    try:
        cal = fit_paints([t["tile"] for t in answer["tiles"]], colours, source=str(args.photo))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.output:
        try:
            save_calibration(cal, args.output)
        except OSError as exc:
            raise UsageError(f"-o: cannot write {args.output}: {exc.strerror}") from None
    emit(cal.to_json())
    return 0
