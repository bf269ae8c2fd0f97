"""The Colomino rules engine (board 9×9 or 12×12, square four-colour tiles, courts).

Public API:

* tiles: :class:`Tile`, :func:`full_tile_set` (144 tiles: 70 patterns twice + 4 jokers);
* layouts: :class:`Layout`, :func:`default_layout`, :func:`parse_layout`,
  :func:`layout_to_json`;
* board states in the SPEC format: :class:`BoardState`, :func:`parse_state`,
  :func:`state_to_json`.
"""

from .board import EMPTY, BoardFormatError, BoardState, parse_state, state_to_json
from .layout import Layout, LayoutFormatError, default_layout, layout_to_json, parse_layout
from .tiles import COLOURS, JOKER, SIDES, Tile, TileFormatError, full_tile_set

__all__ = [
    "COLOURS",
    "EMPTY",
    "JOKER",
    "SIDES",
    "BoardFormatError",
    "BoardState",
    "Layout",
    "LayoutFormatError",
    "Tile",
    "TileFormatError",
    "default_layout",
    "full_tile_set",
    "layout_to_json",
    "parse_layout",
    "parse_state",
    "state_to_json",
]
