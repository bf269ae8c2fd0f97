"""Sessions API: create a game session, confirm moves, undo, history, export.

Routes (all JSON; errors are ``{"error": ...}`` with a 4xx code):

- ``POST /api/sessions`` ``{"game", "mode"?, "players"?, "settings"?, "state"?}`` → 201
- ``GET /api/sessions[?game=]`` → recent sessions
- ``GET /api/sessions/<id>`` → the session, its events (undone ones flagged) and summary
- ``POST /api/sessions/<id>/events`` ``{"kind": "move"|"pass"|"correction", "state"?,
  "moves"?}`` → 201; 422 when the rules refuse it; 409 when the session changed while
  the rules were asked (another device confirmed or undid a move)
- ``POST /api/sessions/<id>/undo`` → 200 with the undone event; 409 when nothing is left
- ``GET /api/sessions/<id>/export?format=json|notation`` → a download
- ``DELETE /api/sessions/<id>`` → 204
"""

from __future__ import annotations

import json
import secrets

from flask import Blueprint, Response, abort, jsonify, request

from . import games
from .db import get_db, now, transaction
from .games import IllegalEvent, SessionInputError

bp = Blueprint("sessions", __name__)


def _json_body() -> dict:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise SessionInputError("body: expected a JSON object")
    return body


def _session_row(session_id: str) -> dict:
    row = get_db().execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if row is None:
        abort(404)
    return _session_dict(row)


def _session_dict(row) -> dict:
    return {
        "id": row["id"],
        "game": row["game"],
        "mode": row["mode"],
        "players": json.loads(row["players"]),
        "settings": json.loads(row["settings"]),
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
    }


def _events(session_id: str, *, include_undone: bool = False) -> list[dict]:
    sql = "SELECT * FROM events WHERE session_id = ?"
    if not include_undone:
        sql += " AND undone_at IS NULL"
    rows = get_db().execute(sql + " ORDER BY seq", (session_id,)).fetchall()
    return [
        {
            "seq": r["seq"],
            "kind": r["kind"],
            "player": r["player"],
            "state": json.loads(r["state"]),
            "answer": json.loads(r["answer"]),
            "notation": r["notation"],
            "created_at": r["created_at"],
            "undone": r["undone_at"] is not None,
        }
        for r in rows
    ]


def _full(session: dict) -> dict:
    active = _events(session["id"])
    history = _events(session["id"], include_undone=True)
    return {
        **session,
        "state": active[-1]["state"] if active else None,
        "events": history,
        "summary": games.summary(session["game"], session["players"], session["settings"], active),
    }


@bp.post("/api/sessions")
def create_session():
    """Start a session; the start position is stored as event 1."""
    body = _json_body()
    game = body.get("game")
    if game not in games.GAMES:
        raise SessionInputError("game: must be caribo, colomino or wauri")
    mode = body.get("mode", "game")
    if mode not in ("game", "puzzle"):
        raise SessionInputError("mode: must be 'game' or 'puzzle'")
    settings = body.get("settings") or {}
    if not isinstance(settings, dict):
        raise SessionInputError("settings: must be a JSON object")
    settings = games.check_settings(game, settings)
    players = games.check_players(game, body.get("players"))
    if "first_player" in settings and settings["first_player"] not in range(len(players)):
        raise SessionInputError("settings.first_player: not a player index")
    if body.get("state") is not None:
        state = games.check_state(game, body["state"])
    else:
        state = games.start_state(game, settings)
    session_id = secrets.token_urlsafe(9)
    stamp = now()
    with transaction() as db:
        db.execute(
            "INSERT INTO sessions (id, game, mode, players, settings, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (session_id, game, mode, json.dumps(players), json.dumps(settings), stamp, stamp),
        )
        db.execute(
            "INSERT INTO events (session_id, seq, kind, player, state, notation, created_at)"
            " VALUES (?, 1, 'start', NULL, ?, '', ?)",
            (session_id, json.dumps(state), stamp),
        )
    return jsonify(_full(_session_row(session_id))), 201


