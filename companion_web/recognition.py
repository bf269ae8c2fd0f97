"""``POST /api/<game>/recognize``: one uploaded photo → the ``boardcam recognize`` JSON.

Shared by the three game blueprints. The photo comes as the multipart field ``image``
(optionally ``previous``: the last confirmed board state, JSON or notation). It is
bounded twice before any pixel is decoded: the request size by Flask's
``MAX_CONTENT_LENGTH`` (413) and the pixel count by :func:`vision.image_io.decode_photo`
reading the header first (``MAX_PIXELS``).

Answers:

- 200 — the recogniser's JSON (board state, ``confidence``, ``warnings``);
- 400 — no ``image`` field, an empty, corrupt or unsupported file, a malformed ``previous``;
- 413 — the upload is larger than ``MAX_CONTENT_LENGTH``;
- 422 — :class:`vision.recognize.NothingFound`: the photo shows no board of this game.
  The body is the command line's negative answer (``game``, ``confidence`` 0,
  ``warnings``) plus ``error``; 422 because the request was well-formed but holds
  nothing the server can answer about, which the page shows as a message;
- 503 — :class:`vision.recognize.RecognizerUnavailable` (no recogniser in this build).

A calibration stored by the wizard (:mod:`.calibration_pages`) is passed on.
The recogniser is ``vision.recognize.recognize`` unless the app's ``RECOGNIZER`` config
holds another callable with the same signature. That hook exists for tests only
(``tests/web_scaffolding.py`` injects a fake that returns a sample image's truth JSON
to exercise the overlay drawing); production code never sets it.
"""

from __future__ import annotations

import time

from flask import current_app, jsonify, request

from engines.errors import FormatError
from vision.image_io import decode_photo
from vision.recognize import NothingFound, RecognizerUnavailable
from vision.recognize import recognize as vision_recognize

from .calibration_pages import load_for
from .cli_support import check_json_text
from .games import SessionInputError

MAX_PREVIOUS_CHARS = 100_000


def _recognizer():
    return current_app.config.get("RECOGNIZER") or vision_recognize


def recognize_upload(game: str):
    """The view body of ``POST /api/<game>/recognize``."""
    upload = request.files.get("image")
    if upload is None:
        raise SessionInputError("image: send the photo as the multipart form field 'image'")
    data = upload.read()
    previous = request.form.get("previous") or None
    if previous is not None and len(previous) > MAX_PREVIOUS_CHARS:
        raise SessionInputError(f"previous: longer than {MAX_PREVIOUS_CHARS} characters")
    if previous is not None:
        check_json_text(previous, "previous")  # 400, not a 500 inside the recogniser
    started = time.perf_counter()
    image = decode_photo(data, max_pixels=current_app.config["MAX_PIXELS"])
    decoded = time.perf_counter()
    try:
        calibration = load_for(game)
        answer = _recognizer()(game, image, previous=previous, calibration=calibration)
    except RecognizerUnavailable as exc:
        return jsonify(error=str(exc), game=game), 503
    except NothingFound as exc:
        body = {"game": game, "error": str(exc), "confidence": 0.0, "warnings": [str(exc)]}
        return jsonify(body), 422
    except FormatError:
        raise
    finished = time.perf_counter()
    response = jsonify(answer)
    response.headers["Server-Timing"] = (
        f"decode;dur={(decoded - started) * 1000:.1f}, "
        f"recognize;dur={(finished - decoded) * 1000:.1f}"
    )
    return response
