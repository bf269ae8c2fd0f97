"""Differential test: the engine against a naive, independently written rule reference.

The reference works on the SPEC cell strings directly, spells out each side by hand and
computes connection by repeated relaxation instead of a flood fill. On positions from
seeded random games (both sizes, both side-wall options, jokers and printed fields
included) it must agree with :meth:`Board.placement_problem`, :meth:`Board.court_at` and
:meth:`Board.legal_placements` for every cell and every orientation of every rack tile.
"""

from __future__ import annotations

import random

import pytest

from engines.colomino import ColominoGame, Rules, Tile


def ref_connected(cells, layout):
    n = len(cells)
    printed = {(r, c) for r, c, _ in layout.printed}

    def solid(r, c):
        return cells[r][c] != "." or (r, c) in printed

    conn = {(n - 1, c) for c in range(n) if solid(n - 1, c)}
    changed = True
    while changed:
        changed = False
        for r in range(n):
            for c in range(n):
                if (r, c) in conn or not solid(r, c):
                    continue
                if {(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)} & conn:
                    conn.add((r, c))
                    changed = True
    return conn


def ref_side(cells, layout, conn, r, c, side):
    """What the cell's ``side`` edge faces: ('rim'|'tile'|'printed'|None, colour)."""
    n = len(cells)
    printed = {(pr, pc): col for pr, pc, col in layout.printed}
    if side == "north":
        if r == 0:
            return "rim", layout.rim["north"][c]
        nr, nc, far = r - 1, c, 2
    elif side == "south":
        if r == n - 1:
            return "rim", layout.rim["south"][c]
        nr, nc, far = r + 1, c, 0
    elif side == "west":
        if c == 0:
            return "rim", layout.rim["west"][r]
        nr, nc, far = r, c - 1, 1
    else:
        if c == n - 1:
            return "rim", layout.rim["east"][r]
        nr, nc, far = r, c + 1, 3
    other = cells[nr][nc]
    if other == "*":
        return "tile", None
    if other != ".":
        return "tile", other[far]
    if (nr, nc) in printed and (nr, nc) in conn:
        return "printed", printed[(nr, nc)]
    return None, None


SIDE_INDEX = {"north": 0, "east": 1, "south": 2, "west": 3}


def ref_legal(cells, layout, conn, r, c, code):
    n = len(cells)
    printed = {(pr, pc): col for pr, pc, col in layout.printed}
    here = cells[r][c]
    if here == "*":
        if code == "*" or (r, c) not in conn:
            return False
    elif here != ".":
        return False
    elif (r, c) in printed:
        if (r, c) not in conn:
            return False
    else:
        neighbours = {(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)}
        if r != n - 1 and not neighbours & conn:
            return False
    if code == "*":
        return True
    if (r, c) in printed and printed[(r, c)] not in code:
        return False
    for side, index in SIDE_INDEX.items():
        kind, colour = ref_side(cells, layout, conn, r, c, side)
        if kind is not None and colour is not None and code[index] != colour:
            return False
    return True


def ref_court(cells, layout, conn, r, c, side_walls):
    n = len(cells)
    printed = {(pr, pc) for pr, pc, _ in layout.printed}
    walls = 0
    for nr, nc, edge_wall in ((r - 1, c, True), (r + 1, c, True),
                              (r, c - 1, side_walls), (r, c + 1, side_walls)):
        if not (0 <= nr < n and 0 <= nc < n):
            walls += edge_wall
        elif cells[nr][nc] != "." or ((nr, nc) in printed and (nr, nc) in conn):
            walls += 1
    return {3: "open", 4: "closed"}.get(walls)


@pytest.mark.parametrize(("seed", "size", "side_walls"),
                         [(1, 9, False), (2, 12, True), (3, 9, True), (4, 12, False)])
def test_engine_agrees_with_the_reference(seed, size, side_walls):
    game = ColominoGame(players=3, size=size, seed=seed, rules=Rules(side_walls=side_walls))
    rng = random.Random(seed)
    checked = 0
    ply = 0
    while not game.is_over():
        if ply % 3 == 0:
            state = game.board_state()
            cells, layout = state.cells, state.layout
            conn = ref_connected(cells, layout)
            board = game.board
            assert conn == board.connected()
            rack = sorted(set(game.racks[game.player]) | {"*"})
            expected = set()
            for r in range(size):
                for c in range(size):
                    if cells[r][c] in (".", "*"):
                        assert board.court_at(r, c) == ref_court(cells, layout, conn, r, c,
                                                                 side_walls)
                    for code in rack:
                        for tile in Tile.parse(code).orientations():
                            legal = ref_legal(cells, layout, conn, r, c, tile.code)
                            assert (board.placement_problem(r, c, tile) is None) == legal, (
                                r, c, tile.code, board.placement_problem(r, c, tile))
                            if legal:
                                expected.add((r, c, tile.code))
                            checked += 1
            listed = {(m.row, m.col, m.tile.code) for m in board.legal_placements(rack)}
            assert listed == expected
        game.push(rng.choice(list(game.legal_moves())))
        ply += 1
    assert checked > 10_000
