"""Exhaustive solver for CARIBO solo figures.

Fills every cell of a figure with distinct physical tiles (any rotation) so that every
shared edge matches, or proves that no such filling exists.  Depth-first search with

* bitsets over the 216 tile-in-rotation pairs (``EDGE_COLOUR_MASK`` intersections give
  each open cell's domain in a few AND operations; used tiles are masked out),
* most-constrained cell first (smallest domain; ties: most filled neighbours, then
  most neighbours in the figure) and forward checking (an open cell with an empty
  domain fails the branch at once),
* when every remaining tile must be used (a 36-cell figure with the full set): the
  dual view – a tile with fewer (cell, rotation) options than the best cell has
  candidates is branched on instead; a check that each remaining tile still fits some
  open cell; and a colour count: per colour, the remaining tiles must supply at least
  the segments that filled neighbours demand, and the odd surpluses must fit on the
  figure's free outline edges (inner edges take colours in pairs),
* restarts over a small portfolio of two configurations (one places the one-colour
  tiles as soon as they are the most constrained tile) with node budgets growing ×4;
  every run is exhaustive within its budget, so the search stays complete.

The placement-order rule of the game (touch two tiles) does not apply to puzzles (SPEC).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .board import DISTINCT_MASK, EDGE_COLOUR_MASK, TILE_ROTATIONS_MASK, Board, hand_mask, iter_bits
from .geometry import neighbour_deltas
from .notation import Figure
from .tiles import ALL_ROTATIONS, ALL_TILES, COLOURS, ROTATION_SEGMENTS, Tile

TILE_COLOUR_COUNTS = tuple(
    ((t.minor, 6),) if t.is_single_colour else ((t.minor, 2), (t.major, 4)) for t in ALL_TILES
)


@dataclass(frozen=True)
class SolveResult:
    """Outcome of :func:`solve`: a board (``None`` if impossible or given up) and stats."""

    board: Board | None
    nodes: int
    seconds: float
    complete: bool  # False if the node limit stopped the search before an answer

    @property
    def solved(self) -> bool:
        return self.board is not None


class _Search:
    def __init__(
        self,
        figure: Figure,
        available: int,
        node_limit: int | None,
        seed: int | None = None,
        *,
        tile_branch_max: int = 3,
        singles_first: bool = False,
        given: Mapping[tuple[int, int], Tile] | None = None,
    ) -> None:
        cells = sorted(figure.cells)
        index = {cell: i for i, cell in enumerate(cells)}
        fs = figure.first_row_shifted
        self.cells = cells
        self.figure = figure
        self.n = len(cells)
        # nbr[i]: list of (edge index, neighbour index)
        self.nbr: list[list[tuple[int, int]]] = []
        for r, c in cells:
            lst = []
            for e, (dr, dc) in enumerate(neighbour_deltas(r, fs)):
                j = index.get((r + dr, c + dc))
                if j is not None:
                    lst.append((e, j))
            self.nbr.append(lst)
        self.degree = [len(x) for x in self.nbr]
        self.assigned = [-1] * self.n
        self.available = available
        self.avail_rot = 0
        for t in range(36):
            if available >> t & 1:
                self.avail_rot |= TILE_ROTATIONS_MASK[t]
        self.avail_rot &= DISTINCT_MASK
        self.nodes = 0
        self.node_limit = node_limit
        self.aborted = False
        self.rank = None
        self.tile_branching = True
        self.tile_branch_max = tile_branch_max
        self.singles_first = singles_first
        self.tile_order = [t for t in range(36) if available >> t & 1]
        self.supply = dict.fromkeys(COLOURS, 0)
        for t in iter_bits(available):
            for colour, k in TILE_COLOUR_COUNTS[t]:
                self.supply[colour] += k
        if seed is not None:
            rng = random.Random(seed)
            ranks = list(range(36))
            rng.shuffle(ranks)
            self.rank = [ranks[b // 6] * 6 + b % 6 for b in range(216)]
        self.given = 0
        for cell, tile in (given or {}).items():
            bit = tile.rotation_index
            self.assigned[index[cell]] = bit
            self.avail_rot &= ~TILE_ROTATIONS_MASK[bit // 6]
            for colour, k in TILE_COLOUR_COUNTS[bit // 6]:
                self.supply[colour] -= k
            self.given += 1

    def run(self) -> bool:
        if self.n == 0:
            return True
        if self.n > self.available.bit_count():
            return False
        return self._search(self.n - self.given, self.available.bit_count() - self.given)

    def _search(self, left: int, tiles_left: int) -> bool:
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            self.aborted = True
            return False
        if left == 0:
            return True
        assigned = self.assigned
        best_i = -1
        best_mask = 0
        best_key = None
        exact = left == tiles_left
        union = 0
        need = dict.fromkeys(COLOURS, 0) if exact else None
        free = 0
        nbr = self.nbr
        open_domains = []
        for i in range(self.n):
            if assigned[i] >= 0:
                continue
            m = self.avail_rot
            filled = 0
            for e, j in nbr[i]:
                a = assigned[j]
                if a >= 0:
                    colour = ROTATION_SEGMENTS[a][(e + 3) % 6]
                    m &= EDGE_COLOUR_MASK[e][colour]
                    filled += 1
                    if exact:
                        need[colour] += 1
            if not m:
                return False
            if exact:
                union |= m
                free += 6 - self.degree[i]
                open_domains.append((i, m))
            key = (m.bit_count(), -filled, -self.degree[i])
            if best_key is None or key < best_key:
                best_key, best_i, best_mask = key, i, m
        if exact:
            # Every remaining tile must be used.  Its segments face (a) edges to filled
            # cells, whose colours are fixed, (b) edges between open cells, taking colours
            # in pairs, or (c) the figure's outline (free).  So per colour the supply must
            # cover the demand, and the odd surpluses must fit on the free outline edges.
            odd = 0
            supply = self.supply
            for colour in COLOURS:
                diff = supply[colour] - need[colour]
                if diff < 0:
                    return False
                odd += diff & 1
            if odd > free:
                return False
            if union != self.avail_rot:
                # each remaining tile needs a rotation in some open cell's domain
                for t in range(36):
                    tm = TILE_ROTATIONS_MASK[t] & self.avail_rot
                    if tm and not (union & tm):
                        return False
        options = None
        if exact and self.tile_branching:
            # The dual view: a remaining tile with fewer possible (cell, rotation) pairs
            # than the best cell has candidates is branched on instead (it must be used).
            best_count = best_key[0]
            for t in self.tile_order:
                tm = TILE_ROTATIONS_MASK[t] & self.avail_rot
                if not tm:
                    continue
                count = 0
                for _, m in open_domains:
                    count += (m & tm).bit_count()
                    if count >= best_count:
                        break
                if count < best_count and (count <= self.tile_branch_max or
                                           (self.singles_first and t < 6)):
                    best_count = count
                    options = [(i, bit) for i, m in open_domains for bit in iter_bits(m & tm)]
                    if count <= 1:
                        break
        if options is None:
            if self.rank is None:
                order = iter_bits(best_mask)
            else:
                order = sorted(iter_bits(best_mask), key=self.rank.__getitem__)
            options = [(best_i, bit) for bit in order]
        for best_i, bit in options:
            tile_rots = TILE_ROTATIONS_MASK[bit // 6]
            assigned[best_i] = bit
            saved = self.avail_rot
            self.avail_rot &= ~tile_rots
            counts = TILE_COLOUR_COUNTS[bit // 6]
            for colour, k in counts:
                self.supply[colour] -= k
            if self._search(left - 1, tiles_left - 1):
                return True
            for colour, k in counts:
                self.supply[colour] += k
            self.avail_rot = saved
            assigned[best_i] = -1
            if self.aborted:
                return False
        return False


PORTFOLIO = (
    {"tile_branch_max": 3, "singles_first": False},
    {"tile_branch_max": 3, "singles_first": True},
)
"""Search configurations tried in turn with growing node budgets (restarts)."""
FIRST_BUDGET = 2_000
BUDGET_GROWTH = 4


def solve(
    figure: Figure,
    tiles: Iterable[Tile] | None = None,
    *,
    node_limit: int | None = None,
    seed: int | None = None,
    given: Mapping[tuple[int, int], Tile] | None = None,
) -> SolveResult:
    """Fill ``figure`` with distinct tiles from ``tiles`` (default: the full set).

    Returns a :class:`SolveResult` whose ``board`` is in the figure's grid (so it prints
    with the figure's rows and columns) or ``None`` when no filling exists
    (``complete=True``) or the ``node_limit`` (total over all runs) was hit
    (``complete=False``).  The search runs the :data:`PORTFOLIO` configurations in
    turn with node budgets growing by :data:`BUDGET_GROWTH`; each run is exhaustive
    within its budget, so the first run that finishes decides: a filling, or a proof
    that none exists.  ``nodes`` counts the nodes of all runs.  ``given`` pre-places
    tiles on some figure cells (a partly laid puzzle; they count as available).
    ``seed`` shuffles the order in which tiles are tried (default: by tile id, so
    one-colour tiles first).
    """
    available = (1 << 36) - 1 if tiles is None else hand_mask(tiles)
    given = dict(given or {})
    start = time.perf_counter()
    if given:
        for cell in given:
            if cell not in figure.cells:
                raise ValueError(f"given: cell {cell} is not a cell of the figure")
        seen = hand_mask([])
        for tile in given.values():
            bit = 1 << tile.id
            if seen & bit:
                raise ValueError(f"given: tile {tile.identity_code} twice")
            seen |= bit
        available |= seen
        laid = Board(given, first_row_shifted=figure.first_row_shifted)
        if laid.mismatches():  # the given tiles already clash: no filling exists
            return SolveResult(None, 0, time.perf_counter() - start, complete=True)
    total = 0
    budget = FIRST_BUDGET
    search = None
    found = False
    done = False
    while not done:
        for config in PORTFOLIO:
            limit = budget if node_limit is None else min(budget, node_limit - total)
            if limit <= 0:
                done = True
                break
            search = _Search(figure, available, limit, seed, given=given, **config)
            found = search.run()
            total += search.nodes
            if found or not search.aborted:
                done = True
                break
        budget *= BUDGET_GROWTH
    seconds = time.perf_counter() - start
    board = None
    if found:
        placed = {search.cells[i]: ALL_ROTATIONS[a] for i, a in enumerate(search.assigned)}
        board = Board(
            placed,
            first_row_shifted=figure.first_row_shifted,
            height=figure.height,
            width=figure.width,
        )
    complete = found or (search is not None and not search.aborted)
    return SolveResult(board, total, seconds, complete=complete)
