"""The Flask companion (application factory) and the ``boardcam`` command-line glue."""

from __future__ import annotations

import os
from pathlib import Path

from flask import Flask, jsonify

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_IMAGES = PROJECT_ROOT / "sample_images"


def create_app(test_config: dict | None = None) -> Flask:
    """Build the companion app; ``test_config`` overrides settings in tests."""
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        SAMPLE_IMAGES=str(SAMPLE_IMAGES),
        MAX_CONTENT_LENGTH=20 * 1024 * 1024,
    )
    if test_config:
        app.config.from_mapping(test_config)
    os.makedirs(app.instance_path, exist_ok=True)

    from .status import bp as status_bp

    app.register_blueprint(status_bp)

    @app.errorhandler(404)
    def not_found(_exc):
        return jsonify(error="not found"), 404

    @app.errorhandler(413)
    def too_large(_exc):
        return jsonify(error="upload too large"), 413

    return app
