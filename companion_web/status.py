"""Status page: what this companion can do right now and which sample pictures it has."""

from __future__ import annotations

import importlib
from pathlib import Path

from flask import Blueprint, current_app, jsonify

bp = Blueprint("status", __name__)

ENGINES = ("caribo", "colomino", "wauri")


def engine_status() -> dict[str, bool]:
    """Which game engines are importable."""
    status = {}
    for game in ENGINES:
        try:
            importlib.import_module(f"engines.{game}")
            status[game] = True
        except ImportError:
            status[game] = False
    return status


def sample_pictures() -> list[str]:
    folder = Path(current_app.config["SAMPLE_IMAGES"])
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.suffix.lower() in {".jpg", ".jpeg", ".png"})


@bp.get("/api/status")
def status():
    return jsonify(engines=engine_status(), sample_images=sample_pictures())


@bp.get("/")
def index():
    engines = engine_status()
    rows = "".join(
        f"<li>{game}: {'rules engine ready' if ok else 'not available yet'}</li>"
        for game, ok in engines.items()
    )
    pictures = "".join(f"<li>{name}</li>" for name in sample_pictures()) or "<li>none yet</li>"
    return (
        "<!doctype html><html lang=en><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width,initial-scale=1'>"
        "<title>boardcam</title><h1>boardcam</h1>"
        f"<h2>Engines</h2><ul>{rows}</ul><h2>Sample pictures</h2><ul>{pictures}</ul>"
    )
