"""Parse and print the CARIBO figure notation (seed, SPEC).

Rows are separated by ``-`` (conventionally `` - ``; a newline also works), cells by
``,``; a row written with a leading ``e`` is shifted right by half a tile and
consecutive rows must alternate.  A cell is ``0`` (no cell), ``1`` (a cell to fill) or
a tile code.  Whitespace around every token is ignored.

Printing is canonical: cells joined by ``,`` and rows by `` - `` without other spaces,
so ``format(parse(text))`` is ``text`` for canonical text and parsing is idempotent.

Errors are :class:`engines.caribo.errors.NotationError` subclasses naming the 0-based
row and column (the coordinates the CLI prints) and the reason, on one line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .board import Board, board_from_axial
from .errors import (
    CellValueError,
    EmptyCellError,
    NotationError,
    RaggedRowError,
    RowAlternationError,
    TileCodeError,
)
from .geometry import is_indented, rotate_axial, to_axial
from .tiles import Tile

Cell = tuple[int, int]

_ROW_SPLIT = re.compile(r"\s*(?:-|\r?\n)\s*")


def _split_grid(text: str, what: str) -> tuple[bool, list[list[str]]]:
    """Split notation into rows of raw cell strings; returns ``(first_row_shifted, rows)``."""
    if not isinstance(text, str):
        raise NotationError(f"{what}: expected text, got {type(text).__name__}")
    body = text.strip()
    if not body:
        return False, []
    raw_rows = _ROW_SPLIT.split(body)
    rows: list[list[str]] = []
    first_shifted = False
    width = None
    for r, raw in enumerate(raw_rows):
        raw = raw.strip()
        if raw == "":
            raise EmptyCellError("empty row", r)
        shifted = raw[0] in "eE"
        if shifted:
            raw = raw[1:]
        if r == 0:
            first_shifted = shifted
        elif shifted != is_indented(r, first_shifted):
            expect = "with" if is_indented(r, first_shifted) else "without"
            raise RowAlternationError(
                f"rows must alternate; this row must be written {expect} a leading 'e'",
                r,
            )
        cells = [cell.strip() for cell in raw.split(",")]
        for c, cell in enumerate(cells):
            if cell == "":
                raise EmptyCellError("empty cell", r, c)
        if width is None:
            width = len(cells)
        elif len(cells) != width:
            raise RaggedRowError(
                f"row has {len(cells)} cells but row 0 has {width}", r
            )
        rows.append(cells)
    return first_shifted, rows


def parse_board(text: str) -> Board:
    """Parse notation with tile codes (``0``, ``1`` and codes allowed) into a :class:`Board`.

    ``1`` cells are kept as ``Board.open_cells`` (cells of a figure not filled yet).
    A physical tile written twice is *not* an error here (``check`` reports it); all
    copies are laid and listed in ``Board.duplicates``.
    """
    fs, rows = _split_grid(text, "board")
    tiles: dict[Cell, Tile] = {}
    opens = []
    for r, cells in enumerate(rows):
        for c, cell in enumerate(cells):
            if cell == "0":
                continue
            if cell == "1":
                opens.append((r, c))
                continue
            try:
                tiles[(r, c)] = Tile.parse(cell)
            except TileCodeError as exc:
                raise CellValueError(str(exc), r, c) from None
    height = len(rows)
    width = len(rows[0]) if rows else 0
    return Board(
        tiles,
        first_row_shifted=fs,
        height=height,
        width=width,
        open_cells=opens,
        allow_duplicates=True,
    )


def duplicates_of(board: Board) -> tuple[tuple[Cell, Cell, Tile], ...]:
    """``(first cell, duplicate cell, tile)`` for physical tiles written twice."""
    return board.duplicates


def _grid_extent(cells: Iterable[Cell], fs: bool, height: int, width: int):
    cells = list(cells)
    min_r = min([0] + [r for r, _ in cells])
    max_r = max([height - 1] + [r for r, _ in cells])
    min_c = min([0] + [c for _, c in cells])
    max_c = max([width - 1] + [c for _, c in cells])
    return min_r, max_r, min_c, max_c


def _format_grid(values: dict[Cell, str], fs: bool, height: int, width: int) -> str:
    if not values and (height == 0 or width == 0):
        return ""
    min_r, max_r, min_c, max_c = _grid_extent(values, fs, height, width)
    rows = []
    for r in range(min_r, max_r + 1):
        prefix = "e" if is_indented(r, fs) else ""
        rows.append(prefix + ",".join(values.get((r, c), "0") for c in range(min_c, max_c + 1)))
    return " - ".join(rows)


def format_board(board: Board) -> str:
    """Print a board in canonical notation (tile codes, ``1`` for open cells, ``0``).

    The written grid of a parsed board is kept; tiles outside it (pushed later) grow
    the grid, and if rows are added above, the indentation of row 0 follows them.
    """
    values = {cell: "1" for cell in board.open_cells}
    values.update({cell: tile.code for cell, tile in board.tiles.items()})
    return _format_grid(values, board.first_row_shifted, board.height, board.width)


@dataclass(frozen=True)
class Figure:
    """A set of cells to fill (immutable), in the grid it was written in."""

    cells: frozenset[Cell]
    first_row_shifted: bool = False
    height: int = 0
    width: int = 0

    def __len__(self) -> int:
        return len(self.cells)

    def __str__(self) -> str:
        return format_figure(self)

    def axial(self) -> frozenset[tuple[int, int]]:
        """The cells in axial coordinates (see :mod:`engines.caribo.geometry`)."""
        return frozenset(to_axial(r, c, self.first_row_shifted) for r, c in self.cells)

    def shape(self, k: int = 0) -> frozenset[tuple[int, int]]:
        """The cells turned ``k`` × 60° clockwise, translated to a canonical anchor."""
        return normalize_shape(rotate_axial(q, r, k) for q, r in self.axial())

    def same_shape(self, other: Figure) -> bool:
        """Whether ``other`` is this figure turned by a multiple of 60° and moved."""
        target = other.shape(0)
        return len(self) == len(other) and any(self.shape(k) == target for k in range(6))

    def rotated(self, k: int = 1) -> Figure:
        """The figure turned ``k`` × 60° clockwise in the tightest grid."""
        board = board_from_axial({}, [rotate_axial(q, r, k) for q, r in self.axial()])
        return Figure(board.open_cells, board.first_row_shifted, board.height, board.width)

    @classmethod
    def from_board(cls, board: Board) -> Figure:
        """The figure made of a board's tiles and open cells."""
        return cls(
            frozenset(board.tiles) | board.open_cells,
            board.first_row_shifted,
            board.height,
            board.width,
        )


