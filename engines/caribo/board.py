"""The CARIBO table: tiles on the hex lattice, placement rules, legal placements.

:class:`Board` is mutable like ``chess.Board``: ``push``/``pop`` a :class:`Placement`,
ask for :meth:`Board.legal_placements` of a hand.  Cells are ``(row, col)`` in the
notation grid of the board (see :mod:`engines.caribo.geometry`); cells outside the
written grid simply have negative or larger indices.

Placement rules (seed, SPEC): the first tile anywhere (represented by one canonical
placement at ``(0, 0)`` in rotation 0, since the empty table is symmetric); the second
touching the first and matching it; every later tile touching at least two placed tiles
and matching every tile it touches.  "Matching" means that on every shared edge the two
segments have the same colour.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .errors import DuplicateTileError, IllegalPlacementError
from .geometry import (
    from_axial,
    is_indented,
    neighbour_deltas,
    rotate_axial,
    to_axial,
)
from .tiles import ALL_ROTATIONS, COLOURS, ROTATION_SEGMENTS, TILE_ID, Tile

Cell = tuple[int, int]

# ---------------------------------------------------------------------------------
# Bitsets over the 216 (tile id, position) pairs; bit 6*id+p.  One-colour tiles only
# use p = 0, so every set bit is a distinct tile-in-rotation.
DISTINCT_MASK = 0
for _i, _t in enumerate(ALL_ROTATIONS):
    if not _t.is_single_colour or _i % 6 == 0:
        DISTINCT_MASK |= 1 << _i

TILE_ROTATIONS_MASK: tuple[int, ...] = tuple(((1 << 6) - 1) << (6 * t) & DISTINCT_MASK
                                             for t in range(36))
"""Bits of all distinct rotations of physical tile ``id``."""

EDGE_COLOUR_MASK: tuple[dict[str, int], ...] = tuple(
    {
        colour: sum(
            1 << i
            for i in range(216)
            if (DISTINCT_MASK >> i) & 1 and ROTATION_SEGMENTS[i][edge] == colour
        )
        for colour in COLOURS
    }
    for edge in range(6)
)
"""``EDGE_COLOUR_MASK[e][c]``: rotations whose segment index ``e`` has colour ``c``."""

del _i, _t


def hand_mask(tiles: Iterable[Tile | int] | int) -> int:
    """Bitset (36 bits) of the physical tiles in ``tiles`` (Tiles or ids, or a mask)."""
    if isinstance(tiles, int):
        if not 0 <= tiles < 1 << 36:
            raise ValueError(f"hand mask {tiles!r} is not a 36-bit set")
        return tiles
    mask = 0
    for t in tiles:
        mask |= 1 << (t if isinstance(t, int) else TILE_ID[t.identity])
    return mask


def rotations_of_hand(mask36: int) -> int:
    """The 216-bit rotation mask of a 36-bit hand mask."""
    out = 0
    while mask36:
        low = mask36 & -mask36
        out |= TILE_ROTATIONS_MASK[low.bit_length() - 1]
        mask36 ^= low
    return out


def iter_bits(mask: int) -> Iterator[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


@dataclass(frozen=True, slots=True, order=True)
class Placement:
    """A tile put on a cell (immutable)."""

    row: int
    col: int
    tile: Tile

    @property
    def cell(self) -> Cell:
        return (self.row, self.col)

    def to_json(self) -> dict:
        """``{"row": r, "col": c, "tile": code}`` as in the SPEC."""
        return {"row": self.row, "col": self.col, "tile": self.tile.code}

    def __str__(self) -> str:
        return f"{self.tile.code}@{self.row},{self.col}"


@dataclass(frozen=True, slots=True)
class Mismatch:
    """Two touching tiles whose segments on the shared edge differ."""

    cell: Cell
    edge: int  # 1..6, edge of ``cell``
    other: Cell
    colour: str  # colour of ``cell``'s segment on the edge
    other_colour: str  # colour of ``other``'s segment on that edge


class Board:
    """Tiles on the hex lattice plus the written grid they came from.

    ``first_row_shifted`` says whether row 0 is indented; ``height``/``width`` are the
    size of the written grid (used to print it back unchanged); ``open_cells`` are cells
    written ``1`` (figure cells still to fill) – only meaningful for parsed partial
    solutions.  Two boards are equal when they hold the same tiles on the same cells
    with the same row parity and the same open cells (the written grid size is
    ignored).
    """

    __slots__ = (
        "first_row_shifted",
        "height",
        "width",
        "open_cells",
        "_tiles",
        "_segs",
        "_touch",
        "_stack",
        "_used",
        "duplicates",
    )

    def __init__(
        self,
        tiles: Mapping[Cell, Tile] | None = None,
        *,
        first_row_shifted: bool = False,
        height: int | None = None,
        width: int | None = None,
        open_cells: Iterable[Cell] = (),
        allow_duplicates: bool = False,
    ) -> None:
        """Lay ``tiles`` (no rule checks: any matching or not, any shape).

        A physical tile given twice raises :class:`DuplicateTileError`, unless
        ``allow_duplicates`` (a photo or a hand-written board may show the impossible):
        then the later copies are laid too and listed in ``duplicates`` as
        ``(first cell, duplicate cell, tile)``.
        """
        self.first_row_shifted = bool(first_row_shifted)
        self.duplicates: tuple[tuple[Cell, Cell, Tile], ...] = ()
        self.open_cells: frozenset[Cell] = frozenset(open_cells)
        self._tiles: dict[Cell, Tile] = {}
        self._segs: dict[Cell, tuple[str, ...]] = {}
        self._touch: dict[Cell, int] = {}
        self._stack: list[Placement] = []
        self._used = 0
        first_cell: dict[tuple[str, str], Cell] = {}
        dups = []
        for cell in sorted(tiles or {}):
            tile = tiles[cell]
            if tile.identity in first_cell and allow_duplicates:
                dups.append((first_cell[tile.identity], cell, tile))
                self._used &= ~(1 << TILE_ID[tile.identity])  # lay the copy as well
            first_cell.setdefault(tile.identity, cell)
            self._put(cell, tile)
        self.duplicates = tuple(dups)
        self._stack.clear()
        cells = list(self._tiles) + list(self.open_cells)
        self.height = height if height is not None else max((r + 1 for r, _ in cells), default=0)
        self.width = width if width is not None else max((c + 1 for _, c in cells), default=0)

    # -- basic container protocol ----------------------------------------------------
    @property
    def tiles(self) -> Mapping[Cell, Tile]:
        """Read-only view ``(row, col) -> Tile``."""
        return MappingProxyType(self._tiles)

    def __len__(self) -> int:
        return len(self._tiles)

    def __contains__(self, cell: object) -> bool:
        return cell in self._tiles

    def __getitem__(self, cell: Cell) -> Tile:
        return self._tiles[cell]

    def get(self, cell: Cell) -> Tile | None:
        """The tile on ``cell`` or ``None``."""
        return self._tiles.get(cell)

    @property
    def used_mask(self) -> int:
        """36-bit set of the physical tiles on the board."""
        return self._used

    def contains_tile(self, tile: Tile) -> bool:
        """Whether the physical tile (any rotation) lies on the board."""
        return bool(self._used >> TILE_ID[tile.identity] & 1)

    @property
    def move_stack(self) -> tuple[Placement, ...]:
        """Placements pushed since construction (not the tiles given to ``__init__``)."""
        return tuple(self._stack)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (
            self._tiles == other._tiles
            and self.first_row_shifted == other.first_row_shifted
            and self.open_cells == other.open_cells
        )

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        return f"Board({self.notation()!r})"

    def __str__(self) -> str:
        return self.notation()

    def notation(self) -> str:
        """The board in figure notation (see :func:`engines.caribo.notation.format_board`)."""
        from .notation import format_board

        return format_board(self)

    def copy(self) -> Board:
        """An independent copy (including the move stack)."""
        new = Board.__new__(Board)
        new.first_row_shifted = self.first_row_shifted
        new.height = self.height
        new.width = self.width
        new.open_cells = self.open_cells
        new._tiles = dict(self._tiles)
        new._segs = dict(self._segs)
        new._touch = dict(self._touch)
        new._stack = list(self._stack)
        new._used = self._used
        new.duplicates = self.duplicates
        return new

    # -- geometry ---------------------------------------------------------------------
    def is_indented(self, row: int) -> bool:
        """Whether ``row`` is shifted right by half a tile in this board's grid."""
        return is_indented(row, self.first_row_shifted)

    def neighbour_cells(self, row: int, col: int) -> list[Cell]:
        """The six cells across edges 1..6 of ``(row, col)``."""
        return [(row + dr, col + dc) for dr, dc in neighbour_deltas(row, self.first_row_shifted)]

    def neighbours(self, row: int, col: int) -> list[tuple[int, Cell, Tile]]:
        """``(edge 1..6, cell, tile)`` for every placed tile touching ``(row, col)``."""
        out = []
        for e, (dr, dc) in enumerate(neighbour_deltas(row, self.first_row_shifted)):
            cell = (row + dr, col + dc)
            tile = self._tiles.get(cell)
            if tile is not None:
                out.append((e + 1, cell, tile))
        return out

    def touching(self, row: int, col: int) -> int:
        """How many placed tiles touch ``(row, col)``."""
        if (row, col) in self._tiles:
            return sum(1 for _ in self.neighbours(row, col))
        return self._touch.get((row, col), 0)

    def fits(self, row: int, col: int, tile: Tile) -> bool:
        """Whether ``tile`` matches every placed tile touching ``(row, col)``."""
        segs = tile.segments
        for e, (dr, dc) in enumerate(neighbour_deltas(row, self.first_row_shifted)):
            other = self._segs.get((row + dr, col + dc))
            if other is not None and other[(e + 3) % 6] != segs[e]:
                return False
        return True

    def mismatches(self) -> list[Mismatch]:
        """Every shared edge whose two segments differ (each edge reported once)."""
        out = []
        for (r, c), segs in sorted(self._segs.items()):
            for e, (dr, dc) in enumerate(neighbour_deltas(r, self.first_row_shifted)):
                if e >= 3:
                    continue  # report each pair once, from the cell with edge 1..3
                other = self._segs.get((r + dr, c + dc))
                if other is not None and other[(e + 3) % 6] != segs[e]:
                    cell2 = (r + dr, c + dc)
                    out.append(Mismatch((r, c), e + 1, cell2, segs[e], other[(e + 3) % 6]))
        return out

    # -- placing ------------------------------------------------------------------------
    def _put(self, cell: Cell, tile: Tile) -> None:
        bit = 1 << TILE_ID[tile.identity]
        if self._used & bit:
            raise DuplicateTileError(f"tile {tile.identity_code} is on the board twice")
        if cell in self._tiles:
            raise IllegalPlacementError(f"cell {cell[0]},{cell[1]} is occupied")
        self._used |= bit
        self._tiles[cell] = tile
        self._segs[cell] = tile.segments
        self._touch.pop(cell, None)
        r, c = cell
        for dr, dc in neighbour_deltas(r, self.first_row_shifted):
            n = (r + dr, c + dc)
            if n not in self._tiles:
                self._touch[n] = self._touch.get(n, 0) + 1
        self._stack.append(Placement(r, c, tile))

    def why_illegal(self, placement: Placement) -> str | None:
        """``None`` if the placement obeys the rules now, otherwise the reason."""
        cell = placement.cell
        tile = placement.tile
        if cell in self._tiles:
            return f"cell {cell[0]},{cell[1]} is occupied"
        if self._used >> TILE_ID[tile.identity] & 1:
            return f"tile {tile.identity_code} is already on the board"
        n = len(self._tiles)
        touch = self._touch.get(cell, 0)
        if n == 1 and touch < 1:
            return "the second tile must touch the first"
        if n >= 2 and touch < 2:
            return f"a tile must touch at least two placed tiles (touches {touch})"
        if not self.fits(cell[0], cell[1], tile):
            return f"{tile.code} does not match its neighbours at {cell[0]},{cell[1]}"
        return None

    def is_legal(self, placement: Placement) -> bool:
        """Whether the placement obeys the placement rules now."""
        return self.why_illegal(placement) is None

    def push(self, placement: Placement, *, check: bool = True) -> None:
        """Put a tile; with ``check`` raise :class:`IllegalPlacementError` if illegal."""
        if check:
            reason = self.why_illegal(placement)
            if reason is not None:
                raise IllegalPlacementError(reason)
        self._put(placement.cell, placement.tile)

    def place(self, row: int, col: int, tile: Tile, *, check: bool = True) -> None:
        """Shorthand for ``push(Placement(row, col, tile))``."""
        self.push(Placement(row, col, tile), check=check)

    def pop(self) -> Placement:
        """Take the last pushed tile back and return its placement."""
        if not self._stack:
            raise IndexError("pop from a board without pushed placements")
        p = self._stack.pop()
        cell = p.cell
        del self._tiles[cell]
        del self._segs[cell]
        self._used &= ~(1 << TILE_ID[p.tile.identity])
        r, c = cell
        count = 0
        for dr, dc in neighbour_deltas(r, self.first_row_shifted):
            n = (r + dr, c + dc)
            if n in self._tiles:
                count += 1
            else:
                left = self._touch[n] - 1
                if left:
                    self._touch[n] = left
                else:
                    del self._touch[n]
        if count:
            self._touch[cell] = count
        return p

    # -- legal placements ----------------------------------------------------------------
    def _candidate_cells(self) -> list[Cell]:
        n = len(self._tiles)
        need = 1 if n == 1 else 2
        return [cell for cell, k in self._touch.items() if k >= need]

    def _cell_mask(self, cell: Cell, mask: int) -> int:
        r, c = cell
        segs = self._segs
        for e, (dr, dc) in enumerate(neighbour_deltas(r, self.first_row_shifted)):
            other = segs.get((r + dr, c + dc))
            if other is not None:
                mask &= EDGE_COLOUR_MASK[e][other[(e + 3) % 6]]
                if not mask:
                    return 0
        return mask

    def _hand_bits(self, hand: Iterable[Tile | int] | int) -> int:
        mask36 = hand_mask(hand)
        clash = mask36 & self._used
        if clash:
            tile = ALL_ROTATIONS[6 * (clash & -clash).bit_length() - 6]
            raise DuplicateTileError(f"hand: tile {tile.identity_code} is already on the board")
        return mask36

    def legal_placements(
        self, hand: Iterable[Tile | int] | int, *, opening: Cell = (0, 0)
    ) -> list[Placement]:
        """All legal placements of any tile of ``hand`` in any rotation.

        ``hand`` holds tiles (their rotation is ignored), tile ids, or is a 36-bit mask.
        One entry per distinct resulting board: a one-colour tile appears once per cell.
        On an empty board the opening is one placement per tile at ``opening`` in
        rotation 0.  Sorted by row and column, then by tile id and rotation.
        """
        mask36 = self._hand_bits(hand)
        if not self._tiles:
            return [Placement(opening[0], opening[1], ALL_ROTATIONS[6 * t])
                    for t in iter_bits(mask36)]
        rot = rotations_of_hand(mask36)
        out = []
        for cell in sorted(self._candidate_cells()):
            m = self._cell_mask(cell, rot)
            while m:
                low = m & -m
                out.append(Placement(cell[0], cell[1], ALL_ROTATIONS[low.bit_length() - 1]))
                m ^= low
        return out

    def count_placements(self, hand: Iterable[Tile | int] | int) -> int:
        """Number of legal placements (like ``len(legal_placements(hand))``, faster)."""
        mask36 = self._hand_bits(hand)
        if not self._tiles:
            return mask36.bit_count()
        rot = rotations_of_hand(mask36)
        return sum(self._cell_mask(cell, rot).bit_count() for cell in self._candidate_cells())

    def playable_tiles(self, hand: Iterable[Tile | int] | int) -> int:
        """36-bit set of the hand's tiles that have at least one legal placement."""
        mask36 = self._hand_bits(hand)
        if not self._tiles:
            return mask36
        rot = rotations_of_hand(mask36)
        found = 0
        for cell in self._candidate_cells():
            m = self._cell_mask(cell, rot)
            while m:
                low = m & -m
                t = (low.bit_length() - 1) // 6
                found |= 1 << t
                m &= ~TILE_ROTATIONS_MASK[t]
                rot &= ~TILE_ROTATIONS_MASK[t]
            if not rot:
                break
        return found

    def has_legal_placement(self, hand: Iterable[Tile | int] | int) -> bool:
        """Whether any tile of ``hand`` can be placed now."""
        mask36 = self._hand_bits(hand)
        if not mask36:
            return False
        if not self._tiles:
            return True
        rot = rotations_of_hand(mask36)
        return any(self._cell_mask(cell, rot) for cell in self._candidate_cells())

    # -- transformations -----------------------------------------------------------------
    def rotated(self, k: int = 1) -> Board:
        """The whole board turned ``k`` × 60° clockwise, re-normalised to row/col ≥ 0.

        The result's grid is the bounding box of its tiles and open cells.
        """
        fs = self.first_row_shifted
        moved: dict[Cell, Tile] = {}
        opens = []
        for (r, c), tile in self._tiles.items():
            q, rr = rotate_axial(*to_axial(r, c, fs), k)
            moved[(q, rr)] = tile.rotated(k)
        for r, c in self.open_cells:
            opens.append(rotate_axial(*to_axial(r, c, fs), k))
        return board_from_axial(moved, opens, allow_duplicates=bool(self.duplicates))

    def normalized(self) -> Board:
        """The same tiles in the tightest grid (see :func:`board_from_axial`)."""
        return self.rotated(0)


def board_from_axial(
    tiles: Mapping[tuple[int, int], Tile], open_cells=(), *, allow_duplicates: bool = False
) -> Board:
    """A board from axial cells: the smallest grid, first row not indented if possible."""
    cells = list(tiles) + list(open_cells)
    if not cells:
        return Board()
    min_r = min(r for _, r in cells)
    best = None
    for fs in (False, True):
        conv = {(q, r): from_axial(q, r - min_r, fs) for q, r in cells}
        min_c = min(c for _, c in conv.values())
        max_c = max(c for _, c in conv.values())
        width = max_c - min_c + 1
        if best is None or width < best[0]:
            best = (width, fs, conv, min_c)
    width, fs, conv, min_c = best
    grid_tiles = {}
    for cell, tile in tiles.items():
        r, c = conv[cell]
        grid_tiles[(r, c - min_c)] = tile
    opens = [(conv[cell][0], conv[cell][1] - min_c) for cell in open_cells]
    height = max(r for _, r in cells) - min_r + 1
    return Board(
        grid_tiles,
        first_row_shifted=fs,
        height=height,
        width=width,
        open_cells=opens,
        allow_duplicates=allow_duplicates,
    )
