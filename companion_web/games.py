"""Per-game session logic: the start position, confirming a move, the scoreboard.

A session is a list of confirmed events (``start``, ``move``, ``pass``, ``correction``),
each carrying the full board state after it. Confirming a move asks the rules engine
(:mod:`companion_web.rules`) whether the new state follows legally from the previous
one; only then is it stored. :func:`summary` derives whose turn it is, tiles left,
scores and the winner from the stored events; nothing derived is stored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from engines.errors import FormatError

from . import rules
from .rules import FileArg

GAMES = rules.GAMES
PLAYER_LIMITS = {"caribo": (2, 4), "colomino": (1, 4), "wauri": (2, 2)}
CARIBO_SET_SIZE = 36
COLOMINO_SET_SIZE = 144
#: Colomino end options (engines/colomino/README.md): after the turn that puts a tile in
#: row 0, every player plays one more turn ("all") or only the other players ("others").
COLOMINO_FINAL_ROUNDS = ("all", "others")
WAURI_SIDES = ("south", "north")


class SessionInputError(FormatError):
    """A session request whose fields are malformed (answered with HTTP 400)."""


class IllegalEvent(ValueError):
    """A well-formed move that the rules do not allow here (answered with HTTP 422)."""

    def __init__(self, message: str, problems: list | None = None):
        super().__init__(message)
        self.problems = problems or [message]


@dataclass(frozen=True)
class Confirmed:
    """What a confirmed event stores: the state after it, the rules answer, a notation line."""

    state: dict
    answer: dict = field(default_factory=dict)
    notation: str = ""


def check_players(game: str, players) -> list[str]:
    """Validate the ``players`` field (a list of names) for ``game``."""
    low, high = PLAYER_LIMITS[game]
    if players is None:
        players = list(WAURI_SIDES) if game == "wauri" else [f"Player {i + 1}" for i in range(low)]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise SessionInputError("players: must be a list of names")
    players = [p.strip()[:40] or f"Player {i + 1}" for i, p in enumerate(players)]
    if not low <= len(players) <= high:
        raise SessionInputError(f"players: {game} is played by {low} to {high} players")
    return players


def check_settings(game: str, settings) -> dict:
    """A new session's ``settings`` with the game's defaults filled in, or a 400 naming
    the field. Colomino: ``size`` 9|12, ``final_round`` "all"|"others", ``side_walls``
    (whether the east/west edges enclose courts); Wauri: ``variant`` (the end rule)."""
    if not isinstance(settings, dict):
        raise SessionInputError("settings: must be a JSON object")
    out = dict(settings)
    if game == "colomino":
        if out.setdefault("size", 9) not in (9, 12):
            raise SessionInputError("settings.size: must be 9 or 12")
        if out.setdefault("final_round", "all") not in COLOMINO_FINAL_ROUNDS:
            raise SessionInputError("settings.final_round: must be 'all' or 'others'")
        if not isinstance(out.setdefault("side_walls", False), bool):
            raise SessionInputError("settings.side_walls: must be true or false")
    if game == "wauri" and not isinstance(out.setdefault("variant", False), bool):
        raise SessionInputError("settings.variant: must be true or false")
    return out


def start_state(game: str, settings: dict) -> dict:
    """The position a new session starts from when the request gives none."""
    if game == "caribo":
        return {"game": "caribo", "notation": ""}
    if game == "colomino":
        size = settings.get("size", 9)
        if size not in (9, 12):
            raise SessionInputError("settings.size: must be 9 or 12")
        return {"game": "colomino", "size": size, "rows": [["."] * size for _ in range(size)]}
    return {
        "game": "wauri",
        "south": [4] * 6,
        "north": [4] * 6,
        "stores": {"south": 0, "north": 0},
        "to_move": "south",
    }


def check_state(game: str, state) -> dict:
    """Shape check of a board state before it goes to an engine (engines check the rest)."""
    if not isinstance(state, dict):
        raise SessionInputError("state: must be a JSON object")
    if state.get("game", game) != game:
        raise SessionInputError(f"state.game: expected {game!r}")
    if game == "caribo":
        if not isinstance(state.get("notation"), str):
            raise SessionInputError("state.notation: must be CARIBO figure notation text")
        return {"game": "caribo", "notation": state["notation"].strip()}
    if game == "colomino":
        if not isinstance(state.get("rows"), list):
            raise SessionInputError("state.rows: must be a list of rows")
        keep = {k: state[k] for k in ("size", "rows", "layout", "base_known") if k in state}
        return {"game": "colomino", **keep}
    for key in ("south", "north", "stores", "to_move"):
        if key not in state:
            raise SessionInputError(f"state.{key}: missing")
    keep = {k: state[k] for k in ("south", "north", "stores", "to_move")}
    return {"game": "wauri", **keep}


def caribo_tile_count(notation: str) -> int:
    """How many tiles a CARIBO notation holds (cells that are neither ``0`` nor ``1``)."""
    count = 0
    for row in notation.split(" - ") if notation.strip() else []:
        for cell in row.strip().removeprefix("e").split(","):
            if cell.strip() not in ("", "0", "1"):
                count += 1
    return count


def caribo_extends(before: str, after: str) -> bool:
    """Whether board ``after`` holds every tile of ``before`` in the same place and turn,
    up to moving and turning the whole table (a photo may come back in another of the
    figure's six rotations, SPEC)."""
    from engines.caribo.geometry import rotate_axial, to_axial
    from engines.caribo.notation import parse_board

    if not before.strip():
        return True
    old, new = parse_board(before), parse_board(after)
    if len(old) == 0:
        return True
    placed = {to_axial(r, c, new.first_row_shifted): t for (r, c), t in new.tiles.items()}
    items = [(to_axial(r, c, old.first_row_shifted), t) for (r, c), t in old.tiles.items()]
    for k in range(6):
        turned = [(rotate_axial(q, r, k), t.rotated(k)) for (q, r), t in items]
        (q0, r0), t0 = turned[0]
        for (q1, r1), t1 in placed.items():
            if t1 != t0:
                continue
            dq, dr = q1 - q0, r1 - r0
            if all(placed.get((q + dq, r + dr)) == t for (q, r), t in turned):
                return True
    return False


def confirm(game: str, previous: dict, kind: str, payload: dict, settings: dict) -> Confirmed:
    """Check an event against the rules and return what to store.

    Raises :class:`SessionInputError` for malformed fields, :class:`IllegalEvent` when
    the rules refuse it and the :mod:`companion_web.rules` errors when the engine cannot
    answer.
    """
    if kind not in ("move", "pass", "correction"):
        raise SessionInputError("kind: must be 'move', 'pass' or 'correction'")
    if kind == "pass":
        if game == "wauri":
            raise SessionInputError("kind: Wauri has no passes (a player who cannot move wins)")
        return Confirmed(previous, {}, "pass")
    if game == "wauri" and kind == "move":
        return _wauri_move(previous, payload, settings)
    state = check_state(game, payload.get("state"))
    if game == "caribo":
        return _caribo(previous, state, kind)
    if game == "colomino":
        return _colomino(previous, state, kind, settings)
    return _wauri_correction(state, settings)


def _caribo(previous: dict, state: dict, kind: str) -> Confirmed:
    answer = rules.ask("caribo", "check", [FileArg(state["notation"])])
    data = answer.data if isinstance(answer.data, dict) else {"valid": False}
    if kind == "move":
        added = caribo_tile_count(state["notation"]) - caribo_tile_count(previous["notation"])
        if added != 1:
            raise IllegalEvent(f"a move places exactly one tile (this adds {added})")
        if answer.negative or not data.get("valid", False):
            raise IllegalEvent("the board breaks the placement rules", data.get("problems"))
        if not caribo_extends(previous["notation"], state["notation"]):
            raise IllegalEvent("the tiles already on the table changed; correct the board first")
    return Confirmed(state, data, state["notation"])


def _colomino(previous: dict, state: dict, kind: str, settings: dict) -> Confirmed:
    options = ["--side-walls"] if settings.get("side_walls") else []
    if kind == "correction":
        # Only the format is checked: a correction may change anything.
        rules.ask("colomino", "score", [FileArg.json(state), FileArg.json(state), *options])
        return Confirmed(state, {}, "correction")
    answer = rules.ask(
        "colomino", "score", [FileArg.json(previous), FileArg.json(state), *options]
    )
    if answer.negative:
        data = answer.data if isinstance(answer.data, dict) else {}
        raise IllegalEvent("not a legal turn", data.get("problems"))
    data = answer.data
    placed = " ".join(f"{p['row']},{p['col']}={p['tile']}" for p in data.get("placements", []))
    return Confirmed(state, data, f"{placed} +{data.get('points', 0)}")


def _wauri_move(previous: dict, payload: dict, settings: dict) -> Confirmed:
    moves = payload.get("moves")
    if (
        not isinstance(moves, list)
        or not moves
        or not all(isinstance(m, int) and not isinstance(m, bool) for m in moves)
    ):
        raise SessionInputError("moves: must be a non-empty list of pit numbers 1-6")
    args: list[object] = [FileArg.json(_wauri_position(previous)), *map(str, moves)]
    if settings.get("variant"):
        args.append("--variant")
    answer = rules.ask("wauri", "play", args)
    if answer.negative:
        data = answer.data if isinstance(answer.data, dict) else {}
        problems = [str(p) for p in data.get("problems") or []]
        message = (problems[0] if problems else None) or data.get("message") or "illegal move"
        raise IllegalEvent(message, problems or [message])
    data = dict(answer.data)
    winner = data.pop("winner", None)
    state = check_state("wauri", data)
    return Confirmed(state, {"moves": moves, "winner": winner}, " ".join(map(str, moves)))


def _wauri_correction(state: dict, settings: dict) -> Confirmed:
    args: list[object] = [FileArg.json(state)]
    if settings.get("variant"):
        args.append("--variant")
    answer = rules.ask("wauri", "play", args)
    winner = answer.data.get("winner") if isinstance(answer.data, dict) else None
    return Confirmed(state, {"moves": [], "winner": winner}, "correction")


def _wauri_position(state: dict) -> dict:
    return {k: state[k] for k in ("game", "south", "north", "stores", "to_move") if k in state}


def summary(game: str, players: list[str], settings: dict, events: list[dict]) -> dict:
    """Whose turn, pieces left, scores and winner, derived from the active events."""
    moves = [e for e in events if e["kind"] in ("move", "pass")]
    state = events[-1]["state"] if events else None
    n = len(players)
    first = settings.get("first_player", 0) % n
    out: dict = {"turn": None, "winner": None, "over": False, "moves_played": len(moves)}
    if game == "caribo":
        dealt = CARIBO_SET_SIZE // n
        placed = [0] * n
        for e in moves:
            if e["kind"] == "move" and e["player"] is not None:
                placed[e["player"]] += 1
        left = [dealt - p for p in placed]
        out["tiles_left"] = left
        out["turn"] = (first + len(moves)) % n
        trailing_passes = 0
        for e in reversed(moves):
            if e["kind"] != "pass":
                break
            trailing_passes += 1
        if 0 in left:
            out["over"], out["winner"] = True, [left.index(0)]
        elif trailing_passes >= n:
            fewest = min(left)
            out["over"], out["winner"] = True, [i for i, x in enumerate(left) if x == fewest]
    elif game == "colomino":
        out.update(_colomino_summary(n, first, settings, moves))
    else:
        out["history"] = [
            {"seq": e["seq"], "player": e["player"], "moves": e["answer"].get("moves", [])}
            for e in events
            if e["kind"] == "move"
        ]
        if state is not None:
            out["turn"] = WAURI_SIDES.index(state["to_move"]) if state.get("to_move") in (
                WAURI_SIDES
            ) else None
        if events:
            winner = events[-1]["answer"].get("winner")
            if winner in WAURI_SIDES:
                out["over"], out["winner"] = True, [WAURI_SIDES.index(winner)]
    return out


def _colomino_summary(n: int, first: int, settings: dict, moves: list[dict]) -> dict:
    """Colomino scoreboard and end (engines/colomino/README.md, "End" and "Winners").

    The game ends at the end of the turn that completes the final round (started by the
    turn that puts a tile in row 0: then ``n`` more turns with ``final_round`` "all",
    ``n - 1`` with "others"), after a full round of turns without a tile placed, or when
    all 144 tiles lie on the board (bag and racks empty). Winners: most points, then most
    blue chips; players still tied share the win; everybody tied is a draw (no winner).
    """
    scores = [{"yellow": 0, "blue": 0, "points": 0} for _ in range(n)]
    extra = n if settings.get("final_round", "all") == "all" else n - 1
    trigger_at = end_reason = None
    idle = 0  # consecutive turns without a tile placed
    for index, e in enumerate(moves):
        answer = e["answer"] if e["kind"] == "move" else {}
        placements = answer.get("placements") or []
        if e["player"] is not None:
            for key in ("yellow", "blue", "points"):
                scores[e["player"]][key] += int(answer.get(key, 0))
        idle = 0 if placements else idle + 1
        if trigger_at is None and any(p.get("row") == 0 for p in placements):
            trigger_at = index
        if trigger_at is not None and index - trigger_at >= extra:
            end_reason = "final round played"
        elif idle >= n:
            end_reason = "a full round without a tile placed"
        elif _colomino_tiles_on_board(e["state"]) >= COLOMINO_SET_SIZE:
            end_reason = "every tile is on the board"
        if end_reason:
            break
    out: dict = {
        "scores": scores,
        "turn": (first + len(moves)) % n,
        "final_round": settings.get("final_round", "all"),
        "side_walls": bool(settings.get("side_walls", False)),
    }
    if trigger_at is not None:
        out["turns_left"] = max(trigger_at + extra - (len(moves) - 1), 0)
    if end_reason:
        out["over"], out["end_reason"] = True, end_reason
        out["winner"], out["decided_by"] = _colomino_winners(scores)
    return out


def _colomino_winners(scores: list[dict]) -> tuple[list[int], str]:
    """(winner indices, how it was decided: "points", "blue chips", "shared" or "draw")."""
    best = max((s["points"], s["blue"]) for s in scores)
    leaders = [i for i, s in enumerate(scores) if (s["points"], s["blue"]) == best]
    if len(scores) > 1 and len(leaders) == len(scores):
        return [], "draw"
    if len(leaders) > 1:
        return leaders, "shared"
    top_points = sum(s["points"] == best[0] for s in scores)
    return leaders, "points" if top_points == 1 else "blue chips"


def _colomino_tiles_on_board(state: dict) -> int:
    return sum(cell not in (".", "") for row in state.get("rows") or [] for cell in row)


def player_for_move(game: str, players: list[str], settings: dict, events: list[dict]) -> int:
    """The index of the player who makes the next move."""
    turn = summary(game, players, settings, events)["turn"]
    return 0 if turn is None else turn


def notation_export(session: dict, events: list[dict]) -> str:
    """The session as text: a header, then one line per confirmed event."""
    players = session["players"]
    lines = [
        f"# boardcam {session['game']} session {session['id']}",
        f"# mode: {session['mode']}; players: {', '.join(players)}",
        f"# started {session['created_at']}",
    ]
    if session["settings"]:
        lines.append(f"# settings: {json.dumps(session['settings'], sort_keys=True)}")
    for e in events:
        who = players[e["player"]] if e["player"] is not None else e["kind"]
        text = e["notation"] if e["kind"] != "start" else _start_notation(session["game"], e)
        lines.append(f"{e['seq']}. {who}: {text}")
    return "\n".join(lines) + "\n"


def _start_notation(game: str, event: dict) -> str:
    if game == "caribo":
        return event["state"]["notation"] or "(empty table)"
    return json.dumps(event["state"], separators=(",", ":"))
