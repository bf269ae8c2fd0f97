"""Colomino board states: the SPEC JSON format, parsed and printed side by side.

``{"game": "colomino", "size": 9, "rows": [[cell, ...], ...]}``: rows from north (the
goal line) to south (the base line), cells west to east. A cell is a tile code in board
coordinates (``"RRGB"`` = north, east, south, west edge colours), ``"*"`` for a joker or
``"."`` for an empty cell. An uncovered printed field is ``"."`` (it belongs to the
layout). Optional keys: ``"layout"`` (else the default layout of that size) and
``"base_known": false`` (a recogniser that could not tell which side is the base line).
Unknown keys (a recogniser's ``"confidence"``, ``"warnings"``, …) are ignored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engines.errors import FormatError

from .layout import SIZES, Layout, default_layout, layout_to_json, parse_layout
from .tiles import COLOURS, JOKER_CODE

EMPTY = "."


class BoardFormatError(FormatError):
    """A board state that is not in the SPEC format."""


@dataclass(frozen=True)
class BoardState:
    """An immutable Colomino board: ``cells[row][col]`` is ``"RRGB"``, ``"*"`` or ``"."``."""

    size: int
    cells: tuple[tuple[str, ...], ...]
    layout: Layout
    base_known: bool = True

    def __post_init__(self) -> None:
        if self.size not in SIZES:
            raise BoardFormatError(f"size: {self.size!r} is not a Colomino board size (9 or 12)")
        if self.layout.size != self.size:
            raise BoardFormatError(
                f"layout: made for size {self.layout.size}, board has size {self.size}"
            )
        if len(self.cells) != self.size or any(len(r) != self.size for r in self.cells):
            raise BoardFormatError(f"rows: expected {self.size} rows of {self.size} cells")
        for r, row in enumerate(self.cells):
            for c, cell in enumerate(row):
                _check_cell(cell, f"rows[{r}][{c}]")

    @classmethod
    def empty(cls, size: int = 9, layout: Layout | None = None) -> BoardState:
        """An empty board of ``size`` with ``layout`` (default layout if omitted)."""
        layout = layout or default_layout(size)
        return cls(size, tuple((EMPTY,) * size for _ in range(size)), layout)

    def cell(self, row: int, col: int) -> str:
        """The cell string at ``(row, col)``."""
        return self.cells[row][col]

    def with_cells(self, changes: dict[tuple[int, int], str]) -> BoardState:
        """A copy with the given ``{(row, col): cell}`` changes applied."""
        rows = [list(r) for r in self.cells]
        for (r, c), cell in changes.items():
            rows[r][c] = cell
        return BoardState(self.size, tuple(tuple(r) for r in rows), self.layout, self.base_known)

    def tile_count(self) -> int:
        """Number of tiles (jokers included) on the board."""
        return sum(cell != EMPTY for row in self.cells for cell in row)

    def to_json(self) -> dict:
        """The SPEC JSON object (see :func:`state_to_json`)."""
        return state_to_json(self)


def _check_cell(cell: Any, where: str) -> str:
    if not isinstance(cell, str):
        raise BoardFormatError(f"{where}: expected a cell string, got {cell!r}")
    if cell in (EMPTY, JOKER_CODE):
        return cell
    if len(cell) != 4:
        raise BoardFormatError(
            f"{where}: cell {cell!r} must be '.', '*' or 4 colour letters (N,E,S,W)"
        )
    for ch in cell:
        if ch not in COLOURS:
            raise BoardFormatError(f"{where}: unknown colour {ch!r} in {cell!r}")
    return cell


def parse_state(obj: Any) -> BoardState:
    """Parse a board state from its JSON object or JSON text; errors name the field."""
    if isinstance(obj, str | bytes):
        try:
            obj = json.loads(obj)
        except json.JSONDecodeError as exc:
            raise BoardFormatError(
                f"board: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
            ) from None
        except RecursionError:
            raise BoardFormatError("board: JSON nested too deeply") from None
    if not isinstance(obj, dict):
        raise BoardFormatError("board: expected a JSON object with 'game', 'size' and 'rows'")
    game = obj.get("game", "colomino")
    if game != "colomino":
        raise BoardFormatError(f"game: expected 'colomino', got {game!r}")
    size = obj.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or size not in SIZES:
        raise BoardFormatError(f"size: {size!r} is not a Colomino board size (9 or 12)")
    rows = obj.get("rows")
    if not isinstance(rows, list):
        raise BoardFormatError(f"rows: expected a list of {size} rows")
    if len(rows) != size:
        raise BoardFormatError(f"rows: has {len(rows)} rows, expected {size}")
    cells = []
    for r, row in enumerate(rows):
        if not isinstance(row, list):
            raise BoardFormatError(f"rows[{r}]: expected a list of {size} cells")
        if len(row) != size:
            raise BoardFormatError(f"rows[{r}]: has {len(row)} cells, expected {size}")
        cells.append(tuple(_check_cell(cell, f"rows[{r}][{c}]") for c, cell in enumerate(row)))
    layout = (
        parse_layout(obj["layout"], size) if obj.get("layout") is not None
        else default_layout(size)
    )
    base_known = obj.get("base_known", True)
    if not isinstance(base_known, bool):
        raise BoardFormatError(f"base_known: expected true or false, got {base_known!r}")
    return BoardState(size, tuple(cells), layout, base_known)


def state_to_json(state: BoardState) -> dict:
    """The SPEC JSON object of ``state``.

    ``"layout"`` is written only when it differs from the default layout of that size,
    ``"base_known"`` only when it is false; :func:`parse_state` reads the result back to
    an equal state.
    """
    out: dict[str, Any] = {
        "game": "colomino",
        "size": state.size,
        "rows": [list(row) for row in state.cells],
    }
    if state.layout != default_layout(state.size):
        out["layout"] = layout_to_json(state.layout)
    if not state.base_known:
        out["base_known"] = False
    return out