def normalize_shape(axial_cells: Iterable[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    """Translate axial cells so that the smallest ``(r, q)`` cell is at the origin."""
    cells = list(axial_cells)
    if not cells:
        return frozenset()
    q0, r0 = min(cells, key=lambda qr: (qr[1], qr[0]))
    return frozenset((q - q0, r - r0) for q, r in cells)


def parse_figure(text: str) -> Figure:
    """Parse a ``0``/``1`` figure; raises a :class:`NotationError` subclass if malformed."""
    fs, rows = _split_grid(text, "figure")
    cells = set()
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            if cell == "1":
                cells.add((r, c))
            elif cell != "0":
                raise CellValueError(f"a figure cell must be 0 or 1, not {cell!r}", r, c)
    if not cells:
        raise NotationError("the figure has no cell to fill (no '1')")
    return Figure(frozenset(cells), fs, len(rows), len(rows[0]))


def format_figure(figure: Figure) -> str:
    """Print a figure in canonical ``0``/``1`` notation (grid as written)."""
    return _format_grid(
        {cell: "1" for cell in figure.cells}, figure.first_row_shifted, figure.height, figure.width
    )


__all__ = [
    "Figure",
    "duplicates_of",
    "format_board",
    "format_figure",
    "normalize_shape",
    "parse_board",
    "parse_figure",
]
