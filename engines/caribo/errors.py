"""CARIBO-specific exceptions (all ``ValueError`` subclasses via :mod:`engines.errors`).

Coordinates in messages are 0-based ``row``/``col`` of the notation grid as written,
the same coordinates the ``moves`` command prints (row 0 is the first written row).
"""

from __future__ import annotations

from engines.errors import FormatError, IllegalMoveError


class TileCodeError(FormatError):
    """A tile code or tile identity that is not in the SPEC format."""


class NotationError(FormatError):
    """Malformed figure/board notation; knows the row and column (0-based) if any."""

    def __init__(self, reason: str, row: int | None = None, col: int | None = None):
        self.row = row
        self.col = col
        self.reason = reason
        where = []
        if row is not None:
            where.append(f"row {row}")
        if col is not None:
            where.append(f"col {col}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {reason}" if prefix else reason)


class EmptyCellError(NotationError):
    """A cell between two commas is empty."""


class RaggedRowError(NotationError):
    """Rows with different numbers of cells."""


class RowAlternationError(NotationError):
    """Two consecutive rows with the same indentation (both or neither written with ``e``)."""


class CellValueError(NotationError):
    """A cell that is not allowed here (unknown tile code, a tile in a 0/1 figure, ...)."""


class DuplicateTileError(FormatError):
    """The same physical tile listed twice where that cannot be (a hand, hand vs board)."""


class IllegalPlacementError(IllegalMoveError):
    """A well-formed placement that the CARIBO placement rules do not allow."""
