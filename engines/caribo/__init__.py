"""CARIBO: tiles, notation, board and placement rules, game flow, solo figures.

Quick tour::

    >>> from engines.caribo import Tile, parse_board, format_board
    >>> Tile.parse("34WS").segments
    ('S', 'S', 'W', 'W', 'S', 'S')
    >>> board = parse_board("0,0,34WS,56SW,0 - e0,12WB,34BW,0,0")
    >>> board.tiles[(0, 2)].code
    '34WS'
    >>> format_board(board)
    '0,0,34WS,56SW,0 - e0,12WB,34BW,0,0'

Coordinates are ``(row, col)`` of the notation grid (0-based); see
:mod:`engines.caribo.geometry` for the hex convention.  Modules: ``tiles`` (Tile, the
set), ``geometry`` (hex lattice), ``notation`` (parse/print), ``board`` (placement
rules, legal placements), ``game`` (2–4 players, championship match), ``puzzles``
(solution checking, figure library), ``solver``, ``strategy`` (move suggestion).
"""

from .board import Board, Mismatch, Placement, board_from_axial
from .errors import (
    CellValueError,
    DuplicateTileError,
    EmptyCellError,
    IllegalPlacementError,
    NotationError,
    RaggedRowError,
    RowAlternationError,
    TileCodeError,
)
from .game import PASS, CariboGame, ChampionshipMatch, Pass
from .geometry import (
    cell_centre,
    from_axial,
    is_indented,
    neighbour,
    neighbours,
    opposite_edge,
    rotate_axial,
    to_axial,
)
from .notation import Figure, format_board, format_figure, parse_board, parse_figure
from .puzzles import BUTTERFLY, Problem, check_solution, library
from .solver import SolveResult, solve
from .strategy import suggest_move
from .tiles import ALL_TILES, COLOURS, PAIRS, Tile, full_set, parse_hand

__all__ = [
    "ALL_TILES",
    "BUTTERFLY",
    "PASS",
    "CariboGame",
    "ChampionshipMatch",
    "Pass",
    "Problem",
    "SolveResult",
    "check_solution",
    "library",
    "solve",
    "suggest_move",
    "COLOURS",
    "PAIRS",
    "Board",
    "CellValueError",
    "DuplicateTileError",
    "EmptyCellError",
    "Figure",
    "IllegalPlacementError",
    "Mismatch",
    "NotationError",
    "Placement",
    "RaggedRowError",
    "RowAlternationError",
    "Tile",
    "TileCodeError",
    "board_from_axial",
    "cell_centre",
    "format_board",
    "format_figure",
    "from_axial",
    "full_set",
    "is_indented",
    "neighbour",
    "neighbours",
    "opposite_edge",
    "parse_board",
    "parse_figure",
    "parse_hand",
    "rotate_axial",
    "to_axial",
]
