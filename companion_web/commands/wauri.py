"""``boardcam wauri ...``: play moves, list legal moves and suggest the best move.

* ``boardcam wauri play POSITION MOVES... [--variant]`` prints the position after the
  moves with ``"winner"`` added. An illegal move (empty pit, game already over) prints
  ``{"legal": false, "problems": ["move K (pit P for SIDE): reason"], "played": K-1,
  "position": <position before move K, with winner>}`` and exits 1. A move that is not
  a pit number 1-6 is malformed (exit 2).
* ``boardcam wauri moves POSITION [--variant]`` prints ``{"to_move", "moves": [{"pit",
  "extra_move"}], "winner"}``; exits 1 (with no moves) when the game is over.
* ``boardcam wauri best POSITION [--time S] [--depth N] [--variant]`` prints
  ``{"move": pit, "evaluation": e, "depth": d, "proven": bool, "result": "win"|"loss"|null,
  "plies_to_end": n|null, "nodes": n, "seconds": s, "pv": [{"player", "pit"}...],
  "rule": "main"|"variant", "to_move": side}``. ``evaluation`` is from the view of the
  player to move, in seeds (positive = good); a proven result is reported as
  ``+-(10000 - plies_to_end)``, beyond every heuristic value (at most ~1000), and
  ``"winner"`` then names the predicted winner (null while unproven).
  When the game is already over it prints ``{"move": null, "winner": side, ...}`` and
  exits 1.

POSITION is literal JSON, ``@file`` or a path ending in ``.json`` (SPEC Wauri format).
"""

from __future__ import annotations

import math

from companion_web.cli_support import (
    EXIT_NEGATIVE,
    EXIT_OK,
    UsageError,
    emit,
    read_json_argument,
)
from engines.errors import FormatError
from engines.wauri import MATE_BOUND, WIN, Move, Position, Rule, WauriState, search

MAX_TIME = 600.0


def register(sub) -> None:
    """Add ``wauri`` with its sub-commands ``play``, ``moves`` and ``best``."""
    p = sub.add_parser("wauri", help="Wauri rules: play moves, legal moves, best move")
    wsub = p.add_subparsers(dest="wauri_command", metavar="SUBCOMMAND")
    wsub.required = True

    play = wsub.add_parser("play", help="the position after MOVES, with the winner")
    play.add_argument("position", metavar="POSITION", help="position JSON, @file or FILE.json")
    play.add_argument("moves", metavar="MOVES", nargs="*", help="pit numbers 1-6")
    play.add_argument("--variant", action="store_true", help="variant end rule")
    play.set_defaults(func=run_play)

    moves = wsub.add_parser("moves", help="legal moves of the player to move")
    moves.add_argument("position", metavar="POSITION")
    moves.add_argument("--variant", action="store_true", help="variant end rule")
    moves.set_defaults(func=run_moves)

    best = wsub.add_parser("best", help="suggested move and its evaluation")
    best.add_argument("position", metavar="POSITION")
    best.add_argument("--time", default="1.0", metavar="SECONDS", help="time budget (1.0)")
    best.add_argument("--depth", default=None, metavar="PLIES", help="maximum depth")
    best.add_argument("--variant", action="store_true", help="variant end rule")
    best.set_defaults(func=run_best)


def _rule(args) -> Rule:
    return Rule.VARIANT if args.variant else Rule.MAIN


def _position(args) -> Position:
    return Position.from_json(read_json_argument(args.position, "POSITION"))


def _with_winner(state: WauriState) -> dict:
    obj = state.position().to_json()
    obj["winner"] = state.winner()
    return obj


def run_play(args) -> int:
    """``wauri play``: apply MOVES in order; exit 1 at the first illegal one."""
    state = WauriState(_position(args), _rule(args))
    parsed = []
    for k, text in enumerate(args.moves, start=1):
        try:
            parsed.append(Move.parse(text, f"move {k}"))
        except FormatError as exc:
            raise UsageError(str(exc)) from None
    for k, move in enumerate(parsed, start=1):
        mover = state.current_player()
        problem = state.why_illegal(move)
        if problem is not None:
            emit(
                {
                    "legal": False,
                    "problems": [f"move {k} (pit {move.pit} for {mover}): {problem}"],
                    "played": k - 1,
                    "position": _with_winner(state),
                }
            )
            return EXIT_NEGATIVE
        state.push(move)
    emit(_with_winner(state))
    return EXIT_OK


def run_moves(args) -> int:
    """``wauri moves``: the legal pits of the player to move."""
    state = WauriState(_position(args), _rule(args))
    moves = [
        {"pit": m.pit, "extra_move": state.gives_extra_move(m)} for m in state.legal_moves()
    ]
    emit({"to_move": state.current_player(), "moves": moves, "winner": state.winner()})
    return EXIT_OK if moves else EXIT_NEGATIVE


def _number(text: str, what: str, kind):
    try:
        value = kind(text)
    except ValueError:
        raise UsageError(f"{what}: {text!r} is not a number") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise UsageError(f"{what}: must be finite")
    return value


def run_best(args) -> int:
    """``wauri best``: iterative-deepening alpha-beta under a time budget."""
    seconds = _number(args.time, "--time", float)
    if not 0 < seconds <= MAX_TIME:
        raise UsageError(f"--time: must be > 0 and at most {MAX_TIME:g} seconds")
    max_depth = 200
    if args.depth is not None:
        max_depth = _number(args.depth, "--depth", int)
        if not 1 <= max_depth <= 200:
            raise UsageError("--depth: must be 1-200")
    position = _position(args)
    rule = _rule(args)
    state = WauriState(position, rule)
    base = {"rule": rule.value, "to_move": position.to_move}
    if state.is_over():
        emit({"move": None, "winner": state.winner(), "evaluation": None, **base})
        return EXIT_NEGATIVE
    result = search(position, seconds, rule, max_depth=max_depth)
    if result.proven:
        evaluation = (1 if result.score > 0 else -1) * (10_000 - result.plies_to_end)
    else:
        evaluation = result.score / 10
    assert abs(result.score) <= WIN and (result.proven == (abs(result.score) > MATE_BOUND))
    winner = None
    if result.proven:
        other = "north" if position.to_move == "south" else "south"
        winner = position.to_move if result.score > 0 else other
    emit(
        {
            "move": result.move.pit,
            "evaluation": evaluation,
            "depth": result.depth,
            "proven": result.proven,
            "result": result.result,
            "winner": winner,
            "plies_to_end": result.plies_to_end,
            "nodes": result.nodes,
            "seconds": round(result.seconds, 3),
            "pv": [{"player": p, "pit": pit} for p, pit in result.pv],
            **base,
        }
    )
    return EXIT_OK
