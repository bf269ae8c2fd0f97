"""Colomino placement rules on a mutable working board: matching, connection, courts.

Rules as decided in SPEC.md plus our documented readings of the seed:

* A tile goes into an empty cell, onto a joker (the joker goes back to the placing
  player's rack; a joker never replaces a joker) or onto a *connected* printed field.
* It must match every touching tile (edge colours equal; a joker matches anything),
  every touching *connected* printed field (a solid tile of its colour) and every rim
  marking it touches (a tile in the south row has its south edge equal to the south rim
  colour of its column, and likewise on the other three sides).
* It must be connected by edges to the base line: it lies in the south row, or touches a
  connected tile or connected printed field. Connection is computed by a flood fill from
  the south row through tiles (jokers included) and uncovered printed fields; a printed
  field lying in the south row would touch the base line itself.
* Connection is evaluated just before the placement: a printed field that only becomes
  connected by this very tile is not yet a match constraint for it (SPEC: unconnected
  printed fields are neither walls nor matches nor placeable).
* Printed field reading of the seed's "passend auf ihnen abgelegt": a tile covering a
  printed field must show the printed colour on at least one of its edges (a joker
  always fits). Requiring all four edges would leave only the eight one-colour tiles, so
  the fields could hardly ever be covered; requiring nothing would ignore "passend".
  The field stays under a joker lying on it: a tile replacing that joker needs the
  printed colour too.
* Courts: just before a tile goes into a cell, count the cell's enclosed sides. A side
  is enclosed by a tile (jokers included), a connected uncovered printed field, the goal
  line (north of row 0) or the base line (south of the last row); the east and west board
  edges are walls only with ``Rules(side_walls=True)``. Three enclosed sides make an
  open court (yellow chip, 1 point), four a closed court (blue chip, 2 points). The same
  holds when the tile replaces a joker or covers a printed field: the cell counts as a
  court when its four neighbours satisfy the condition (our decision for printed fields,
  by analogy with the joker, which the seed rewards explicitly).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from engines.errors import FormatError

from .board import EMPTY, BoardState
from .layout import Layout
from .tiles import JOKER, OPPOSITE, SIDES, STEPS, Tile, matches

OPEN = "open"
CLOSED = "closed"
FINAL_ROUND_ALL = "all"
FINAL_ROUND_OTHERS = "others"


class MoveFormatError(FormatError):
    """A move text that is not ``"row,col,TILE"`` or ``"end"``."""


@dataclass(frozen=True)
class Rules:
    """Rule options.

    ``side_walls``: whether the east/west board edges enclose courts (default: no).
    ``final_round``: after a tile reaches the row next to the goal line, ``"all"`` players
    play one more turn (the player who reached it too), or only the ``"others"``.
    """

    side_walls: bool = False
    final_round: str = FINAL_ROUND_ALL

    def __post_init__(self) -> None:
        if self.final_round not in (FINAL_ROUND_ALL, FINAL_ROUND_OTHERS):
            raise ValueError(f"final_round: expected 'all' or 'others', got {self.final_round!r}")


@dataclass(frozen=True, slots=True)
class Placement:
    """One tile put into cell ``(row, col)`` in the orientation ``tile``."""

    row: int
    col: int
    tile: Tile

    def __str__(self) -> str:
        return f"{self.row},{self.col},{self.tile.code}"

    def to_json(self) -> dict:
        """``{"row": r, "col": c, "tile": "RRGB"}`` as in the SPEC."""
        return {"row": self.row, "col": self.col, "tile": self.tile.code}


@dataclass(frozen=True, slots=True)
class EndTurn:
    """End the turn early: allowed (and then the only move) when no tile of the rack fits."""

    def __str__(self) -> str:
        return "end"


END_TURN = EndTurn()
Move = Placement | EndTurn


def parse_move(text: str) -> Move:
    """Parse ``"row,col,TILE"`` or ``"end"`` (the inverse of ``str(move)``)."""
    if not isinstance(text, str):
        raise MoveFormatError(f"move: expected a string, got {text!r}")
    if text.strip().lower() == "end":
        return END_TURN
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 3:
        raise MoveFormatError(f"move: {text!r} is not 'row,col,TILE' or 'end'")
    try:
        row, col = int(parts[0]), int(parts[1])
    except ValueError:
        raise MoveFormatError(f"move: bad row/column in {text!r}") from None
    return Placement(row, col, Tile.parse(parts[2], "move"))


@dataclass(frozen=True, slots=True)
class Court:
    """A court filled in a turn: its cell, ``"open"``/``"closed"`` and the multiplier k."""

    row: int
    col: int
    kind: str
    multiplier: int

    def to_json(self) -> dict:
        """``{"row", "col", "kind", "multiplier"}`` as in the SPEC."""
        return {"row": self.row, "col": self.col, "kind": self.kind, "multiplier": self.multiplier}


def cell_name(row: int, col: int) -> str:
    """The JSON path naming a cell in messages: ``rows[r][c]``."""
    return f"rows[{row}][{col}]"


class Board:
    """A mutable board used by the rules: ``grid[r][c]`` is a :class:`Tile` or ``None``.

    Uncovered printed fields are ``None`` in the grid; the layout knows them.
    """

    def __init__(self, size: int, layout: Layout, rules: Rules | None = None) -> None:
        self.size = size
        self.layout = layout
        self.rules = rules or Rules()
        self.grid: list[list[Tile | None]] = [[None] * size for _ in range(size)]
        self._connected: set[tuple[int, int]] | None = None

    @classmethod
    def from_state(cls, state: BoardState, rules: Rules | None = None) -> Board:
        """A working board holding the cells of ``state``."""
        board = cls(state.size, state.layout, rules)
        for r, row in enumerate(state.cells):
            for c, cell in enumerate(row):
                if cell != EMPTY:
                    board.grid[r][c] = Tile.parse(cell)
        return board

    def to_state(self, base_known: bool = True) -> BoardState:
        """The immutable :class:`BoardState` of this board."""
        cells = tuple(
            tuple(EMPTY if t is None else t.code for t in row) for row in self.grid
        )
        return BoardState(self.size, cells, self.layout, base_known)

    def copy(self) -> Board:
        """An independent copy."""
        other = Board(self.size, self.layout, self.rules)
        other.grid = [row[:] for row in self.grid]
        return other

    # -- changes -----------------------------------------------------------------------
    def put(self, row: int, col: int, tile: Tile | None) -> Tile | None:
        """Set a cell without any rule check; return what was there (for undo)."""
        prev = self.grid[row][col]
        self.grid[row][col] = tile
        self._connected = None
        return prev

    # -- queries -----------------------------------------------------------------------
    def inside(self, row: int, col: int) -> bool:
        """Whether ``(row, col)`` is on the board."""
        return 0 <= row < self.size and 0 <= col < self.size

    def is_printed_uncovered(self, row: int, col: int) -> bool:
        """Whether a printed field lies uncovered at ``(row, col)``."""
        return self.grid[row][col] is None and self.layout.printed_colour(row, col) is not None

    def connected(self) -> set[tuple[int, int]]:
        """Cells (tiles and uncovered printed fields) connected by edges to the base line."""
        if self._connected is None:
            size = self.size
            grid = self.grid
            printed = self.layout.printed_colour
            solid = [
                [grid[r][c] is not None or printed(r, c) is not None for c in range(size)]
                for r in range(size)
            ]
            last = size - 1
            seen = {(last, c) for c in range(size) if solid[last][c]}
            stack = list(seen)
            while stack:
                r, c = stack.pop()
                for dr, dc in STEPS:
                    rr, cc = r + dr, c + dc
                    if 0 <= rr < size and 0 <= cc < size and solid[rr][cc]:
                        if (rr, cc) not in seen:
                            seen.add((rr, cc))
                            stack.append((rr, cc))
            self._connected = seen
        return self._connected

    def _edge_need(self, row: int, col: int, side: int) -> tuple[bool, str | None]:
        """What side ``side`` of the cell must show: ``(constrained, colour)``.

        ``colour`` ``None`` with ``constrained`` True means a joker (anything goes).
        """
        dr, dc = STEPS[side]
        rr, cc = row + dr, col + dc
        if not (0 <= rr < self.size and 0 <= cc < self.size):
            return True, self.layout.rim_colour(row, col, side)
        other = self.grid[rr][cc]
        if other is not None:
            return True, other.edge(OPPOSITE[side])
        printed = self.layout.printed_colour(rr, cc)
        if printed is not None and (rr, cc) in self.connected():
            return True, printed
        return False, None

    def _edge_what(self, row: int, col: int, side: int) -> str:
        """Names what touches side ``side`` of the cell, for messages."""
        dr, dc = STEPS[side]
        rr, cc = row + dr, col + dc
        if not self.inside(rr, cc):
            return f"the {SIDES[side]} rim marking {self.layout.rim_colour(row, col, side)}"
        other = self.grid[rr][cc]
        if other is not None:
            colour = other.edge(OPPOSITE[side])
            shown = "joker" if colour is None else f"{SIDES[OPPOSITE[side]]} edge {colour}"
            return f"{cell_name(rr, cc)} {shown}"
        return f"the printed field {cell_name(rr, cc)} {self.layout.printed_colour(rr, cc)}"

    def is_wall(self, row: int, col: int, side: int) -> bool:
        """Whether side ``side`` of cell ``(row, col)`` is enclosed (for courts)."""
        dr, dc = STEPS[side]
        rr, cc = row + dr, col + dc
        if not self.inside(rr, cc):
            return side in (0, 2) or self.rules.side_walls
        if self.grid[rr][cc] is not None:
            return True
        return self.layout.printed_colour(rr, cc) is not None and (rr, cc) in self.connected()

    def court_at(self, row: int, col: int) -> str | None:
        """``"open"``/``"closed"`` if a tile put into the cell now fills a court, else None."""
        walls = sum(self.is_wall(row, col, side) for side in range(4))
        return CLOSED if walls == 4 else OPEN if walls == 3 else None

    def _cell_problem(self, row: int, col: int) -> str | None:
        """Why no tile at all may go into the cell now (occupied, not connected), or None.

        A joker cell passes here; that a joker may not replace a joker is checked apart.
        """
        if not self.inside(row, col):
            return f"{cell_name(row, col)}: outside the {self.size}x{self.size} board"
        current = self.grid[row][col]
        connected = self.connected()
        if current is not None:
            if not current.is_joker:
                return f"{cell_name(row, col)}: already holds tile {current.code}"
            if (row, col) not in connected:
                return f"{cell_name(row, col)}: the joker there is not connected to the base line"
            return None
        printed = self.layout.printed_colour(row, col)
        if printed is not None:
            if (row, col) not in connected:
                return (
                    f"{cell_name(row, col)}: printed field {printed} is not yet connected "
                    "to the base line"
                )
            return None
        if row != self.size - 1 and not any(
            (row + dr, col + dc) in connected for dr, dc in STEPS
        ):
            return f"{cell_name(row, col)}: not connected to the base line"
        return None

    def placement_problem(self, row: int, col: int, tile: Tile) -> str | None:
        """Why putting ``tile`` at ``(row, col)`` now is illegal, or ``None`` if it is legal."""
        problem = self._cell_problem(row, col)
        if problem is not None:
            return problem
        if tile.is_joker:
            if self.grid[row][col] is not None:
                return f"{cell_name(row, col)}: a joker cannot replace a joker"
            return None
        printed = self.layout.printed_colour(row, col)
        if printed is not None and printed not in tile.code:
            return (
                f"{cell_name(row, col)}: tile {tile.code} does not show the printed colour "
                f"{printed}"
            )
        for side in range(4):
            constrained, colour = self._edge_need(row, col, side)
            if constrained and not matches(tile.code[side], colour):
                return (
                    f"{cell_name(row, col)}: {SIDES[side]} edge {tile.code[side]} of "
                    f"{tile.code} does not match {self._edge_what(row, col, side)}"
                )
        return None

    def candidate_cells(self) -> Iterator[tuple[int, int]]:
        """Cells where some tile might be placed now (connection rules only)."""
        connected = self.connected()
        size = self.size
        last = size - 1
        printed = self.layout.printed_colour
        for r in range(size):
            for c in range(size):
                t = self.grid[r][c]
                if t is not None:
                    if t.is_joker and (r, c) in connected:
                        yield (r, c)
                elif printed(r, c) is not None:
                    if (r, c) in connected:
                        yield (r, c)
                elif r == last or any((r + dr, c + dc) in connected for dr, dc in STEPS):
                    yield (r, c)

    def legal_placements(
        self, rack: Iterable[Tile | str], exclude: frozenset | set = frozenset()
    ) -> Iterator[Placement]:
        """Every legal single placement of a rack tile, one per distinct resulting board.

        Each rack tile is tried in all its orientations; duplicates in the rack and
        symmetric orientations are reported once. Order: by row, column, tile code.
        Cells in ``exclude`` (jokers put down earlier in the same turn) are skipped.
        """
        patterns = sorted({(t if isinstance(t, Tile) else Tile.parse(t)).pattern for t in rack})
        orientations = sorted(
            {o.code: o for p in patterns for o in Tile.parse(p).orientations()}.values(),
            key=lambda t: t.code,
        )
        for r, c in self.candidate_cells():
            if (r, c) in exclude or self._cell_problem(r, c) is not None:
                continue
            # the same checks as placement_problem, with the cell's needs computed once
            printed = self.layout.printed_colour(r, c)
            needs = []
            for side in range(4):
                constrained, colour = self._edge_need(r, c, side)
                if constrained and colour is not None:
                    needs.append((side, colour))
            empty = self.grid[r][c] is None
            for tile in orientations:
                code = tile.code
                if tile.is_joker:
                    ok = empty
                else:
                    ok = (printed is None or printed in code) and all(
                        code[side] == colour for side, colour in needs
                    )
                if ok:
                    yield Placement(r, c, tile)

    def has_legal_placement(
        self, rack: Iterable[Tile | str], exclude: frozenset | set = frozenset()
    ) -> bool:
        """Whether any rack tile can be placed now (outside ``exclude``)."""
        return next(self.legal_placements(rack, exclude), None) is not None

    def problems(self) -> list[str]:
        """Rule violations of the tiles as they lie (mismatches, disconnected tiles).

        Printed fields are not checked here (a tile that connected a printed field did
        not have to match it), only tiles against tiles and the rim.
        """
        out = []
        connected = self.connected()
        for r in range(self.size):
            for c in range(self.size):
                tile = self.grid[r][c]
                if tile is None:
                    continue
                if (r, c) not in connected:
                    out.append(f"{cell_name(r, c)}: not connected to the base line")
                if tile.is_joker:
                    continue
                for side in range(4):
                    dr, dc = STEPS[side]
                    rr, cc = r + dr, c + dc
                    if self.inside(rr, cc):
                        other = self.grid[rr][cc]
                        if other is None or side in (0, 3):  # report each pair once
                            continue
                        colour = other.edge(OPPOSITE[side])
                        what = f"{cell_name(rr, cc)} {SIDES[OPPOSITE[side]]} edge {colour}"
                    else:
                        colour = self.layout.rim_colour(r, c, side)
                        what = f"the {SIDES[side]} rim marking {colour}"
                    if not matches(tile.code[side], colour):
                        out.append(
                            f"{cell_name(r, c)}: {SIDES[side]} edge {tile.code[side]} of "
                            f"{tile.code} does not match {what}"
                        )
        return out


__all__ = [
    "CLOSED",
    "END_TURN",
    "JOKER",
    "OPEN",
    "Board",
    "Court",
    "EndTurn",
    "Move",
    "MoveFormatError",
    "Placement",
    "Rules",
    "cell_name",
    "parse_move",
]
