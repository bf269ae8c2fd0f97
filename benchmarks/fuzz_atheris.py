"""Coverage-guided fuzzing (atheris, libFuzzer) of boardcam's parsers of untrusted input.

The hypothesis suite (``tests/test_reliability_fuzz.py``) runs in every ``make test``;
this is the deeper, open-ended complement: libFuzzer mutates inputs towards new
branches of the instrumented parsers. A target passes an input when it parses or
raises a one-line :class:`engines.errors.FormatError`; any other exception (or a
multi-line message) is a crash that libFuzzer reports with the input saved as
``crash-*``. Needs the optional ``atheris`` package (``pip install -e '.[fuzz]'``; a
wheel exists for CPython 3.11 on Linux x86-64).

Targets: ``image`` (:func:`vision.image_io.decode_photo`), ``caribo`` (board and figure
notation), ``colomino`` (board JSON, rack, move text), ``wauri`` (position JSON, move),
``cli`` (the bytes as the argument of every rules command, in-process).

Without a corpus directory on the command line, the run starts from a seed corpus of
valid inputs (written to a temporary folder), so mutation starts past the first check.

    python benchmarks/fuzz_atheris.py caribo -atheris_runs=200000
    python benchmarks/fuzz_atheris.py image -max_total_time=120 corpus_dir/
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

try:
    import atheris
except ImportError:  # pragma: no cover - optional tool
    sys.exit("fuzz_atheris.py needs atheris: pip install -e '.[fuzz]'")

with atheris.instrument_imports():
    from engines.caribo.notation import parse_board, parse_figure
    from engines.colomino.board import parse_state
    from engines.colomino.rules import parse_move
    from engines.colomino.tiles import parse_tile_list
    from engines.errors import FormatError
    from engines.wauri import Move, Position
    from vision.image_io import decode_photo


def _expected(exc: FormatError) -> None:
    message = str(exc)
    if not message.strip() or "\n" in message:
        raise AssertionError(f"not a one-line message: {message!r}")


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def fuzz_image(data: bytes) -> None:
    try:
        img = decode_photo(data, max_pixels=4_000_000)
    except FormatError as exc:
        _expected(exc)
        return
    assert img.ndim == 3 and img.shape[2] == 3


def fuzz_caribo(data: bytes) -> None:
    text = _text(data)
    for parse in (parse_board, parse_figure):
        try:
            parse(text)
        except FormatError as exc:
            _expected(exc)


def fuzz_colomino(data: bytes) -> None:
    text = _text(data)
    for parse in (parse_state, parse_tile_list, parse_move):
        try:
            parse(text)
        except FormatError as exc:
            _expected(exc)


def fuzz_wauri(data: bytes) -> None:
    text = _text(data)
    try:
        Position.from_json(json.loads(text))
    except (ValueError, RecursionError):
        pass  # not JSON: the command line's read_json_argument reports it
    except FormatError as exc:
        _expected(exc)
    try:
        Move.parse(text)
    except FormatError as exc:
        _expected(exc)


def fuzz_cli(data: bytes) -> None:
    from companion_web.cli import main

    text = _text(data).replace("\0", "")
    if text.startswith(("@", "-")):
        return  # @file reads files; options are argparse's
    for argv in (
        ["caribo", "check", text],
        ["caribo", "moves", text, "--hand", "S,WS"],
        ["colomino", "score", text, text],
        ["wauri", "play", text, "1"],
        ["wauri", "moves", text],
    ):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
        assert code in (0, 1, 2), (argv, code)
        if code == 2:
            assert err.getvalue().startswith("boardcam: error: ")
            assert err.getvalue().count("\n") == 1


TARGETS = {
    "image": fuzz_image,
    "caribo": fuzz_caribo,
    "colomino": fuzz_colomino,
    "wauri": fuzz_wauri,
    "cli": fuzz_cli,
}


def seeds(target: str) -> list[bytes]:
    """Valid inputs of ``target`` to start mutating from."""
    if target == "image":
        from PIL import Image

        out = []
        img = Image.new("RGB", (24, 16), (200, 30, 90))
        for fmt in ("JPEG", "PNG", "WEBP", "BMP", "TIFF"):
            buf = io.BytesIO()
            img.save(buf, fmt)
            out.append(buf.getvalue())
        return out
    caribo = ["0,0,34WS,56SW,0 - e0,12WB,34BW,0,0 - 12BR,B,23SB,61BS,34GS",
              "0,1,1 - e1,1,1 - 0,1,1", "S", ""]  # fmt: skip
    colomino = {"game": "colomino", "size": 9, "rows": [["."] * 9 for _ in range(9)]}
    colomino["rows"][8][1] = "BRRG"
    wauri = {"game": "wauri", "south": [4] * 6, "north": [4] * 6,
             "stores": {"south": 0, "north": 0}, "to_move": "south"}  # fmt: skip
    texts = {
        "caribo": caribo,
        "colomino": [json.dumps(colomino), "RRGB,YYBB,*", "9,2=BRRG"],
        "wauri": [json.dumps(wauri), "3"],
        "cli": [*caribo, json.dumps(colomino), json.dumps(wauri)],
    }[target]
    return [t.encode() for t in texts]


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: fuzz_atheris.py {{{','.join(TARGETS)}}} [libFuzzer options]")
    name = sys.argv.pop(1)
    target = TARGETS[name]
    if not any(not a.startswith("-") for a in sys.argv[1:]):  # no corpus given: seed one
        corpus = tempfile.mkdtemp(prefix=f"boardcam-fuzz-{name}-")
        for k, data in enumerate(seeds(name)):
            Path(corpus, f"seed{k}").write_bytes(data)
        sys.argv.append(corpus)
    if target is fuzz_cli:
        with atheris.instrument_imports():
            import companion_web.cli  # noqa: F401
    atheris.Setup(sys.argv, target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
