"""CARIBO solo figures: validating a solution, and the library of named figures.

A solution is valid (SPEC) when no physical tile is used twice and every shared edge
matches; checked against a figure it must also fill exactly the figure's cells, where
the figure may appear in any of its six 60° rotations and anywhere on the table.  The
game's placement-order rule (touch two tiles) does not apply.

Problems are :class:`Problem` values with a human-readable ``message`` and structured
fields; cells are ``(row, col)`` in the solution's grid (0-based; figure cells that fall
outside the written grid of the solution have negative or larger indices).

The library (``figures/library.json`` next to this module) holds named figures with a
solution found by :func:`engines.caribo.solver.solve`; rebuild it with
``python -m engines.caribo.puzzles``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .board import Board, board_from_axial
from .geometry import AXIAL_DIRECTIONS, EDGE_NAMES, from_axial, rotate_axial, to_axial
from .notation import Figure, duplicates_of, parse_board, parse_figure
from .tiles import COLOUR_NAMES

LIBRARY_PATH = Path(__file__).with_name("figures") / "library.json"

Cell = tuple[int, int]


@dataclass(frozen=True)
class Problem:
    """One reason why a solution is not valid."""

    kind: str  # "mismatch" | "duplicate" | "empty" | "outside"
    message: str
    cells: tuple[Cell, ...]
    edge: int | None = None
    colours: tuple[str, ...] = field(default=())

    def to_json(self) -> dict:
        """Structured form (for the CLI's ``details``)."""
        out: dict = {"kind": self.kind, "cells": [list(c) for c in self.cells]}
        if self.edge is not None:
            out["edge"] = self.edge
        if self.colours:
            out["colours"] = list(self.colours)
        return out

    def __str__(self) -> str:
        return self.message


def _cell(cell: Cell) -> str:
    return f"row {cell[0]}, col {cell[1]}"


def _colour(c: str) -> str:
    return f"{c} ({COLOUR_NAMES[c]})"


def laid_problems(board: Board) -> list[Problem]:
    """Problems of the tiles as laid: a physical tile used twice, unmatched edges."""
    problems = []
    for first, dup, tile in duplicates_of(board):
        problems.append(
            Problem(
                "duplicate",
                f"tile {tile.identity_code} is used twice: at {_cell(first)} and at {_cell(dup)}",
                (first, dup),
            )
        )
    for m in board.mismatches():
        a, b = board.tiles[m.cell], board.tiles[m.other]
        problems.append(
            Problem(
                "mismatch",
                f"{a.code} at {_cell(m.cell)} and {b.code} at {_cell(m.other)} do not match "
                f"on its {EDGE_NAMES[m.edge - 1]} edge (edge {m.edge}): "
                f"{_colour(m.colour)} against {_colour(m.other_colour)}",
                (m.cell, m.other),
                m.edge,
                (m.colour, m.other_colour),
            )
        )
    return problems


def align_figure(board: Board, figure: Figure) -> tuple[set[Cell], int]:
    """The figure's cells placed onto ``board``'s grid where they best cover its tiles.

    Tries the six rotations and every translation; maximises the number of tiles inside
    the figure, then the number of open (``1``) cells of the board inside it.  Returns
    the cells (in the board's grid) and the rotation used.
    """
    fs = board.first_row_shifted
    tile_ax = {to_axial(r, c, fs): (r, c) for r, c in board.tiles}
    open_ax = {to_axial(r, c, fs) for r, c in board.open_cells}
    fig_ax = list(figure.axial())
    best = None
    anchors = list(tile_ax) or list(open_ax) or [(0, 0)]
    for k in range(6):
        rot = [rotate_axial(q, r, k) for q, r in fig_ax]
        votes: Counter = Counter()
        for fq, fr in rot:
            for tq, tr in anchors:
                votes[(tq - fq, tr - fr)] += 1
        for (dq, dr), _ in votes.most_common(8):
            placed = {(q + dq, r + dr) for q, r in rot}
            score = (len(placed & tile_ax.keys()), len(placed & open_ax), -k)
            if best is None or score > best[0]:
                best = (score, placed, k)
    _, placed, k = best
    return {from_axial(q, r, fs) for q, r in placed}, k


def check_solution(board: Board, figure: Figure | None = None) -> list[Problem]:
    """All problems of ``board`` as a solution (of ``figure`` if given); empty = valid."""
    problems = laid_problems(board)
    if figure is None:
        return problems
    cells, _ = align_figure(board, figure)
    for cell in sorted(cells - set(board.tiles)):
        problems.append(Problem("empty", f"figure cell at {_cell(cell)} is empty", (cell,)))
    for cell in sorted(set(board.tiles) - cells):
        tile = board.tiles[cell]
        problems.append(
            Problem("outside", f"tile {tile.code} at {_cell(cell)} is outside the figure", (cell,))
        )
    return problems


# ------------------------------------------------------------------------------------
# The library of named figures


@dataclass(frozen=True)
class LibraryFigure:
    """A named figure from the library with a stored solution."""

    name: str
    description: str
    figure: Figure
    solution: str

    @property
    def cells(self) -> int:
        return len(self.figure)


@lru_cache(maxsize=1)
def library() -> dict[str, LibraryFigure]:
    """The figure library, by name (loaded once from ``figures/library.json``)."""
    data = json.loads(LIBRARY_PATH.read_text(encoding="utf-8"))
    out = {}
    for entry in data["figures"]:
        out[entry["name"]] = LibraryFigure(
            entry["name"],
            entry.get("description", ""),
            parse_figure(entry["figure"]),
            entry["solution"],
        )
    return out


def library_figure(name: str) -> LibraryFigure:
    """A library figure by name; ``KeyError`` if unknown."""
    return library()[name]


BUTTERFLY = (
    "0,0,1,1,0 - e0,1,1,0,0 - 1,1,1,1,1 - e1,1,1,1,1 - 0,1,1,1,0 - e0,0,1,1,0 - "
    "0,1,1,1,0 - e1,1,1,1,1 - 1,1,1,1,1 - e0,1,1,0,0 - 0,0,1,1,0"
)
"""The seed's butterfly figure (36 cells)."""


def _hexagon(radius: int) -> set[tuple[int, int]]:
    return {
        (q, r)
        for q in range(-radius, radius + 1)
        for r in range(-radius, radius + 1)
        if abs(q + r) <= radius
    }


def _triangle(n: int) -> set[tuple[int, int]]:
    return {(q, r) for r in range(n) for q in range(n - r)}


def _parallelogram(w: int, h: int) -> set[tuple[int, int]]:
    return {(q, r) for q in range(w) for r in range(h)}


def _offset_rect(w: int, h: int) -> set[tuple[int, int]]:
    return {(c - r // 2, r) for r in range(h) for c in range(w)}


def library_shapes() -> list[tuple[str, str, set[tuple[int, int]] | str]]:
    """The shapes the library is built from: ``(name, description, axial cells or notation)``."""
    ring2 = _hexagon(2) - _hexagon(1)
    ring3 = _hexagon(3) - _hexagon(2)
    flower = _hexagon(1) | {(2 * q, 2 * r) for q, r in _hexagon(1) - {(0, 0)}}
    star = _hexagon(1) | {(k * q, k * r) for q, r in AXIAL_DIRECTIONS for k in (2, 3)}
    arrow = {(0, r) for r in range(-3, 4)} | {(-1, 1), (1, -1), (-2, 2), (2, -2)} | {
        (1, 0), (-1, 0)
    }
    zigzag = {(q, r) for r in range(5) for q in (-(r // 2), -(r // 2) + 1, -(r // 2) + 2)}
    tree = _triangle(5) | {(1, 5), (0, 6), (1, 6)}
    return [
        ("butterfly", "the seed's butterfly (36 tiles, the whole set)", BUTTERFLY),
        ("pair", "two touching tiles", {(0, 0), (1, 0)}),
        ("triangle-3", "triangle with 3 tiles per side (6)", _triangle(3)),
        ("flower-7", "a hexagon of 7 tiles", _hexagon(1)),
        ("triangle-4", "triangle of 10 tiles", _triangle(4)),
        ("line-8", "a straight line of 8 tiles", {(q, 0) for q in range(8)}),
        ("ring-12", "a ring of 12 tiles around an empty centre", ring2),
        ("flower-13", "a 7-hexagon with six petals", flower),
        ("parallelogram-3x4", "a 3 by 4 rhombus (12)", _parallelogram(3, 4)),
        ("zigzag-15", "a zigzag band three tiles wide (15)", zigzag),
        ("triangle-5", "triangle of 15 tiles", _triangle(5)),
        ("rectangle-4x4", "a 4 by 4 brick rectangle (16)", _offset_rect(4, 4)),
        ("arrow", "an arrow (13 tiles)", arrow),
        ("tree", "a fir tree (18)", tree),
        ("ring-18", "a ring of 18 tiles around a hole of 19", ring3),
        ("hexagon-19", "a hexagon of 19 tiles", _hexagon(2)),
        ("triangle-6", "triangle of 21 tiles", _triangle(6)),
        ("parallelogram-5x5", "a 5 by 5 rhombus (25)", _parallelogram(5, 5)),
        ("triangle-7", "triangle of 28 tiles", _triangle(7)),
        ("rectangle-5x6", "a 5 by 6 brick rectangle (30)", _offset_rect(5, 6)),
        ("parallelogram-6x6", "a 6 by 6 rhombus (36, the whole set)", _parallelogram(6, 6)),
        ("triangle-8", "triangle of 36 tiles (the whole set)", _triangle(8)),
        ("rectangle-6x6", "a 6 by 6 brick rectangle (36, the whole set)", _offset_rect(6, 6)),
        ("hexagon-37-hole", "a hexagon of 37 without its centre (36)", _hexagon(3) - {(0, 0)}),
        ("star-19", "a 7-hexagon with six spikes of two tiles", star),
    ]


def _figure_from(shape) -> Figure:
    if isinstance(shape, str):
        return parse_figure(shape)
    board = board_from_axial({}, sorted(shape))
    return Figure(board.open_cells, board.first_row_shifted, board.height, board.width)


def build_library(node_limit: int = 5_000_000) -> dict:
    """Solve every library shape and return the JSON document (raises if one fails)."""
    from .notation import format_figure
    from .solver import solve

    figures = []
    for name, description, shape in library_shapes():
        figure = _figure_from(shape)
        result = solve(figure, node_limit=node_limit)
        if result.board is None:
            raise RuntimeError(f"library figure {name} not solved ({result.nodes} nodes)")
        solution = result.board.notation()
        assert not check_solution(parse_board(solution), figure), name
        figures.append(
            {
                "name": name,
                "description": description,
                "cells": len(figure),
                "figure": format_figure(figure),
                "solution": solution,
                "solver_nodes": result.nodes,
            }
        )
    return {"game": "caribo", "figures": figures}


if __name__ == "__main__":  # pragma: no cover - maintenance entry point
    doc = build_library()
    LIBRARY_PATH.parent.mkdir(exist_ok=True)
    LIBRARY_PATH.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    for f in doc["figures"]:
        print(f"{f['name']:20s} {f['cells']:3d} cells {f['solver_nodes']:8d} nodes")
