"""Colomino: the page (turn scoring, scoreboard) and its API.

- ``GET /colomino/`` — the camera page
- ``POST /api/colomino/recognize`` — photo → board state (see :mod:`.recognition`)
- ``POST /api/colomino/score`` ``{"before", "after", "side_walls"?}`` → the turn's courts
  and points (``colomino score [--side-walls]``; an illegal difference is a negative
  answer)
- ``GET /api/colomino/layout/<size>`` — the default rim markings and printed fields
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, jsonify, render_template

from . import rules
from .api_support import json_body, object_field, rules_response
from .games import SessionInputError
from .recognition import recognize_upload
from .rules import FileArg
from .status import game_samples

bp = Blueprint("colomino", __name__)
GAME = "colomino"


@bp.get("/colomino/")
def page():
    """The Colomino camera page."""
    return render_template(
        "colomino.html",
        game=GAME,
        rules_ready=rules.available(GAME),
        samples=game_samples(GAME),
    )


@bp.post("/api/colomino/recognize")
def recognize():
    """Photo → Colomino board state."""
    return recognize_upload(GAME)


@bp.post("/api/colomino/score")
def score():
    """Score the turn that leads from ``before`` to ``after`` (``side_walls``: the
    east/west board edges enclose courts too)."""
    body = json_body()
    before = object_field(body, "before")
    after = object_field(body, "after")
    side_walls = body.get("side_walls", False)
    if not isinstance(side_walls, bool):
        raise SessionInputError("side_walls: must be true or false")
    answer = rules.ask(
        GAME,
        "score",
        [FileArg.json(before), FileArg.json(after), *(["--side-walls"] if side_walls else [])],
        timeout=float(current_app.config["RULES_TIMEOUT"]),
    )
    return rules_response(answer)


@bp.get("/api/colomino/layout/<int:size>")
def layout(size: int):
    """The shipped default layout of a 9×9 or 12×12 board."""
    if size not in (9, 12):
        abort(404)
    try:
        from engines.colomino.layout import default_layout, layout_to_json
    except ImportError:
        return jsonify(error="the Colomino layouts are not available yet"), 503
    return jsonify(size=size, layout=layout_to_json(default_layout(size)))
