"""The Colomino rules engine (board 9×9 or 12×12, square four-colour tiles, courts).

Public API:

* tiles: :class:`Tile`, :func:`full_tile_set` (144 tiles: 70 patterns twice + 4 jokers);
* layouts: :class:`Layout`, :func:`default_layout`, :func:`parse_layout`,
  :func:`layout_to_json`;
* board states in the SPEC format: :class:`BoardState`, :func:`parse_state`,
  :func:`state_to_json`;
* rules: :class:`Rules`, :class:`Board` (working board: matching, connection, courts,
  legal placements), moves :class:`Placement` / :data:`END_TURN`;
* :func:`score_turn` → :class:`TurnScore` (the ``colomino score`` command);
* :class:`ColominoGame`, a whole game implementing :class:`engines.game.GameState`.
"""

from .board import EMPTY, BoardFormatError, BoardState, parse_state, state_to_json
from .game import ColominoGame, PlayerScore
from .layout import Layout, LayoutFormatError, default_layout, layout_to_json, parse_layout
from .rules import END_TURN, Board, Court, EndTurn, MoveFormatError, Placement, Rules, parse_move
from .tiles import COLOURS, JOKER, SIDES, Tile, TileFormatError, full_tile_set, parse_tile_list
from .turns import TurnScore, diff_boards, score_turn

__all__ = [
    "COLOURS",
    "EMPTY",
    "END_TURN",
    "JOKER",
    "SIDES",
    "Board",
    "BoardFormatError",
    "BoardState",
    "ColominoGame",
    "Court",
    "EndTurn",
    "Layout",
    "LayoutFormatError",
    "MoveFormatError",
    "Placement",
    "PlayerScore",
    "Rules",
    "Tile",
    "TileFormatError",
    "TurnScore",
    "default_layout",
    "diff_boards",
    "full_tile_set",
    "layout_to_json",
    "parse_layout",
    "parse_move",
    "parse_state",
    "parse_tile_list",
    "score_turn",
    "state_to_json",
]
