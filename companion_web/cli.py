"""The ``boardcam`` command line (see SPEC.md, "Command line")."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from engines.errors import FormatError

from . import commands
from .cli_support import EXIT_MALFORMED, UsageError


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line and exit 2 (SPEC)."""

    def error(self, message: str):  # noqa: D401 - argparse hook
        where = self.prog.removeprefix("boardcam").strip()
        raise UsageError(f"{where}: {message}" if where else message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="boardcam", description=__doc__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        code = args.func(args)
    except FormatError as exc:
        message = str(exc).replace("\n", " ").strip() or exc.__class__.__name__
        sys.stderr.write(f"boardcam: error: {message}\n")
        return EXIT_MALFORMED
    except KeyboardInterrupt:
        return 130
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
