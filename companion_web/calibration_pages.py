"""The calibration wizard: a photo of the full CARIBO set → the paint calibration.

- ``GET /calibrate/`` — the wizard page
- ``GET /api/calibration`` — which games are calibrated (``{"caribo": {...} | null}``)
- ``POST /api/calibrate/caribo`` (multipart ``image``) — runs
  ``boardcam calibrate caribo PHOTO -o <instance>/calibration-caribo.json`` in a child
  process (bounded by ``CALIBRATE_TIMEOUT``); 200 with the calibration, 422 when the
  photo does not show all 36 tiles or the fit runs over the time limit, 400 for a bad
  upload, 503 without the command, 500 when it crashes
- ``DELETE /api/calibration/caribo`` — forget it (204)

``POST /api/caribo/recognize`` passes the stored calibration to the recogniser.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from flask import Blueprint, abort, current_app, jsonify, render_template, request

from vision.image_io import decode_photo

from . import rules
from .games import SessionInputError

bp = Blueprint("calibration", __name__)
CALIBRATED_GAMES = ("caribo",)


def calibration_path(game: str) -> Path:
    """Where the calibration of ``game`` is kept (the instance folder)."""
    return Path(current_app.instance_path) / f"calibration-{game}.json"


def load_for(game: str):
    """The stored calibration object of ``game`` for the recogniser, or None."""
    path = calibration_path(game)
    if game not in CALIBRATED_GAMES or not path.is_file():
        return None
    try:
        from calibration import load_calibration

        return load_calibration(path)
    except (ImportError, ValueError, OSError) as exc:
        current_app.logger.warning("ignoring calibration %s: %s", path, exc)
        return None


def _command_ready() -> bool:
    from importlib.util import find_spec

    return find_spec("companion_web.commands.calibrate") is not None


@bp.get("/calibrate/")
def page():
    """The calibration wizard."""
    return render_template("calibrate.html", game=None, command_ready=_command_ready())


@bp.get("/api/calibration")
def status():
    """Which games have a stored calibration, and when it was made."""
    out = {}
    for game in CALIBRATED_GAMES:
        path = calibration_path(game)
        out[game] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    return jsonify(out)


@bp.post("/api/calibrate/<game>")
def calibrate(game: str):
    """Fit the paints from an uploaded photo of the whole set and store them."""
    if game not in CALIBRATED_GAMES:
        abort(404)
    if not _command_ready():
        return jsonify(error="calibration is not available in this build yet"), 503
    upload = request.files.get("image")
    if upload is None:
        raise SessionInputError("image: send the photo as the multipart form field 'image'")
    data = upload.read()
    decode_photo(data, max_pixels=current_app.config["MAX_PIXELS"])  # 400 if not a photo
    target = calibration_path(game)
    with tempfile.TemporaryDirectory(prefix="boardcam-calibrate-") as folder:
        photo = Path(folder) / "photo.img"
        photo.write_bytes(data)
        out = Path(folder) / "calibration.json"
        result = rules.run_command(
            ["calibrate", game, str(photo), "-o", str(out)],
            cwd=folder,
            timeout=float(current_app.config["CALIBRATE_TIMEOUT"]),
        )
        if result is None:
            limit = float(current_app.config["CALIBRATE_TIMEOUT"])
            return jsonify(
                error=f"calibration did not finish within {limit:g} s; try a smaller photo"
            ), 422
        code, stdout, stderr = result
        if code == 0 and out.is_file():
            target.write_text(out.read_text(encoding="utf-8"), encoding="utf-8")
            return jsonify(json.loads(out.read_text(encoding="utf-8")))
    message = _message(stdout, stderr)
    if code == 1:
        return jsonify(error=message or "the photo could not be used"), 422
    if code == 2:
        return jsonify(error=message or "the photo could not be used"), 400
    current_app.logger.error("calibration failed: %s", message or f"exit {code}")
    return jsonify(error=f"calibration failed ({message or f'exit {code}'})"), 500


@bp.delete("/api/calibration/<game>")
def forget(game: str):
    """Delete the stored calibration of ``game``."""
    if game not in CALIBRATED_GAMES:
        abort(404)
    calibration_path(game).unlink(missing_ok=True)
    return "", 204


def _message(stdout: str, stderr: str) -> str:
    for line in reversed(stdout.strip().splitlines()):
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and data.get("error"):
            return str(data["error"])
    lines = stderr.strip().splitlines()
    return lines[-1].removeprefix("boardcam: error: ").removeprefix("boardcam: ") if lines else ""
