"""Scoring one turn from the board before and after it (``boardcam colomino score``).

:func:`score_turn` works out which cells changed, checks that the change is a legal turn
in SOME order of its placements (each placement legal at its time) and scores it in the
order best for the player: most points, then most blue chips (then the first such order
in row/column order of the permutations, so the answer is deterministic).

Readings: each changed cell is one placement (the game does not let a player replace a
joker put down in the same turn, so this is exact); a turn with no new tile is legal and scores 0 (a
player whose tiles fit nowhere passes); at most three new tiles; the rack is unknown, so
"fewer than three only when no more fit" is not checked; a pattern may not appear more
often on the board than the tile set holds (two of each, four jokers).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass, field

from .board import EMPTY, BoardState
from .rules import CLOSED, Board, Court, Placement, Rules, cell_name
from .tiles import COPIES_PER_PATTERN, JOKER_CODE, JOKER_COUNT, Tile

MAX_PLACEMENTS_PER_TURN = 3


@dataclass(frozen=True)
class TurnScore:
    """The outcome of :func:`score_turn`.

    When ``legal`` is False, ``problems`` lists one-line reasons and the rest is empty.
    """

    legal: bool
    placements: tuple[Placement, ...] = ()
    courts: tuple[Court, ...] = ()
    yellow: int = 0
    blue: int = 0
    problems: tuple[str, ...] = field(default=())

    @property
    def points(self) -> int:
        """Yellow chips count one point, blue chips two."""
        return self.yellow + 2 * self.blue

    def to_json(self) -> dict:
        """The SPEC JSON answer (``{"legal": false, "problems": [...]}`` when illegal)."""
        if not self.legal:
            return {"legal": False, "problems": list(self.problems)}
        return {
            "placements": [p.to_json() for p in self.placements],
            "courts": [c.to_json() for c in self.courts],
            "yellow": self.yellow,
            "blue": self.blue,
            "points": self.points,
        }


def play_sequence(
    board: Board, placements, courts_before: int = 0
) -> tuple[list[Court], int, str | None]:
    """Play ``placements`` on ``board`` (mutated) in order, scoring courts.

    Returns ``(courts, done, problem)``: the courts filled, the number of placements
    that were legal, and the first problem (``None`` if all were legal).
    ``courts_before`` courts filled earlier in the same turn raise the multipliers.
    """
    courts: list[Court] = []
    for done, p in enumerate(placements):
        problem = board.placement_problem(p.row, p.col, p.tile)
        if problem is not None:
            return courts, done, problem
        kind = board.court_at(p.row, p.col)
        if kind is not None:
            courts.append(Court(p.row, p.col, kind, courts_before + len(courts) + 1))
        board.put(p.row, p.col, p.tile)
    return courts, len(placements), None


def _chips(courts: list[Court]) -> tuple[int, int]:
    yellow = sum(c.multiplier for c in courts if c.kind != CLOSED)
    blue = sum(c.multiplier for c in courts if c.kind == CLOSED)
    return yellow, blue


def diff_boards(before: BoardState, after: BoardState) -> tuple[list[Placement], list[str]]:
    """The cells that changed from ``before`` to ``after`` (same size).

    Returns ``(placements, problems)``: new tiles (into empty cells, onto printed fields,
    or replacing a joker) in row/column order, and one-line problems for changes no turn
    can make (a tile or joker removed, rotated, replaced or moved).
    """
    placements: list[Placement] = []
    removed: dict[str, list[str]] = {}
    problems: list[str] = []
    for r in range(before.size):
        for c in range(before.size):
            b, a = before.cells[r][c], after.cells[r][c]
            if a == b:
                continue
            where = cell_name(r, c)
            if b == EMPTY or (b == JOKER_CODE and a not in (EMPTY, JOKER_CODE)):
                placements.append(Placement(r, c, Tile.parse(a)))
            elif a == EMPTY:
                what = "joker" if b == JOKER_CODE else f"tile {b}"
                removed.setdefault(Tile.parse(b).pattern, []).append(where)
                problems.append(f"{where}: {what} was removed")
            elif Tile.parse(a).pattern == Tile.parse(b).pattern:
                problems.append(f"{where}: tile {b} was rotated to {a}")
            else:
                problems.append(f"{where}: tile {b} was replaced by {a}")
    for p in placements:
        sources = removed.get(p.tile.pattern)
        if sources:
            problems.append(
                f"{cell_name(p.row, p.col)}: tile {p.tile.code} was moved there from {sources[0]}"
            )
    return placements, problems


def score_turn(before: BoardState, after: BoardState, rules: Rules | None = None) -> TurnScore:
    """Check and score the turn that turned ``before`` into ``after``."""
    rules = rules or Rules()
    if before.size != after.size:
        return TurnScore(False, problems=(f"size: before is {before.size}, after is {after.size}",))
    if before.layout != after.layout:
        return TurnScore(False, problems=("layout: the boards have different layouts",))
    placements, problems = diff_boards(before, after)
    if len(placements) > MAX_PLACEMENTS_PER_TURN:
        problems.append(
            f"placements: {len(placements)} new tiles, at most {MAX_PLACEMENTS_PER_TURN} per turn"
        )
    counts = Counter(
        Tile.parse(cell).pattern for row in after.cells for cell in row if cell != EMPTY
    )
    for p in placements:
        limit = JOKER_COUNT if p.tile.is_joker else COPIES_PER_PATTERN
        if counts[p.tile.pattern] > limit:
            problems.append(
                f"{cell_name(p.row, p.col)}: the set has only {limit} tiles of pattern "
                f"{p.tile.pattern}, the board shows {counts[p.tile.pattern]}"
            )
            counts[p.tile.pattern] = 0  # report each pattern once
    if problems:
        return TurnScore(False, problems=tuple(problems))
    start = Board.from_state(before, rules)
    best = None
    furthest: tuple[int, str] | None = None
    for order in itertools.permutations(placements):
        board = start.copy()
        courts, done, problem = play_sequence(board, order)
        if problem is not None:
            if furthest is None or done > furthest[0]:
                furthest = (done, problem)
            continue
        yellow, blue = _chips(courts)
        key = (yellow + 2 * blue, blue)
        if best is None or key > best[0]:
            best = (key, order, courts, yellow, blue)
    if best is None:
        assert furthest is not None
        reasons = _order_free_problems(start, placements, after)
        if not reasons:
            reasons = [furthest[1]]
            if len(placements) > 1:
                reasons.append(
                    f"placements: no order of the {len(placements)} new tiles is legal"
                )
        return TurnScore(False, problems=tuple(reasons))
    _, order, courts, yellow, blue = best
    return TurnScore(True, tuple(order), tuple(courts), yellow, blue)


def _order_free_problems(start: Board, placements, after: BoardState) -> list[str]:
    """Problems of the new tiles that no order can cure (named by cell and edge)."""
    final = Board.from_state(after, start.rules)
    new_cells = {(p.row, p.col) for p in placements}
    out = []
    for problem in final.problems():
        # problems() names the cell first; keep those touching a new tile
        cells = _cells_in(problem)
        if cells & new_cells:
            out.append(problem)
    return out


def _cells_in(text: str) -> set[tuple[int, int]]:
    return {(int(r), int(c)) for r, c in re.findall(r"rows\[(\d+)\]\[(\d+)\]", text)}
