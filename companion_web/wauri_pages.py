"""Wauri: the page (counts, whose move, suggestion, history) and its API.

- ``GET /wauri/`` — the camera page
- ``POST /api/wauri/recognize`` — photo → position (see :mod:`.recognition`)
- ``POST /api/wauri/play`` ``{"position", "moves", "variant"?}`` → the position after
  the moves with ``winner`` (``wauri play``; an illegal move is a negative answer)
- ``POST /api/wauri/best`` ``{"position", "time"?, "variant"?}`` → the suggested move
  (``wauri best``; ``time`` is the search budget in seconds, default the engine's)
"""

from __future__ import annotations

from flask import Blueprint, current_app, render_template

from . import rules
from .api_support import json_body, object_field, rules_response
from .games import SessionInputError
from .recognition import recognize_upload
from .rules import FileArg
from .status import game_samples

bp = Blueprint("wauri", __name__)
GAME = "wauri"
MAX_SEARCH_SECONDS = 10.0


@bp.get("/wauri/")
def page():
    """The Wauri camera page."""
    return render_template(
        "wauri.html",
        game=GAME,
        rules_ready=rules.available(GAME),
        samples=game_samples(GAME),
    )


@bp.post("/api/wauri/recognize")
def recognize():
    """Photo → Wauri position."""
    return recognize_upload(GAME)


@bp.post("/api/wauri/play")
def play():
    """Play pits (1–6 in the mover's sowing order) from a position."""
    body = json_body()
    position = object_field(body, "position")
    moves = body.get("moves", [])
    if not isinstance(moves, list) or not all(
        isinstance(m, int) and not isinstance(m, bool) for m in moves
    ):
        raise SessionInputError("moves: must be a list of pit numbers")
    if len(moves) > 1000:
        raise SessionInputError("moves: at most 1000 moves")
    args: list[object] = [FileArg.json(position), *map(str, moves)]
    if body.get("variant"):
        args.append("--variant")
    return rules_response(rules.ask(GAME, "play", args, timeout=_timeout()))


@bp.post("/api/wauri/best")
def best():
    """The engine's suggested move for the player to move."""
    body = json_body()
    position = object_field(body, "position")
    args: list[object] = [FileArg.json(position)]
    budget = body.get("time")
    if budget is not None:
        if not isinstance(budget, int | float) or isinstance(budget, bool):
            raise SessionInputError("time: must be a number of seconds")
        if not 0.05 <= budget <= MAX_SEARCH_SECONDS:
            raise SessionInputError(f"time: must be 0.05 to {MAX_SEARCH_SECONDS} seconds")
        args += ["--time", f"{budget:g}"]
    if body.get("variant"):
        args.append("--variant")
    return rules_response(rules.ask(GAME, "best", args, timeout=_timeout()))


def _timeout() -> float:
    return float(current_app.config["RULES_TIMEOUT"])
