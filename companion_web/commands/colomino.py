"""``boardcam colomino score|moves``: Colomino turn scoring and legal placements.

* ``boardcam colomino score BEFORE.json AFTER.json`` prints the placements in the
  scoring order chosen, the courts, the chips and the points; exit 1 with
  ``{"legal": false, "problems": [...]}`` when the change is not a legal turn.
* ``boardcam colomino moves BOARD.json --rack RRGB,YYBB,*`` prints every legal single
  placement ``{"row", "col", "tile"}`` (one per distinct resulting board; an empty list
  when nothing fits, still exit 0).

Boards are literal JSON, ``@file`` or a path ending in ``.json``.
"""

from __future__ import annotations

from engines.colomino import Board, BoardState, Rules, parse_state, parse_tile_list, score_turn
from engines.errors import FormatError

from ..cli_support import EXIT_NEGATIVE, EXIT_OK, UsageError, emit, read_json_argument


def register(sub) -> None:
    """Add the ``colomino`` command and its sub-commands."""
    p = sub.add_parser("colomino", help="Colomino rules: score a turn, list placements")
    csub = p.add_subparsers(dest="colomino_command", metavar="SUBCOMMAND")
    csub.required = True

    score = csub.add_parser("score", help="check and score the turn between two boards")
    score.add_argument("before", metavar="BEFORE", help="board before the turn (JSON/@file)")
    score.add_argument("after", metavar="AFTER", help="board after the turn (JSON/@file)")
    _add_rule_options(score)
    score.set_defaults(func=run_score)

    moves = csub.add_parser("moves", help="legal single placements for a rack")
    moves.add_argument("board", metavar="BOARD", help="board state (JSON/@file)")
    moves.add_argument("--rack", required=True, metavar="CODES",
                       help="rack tiles, comma-separated codes (RRGB,YYBB,*)")
    _add_rule_options(moves)
    moves.set_defaults(func=run_moves)


def _add_rule_options(p) -> None:
    p.add_argument("--side-walls", action="store_true",
                   help="the east/west board edges enclose courts too")


def _board(value: str, what: str) -> BoardState:
    obj = read_json_argument(value, what)
    try:
        return parse_state(obj)
    except FormatError as exc:
        raise UsageError(f"{what}: {exc}") from None


def run_score(args) -> int:
    """``colomino score``: exit 0 with the score, 1 when the turn is not legal."""
    before = _board(args.before, "BEFORE")
    after = _board(args.after, "AFTER")
    result = score_turn(before, after, Rules(side_walls=args.side_walls))
    emit(result.to_json())
    return EXIT_OK if result.legal else EXIT_NEGATIVE


def run_moves(args) -> int:
    """``colomino moves``: every legal single placement of a rack tile."""
    state = _board(args.board, "BOARD")
    try:
        rack = parse_tile_list(args.rack, "--rack")
    except FormatError as exc:
        raise UsageError(str(exc)) from None
    board = Board.from_state(state, Rules(side_walls=args.side_walls))
    emit([p.to_json() for p in board.legal_placements(rack)])
    return EXIT_OK
