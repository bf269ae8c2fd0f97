"""Helpers every ``boardcam`` sub-command uses: arguments, JSON output, exit codes.

Exit codes (SPEC): 0 answered, 1 a valid input with a negative answer, 2 malformed input
with a one-line message on stderr. Commands raise :class:`UsageError` (or any
:class:`engines.errors.FormatError`) for malformed input; :func:`companion_web.cli.main`
turns it into the one-line message and exit code 2.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from engines.errors import FormatError

EXIT_OK = 0
EXIT_NEGATIVE = 1
EXIT_MALFORMED = 2

# Literal arguments and @files larger than this are refused (no unbounded memory).
MAX_ARGUMENT_BYTES = 16 * 1024 * 1024


class UsageError(FormatError):
    """Malformed command-line input (exit 2)."""


def read_argument(value: str, what: str) -> str:
    """The text of an argument that may be literal or ``@file``.

    ``what`` names the argument in error messages (e.g. ``"BOARD"``).
    """
    if not value.startswith("@"):
        return value
    path = Path(value[1:])
    try:
        # bounded read: st_size is 0 for /dev/zero, pipes and /proc files
        with path.open("rb") as handle:
            raw = handle.read(MAX_ARGUMENT_BYTES + 1)
        if len(raw) > MAX_ARGUMENT_BYTES:
            raise UsageError(f"{what}: file {path} is larger than {MAX_ARGUMENT_BYTES} bytes")
        return raw.decode("utf-8")
    except UsageError:
        raise
    except FileNotFoundError:
        raise UsageError(f"{what}: no such file: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"{what}: is a directory: {path}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{what}: file {path} is not UTF-8 text") from None
    except OSError as exc:
        raise UsageError(f"{what}: cannot read {path}: {exc.strerror}") from None


def read_json_argument(value: str, what: str):
    """Parse an argument (literal JSON, ``@file`` or a plain path to a .json file) as JSON."""
    text = value
    if value.startswith("@"):
        text = read_argument(value, what)
    elif not value.lstrip().startswith(("{", "[")) and Path(value).suffix.lower() == ".json":
        text = read_argument("@" + value, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise UsageError(f"{what}: not valid JSON ({exc.msg} at {where})") from None
    except RecursionError:
        raise UsageError(f"{what}: JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer longer than int() converts (4300 digits)
        reason = str(exc).split(";")[0]
        raise UsageError(f"{what}: not valid JSON ({reason})") from None


def check_json_text(text: str, what: str) -> str:
    """``text`` unchanged, after checking that text which starts like JSON (``{``/``[``)
    parses as strict JSON: nesting deeper than the parser recurses, NaN/Infinity and
    other malformed JSON are a one-line :class:`UsageError` here, before a consumer
    that parses it itself (a recogniser's ``previous`` state) can crash on it."""
    if not text.lstrip().startswith(("{", "[")):
        return text

    def refuse(name):
        raise ValueError(f"{name} is not JSON")

    try:
        json.loads(text, parse_constant=refuse)
    except RecursionError:
        raise UsageError(f"{what}: JSON nested too deeply") from None
    except ValueError as exc:
        reason = str(exc).split(";")[0].split(": line ")[0]
        raise UsageError(f"{what}: not valid JSON ({reason})") from None
    return text


def emit(obj) -> None:
    """Print one JSON object on stdout."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()
