"""``boardcam caribo check|solve|moves|figures``: the CARIBO rules engine on the command line.

* ``check SOLUTION [--figure FIGURE]`` prints ``{"valid", "problems", "details"}``;
  exit 0 valid, 1 invalid.  ``problems`` are human-readable strings; ``details`` the
  same problems as objects (``kind``, ``cells`` as ``[row, col]`` in the SOLUTION's grid,
  ``edge``, ``colours``).
* ``solve FIGURE`` (or ``--name NAME`` for a library figure) prints ``{"solution": ...}``
  in the FIGURE's grid; exit 1 with ``null`` when no filling exists.  FIGURE may also
  hold tile codes: tiles already laid on figure cells, which the solution keeps.  The search is
  exhaustive; ``--node-limit N`` bounds it and then answers
  ``{"solution": null, "gave_up": true}`` (exit 1) when no filling was found in time.
* ``moves BOARD --hand CODES`` prints the list of legal placements ``{"row","col","tile"}``
  in BOARD's grid (empty BOARD: the opening at row 0, col 0); an empty list (the player
  must pass) is still an answer (exit 0).
* ``suggest BOARD --hand CODES``: the suggested move of a 2-player open-hand game for
  the player holding CODES (the opponent holds every other tile not on BOARD):
  ``{"move": {"row","col","tile"} | "pass", "value": v}``; ``{"move": null}`` and exit
  1 when the game is over.  On an empty BOARD without ``S`` in the hand the mover opens
  with any tile (championship games 2+).
* ``figures`` lists the library (name, cells, figure notation).

Arguments are literal or ``@file``; malformed input exits 2 with one line on stderr
naming the argument, the 0-based row/col and the reason.
"""

from __future__ import annotations

from engines.caribo.board import Placement, hand_mask
from engines.caribo.errors import DuplicateTileError
from engines.caribo.game import BLACK_ID, CariboGame
from engines.caribo.notation import Figure, duplicates_of, parse_board, parse_figure
from engines.caribo.puzzles import check_solution, library
from engines.caribo.solver import solve
from engines.caribo.strategy import ranked_moves, suggest_move
from engines.caribo.tiles import parse_hand
from engines.errors import FormatError

from ..cli_support import EXIT_NEGATIVE, EXIT_OK, UsageError, emit, read_argument


def register(sub) -> None:
    """Add ``boardcam caribo ...``."""
    p = sub.add_parser("caribo", help="CARIBO rules: check, solve, legal moves")
    actions = p.add_subparsers(dest="caribo_command", metavar="ACTION")
    actions.required = True

    c = actions.add_parser("check", help="validate a laid board / a figure solution")
    c.add_argument("solution", metavar="SOLUTION", help="notation with tile codes, or @file")
    c.add_argument("--figure", metavar="FIGURE", help="0/1 figure notation, or @file")
    c.set_defaults(func=run_check)

    s = actions.add_parser("solve", help="fill a figure with distinct matching tiles")
    s.add_argument(
        "figure",
        metavar="FIGURE",
        nargs="?",
        help="0/1 figure notation (tile codes: tiles already laid), or @file",
    )
    s.add_argument("--name", help="a figure from the library (see 'boardcam caribo figures')")
    s.add_argument(
        "--node-limit",
        type=int,
        metavar="N",
        help="give up after N search nodes (answer null with \"gave_up\": true)",
    )
    s.set_defaults(func=run_solve)

    m = actions.add_parser("moves", help="legal placements for a hand")
    m.add_argument("board", metavar="BOARD", help='board notation ("" = empty), or @file')
    m.add_argument(
        "--hand", required=True, metavar="CODES", help="tiles, e.g. S,WS,34BR (or @file)"
    )
    m.set_defaults(func=run_moves)

    g = actions.add_parser(
        "suggest", help="suggested move in a 2-player game (the other hand is the rest)"
    )
    g.add_argument("board", metavar="BOARD", help='board notation ("" = empty), or @file')
    g.add_argument("--hand", required=True, metavar="CODES", help="the mover's tiles (or @file)")
    g.set_defaults(func=run_suggest)

    f = actions.add_parser("figures", help="list the figure library")
    f.set_defaults(func=run_figures)


