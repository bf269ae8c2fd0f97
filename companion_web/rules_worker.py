"""A long-lived ``boardcam`` command runner for :mod:`companion_web.rules`.

Started as ``python -m companion_web.rules_worker REQUEST_FD RESPONSE_FD``. It imports
the command line once, then answers requests one at a time: each request is one JSON
line ``{"argv": [...], "cwd": "..."}`` on REQUEST_FD, each answer one JSON line
``{"code": int, "out": str, "err": str}`` on RESPONSE_FD — exactly what running
``boardcam ARGV`` in ``cwd`` would have exited with and printed. The protocol uses its
own pipes, so anything written to the real stdout/stderr cannot corrupt it. The parent
kills a worker that does not answer in time and starts a fresh one.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import traceback


def serve(requests, responses) -> None:
    """Answer request lines until the request pipe closes."""
    from companion_web.cli import main as cli_main

    home = os.getcwd()
    for line in requests:
        try:
            request = json.loads(line)
            argv = [str(a) for a in request["argv"]]
            os.chdir(request["cwd"])
        except (ValueError, KeyError, TypeError, OSError) as exc:
            answer = {"code": 70, "out": "", "err": f"bad worker request: {exc}"}
        else:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = cli_main(argv)
                except SystemExit as exc:  # argparse --help and the like
                    code = exc.code if isinstance(exc.code, int) else 2
                except Exception:  # a crash is reported as one, never swallowed
                    traceback.print_exc()
                    code = 70
            answer = {"code": int(code or 0), "out": out.getvalue(), "err": err.getvalue()}
            os.chdir(home)
        responses.write(json.dumps(answer) + "\n")
        responses.flush()


def main(argv: list[str]) -> int:
    """Entry point: ``REQUEST_FD RESPONSE_FD``."""
    request_fd, response_fd = int(argv[1]), int(argv[2])
    for name in ("engines.caribo", "engines.colomino", "engines.wauri"):
        with contextlib.suppress(ImportError):
            __import__(name)
    with (
        os.fdopen(request_fd, "r", encoding="utf-8") as requests,
        os.fdopen(response_fd, "w", encoding="utf-8") as responses,
    ):
        serve(requests, responses)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
