"""Colomino tiles: four coloured triangles, one per edge, or a white joker.

A tile is written by its edge colours in the order north, east, south, west in board
coordinates (``"RRGB"``: north red, east red, south green, west blue); ``"*"`` is a joker,
which matches any colour. The physical identity of a tile is its pattern up to rotation
(:attr:`Tile.pattern`), the lexicographically smallest of its four rotations.

The real tile set is not published; our documented assumption (SPEC) is every pattern
of four edge colours up to rotation (70 patterns) twice, plus four jokers: 144 tiles.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache

from engines.errors import FormatError

#: The four tile colours: red, yellow, green, blue.
COLOURS = "RYGB"
#: The four sides in tile-code order.
SIDES = ("north", "east", "south", "west")
#: Index of the side opposite to each side index (north <-> south, east <-> west).
OPPOSITE = (2, 3, 0, 1)
#: Row/column step towards each side (north is row - 1).
STEPS = ((-1, 0), (0, 1), (1, 0), (0, -1))
JOKER_CODE = "*"
COPIES_PER_PATTERN = 2
JOKER_COUNT = 4


class TileFormatError(FormatError):
    """A tile code that is not four colour letters from ``RYGB`` or ``*``."""


@dataclass(frozen=True, slots=True)
class Tile:
    """One tile in a fixed orientation; ``code`` is ``"NESW"`` colour letters or ``"*"``."""

    code: str

    def __post_init__(self) -> None:
        if self.code != JOKER_CODE and (
            len(self.code) != 4 or any(ch not in COLOURS for ch in self.code)
        ):
            raise TileFormatError(f"tile: bad tile code {self.code!r}")

    @classmethod
    def parse(cls, text: str, field: str = "tile") -> Tile:
        """Parse a tile code (case-insensitive); errors name ``field``."""
        if not isinstance(text, str):
            raise TileFormatError(f"{field}: expected a tile code string, got {text!r}")
        code = text.strip().upper()
        if code == JOKER_CODE:
            return JOKER
        if len(code) != 4:
            raise TileFormatError(
                f"{field}: tile code {text!r} must be 4 colour letters (N,E,S,W) or '*'"
            )
        for ch in code:
            if ch not in COLOURS:
                raise TileFormatError(f"{field}: unknown colour {ch!r} in {text!r}")
        return _tile(code)

    def __str__(self) -> str:
        return self.code

    @property
    def is_joker(self) -> bool:
        """True for the white joker."""
        return self.code == JOKER_CODE

    def edge(self, side: int) -> str | None:
        """Colour of edge ``side`` (0 north .. 3 west); ``None`` for a joker (matches all)."""
        return None if self.code == JOKER_CODE else self.code[side]

    def rotated(self, quarter_turns: int = 1) -> Tile:
        """The tile turned clockwise by ``quarter_turns`` × 90° (north edge goes east)."""
        if self.code == JOKER_CODE:
            return self
        k = quarter_turns % 4
        return _tile(self.code[4 - k :] + self.code[: 4 - k]) if k else self

    def orientations(self) -> tuple[Tile, ...]:
        """The distinct orientations of this tile (1, 2 or 4 of them)."""
        return _orientations(self.code)

    @property
    def pattern(self) -> str:
        """Physical identity: the smallest rotation's code (``"*"`` for a joker)."""
        return _pattern(self.code)


@cache
def _tile(code: str) -> Tile:
    return Tile(code)


@cache
def _pattern(code: str) -> str:
    if code == JOKER_CODE:
        return code
    return min(code[k:] + code[:k] for k in range(4))


@cache
def _orientations(code: str) -> tuple[Tile, ...]:
    if code == JOKER_CODE:
        return (JOKER,)
    seen: dict[str, Tile] = {}
    for k in range(4):
        rot = _tile(code).rotated(k)
        seen.setdefault(rot.code, rot)
    return tuple(seen.values())


JOKER = Tile(JOKER_CODE)


def matches(a: str | None, b: str | None) -> bool:
    """Whether two touching edge colours match (``None`` = joker edge, matches anything)."""
    return a is None or b is None or a == b


def all_patterns() -> list[str]:
    """The 70 colour patterns up to rotation, as their canonical codes, sorted."""
    return sorted({_pattern("".join(p)) for p in itertools.product(COLOURS, repeat=4)})


def full_tile_set() -> list[str]:
    """The 144 physical tiles as pattern codes: every pattern twice plus four jokers."""
    tiles = [p for p in all_patterns() for _ in range(COPIES_PER_PATTERN)]
    return tiles + [JOKER_CODE] * JOKER_COUNT


def parse_tile_list(text: str, field: str = "rack") -> list[Tile]:
    """Parse comma-separated tile codes (``"RRGB,YYBB,*"``); errors name ``field``."""
    if not isinstance(text, str):
        raise TileFormatError(f"{field}: expected comma-separated tile codes")
    parts = [p.strip() for p in text.split(",")]
    if parts == [""]:
        return []
    tiles = []
    for i, part in enumerate(parts):
        if not part:
            raise TileFormatError(f"{field}: empty tile code at position {i + 1}")
        tiles.append(Tile.parse(part, f"{field}[{i}]"))
    return tiles
