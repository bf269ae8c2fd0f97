"""Helpers shared by the Colomino tests (no tests here).

:func:`field` builds a consistent "edge colour field" for a layout: every horizontal and
vertical interface between two cells gets a colour (the rim markings on the outside,
the printed colour around printed fields, seeded random colours elsewhere), so the tile
``field(r, c)`` at any set of cells matches all its neighbours and the rim by
construction. Hand-built positions pick cells from such a field.
"""

from __future__ import annotations

import random

from engines.colomino import COLOURS, BoardState, default_layout, parse_layout

PLAIN9 = parse_layout(
    {"rim": {"north": "R" * 9, "east": "R" * 9, "south": "R" * 9, "west": "R" * 9},
     "printed": []},
    9,
)


def field(layout=None, seed: int = 1, size: int = 9):
    """A function ``(row, col) -> tile code`` whose tiles all fit together and the rim."""
    layout = layout or default_layout(size)
    size = layout.size
    rng = random.Random(seed)
    # h[r][c]: interface above row r in column c (h[0] north rim, h[size] south rim)
    h = [[rng.choice(COLOURS) for _ in range(size)] for _ in range(size + 1)]
    # v[r][c]: interface left of column c in row r (v[r][0] west rim, v[r][size] east rim)
    v = [[rng.choice(COLOURS) for _ in range(size + 1)] for _ in range(size)]
    for c in range(size):
        h[0][c] = layout.rim["north"][c]
        h[size][c] = layout.rim["south"][c]
    for r in range(size):
        v[r][0] = layout.rim["west"][r]
        v[r][size] = layout.rim["east"][r]
    for r, c, colour in layout.printed:
        h[r][c] = h[r + 1][c] = v[r][c] = v[r][c + 1] = colour

    def tile(row: int, col: int) -> str:
        return h[row][col] + v[row][col + 1] + h[row + 1][col] + v[row][col]

    return tile


def state(cells: dict, layout=None, size: int = 9) -> BoardState:
    """A board state with ``{(row, col): code}`` cells (default layout of ``size``)."""
    layout = layout or default_layout(size)
    base = BoardState.empty(layout.size, layout)
    return base.with_cells(cells)


def filled(positions, layout=None, seed: int = 1, extra: dict | None = None) -> BoardState:
    """A board state with the field tiles of ``layout`` at ``positions`` (+ ``extra``)."""
    layout = layout or default_layout(9)
    tile = field(layout, seed)
    cells = {(r, c): tile(r, c) for r, c in positions}
    cells.update(extra or {})
    return state(cells, layout)
