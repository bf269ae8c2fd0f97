"""The rules answers behind the web API, obtained through the ``boardcam`` command line.

The command line (SPEC.md, "Command line") is the contract between the companion and
the three rules engines, so the web layer asks exactly the questions a user could type:
``caribo moves``, ``caribo check``, ``caribo solve``, ``colomino score``, ``wauri play``
and ``wauri best``. Each question runs the command line in a separate worker process
with a time limit: a search (the CARIBO solver, the Wauri move search) that
runs away cannot block a server thread forever, and a crash in an engine cannot take
the server down. The inputs go through ``@file`` arguments in a private temporary
folder, never through a shell.

The children are long-lived workers (:mod:`companion_web.rules_worker`, a small pool):
each has the engines imported and answers one question at a time over its own pipes,
so a question costs milliseconds instead of a fresh interpreter (0.3–0.8 s). A worker
that runs out of time is killed and replaced. (A ``multiprocessing`` fork server was
tried first and dropped: it re-imports the ``__main__`` script in every child.)

Exit codes map to :class:`RulesAnswer` (0 answered, 1 negative answer) or to
:class:`RulesInputError` (2, malformed input — the one-line message is kept),
:class:`RulesUnavailable` (the game's command is not installed yet),
:class:`RulesTimeout` (the question ran over its time limit) and :class:`RulesFailure`
(a crash or an answer that is not JSON).

HTTP statuses (``companion_web.create_app``): a missing engine is the server's fault and
is 503; a crash is 500; a timeout is 422 — the engines' searches are bounded by the
input (a solver on a large or odd figure, a long Wauri search), so a question that runs
over the limit is one this server cannot answer *for this input*, and the message says
what to change. Malformed input is 400 and a negative answer is 200 (``negative``).
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from engines.errors import BoardcamError, FormatError

GAMES = ("caribo", "colomino", "wauri")
#: Default time limit for one rules question, in seconds.
DEFAULT_TIMEOUT = 20.0
PROJECT_ROOT = Path(__file__).resolve().parent.parent
#: What the user can change when a question runs over the time limit.
TIMEOUT_HINTS = {
    ("caribo", "solve"): "this figure is too hard to solve here; try a smaller figure",
    ("caribo", "moves"): "try a smaller board or fewer tiles in the hand",
    ("wauri", "best"): "ask with a shorter search time",
}


class RulesUnavailable(BoardcamError):
    """The rules command for this game is not part of this build yet."""


class RulesInputError(FormatError):
    """The engine refused the input as malformed (the command's exit 2)."""


class RulesFailure(RuntimeError):
    """The engine crashed or printed something that is not JSON (a server fault)."""


class RulesTimeout(RuntimeError):
    """The question did not finish within its time limit (the worker was replaced)."""


@dataclass(frozen=True)
class RulesAnswer:
    """A rules answer: ``code`` 0 (answered) or 1 (negative answer) and the printed JSON."""

    code: int
    data: object

    @property
    def negative(self) -> bool:
        """True for a valid input with a negative answer (exit code 1)."""
        return self.code == 1


def available(game: str) -> bool:
    """Whether the ``boardcam <game>`` command exists in this build."""
    if game not in GAMES:
        return False
    return importlib.util.find_spec(f"companion_web.commands.{game}") is not None


def ask(
    game: str,
    subcommand: str,
    arguments: list[object],
    *,
    timeout: float = DEFAULT_TIMEOUT,
) -> RulesAnswer:
    """Run ``boardcam <game> <subcommand> ARGS`` and return its answer.

    Each item of ``arguments`` is either a plain string (passed as it is, e.g. a pit
    number or an option name) or a :class:`FileArg` whose text is written to a
    temporary file and passed as ``@file`` (never as a literal argument: a literal
    starting with ``@`` would make the command read a file of the server).
    """
    if not available(game):
        raise RulesUnavailable(f"rules for {game} are not available yet")
    with tempfile.TemporaryDirectory(prefix="boardcam-rules-") as folder:
        argv = [game, subcommand]
        for index, item in enumerate(arguments):
            if isinstance(item, FileArg):
                path = Path(folder) / f"arg{index}{item.suffix}"
                path.write_text(item.text, encoding="utf-8")
                argv.append(f"@{path}")
            else:
                argv.append(str(item))
        result = run_command(argv, cwd=folder, timeout=timeout)
    if result is None:
        raise RulesTimeout(
            f"{game} {subcommand}: no answer within the server's limit of {timeout:g} s"
            f" ({TIMEOUT_HINTS.get((game, subcommand), 'try a smaller input')})"
        )
    return _interpret(game, subcommand, *result)


def run_command(argv: list[str], *, cwd: str, timeout: float) -> tuple[int, str, str] | None:
    """``(exit code, stdout, stderr)`` of ``boardcam ARGV`` run in ``cwd`` by a worker
    process, or None when it did not finish within ``timeout`` seconds (the worker is
    killed then)."""
    worker = _take_worker()
    try:
        result = worker.ask(argv, cwd, timeout)
    except (OSError, EOFError, ValueError) as exc:  # the worker died or garbled its answer
        worker.close()
        return 70, "", f"the engine process failed ({exc.__class__.__name__})"
    if result is None:
        worker.close()
        return None
    _give_back(worker)
    return result


class _Worker:
    """One ``companion_web.rules_worker`` process and its two protocol pipes."""

    def __init__(self) -> None:
        request_r, request_w = os.pipe()
        response_r, response_w = os.pipe()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(PROJECT_ROOT), env.get("PYTHONPATH", "")) if p
        )
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "companion_web.rules_worker", str(request_r),
                 str(response_w)],
                pass_fds=(request_r, response_w),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=str(PROJECT_ROOT),
                env=env,
            )  # fmt: skip
        finally:
            os.close(request_r)
            os.close(response_w)
        self.requests = os.fdopen(request_w, "w", encoding="utf-8")
        self.response_fd = response_r
        self.buffer = b""

    def ask(self, argv: list[str], cwd: str, timeout: float):
        self.requests.write(json.dumps({"argv": argv, "cwd": cwd}) + "\n")
        self.requests.flush()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([self.response_fd], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(self.response_fd, 1 << 16)
            if not chunk:
                raise EOFError("worker closed its pipe")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        data = json.loads(line)
        return int(data["code"]), str(data["out"]), str(data["err"])

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.requests.close()
        with contextlib.suppress(OSError):
            os.close(self.response_fd)
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)


