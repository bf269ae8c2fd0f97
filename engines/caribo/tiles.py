"""CARIBO tiles: the 36 physical hexagons, their rotations and their codes.

A tile has six segments, numbered clockwise from the top tip (pointy-top hexagon):
1 = upper-right edge, 2 = right, 3 = lower-right, 4 = lower-left, 5 = left,
6 = upper-left.  :attr:`Tile.segments` is the tuple of the six colour letters with
index 0 = segment 1 ... index 5 = segment 6.

Codes (SPEC): a single colour letter for a one-colour tile (``"S"``), otherwise
``ijXY``: segments *i* and *j* (adjacent) carry the minor colour X, the other four the
major colour Y.  Printing is canonical: the digit pair is one of ``12 23 34 45 56 61``.
Parsing is lenient about the order of the two digits (``16``/``21`` are accepted and
mean the same segments as ``61``/``12``) and about surrounding whitespace; colour letters
must be upper-case.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import TileCodeError

COLOURS = "WSBRGY"
"""The six colours: W white, S black (schwarz), B blue, R red, G green, Y yellow."""

COLOUR_NAMES = {
    "W": "white",
    "S": "black",
    "B": "blue",
    "R": "red",
    "G": "green",
    "Y": "yellow",
}

PAIRS = ("12", "23", "34", "45", "56", "61")
"""Canonical digit pairs; ``PAIRS[p]`` covers segment indices ``p`` and ``p + 1 (mod 6)``."""


@dataclass(frozen=True, slots=True, order=True)
class Tile:
    """One tile in one rotation (immutable).

    ``minor``/``major`` are colour letters (equal for a one-colour tile); ``position``
    is the 0-based index of the first minor segment (the minor colour covers segment
    indices ``position`` and ``position + 1`` mod 6); it is always 0 for a one-colour
    tile, whose rotations are indistinguishable.
    """

    minor: str
    major: str
    position: int = 0

    def __post_init__(self) -> None:
        if self.minor not in COLOURS or len(self.minor) != 1:
            raise TileCodeError(f"tile: unknown colour {self.minor!r}")
        if self.major not in COLOURS or len(self.major) != 1:
            raise TileCodeError(f"tile: unknown colour {self.major!r}")
        if not isinstance(self.position, int) or not 0 <= self.position < 6:
            raise TileCodeError(f"tile: position {self.position!r} is not 0..5")
        if self.minor == self.major and self.position != 0:
            object.__setattr__(self, "position", 0)

    # -- parsing and printing -------------------------------------------------------
    @classmethod
    def parse(cls, code: str) -> Tile:
        """Parse a tile code (``"S"``, ``"34WS"``); raises :class:`TileCodeError`."""
        if not isinstance(code, str):
            raise TileCodeError(f"tile code {code!r}: not a string")
        text = code.strip()
        if len(text) == 1:
            if text not in COLOURS:
                raise TileCodeError(f"tile code {text!r}: unknown colour {text!r}")
            return cls(text, text, 0)
        if len(text) != 4:
            raise TileCodeError(
                f"tile code {text!r}: expected a colour letter or 'ijXY' (4 characters)"
            )
        i, j, x, y = text
        if i not in "123456" or j not in "123456":
            raise TileCodeError(f"tile code {text!r}: segments must be digits 1..6")
        for colour in (x, y):
            if colour not in COLOURS:
                raise TileCodeError(f"tile code {text!r}: unknown colour {colour!r}")
        if x == y:
            raise TileCodeError(f"tile code {text!r}: same colour {x!r} twice")
        a, b = int(i) - 1, int(j) - 1
        if b == (a + 1) % 6:
            position = a
        elif a == (b + 1) % 6:
            position = b
        else:
            raise TileCodeError(f"tile code {text!r}: segments {i} and {j} are not adjacent")
        return cls(x, y, position)

    @classmethod
    def from_identity(cls, text: str) -> Tile:
        """A tile from its identity: ``"S"`` or ``"WS"`` (minor W, major S), rotation 0."""
        ident = text.strip() if isinstance(text, str) else text
        if not isinstance(ident, str) or len(ident) not in (1, 2):
            raise TileCodeError(f"tile identity {text!r}: expected 'X' or 'XY'")
        for colour in ident:
            if colour not in COLOURS:
                raise TileCodeError(f"tile identity {ident!r}: unknown colour {colour!r}")
        if len(ident) == 2 and ident[0] == ident[1]:
            raise TileCodeError(f"tile identity {ident!r}: same colour twice (write {ident[0]!r})")
        return cls(ident[0], ident[-1], 0)

    @classmethod
    def parse_any(cls, text: str) -> Tile:
        """Parse a code (``34WS``) or an identity (``WS``, ``S``) – used for hands."""
        stripped = text.strip() if isinstance(text, str) else text
        if isinstance(stripped, str) and len(stripped) == 2:
            return cls.from_identity(stripped)
        return cls.parse(stripped)

    @property
    def code(self) -> str:
        """The canonical code (``"S"`` or e.g. ``"61BS"``)."""
        if self.minor == self.major:
            return self.minor
        return f"{PAIRS[self.position]}{self.minor}{self.major}"

    def __str__(self) -> str:
        return self.code

    # -- geometry ---------------------------------------------------------------------
    @property
    def is_single_colour(self) -> bool:
        """True for the six one-colour tiles."""
        return self.minor == self.major

    @property
    def segments(self) -> tuple[str, str, str, str, str, str]:
        """The colours of segments 1..6 (index 0 = segment 1)."""
        return _SEGMENTS[self]

    @property
    def identity(self) -> tuple[str, str]:
        """The physical tile, independent of rotation: ``(minor, major)``."""
        return (self.minor, self.major)

    @property
    def identity_code(self) -> str:
        """The identity as text: ``"S"`` or ``"WS"``."""
        return self.minor if self.minor == self.major else self.minor + self.major

    @property
    def id(self) -> int:
        """Index 0..35 of the physical tile in :data:`ALL_TILES`."""
        return TILE_ID[(self.minor, self.major)]

    @property
    def rotation_index(self) -> int:
        """``6 * id + position``: a compact index of this tile in this rotation."""
        return 6 * TILE_ID[(self.minor, self.major)] + self.position

    def rotated(self, k: int = 1) -> Tile:
        """This tile turned ``k`` × 60° clockwise (negative ``k`` turns anticlockwise)."""
        if self.minor == self.major:
            return self
        return Tile(self.minor, self.major, (self.position + k) % 6)

    def rotations(self) -> tuple[Tile, ...]:
        """The distinct rotations (1 for a one-colour tile, 6 otherwise)."""
        if self.minor == self.major:
            return (self,)
        return tuple(Tile(self.minor, self.major, p) for p in range(6))

    def canonical(self) -> Tile:
        """The same physical tile in rotation 0 (minor colour on segments 1 and 2)."""
        return Tile(self.minor, self.major, 0)


def _segments_of(tile: Tile) -> tuple[str, ...]:
    segs = [tile.major] * 6
    if tile.minor != tile.major:
        segs[tile.position] = tile.minor
        segs[(tile.position + 1) % 6] = tile.minor
    return tuple(segs)


ALL_TILES: tuple[Tile, ...] = tuple(Tile(c, c) for c in COLOURS) + tuple(
    Tile(x, y) for x in COLOURS for y in COLOURS if x != y
)
"""The 36 physical tiles in rotation 0: the 6 one-colour tiles, then the 30 pairs."""

TILE_ID: dict[tuple[str, str], int] = {t.identity: i for i, t in enumerate(ALL_TILES)}

ALL_ROTATIONS: tuple[Tile, ...] = tuple(
    Tile(t.minor, t.major, p) if not t.is_single_colour else t
    for t in ALL_TILES
    for p in range(6)
)
"""``ALL_ROTATIONS[6 * id + p]``: tile ``id`` in position ``p`` (one-colour tiles repeat)."""

_SEGMENTS: dict[Tile, tuple[str, ...]] = {t: _segments_of(t) for t in ALL_ROTATIONS}

ROTATION_SEGMENTS: tuple[tuple[str, ...], ...] = tuple(_segments_of(t) for t in ALL_ROTATIONS)
"""Segments of ``ALL_ROTATIONS[i]`` by index, for fast inner loops."""

FULL_SET_MASK = (1 << 36) - 1


def full_set() -> list[Tile]:
    """A fresh list of the 36 physical tiles (rotation 0)."""
    return list(ALL_TILES)


def parse_hand(text: str, what: str = "hand") -> list[Tile]:
    """Parse comma-separated identities or codes (``"S,WS,34BR"``) into tiles.

    Codes keep their rotation (callers that need any rotation use the identity);
    a physical tile listed twice raises :class:`DuplicateTileError`. Empty text is an
    empty hand.
    """
    from .errors import DuplicateTileError

    tiles: list[Tile] = []
    seen: set[tuple[str, str]] = set()
    if text.strip() == "":
        return tiles
    for index, part in enumerate(text.split(",")):
        if part.strip() == "":
            raise TileCodeError(f"{what}: entry {index} is empty")
        try:
            tile = Tile.parse_any(part)
        except TileCodeError as exc:
            raise TileCodeError(f"{what}: entry {index}: {exc}") from None
        if tile.identity in seen:
            raise DuplicateTileError(f"{what}: tile {tile.identity_code} listed twice")
        seen.add(tile.identity)
        tiles.append(tile)
    return tiles
