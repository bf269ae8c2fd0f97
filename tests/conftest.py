"""Shared fixtures: the Flask app and a helper to run the CLI in-process."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from companion_web import create_app
from companion_web.cli import main

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"

# Property tests assert correctness, not speed: no per-example deadline and no "input
# generation is slow" health check by default, so a busy machine (the suite runs on every
# core, ``make test``) cannot fail them. A test that guards against a hang still sets its
# own ``deadline``.
settings.register_profile("boardcam", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("boardcam")


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    def json(self):
        return json.loads(self.out)


def run_cli(*argv: str) -> CliResult:
    """Run ``boardcam ARGV`` in-process and capture exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse --help
            code = exc.code if isinstance(exc.code, int) else 0
    return CliResult(code, out.getvalue(), err.getvalue())


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def app(tmp_path):
    return create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "instance")})


@pytest.fixture
def client(app):
    return app.test_client()