@bp.get("/api/sessions")
def list_sessions():
    """The 50 most recently changed sessions (optionally of one game)."""
    game = request.args.get("game")
    sql, params = "SELECT * FROM sessions", ()
    if game:
        if game not in games.GAMES:
            raise SessionInputError("game: must be caribo, colomino or wauri")
        sql, params = sql + " WHERE game = ?", (game,)
    rows = get_db().execute(sql + " ORDER BY updated_at DESC, rowid DESC LIMIT 50", params)
    return jsonify(sessions=[_session_dict(r) for r in rows])


@bp.get("/api/sessions/<session_id>")
def show_session(session_id: str):
    """The session with its full history and the derived scoreboard."""
    return jsonify(_full(_session_row(session_id)))


@bp.post("/api/sessions/<session_id>/events")
def add_event(session_id: str):
    """Confirm a move, a pass or a correction (checked by the rules engine first)."""
    session = _session_row(session_id)
    body = _json_body()
    kind = body.get("kind", "move")
    active = _events(session_id)
    summary = games.summary(session["game"], session["players"], session["settings"], active)
    if summary["over"] and kind != "correction":
        raise IllegalEvent("the game is over")
    previous = active[-1]["state"]
    version = _version(session_id)
    confirmed = games.confirm(session["game"], previous, kind, body, session["settings"])
    player = summary["turn"] if kind in ("move", "pass") else None
    stamp = now()
    # One transaction per confirmed move: the event and the session's timestamp together.
    # The rules were asked outside the transaction (they may take seconds), so the
    # session must still be the one they judged: optimistic check of its version.
    with transaction() as db:
        if _version(session_id, db) != version:
            return jsonify(error="the session changed meanwhile; reload it and try again"), 409
        seq = version[0] + 1
        db.execute(
            "INSERT INTO events (session_id, seq, kind, player, state, answer, notation,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                session_id,
                seq,
                kind,
                player,
                json.dumps(confirmed.state),
                json.dumps(confirmed.answer),
                confirmed.notation,
                stamp,
            ),
        )
        db.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (stamp, session_id))
    full = _full(session)
    return jsonify(event=full["events"][-1], session=full), 201


def _version(session_id: str, db=None) -> tuple[int, int]:
    """(last sequence number, last active sequence number): changes with every event
    and every undo, so equal versions mean an unchanged history."""
    row = (db or get_db()).execute(
        "SELECT COALESCE(MAX(seq), 0),"
        " COALESCE(MAX(CASE WHEN undone_at IS NULL THEN seq END), 0)"
        " FROM events WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    return int(row[0]), int(row[1])


@bp.post("/api/sessions/<session_id>/undo")
def undo(session_id: str):
    """Undo the last active event (the start position cannot be undone)."""
    session = _session_row(session_id)
    stamp = now()
    with transaction() as db:
        row = db.execute(
            "SELECT seq FROM events WHERE session_id = ? AND undone_at IS NULL AND kind != 'start'"
            " ORDER BY seq DESC LIMIT 1",
            (session_id,),
        ).fetchone()
        if row is None:
            return jsonify(error="nothing to undo"), 409
        db.execute(
            "UPDATE events SET undone_at = ? WHERE session_id = ? AND seq = ?",
            (stamp, session_id, row["seq"]),
        )
        db.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (stamp, session_id))
    full = _full(session)
    undone = next(e for e in full["events"] if e["seq"] == row["seq"])
    return jsonify(undone=undone, session=full)


@bp.get("/api/sessions/<session_id>/export")
def export(session_id: str):
    """Download the session as JSON (everything) or as notation text (active events)."""
    session = _session_row(session_id)
    fmt = request.args.get("format", "json")
    if fmt == "json":
        body = json.dumps(_full(session), indent=2, ensure_ascii=False) + "\n"
        mimetype, ext = "application/json", "json"
    elif fmt == "notation":
        body = games.notation_export(session, _events(session_id))
        mimetype, ext = "text/plain; charset=utf-8", "txt"
    else:
        raise SessionInputError("format: must be 'json' or 'notation'")
    filename = f"boardcam-{session['game']}-{session_id}.{ext}"
    return Response(
        body,
        mimetype=mimetype,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@bp.delete("/api/sessions/<session_id>")
def delete_session(session_id: str):
    """Delete a session and its events."""
    _session_row(session_id)
    with transaction() as db:
        db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
    return "", 204
