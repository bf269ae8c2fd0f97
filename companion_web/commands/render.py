"""``boardcam render`` and ``boardcam dataset``: simulated table photos with exact truth."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from engines.errors import FormatError

from ..cli_support import UsageError, emit, read_argument

GAMES = ("caribo", "colomino", "wauri")
DIFFICULTIES = ("easy", "normal", "hard")


def _positive(what: str, lo: int, hi: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise UsageError(f"{what}: not an integer: {text!r}") from None
        if not lo <= value <= hi:
            raise UsageError(f"{what}: {value} out of range {lo}..{hi}")
        return value

    return parse


def register(subparsers) -> None:
    """Add the ``render`` and ``dataset`` sub-commands."""
    p = subparsers.add_parser(
        "render", help="render one simulated photo of a board state (+ truth JSON)"
    )
    p.add_argument("--game", required=True, choices=GAMES)
    p.add_argument("state", metavar="STATE", help="board state: notation/JSON or @file")
    p.add_argument("out", metavar="OUT.jpg", help="photo to write; truth goes to OUT.json")
    p.add_argument("--seed", type=_positive("--seed", 0, 2**48 - 1), default=0)
    p.add_argument("--difficulty", choices=DIFFICULTIES, default="normal")
    p.add_argument("--width", type=_positive("--width", 64, 8000))
    p.add_argument("--height", type=_positive("--height", 64, 8000))
    p.set_defaults(func=run_render)

    d = subparsers.add_parser(
        "dataset", help="render N photos of random legal states with truth, from a seed"
    )
    d.add_argument("--game", choices=GAMES + ("all",), default="all")
    d.add_argument("--count", type=_positive("--count", 1, 100000), default=10)
    d.add_argument("--difficulty", choices=DIFFICULTIES, default="normal")
    d.add_argument("--seed", type=_positive("--seed", 0, 2**48 - 1), default=0)
    d.add_argument("--width", type=_positive("--width", 64, 8000))
    d.add_argument("--height", type=_positive("--height", 64, 8000))
    d.add_argument("--preset", choices=("samples",),
                   help="'samples': the committed sample_images set (ignores the other options)")
    d.add_argument("--quiet", action="store_true", help="no progress on stderr")
    d.add_argument("out_dir", metavar="OUT_DIR")
    d.set_defaults(func=run_dataset)


def _check_size(args) -> None:
    if (args.width is None) != (args.height is None):
        raise UsageError("--width and --height must be given together")


def _parse_state(game: str, text: str):
    stripped = text.strip()
    if not stripped:
        raise UsageError("STATE: empty")
    if stripped.startswith("{"):
        try:
            return json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise UsageError(f"STATE: not valid JSON ({exc.msg})") from None
    if game != "caribo":
        raise UsageError(f"STATE: a {game} state must be a JSON object")
    return stripped


def run_render(args) -> int:
    """Render one photo and its truth; prints ``{"image": ..., "truth": ...}``."""
    _check_size(args)
    out = Path(args.out)
    if out.suffix.lower() not in (".jpg", ".jpeg"):
        raise UsageError(f"OUT.jpg: must end in .jpg or .jpeg: {out}")
    if not out.parent.is_dir():
        raise UsageError(f"OUT.jpg: no such directory: {out.parent}")
    state = _parse_state(args.game, read_argument(args.state, "STATE"))
    from vision.simulator.dataset import render_state, write_photo

    try:
        photo = render_state(args.game, state, args.seed, args.difficulty, args.width,
                             args.height)
    except FormatError:
        raise
    except (ValueError, TypeError, KeyError) as exc:
        raise UsageError(f"STATE: {exc}") from None
    img, truth = write_photo(photo, out)
    emit({"image": str(img), "truth": str(truth), "size": photo.truth["image_size"]})
    return 0


def run_dataset(args) -> int:
    """Render a dataset (or the samples preset); prints a one-line JSON summary."""
    _check_size(args)
    out = Path(args.out_dir)
    if out.exists() and not out.is_dir():
        raise UsageError(f"OUT_DIR: not a directory: {out}")
    from vision.simulator.dataset import make_dataset, make_samples

    def progress(i, n, name):
        if not args.quiet:
            sys.stderr.write(f"[{i}/{n}] {name}\n")

    if args.preset == "samples":
        entries = make_samples(out, progress)
    else:
        entries = make_dataset(args.game, args.count, args.difficulty, args.seed, out,
                               args.width, args.height, progress)
    emit({"out_dir": str(out), "photos": len(entries), "index": str(out / "index.json")})
    return 0
