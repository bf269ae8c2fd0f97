"""Small helpers shared by the game blueprints: JSON bodies and rules answers."""

from __future__ import annotations

from flask import jsonify, request

from .games import SessionInputError
from .rules import RulesAnswer

MAX_TEXT_FIELD = 100_000


def json_body() -> dict:
    """The request's JSON object, or a 400 naming the body."""
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise SessionInputError("body: expected a JSON object")
    return body


def text_field(body: dict, name: str, *, required: bool = True, allow_empty: bool = False):
    """A string field of ``body`` (bounded), or a 400 naming the field."""
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise SessionInputError(f"{name}: must be text")
    if len(value) > MAX_TEXT_FIELD:
        raise SessionInputError(f"{name}: longer than {MAX_TEXT_FIELD} characters")
    if not allow_empty and not value.strip():
        raise SessionInputError(f"{name}: must not be empty")
    return value


def object_field(body: dict, name: str) -> dict:
    """A JSON-object field of ``body``, or a 400 naming the field."""
    value = body.get(name)
    if not isinstance(value, dict):
        raise SessionInputError(f"{name}: must be a JSON object")
    return value


def rules_response(answer: RulesAnswer):
    """200 with the engine's JSON; a negative answer (exit 1) is 200 too, flagged.

    The rules question was answered either way, so the HTTP status is 200; the page
    reads ``negative`` (and the engine's own fields such as ``valid``/``legal``).
    """
    return jsonify(answer=answer.data, negative=answer.negative)
