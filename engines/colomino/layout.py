"""The fixed layout of a Colomino board: rim markings and printed centre fields.

Format (SPEC): ``{"rim": {"north": "RGYB…", "east": …, "south": …, "west": …},
"printed": [[row, col, colour], …]}``. The north and south rims are listed west to east,
the east and west rims north to south; each rim string has one colour letter per outer
cell, so ``size`` letters. Rows are numbered from north (the goal line) to south (the
base line); columns from west to east.

The real Ravensburger layouts are not known to us. The shipped files
``layouts/colomino-9.json`` and ``layouts/colomino-12.json`` are our own defaults: every
colour appears at least twice on every side, and a handful of printed fields lie around
the centre row, none of them edge-adjacent to another. The recogniser reads the rim of
the board it actually sees and passes it on under ``"layout"``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from engines.errors import FormatError

from .tiles import COLOURS, SIDES

SIZES = (9, 12)
_LAYOUT_DIR = Path(__file__).resolve().parent / "layouts"


class LayoutFormatError(FormatError):
    """A layout object that is not in the SPEC format."""


@dataclass(frozen=True, eq=False)
class Layout:
    """An immutable board layout (build it with :func:`parse_layout` to validate input).

    ``rim`` maps ``"north"``/``"east"``/``"south"``/``"west"`` to a string of ``size``
    colour letters; ``printed`` is a tuple of ``(row, col, colour)`` sorted by position.
    """

    size: int
    rim: Mapping[str, str]
    printed: tuple[tuple[int, int, str], ...] = ()
    _printed_at: Mapping = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        printed = tuple(sorted((int(r), int(c), str(col)) for r, c, col in self.printed))
        object.__setattr__(self, "rim", MappingProxyType({s: self.rim[s] for s in SIDES}))
        object.__setattr__(self, "printed", printed)
        object.__setattr__(
            self, "_printed_at", MappingProxyType({(r, c): col for r, c, col in printed})
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Layout):
            return NotImplemented
        return (
            self.size == other.size
            and dict(self.rim) == dict(other.rim)
            and self.printed == other.printed
        )

    def __hash__(self) -> int:
        return hash((self.size, tuple(self.rim[s] for s in SIDES), self.printed))

    def printed_colour(self, row: int, col: int) -> str | None:
        """The colour printed at ``(row, col)``, or ``None`` if none is printed there."""
        return self._printed_at.get((row, col))

    def rim_colour(self, row: int, col: int, side: int) -> str | None:
        """The rim marking beside cell ``(row, col)`` on ``side`` (0 N, 1 E, 2 S, 3 W).

        ``None`` when that side of the cell does not face the rim.
        """
        last = self.size - 1
        if side == 0:
            return self.rim["north"][col] if row == 0 else None
        if side == 1:
            return self.rim["east"][row] if col == last else None
        if side == 2:
            return self.rim["south"][col] if row == last else None
        return self.rim["west"][row] if col == 0 else None


def parse_layout(obj: Any, size: int, field_name: str = "layout") -> Layout:
    """Parse and validate a layout object for a board of ``size``; errors name the field."""
    if not isinstance(obj, dict):
        raise LayoutFormatError(f"{field_name}: expected an object with 'rim' and 'printed'")
    rim_obj = obj.get("rim")
    if not isinstance(rim_obj, dict):
        raise LayoutFormatError(f"{field_name}.rim: expected an object with the four sides")
    rim: dict[str, str] = {}
    for side in SIDES:
        where = f"{field_name}.rim.{side}"
        text = rim_obj.get(side)
        if not isinstance(text, str):
            raise LayoutFormatError(f"{where}: expected a string of {size} colour letters")
        if len(text) != size:
            raise LayoutFormatError(
                f"{where}: has {len(text)} letters, expected {size} (one per outer cell)"
            )
        for i, ch in enumerate(text):
            if ch not in COLOURS:
                raise LayoutFormatError(f"{where}[{i}]: unknown colour {ch!r}")
        rim[side] = text
    extra = set(rim_obj) - set(SIDES)
    if extra:
        raise LayoutFormatError(f"{field_name}.rim: unknown side {sorted(extra)[0]!r}")
    printed_obj = obj.get("printed", [])
    if not isinstance(printed_obj, list):
        raise LayoutFormatError(f"{field_name}.printed: expected a list of [row, col, colour]")
    printed = []
    seen = set()
    for i, item in enumerate(printed_obj):
        where = f"{field_name}.printed[{i}]"
        if not isinstance(item, list | tuple) or len(item) != 3:
            raise LayoutFormatError(f"{where}: expected [row, col, colour]")
        row, col, colour = item
        for name, value in (("row", row), ("col", col)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise LayoutFormatError(f"{where}: {name} must be an integer, got {value!r}")
            if not 0 <= value < size:
                raise LayoutFormatError(f"{where}: {name} {value} out of range 0..{size - 1}")
        if not isinstance(colour, str) or colour not in tuple(COLOURS):
            raise LayoutFormatError(f"{where}: unknown colour {colour!r}")
        if (row, col) in seen:
            raise LayoutFormatError(f"{where}: field ({row}, {col}) listed twice")
        seen.add((row, col))
        printed.append((row, col, colour))
    return Layout(size, rim, tuple(printed))


def layout_to_json(layout: Layout) -> dict:
    """The SPEC JSON object of ``layout`` (inverse of :func:`parse_layout`)."""
    return {
        "rim": {side: layout.rim[side] for side in SIDES},
        "printed": [[r, c, colour] for r, c, colour in layout.printed],
    }


@cache
def default_layout(size: int) -> Layout:
    """The shipped default layout for a ``size`` × ``size`` board (9 or 12)."""
    if size not in SIZES:
        raise LayoutFormatError(f"size: {size!r} is not a Colomino board size (9 or 12)")
    path = _LAYOUT_DIR / f"colomino-{size}.json"
    return parse_layout(json.loads(path.read_text(encoding="utf-8")), size, path.name)
