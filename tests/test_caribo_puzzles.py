"""CARIBO solo figures: validation, the solver, the figure library."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.caribo import Board, Figure, Tile, board_from_axial, parse_board, parse_figure
from engines.caribo.game import CariboGame
from engines.caribo.notation import format_figure
from engines.caribo.puzzles import BUTTERFLY, LIBRARY_PATH, check_solution, library
from engines.caribo.solver import solve
from engines.caribo.tiles import ALL_TILES
from engines.game import random_playout

SEED_ROWS = "0,0,34WS,56SW,0 - e0,12WB,34BW,0,0 - 12BR,B,23SB,61BS,34GS"


def test_seed_rows_are_valid():
    assert check_solution(parse_board(SEED_ROWS)) == []


def _two_colour_cells():
    board = parse_board(SEED_ROWS)
    return [(cell, t) for cell, t in sorted(board.tiles.items()) if not t.is_single_colour]


def _rotation_breaks_a_shared_edge(board: Board, cell, new_tile) -> bool:
    """Independent oracle: does the new tile differ from the old on an edge with a neighbour?"""
    old = board.tiles[cell]
    return any(
        old.segments[edge - 1] != new_tile.segments[edge - 1]
        for edge, _, _ in board.neighbours(*cell)
    )


def test_rotating_any_seed_tile_breaks_it_unless_only_free_edges_change():
    board = parse_board(SEED_ROWS)
    survivors = []
    changes = 0
    for cell, tile in _two_colour_cells():
        for k in range(1, 6):
            tiles = dict(board.tiles)
            tiles[cell] = tile.rotated(k)
            changed = Board(tiles, height=board.height, width=board.width)
            problems = check_solution(changed)
            changes += 1
            assert bool(problems) == _rotation_breaks_a_shared_edge(board, cell, tile.rotated(k))
            assert all(p.kind == "mismatch" and cell in p.cells for p in problems)
            if not problems:
                survivors.append((cell, tile.rotated(k).code))
    assert changes == 40
    # Only the two corner tiles of the 3-row excerpt touch a single neighbour: 12BR must
    # show B on index 1 (only 23BR also does), 34GS must show S on index 4 (12GS, 23GS and
    # 61GS also do).  Every other change of rotation is caught.
    assert sorted(survivors) == [
        ((2, 0), "23BR"),
        ((2, 4), "12GS"),
        ((2, 4), "23GS"),
        ((2, 4), "61GS"),
    ]


def test_rotating_any_tile_of_a_full_butterfly_solution_is_caught():
    fig = parse_figure(BUTTERFLY)
    board = parse_board(library()["butterfly"].solution)
    assert check_solution(board, fig) == []
    for cell, tile in sorted(board.tiles.items()):
        for k in range(1, 6):
            new = tile.rotated(k)
            if new == tile:
                continue
            tiles = dict(board.tiles)
            tiles[cell] = new
            changed = Board(tiles, height=board.height, width=board.width)
            assert bool(check_solution(changed, fig)) == _rotation_breaks_a_shared_edge(
                board, cell, new
            )


def _valid_board(seed: int) -> Board:
    game = CariboGame.deal(2, seed)
    random_playout(game, random.Random(seed))
    return game.board


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 100_000), st.integers(1, 5))
def test_rotating_a_valid_board_keeps_it_valid(seed, k):
    board = _valid_board(seed)
    assert check_solution(board) == []
    turned = board.rotated(k)
    assert len(turned) == len(board)
    assert check_solution(turned) == []
    assert check_solution(parse_board(turned.notation())) == []
    assert turned.rotated(6 - k) == board.normalized()


def test_problems_name_cells_edges_and_colours():
    problems = check_solution(parse_board("S,12WS - e34WS,W"))
    kinds = sorted(p.kind for p in problems)
    assert kinds == ["duplicate", "mismatch", "mismatch"]
    dup = next(p for p in problems if p.kind == "duplicate")
    assert "WS is used twice" in dup.message and dup.cells == ((0, 1), (1, 0))
    mism = [p for p in problems if p.kind == "mismatch"]
    # 12WS (0,1) lower-right edge shows S against the white tile at (1,1);
    # 34WS (1,0) right edge shows S against it as well
    assert {(p.cells, p.edge, p.colours) for p in mism} == {
        (((0, 1), (1, 1)), 3, ("S", "W")),
        (((1, 0), (1, 1)), 2, ("S", "W")),
    }
    assert all(len(p.colours) == 2 and p.colours[0] != p.colours[1] for p in mism)
    # the same problems, seen from any rotation of the table
    board = parse_board("S,12WS - e34WS,W")
    for k in range(6):
        turned = check_solution(board.rotated(k))
        assert sorted(p.kind for p in turned) == kinds


def test_solution_against_figure_in_any_rotation():
    fig = parse_figure(BUTTERFLY)
    result = solve(fig)
    assert result.board is not None
    for k in range(6):
        turned = result.board.rotated(k)
        assert check_solution(turned, fig) == []
        assert check_solution(result.board, fig.rotated(k)) == []


def test_figure_problems_empty_and_outside():
    fig = parse_figure("1,1,1")
    problems = check_solution(parse_board("S,S"), fig)
    assert {p.kind for p in problems} == {"duplicate", "empty"}
    problems = check_solution(parse_board("45WS,S,1"), fig)
    assert [p.kind for p in problems] == ["empty"]
    assert problems[0].cells == ((0, 2),)
    problems = check_solution(parse_board("0,S,0 - e0,0,S"), parse_figure("1"))
    assert "duplicate" in {p.kind for p in problems}
    problems = check_solution(parse_board("S,34WS,0 - e0,0,0"), parse_figure("1"))
    assert [p.kind for p in problems] == ["outside"]
    assert "outside the figure" in problems[0].message


def test_butterfly_solved_and_valid():
    fig = parse_figure(BUTTERFLY)
    result = solve(fig)
    assert result.solved and result.complete
    assert len(result.board) == 36
    assert {t.identity for t in result.board.tiles.values()} == {t.identity for t in ALL_TILES}
    assert check_solution(parse_board(result.board.notation()), fig) == []
    assert set(result.board.tiles) == fig.cells  # in the figure's own grid


def test_solver_proves_impossibility():
    # two touching cells but only the black and white one-colour tiles available
    result = solve(parse_figure("1,1"), [Tile.parse("S"), Tile.parse("W")])
    assert result.board is None and result.complete
    # a hexagon of 7 with only one-colour tiles: impossible
    result = solve(parse_figure("0,1,1 - e1,1,1 - 0,1,1"), [Tile.parse(c) for c in "WSBRGY"])
    assert result.board is None and result.complete
    # more cells than tiles
    cells = {(q, r) for q in range(6) for r in range(7)}
    board = board_from_axial({}, cells)
    fig = Figure(board.open_cells, board.first_row_shifted, board.height, board.width)
    assert len(fig) == 42
    assert solve(fig).board is None
    # a node limit reports an incomplete search instead of a proof
    limited = solve(parse_figure(BUTTERFLY), node_limit=5)
    assert limited.board is None and not limited.complete


def test_solver_completes_a_partly_laid_figure():
    fig = parse_figure(BUTTERFLY)
    full = parse_board(library()["butterfly"].solution)
    for rows in (3, 6, 9):
        given = {c: t for c, t in full.tiles.items() if c[0] < rows}
        result = solve(fig, given=given)
        assert result.solved and check_solution(result.board, fig) == []
        assert all(result.board.tiles[c] == t for c, t in given.items())
    # clashing given tiles: no filling, proved at once
    clash = {(0, 2): Tile.parse("S"), (0, 3): Tile.parse("W")}
    result = solve(fig, given=clash)
    assert result.board is None and result.complete and result.nodes == 0
    with pytest.raises(ValueError, match="not a cell"):
        solve(fig, given={(0, 0): Tile.parse("S")})


def test_seed_rows_cannot_be_completed_to_the_butterfly():
    """The brief's reading of the seed ("34G usw..." completed as 34GS, the only 34G?
    that matches 61BS on its left) lays rows 0-2 of the butterfly validly, but the other
    27 cells cannot be filled.  By hand (edges 1..6 as in the SPEC):
    (3,3) needs S on edge 6 and G on edge 1; 12GS is used, so it is 56SG.
    (3,0) needs R on edge 6 and B on edge 1; 12BR is used, so it is 56RB.
    (3,1) needs B on edges 5, 6 and 1; the one-colour B is used.  (3,2) needs S on edges
    6, 1 and 2 (56SG shows S on its edge 5).  If (3,2) showed S on edge 5 (S, or 34XS),
    (3,1) would need S on edge 2 too, i.e. 23SB - used.  So (3,2) is 45XS and shows S
    on edge 3.  Then (4,3) needs G on edge 1 (from 56SG) and S on edge 6: only 56SG and
    12GS do that, both used.  The solver proves the same exhaustively."""
    fig = parse_figure(BUTTERFLY)
    seed = parse_board(SEED_ROWS)
    assert check_solution(seed) == []
    result = solve(fig, given=seed.tiles)
    assert result.board is None and result.complete
    for x in "WBRY":  # any other 34G? clashes with 61BS already
        assert check_solution(parse_board(SEED_ROWS.replace("34GS", "34G" + x)))


def test_solver_with_a_restricted_set_uses_only_those_tiles():
    pool = [Tile.from_identity(x) for x in ("WS", "SW", "BS", "S", "W")]
    result = solve(parse_figure("1,1 - e1,0"), pool)
    assert result.board is not None
    assert {t.identity for t in result.board.tiles.values()} <= {t.identity for t in pool}
    assert check_solution(result.board) == []


def test_library_has_at_least_21_figures_all_solutions_valid():
    lib = library()
    assert len(lib) >= 21 and "butterfly" in lib
    raw = json.loads(LIBRARY_PATH.read_text())["figures"]
    assert len({f["name"] for f in raw}) == len(raw)
    sizes = {len(f.figure) for f in lib.values()}
    assert len(sizes) >= 10 and max(sizes) == 36 and min(sizes) <= 7
    for entry in raw:
        fig = parse_figure(entry["figure"])
        assert len(fig) == entry["cells"]
        assert format_figure(fig) == entry["figure"]
        solution = parse_board(entry["solution"])
        assert check_solution(solution, fig) == [], entry["name"]
    assert len(lib["butterfly"].figure) == 36


@pytest.mark.parametrize("name", ["triangle-4", "hexagon-19", "parallelogram-5x5", "ring-18"])
def test_solver_resolves_library_figures(name):
    fig = library()[name].figure
    result = solve(fig)
    assert result.board is not None and check_solution(result.board, fig) == []


def _naive_solvable(cells: list, fs: bool, pool: list[Tile]) -> bool:
    """Plain DFS in row-major order, no bitsets, no heuristics: the reference."""
    from engines.caribo import neighbour

    placed: dict = {}
    used: set = set()

    def fits(cell, tile):
        for edge in range(1, 7):
            other = placed.get(neighbour(*cell, edge, fs))
            if other is not None and other.segments[(edge + 2) % 6] != tile.segments[edge - 1]:
                return False
        return True

    def dfs(k):
        if k == len(cells):
            return True
        for t in pool:
            if t.identity in used:
                continue
            for rot in set(t.rotations()):
                if fits(cells[k], rot):
                    placed[cells[k]] = rot
                    used.add(t.identity)
                    if dfs(k + 1):
                        return True
                    del placed[cells[k]]
                    used.discard(t.identity)
        return False

    return dfs(0)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 7), st.integers(2, 9))
def test_solver_agrees_with_naive_search(seed, size, pool_size):
    from engines.caribo.geometry import AXIAL_DIRECTIONS

    rng = random.Random(seed)
    shape = {(0, 0)}
    while len(shape) < size:
        q, r = rng.choice(sorted(shape))
        dq, dr = rng.choice(AXIAL_DIRECTIONS)
        shape.add((q + dq, r + dr))
    board = board_from_axial({}, sorted(shape))
    fig = Figure(board.open_cells, board.first_row_shifted, board.height, board.width)
    colours = rng.sample("WSBRGY", 3)  # few colours: impossible figures are common
    candidates = [t for t in ALL_TILES if t.minor in colours and t.major in colours]
    pool = rng.sample(candidates, min(pool_size, len(candidates)))
    result = solve(fig, pool)
    assert result.complete
    expected = _naive_solvable(sorted(fig.cells), fig.first_row_shifted, pool)
    assert result.solved == expected
    if result.solved:
        assert check_solution(result.board, fig) == []
        assert {t.identity for t in result.board.tiles.values()} <= {t.identity for t in pool}
