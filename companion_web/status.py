"""The start page, the calibration wizard and ``/api/status``."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

from flask import Blueprint, abort, current_app, jsonify, render_template, send_from_directory

from . import rules
from .pairing import pairing_url, qr_svg

bp = Blueprint("status", __name__)

ENGINES = ("caribo", "colomino", "wauri")
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png"}


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


def recognizer_status() -> dict[str, bool]:
    """Which recognisers are installed (``vision.<game>_recognition``)."""
    from importlib.util import find_spec

    return {game: find_spec(f"vision.{game}_recognition") is not None for game in ENGINES}


def sample_pictures() -> list[str]:
    """Names of the sample pictures (relative to ``SAMPLE_IMAGES``), sorted.

    A symbolic link is listed only if it resolves inside the folder (no file outside
    the sample folder is ever served).
    """
    folder = Path(current_app.config["SAMPLE_IMAGES"])
    if not folder.is_dir():
        return []
    inside = folder.resolve()
    return sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file()
        and p.suffix.lower() in IMAGE_SUFFIXES
        and p.resolve().is_relative_to(inside)
    )


def game_samples(game: str) -> list[str]:
    """The sample pictures of one game: by the ``game`` of the truth file beside the
    picture (``photo.json``), else by the game's name in the file name."""
    folder = Path(current_app.config["SAMPLE_IMAGES"])
    mine = []
    for name in sample_pictures():
        truth = (folder / name).with_suffix(".json")
        found = None
        if truth.is_file() and truth.stat().st_size < 5_000_000:
            try:
                found = json.loads(truth.read_text(encoding="utf-8")).get("game")
            except (ValueError, OSError, AttributeError):
                found = None
        if found == game or (found is None and game in name.lower()):
            mine.append(name)
    return mine


@bp.get("/api/status")
def status():
    """What this build can do: engines, rules commands, recognisers, sample pictures."""
    return jsonify(
        engines=engine_status(),
        rules={game: rules.available(game) for game in ENGINES},
        recognizers=recognizer_status(),
        sample_images=sample_pictures(),
        lan=bool(current_app.config.get("PAIRING_TOKEN")),
    )


@bp.get("/sample_images/<path:name>")
def sample_image(name: str):
    """A sample picture (so the pages work without a camera)."""
    if name not in sample_pictures():
        abort(404)
    return send_from_directory(current_app.config["SAMPLE_IMAGES"], name)


@bp.get("/")
def index():
    """The start page: the three games, what works, the samples and (LAN) the pairing QR."""
    url = pairing_url()
    return render_template(
        "index.html",
        engines=engine_status(),
        rules_ready={game: rules.available(game) for game in ENGINES},
        recognizers=recognizer_status(),
        pictures=sample_pictures(),
        pairing_url=url,
        pairing_qr=qr_svg(url) if url else None,
    )
