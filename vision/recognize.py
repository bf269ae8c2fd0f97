"""The single entry point from a photo to a SPEC board state, for every game.

``recognize(game, image)`` dispatches to the recogniser module of that game
(``vision.<game>_recognition``, each defining ``recognize(image, *, previous=None,
calibration=None) -> dict``). The answer is exactly the JSON of ``boardcam recognize``
in SPEC.md: the board state plus ``"confidence"`` and ``"warnings"``.
"""

from __future__ import annotations

import importlib
import json

import numpy as np

from engines.errors import BoardcamError

GAMES = ("caribo", "colomino", "wauri")


class RecognizerUnavailable(BoardcamError):
    """No recogniser for this game is installed in this build."""


class NothingFound(BoardcamError):
    """The photo shows no pieces / no board of the requested game (a negative answer)."""


def recognizer_module(game: str):
    """The module implementing recognition for ``game``, or raise RecognizerUnavailable."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}")
    try:
        return importlib.import_module(f"vision.{game}_recognition")
    except ModuleNotFoundError as exc:
        if exc.name != f"vision.{game}_recognition":
            raise
        raise RecognizerUnavailable(f"recognition for {game} is not available yet") from None


def recognize(game: str, image: np.ndarray, *, previous=None, calibration=None) -> dict:
    """Read a photo (``(H, W, 3)`` uint8 BGR) of ``game`` into the SPEC JSON answer."""
    return checked_answer(game, recognizer_module(game).recognize(
        image, previous=previous, calibration=calibration))


def checked_answer(game: str, answer: dict) -> dict:
    """``answer`` unchanged, or :class:`NothingFound` when any number in it is NaN or
    infinite: a reading that lost its numbers is not a reading (and NaN is not JSON)."""
    try:
        json.dumps(answer, allow_nan=False)
    except ValueError:
        raise NothingFound(f"no {game} board could be read reliably from this photo") from None
    return answer