_idle: list[_Worker] = []
_idle_lock = threading.Lock()
MAX_IDLE_WORKERS = 4


def _take_worker() -> _Worker:
    with _idle_lock:
        while _idle:
            worker = _idle.pop()
            if worker.process.poll() is None:
                return worker
            worker.close()
    return _Worker()


def _give_back(worker: _Worker) -> None:
    with _idle_lock:
        if len(_idle) < MAX_IDLE_WORKERS:
            _idle.append(worker)
            return
    worker.close()


def shutdown_workers() -> None:
    """Stop the idle workers (also done at interpreter exit)."""
    with _idle_lock:
        workers, _idle[:] = list(_idle), []
    for worker in workers:
        worker.close()


atexit.register(shutdown_workers)


@dataclass(frozen=True)
class FileArg:
    """An argument passed to the command as ``@file`` (notation or JSON text)."""

    text: str
    suffix: str = ".txt"

    @classmethod
    def json(cls, obj) -> FileArg:
        """A JSON argument."""
        return cls(json.dumps(obj), ".json")


def _interpret(game: str, subcommand: str, code: int, out: str, err: str) -> RulesAnswer:
    message = err.strip().splitlines()[-1] if err.strip() else ""
    message = message.removeprefix("boardcam: error: ").removeprefix("boardcam: ")
    if code == 2:
        if "invalid choice" in message:
            raise RulesUnavailable(f"rules for {game} {subcommand} are not available yet")
        raise RulesInputError(message or f"{game} {subcommand}: malformed input")
    if code not in (0, 1):
        raise RulesFailure(f"the {game} rules engine failed ({message or f'exit {code}'})")
    text = out.strip()
    if not text:
        if code == 1:
            return RulesAnswer(1, {"legal": False, "problems": [message] if message else []})
        raise RulesFailure(f"the {game} rules engine printed nothing")
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        try:  # tolerate chatter before the one JSON line
            data = json.loads(text.splitlines()[-1])
        except json.JSONDecodeError:
            raise RulesFailure(
                f"the {game} rules engine printed something that is not JSON"
            ) from None
    if code == 1 and message and isinstance(data, dict):
        data.setdefault("message", message)
    return RulesAnswer(code, data)