def _parse(parser, text: str, what: str):
    try:
        return parser(text)
    except UsageError:
        raise
    except FormatError as exc:
        raise UsageError(f"{what}: {exc}") from None


def run_check(args) -> int:
    board = _parse(parse_board, read_argument(args.solution, "SOLUTION"), "SOLUTION")
    figure = None
    if args.figure is not None:
        figure = _parse(parse_figure, read_argument(args.figure, "FIGURE"), "FIGURE")
    problems = check_solution(board, figure)
    emit(
        {
            "valid": not problems,
            "problems": [p.message for p in problems],
            "details": [p.to_json() for p in problems],
        }
    )
    return EXIT_OK if not problems else EXIT_NEGATIVE


def run_solve(args) -> int:
    if (args.figure is None) == (args.name is None):
        raise UsageError("caribo solve: give either FIGURE or --name")
    given = {}
    if args.name is not None:
        figures = library()
        if args.name not in figures:
            raise UsageError(f"--name: unknown figure {args.name!r}; see boardcam caribo figures")
        figure = figures[args.name].figure
    else:
        # 0/1 cells, and tile codes for tiles already laid (they are kept)
        board = _parse(parse_board, read_argument(args.figure, "FIGURE"), "FIGURE")
        if board.duplicates:
            first, dup, tile = board.duplicates[0]
            raise UsageError(
                f"FIGURE: tile {tile.identity_code} is laid twice "
                f"(row {first[0]}, col {first[1]} and row {dup[0]}, col {dup[1]})"
            )
        figure = Figure.from_board(board)
        if not figure.cells:
            raise UsageError("FIGURE: the figure has no cell to fill (no '1')")
        given = dict(board.tiles)
    if args.node_limit is not None and args.node_limit < 1:
        raise UsageError("--node-limit: must be a positive number of nodes")
    result = solve(figure, node_limit=args.node_limit, given=given)
    if result.board is None:
        emit({"solution": None} if result.complete else {"solution": None, "gave_up": True})
        return EXIT_NEGATIVE
    emit({"solution": result.board.notation()})
    return EXIT_OK


def run_moves(args) -> int:
    board = _parse(parse_board, read_argument(args.board, "BOARD"), "BOARD")
    dups = duplicates_of(board)
    if dups:
        first, dup, tile = dups[0]
        raise UsageError(
            f"BOARD: tile {tile.identity_code} is on the board twice "
            f"(row {first[0]}, col {first[1]} and row {dup[0]}, col {dup[1]})"
        )
    hand = _parse(parse_hand, read_argument(args.hand, "--hand"), "--hand")
    try:
        placements = board.legal_placements(hand)
    except DuplicateTileError as exc:
        raise UsageError(f"--hand: {str(exc).removeprefix('hand: ')}") from None
    emit([p.to_json() for p in placements])
    return EXIT_OK


def run_suggest(args) -> int:
    """2-player open-hand game: the opponent holds every tile not on BOARD or in --hand."""
    board = _parse(parse_board, read_argument(args.board, "BOARD"), "BOARD")
    if board.duplicates:
        first, dup, tile = board.duplicates[0]
        raise UsageError(f"BOARD: tile {tile.identity_code} is on the board twice")
    hand = _parse(parse_hand, read_argument(args.hand, "--hand"), "--hand")
    mine = hand_mask(hand)
    if mine & board.used_mask:
        raise UsageError("--hand: a tile of the hand is already on the board")
    rest = ((1 << 36) - 1) & ~mine & ~board.used_mask
    opening_any = len(board) == 0 and not mine >> BLACK_ID & 1
    game = CariboGame.from_position(board, [mine, rest], 0, open_with_any=opening_any)
    if game.is_over():
        emit({"move": None, "value": None})
        return EXIT_NEGATIVE
    ranked = ranked_moves(game)
    best = suggest_move(game)
    value = dict(ranked)[best]
    move = best.to_json() if isinstance(best, Placement) else "pass"
    emit({"move": move, "value": value})
    return EXIT_OK


def run_figures(args) -> int:
    emit(
        [
            {"name": f.name, "cells": f.cells, "description": f.description,
             "figure": str(f.figure)}
            for f in library().values()
        ]
    )
    return EXIT_OK
