"""CARIBO: the page (game tracking and puzzle mode) and its API.

- ``GET /caribo/`` — the camera page
- ``POST /api/caribo/recognize`` — photo → board state (see :mod:`.recognition`)
- ``POST /api/caribo/moves`` ``{"board", "hand"}`` → legal placements (``caribo moves``)
- ``POST /api/caribo/check`` ``{"solution", "figure"?}`` → ``{"valid", "problems"}``
- ``POST /api/caribo/solve`` ``{"figure"}`` → ``{"solution"}``
- ``GET /api/caribo/figures`` — the puzzle figure library
"""

from __future__ import annotations

import json

from flask import Blueprint, current_app, jsonify, render_template

from . import rules
from .api_support import json_body, rules_response, text_field
from .recognition import recognize_upload
from .rules import FileArg
from .status import game_samples

bp = Blueprint("caribo", __name__)
GAME = "caribo"

def figure_library() -> list[dict]:
    """The engine's puzzle figures: ``[{"name", "description", "cells", "figure"}]``.

    Read from the engine's library file (``engines.caribo.puzzles.LIBRARY_PATH``); the
    stored solutions are not sent (the page asks the solver when the player gives up).
    """
    try:
        from engines.caribo.puzzles import LIBRARY_PATH
    except ImportError:
        return []
    data = json.loads(LIBRARY_PATH.read_text(encoding="utf-8"))
    return [
        {
            "name": entry["name"],
            "description": entry.get("description", ""),
            "cells": entry.get("cells"),
            "figure": entry["figure"],
        }
        for entry in data.get("figures", [])
    ]


@bp.get("/caribo/")
def page():
    """The CARIBO camera page."""
    return render_template(
        "caribo.html",
        game=GAME,
        rules_ready=rules.available(GAME),
        samples=game_samples(GAME),
    )


@bp.post("/api/caribo/recognize")
def recognize():
    """Photo → CARIBO board state."""
    return recognize_upload(GAME)


@bp.post("/api/caribo/moves")
def moves():
    """Legal placements of the hand's tiles on the board (empty board: the opening)."""
    body = json_body()
    board = text_field(body, "board", allow_empty=True)
    hand = text_field(body, "hand")
    answer = rules.ask(
        GAME, "moves", [FileArg(board), "--hand", hand], timeout=_timeout()
    )
    return rules_response(answer)


@bp.post("/api/caribo/check")
def check():
    """Judge a laid board or a puzzle solution (with ``figure``)."""
    body = json_body()
    solution = text_field(body, "solution", allow_empty=True)
    figure = text_field(body, "figure", required=False)
    args: list[object] = [FileArg(solution)]
    if figure:
        args += ["--figure", FileArg(figure)]
    return rules_response(rules.ask(GAME, "check", args, timeout=_timeout()))


@bp.post("/api/caribo/solve")
def solve():
    """Solve a figure (may take long: bounded by ``RULES_TIMEOUT``)."""
    body = json_body()
    figure = text_field(body, "figure")
    return rules_response(rules.ask(GAME, "solve", [FileArg(figure)], timeout=_timeout()))


@bp.get("/api/caribo/figures")
def figures():
    """The puzzle figures: ``{"figures": [{"name", "description", "cells", "figure"}]}``."""
    return jsonify(figures=figure_library())


def _timeout() -> float:
    return float(current_app.config["RULES_TIMEOUT"])
