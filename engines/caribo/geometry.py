"""Hex-lattice geometry of the CARIBO notation grid.

Pointy-top hexagons.  A cell is ``(row, col)`` in the notation grid; a row is
*indented* (shifted right by half a tile, written with a leading ``e``) when
``is_indented(row, first_row_shifted)``; rows alternate, also for negative row indices.

Centre of a cell in units of the tile width across flats (x right, y down):
``x = col + 0.5 * indented``, ``y = row * sqrt(3) / 2``.

Edges are numbered 1..6 like the segments (1 upper-right, 2 right, 3 lower-right,
4 lower-left, 5 left, 6 upper-left); internally 0-based edge indices 0..5 are used.
Edge *k* of a tile meets edge *k + 3 (mod 6)* of the neighbour across it.

For rotations the cells are converted to axial coordinates ``(q, r)`` with doubled
x-coordinate ``2q + r`` (up to a global half-tile shift that depends on
``first_row_shifted``); a 60° clockwise turn is ``(q, r) -> (-r, q + r)``.
"""

from __future__ import annotations

import math

SQRT3_2 = math.sqrt(3.0) / 2.0

EDGE_NAMES = ("upper-right", "right", "lower-right", "lower-left", "left", "upper-left")

# Neighbour offsets (drow, dcol) across edge index 0..5.
_DELTA_INDENTED = ((-1, 1), (0, 1), (1, 1), (1, 0), (0, -1), (-1, 0))
_DELTA_PLAIN = ((-1, 0), (0, 1), (1, 0), (1, -1), (0, -1), (-1, -1))

AXIAL_DIRECTIONS = ((1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1))
"""Axial ``(dq, dr)`` across edge index 0..5."""


def is_indented(row: int, first_row_shifted: bool) -> bool:
    """Whether notation row ``row`` is shifted right by half a tile."""
    return (row % 2 == 1) != bool(first_row_shifted)


def cell_centre(row: int, col: int, first_row_shifted: bool) -> tuple[float, float]:
    """Centre ``(x, y)`` of a cell in tile widths (across flats), x right, y down."""
    x = col + (0.5 if is_indented(row, first_row_shifted) else 0.0)
    return (float(x), row * SQRT3_2)


def neighbour_deltas(row: int, first_row_shifted: bool) -> tuple[tuple[int, int], ...]:
    """The six ``(drow, dcol)`` offsets (edge index 0..5) for cells of ``row``."""
    return _DELTA_INDENTED if is_indented(row, first_row_shifted) else _DELTA_PLAIN


def neighbour(row: int, col: int, edge: int, first_row_shifted: bool) -> tuple[int, int]:
    """The cell across edge ``edge`` (1..6) of ``(row, col)``."""
    if not 1 <= edge <= 6:
        raise ValueError(f"edge {edge!r} is not 1..6")
    dr, dc = neighbour_deltas(row, first_row_shifted)[edge - 1]
    return (row + dr, col + dc)


def neighbours(row: int, col: int, first_row_shifted: bool) -> list[tuple[int, int]]:
    """The six neighbouring cells, for edges 1..6 in order."""
    return [(row + dr, col + dc) for dr, dc in neighbour_deltas(row, first_row_shifted)]


def opposite_edge(edge: int) -> int:
    """The edge number (1..6) of the neighbour that meets edge ``edge`` (1..6)."""
    return (edge + 2) % 6 + 1


def to_axial(row: int, col: int, first_row_shifted: bool) -> tuple[int, int]:
    """Axial ``(q, r)`` of a notation cell (doubled x = ``2q + r``, up to a global shift)."""
    ind = 1 if is_indented(row, first_row_shifted) else 0
    return ((2 * col + ind - (1 if first_row_shifted else 0) - row) // 2, row)


def from_axial(q: int, r: int, first_row_shifted: bool) -> tuple[int, int]:
    """Inverse of :func:`to_axial`."""
    ind = 1 if is_indented(r, first_row_shifted) else 0
    doubled = 2 * q + r + (1 if first_row_shifted else 0)
    return (r, (doubled - ind) // 2)


def rotate_axial(q: int, r: int, k: int = 1) -> tuple[int, int]:
    """Turn an axial cell ``k`` × 60° clockwise about the origin (screen y down)."""
    for _ in range(k % 6):
        q, r = -r, q + r
    return (q, r)
