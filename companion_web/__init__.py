"""The Flask companion (application factory) and the ``boardcam`` command-line glue."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Flask is imported when an app is made, not by the command line
    from flask import Flask

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_IMAGES = PROJECT_ROOT / "sample_images"


def create_app(test_config: dict | None = None) -> Flask:
    """Build the companion app; ``test_config`` overrides settings in tests.

    Settings: ``SAMPLE_IMAGES`` (folder), ``MAX_CONTENT_LENGTH`` (bytes per request),
    ``MAX_PIXELS`` (per photo, checked from the header before decoding), ``DATABASE``
    (default ``<instance>/boardcam.sqlite3``), ``RULES_TIMEOUT`` (seconds per rules
    question), ``CALIBRATE_TIMEOUT``, ``PAIRING_TOKEN`` and ``PUBLIC_URL`` (LAN mode),
    ``CAPTURE_INTERVAL_MS`` (how often the page samples the camera), ``RECOGNIZER``
    (tests only).
    """
    from flask import Flask
    from flask.json.provider import DefaultJSONProvider

    class BoundedJSONProvider(DefaultJSONProvider):
        """Strict JSON in: nesting too deep for the parser, ``NaN``/``Infinity`` and
        numbers that overflow to infinity are malformed (a ValueError, so
        ``get_json(silent=True)`` gives None and the route answers 400) — not a 500,
        and nothing stored that the server would echo back as invalid JSON."""

        def loads(self, s, **kwargs):
            kwargs.setdefault("parse_constant", _reject_constant)
            kwargs.setdefault("parse_float", _finite_float)
            try:
                return super().loads(s, **kwargs)
            except RecursionError:
                raise ValueError("JSON nested too deeply") from None

    instance_path = (test_config or {}).get("INSTANCE_PATH")
    app = Flask(__name__, instance_relative_config=True, instance_path=instance_path)
    app.json = BoundedJSONProvider(app)
    app.config.from_mapping(
        SAMPLE_IMAGES=str(SAMPLE_IMAGES),
        MAX_CONTENT_LENGTH=20 * 1024 * 1024,
        MAX_PIXELS=40_000_000,
        RULES_TIMEOUT=20.0,
        CALIBRATE_TIMEOUT=120.0,
        PAIRING_TOKEN=None,
        PUBLIC_URL=None,
        CAPTURE_INTERVAL_MS=400,
        RECOGNIZER=None,
    )
    if test_config:
        app.config.from_mapping(test_config)
    os.makedirs(app.instance_path, exist_ok=True)

    from . import db
    from .calibration_pages import bp as calibration_bp
    from .caribo_pages import bp as caribo_bp
    from .colomino_pages import bp as colomino_bp
    from .pairing import bp as pairing_bp
    from .sessions import bp as sessions_bp
    from .status import bp as status_bp
    from .wauri_pages import bp as wauri_bp

    db.init_app(app)
    blueprints = (pairing_bp, status_bp, sessions_bp, calibration_bp, caribo_bp, colomino_bp)
    for blueprint in (*blueprints, wauri_bp):
        app.register_blueprint(blueprint)
    _register_errors(app)

    @app.context_processor
    def page_settings():
        return {"capture_interval_ms": app.config["CAPTURE_INTERVAL_MS"]}

    @app.after_request
    def security_headers(response):
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' blob: data:; media-src 'self' blob: mediastream:;"
            " style-src 'self'; script-src 'self'; connect-src 'self'",
        )
        return response

    return app


def _reject_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} overflows")
    return value


def _register_errors(app: Flask) -> None:
    """Every error is JSON ``{"error": "..."}``: 4xx for the request (a rules timeout is
    422), 503 for a missing part, 500 for a crash."""
    from flask import jsonify, request
    from werkzeug.exceptions import HTTPException

    from engines.errors import FormatError, IllegalMoveError

    from .games import IllegalEvent
    from .rules import RulesFailure, RulesTimeout, RulesUnavailable

    @app.errorhandler(404)
    def not_found(_exc):
        return jsonify(error="not found"), 404

    @app.errorhandler(413)
    def too_large(_exc):
        limit = app.config["MAX_CONTENT_LENGTH"] // (1024 * 1024)
        return jsonify(error=f"upload too large (the limit is {limit} MB)"), 413

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        return jsonify(error=(exc.description or exc.name).split("\n")[0]), exc.code

    @app.errorhandler(RulesUnavailable)
    def unavailable(exc):
        return jsonify(error=str(exc)), 503

    @app.errorhandler(RulesFailure)
    def engine_failed(exc):
        app.logger.error("rules engine failure on %s: %s", request.path, exc)
        return jsonify(error=str(exc)), 500

    @app.errorhandler(RulesTimeout)
    def too_slow(exc):
        app.logger.warning("rules question over its time limit on %s: %s", request.path, exc)
        return jsonify(error=str(exc)), 422

    @app.errorhandler(IllegalEvent)
    def illegal(exc):
        return jsonify(error=str(exc), problems=exc.problems), 422

    @app.errorhandler(IllegalMoveError)
    def illegal_move(exc):
        return jsonify(error=str(exc)), 422

    @app.errorhandler(FormatError)
    def malformed(exc):
        message = str(exc).replace("\n", " ").strip() or exc.__class__.__name__
        return jsonify(error=message), 400
