"""CARIBO board: placement rules, legal placements (golden perft + brute force), push/pop."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.caribo import (
    ALL_TILES,
    Board,
    IllegalPlacementError,
    Placement,
    Tile,
    neighbour,
    parse_board,
    parse_hand,
)
from engines.caribo.errors import DuplicateTileError
from engines.caribo.game import CariboGame

DATA = Path(__file__).resolve().parent / "data"

PERFT = json.loads((DATA / "caribo" / "perft.json").read_text())["cases"]


def brute_force_placements(board: Board, hand: list[Tile]) -> set[tuple[int, int, Tile]]:
    """Reference implementation straight from the rules, no bitsets, no frontier."""
    tiles = dict(board.tiles)
    fs = board.first_row_shifted
    if not tiles:
        return {(0, 0, t.canonical()) for t in hand}
    rows = [r for r, _ in tiles]
    cols = [c for _, c in tiles]
    out = set()
    need = 1 if len(tiles) == 1 else 2
    for r in range(min(rows) - 1, max(rows) + 2):
        for c in range(min(cols) - 2, max(cols) + 3):
            if (r, c) in tiles:
                continue
            for t in hand:
                for rot in {t.rotated(k) for k in range(6)}:
                    touching = 0
                    ok = True
                    for edge in range(1, 7):
                        other = tiles.get(neighbour(r, c, edge, fs))
                        if other is None:
                            continue
                        touching += 1
                        if other.segments[(edge + 2) % 6] != rot.segments[edge - 1]:
                            ok = False
                    if ok and touching >= need:
                        out.add((r, c, rot))
    return out


@pytest.mark.parametrize("case", PERFT, ids=lambda c: f"{c['board'][:20]}|{c['hand'][:12]}")
def test_perft_golden(case):
    board = parse_board(case["board"])
    hand = parse_hand(case["hand"])
    if "error" in case:
        with pytest.raises(DuplicateTileError):
            board.legal_placements(hand)
        return
    placements = board.legal_placements(hand)
    assert len(placements) == case["count"]
    assert board.count_placements(hand) == case["count"]
    assert {(p.row, p.col, p.tile) for p in placements} == brute_force_placements(board, hand)
    assert len(set(placements)) == len(placements)  # one entry per distinct board


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 30), st.sampled_from([2, 3, 4]))
def test_legal_placements_match_brute_force(seed, plies, players):
    game = CariboGame.deal(players, seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if game.is_over():
            break
        game.push(rng.choice(list(game.legal_moves())))
    rest = [t for t in ALL_TILES if not game.board.contains_tile(t)]
    hand = rng.sample(rest, min(len(rest), 9))
    fast = game.board.legal_placements(hand)
    assert {(p.row, p.col, p.tile) for p in fast} == brute_force_placements(game.board, hand)
    for p in fast:
        assert game.board.is_legal(p)
    assert game.board.has_legal_placement(hand) == bool(fast)
    playable = {p.tile.identity for p in fast}
    assert game.board.playable_tiles(hand).bit_count() == len(playable)


def test_single_colour_tiles_collapse_to_one_entry_per_cell():
    board = parse_board("S,12WS")
    moves = board.legal_placements([Tile.parse("W"), Tile.from_identity("BS")])
    assert [m.cell for m in moves].count((-1, 0)) == 3
    board = Board()
    board.place(0, 0, Tile.parse("W"))
    board.place(0, 1, Tile.parse("12SW"))
    # a white one-colour tile fits above both: exactly one entry, not six rotations
    hand = [Tile.parse("61WB")]
    assert all(m.tile.identity == ("W", "B") for m in board.legal_placements(hand))


def test_placement_rules():
    board = Board()
    assert board.is_legal(Placement(5, 7, Tile.parse("12WB")))  # first tile anywhere
    board.push(Placement(0, 0, Tile.parse("S")))
    # second tile must touch the first
    assert "touch the first" in board.why_illegal(Placement(0, 2, Tile.parse("12WS")))
    assert board.is_legal(Placement(0, 1, Tile.parse("12WS")))
    # not matching: 12WS at (0,1) shows W on edge 5 if rotated to 45WS
    assert "does not match" in board.why_illegal(Placement(0, 1, Tile.parse("45WS")))
    board.push(Placement(0, 1, Tile.parse("12WS")))
    # third tile must touch two tiles
    reason = board.why_illegal(Placement(0, -1, Tile.parse("G")))
    assert "at least two" in reason
    assert "occupied" in board.why_illegal(Placement(0, 0, Tile.parse("G")))
    assert "already on the board" in board.why_illegal(Placement(5, 5, Tile.parse("34WS")))
    with pytest.raises(IllegalPlacementError):
        board.push(Placement(0, -1, Tile.parse("G")))
    assert board.is_legal(Placement(1, 0, Tile.parse("23BS")))
    assert not board.is_legal(Placement(1, 0, Tile.parse("12BS")))  # B would face S


def test_push_pop_restores_everything():
    game = CariboGame.deal(2, 11)
    rng = random.Random(3)
    snapshots = []
    while not game.is_over():
        snapshots.append((game.board.notation(), game.board.legal_placements(game.hands[0])))
        game.push(rng.choice(list(game.legal_moves())))
    while game.history:
        move = game.pop()
        if isinstance(move, Placement):
            notation, moves = snapshots.pop()
            assert game.board.notation() == notation
            assert game.board.legal_placements(game.hands[0]) == moves
        else:
            snapshots.pop()
    assert len(game.board) == 0


def test_neighbours_and_matching_helpers():
    board = parse_board("0,0,34WS,56SW,0 - e0,12WB,34BW,0,0 - 12BR,B,23SB,61BS,34GS")
    got = {edge: (cell, tile.code) for edge, cell, tile in board.neighbours(1, 2)}
    assert got == {
        1: ((0, 3), "56SW"),
        3: ((2, 3), "61BS"),
        4: ((2, 2), "23SB"),
        5: ((1, 1), "12WB"),
        6: ((0, 2), "34WS"),
    }
    assert board.touching(1, 3) == 4
    assert board.fits(1, 3, Tile.parse("S")) is False


def test_rotation_preserves_mismatch_count():
    rng = random.Random(5)
    for _ in range(50):
        tiles = rng.sample(ALL_TILES, 8)
        cells = rng.sample([(r, c) for r in range(3) for c in range(4)], 8)
        laid = {cell: t.rotated(rng.randrange(6)) for cell, t in zip(cells, tiles, strict=True)}
        board = Board(laid, first_row_shifted=rng.random() < 0.5)
        count = len(board.mismatches())
        for k in range(1, 6):
            assert len(board.rotated(k).mismatches()) == count
        assert board.rotated(6) == board.rotated(0)
        assert board.rotated(2).rotated(4) == board.rotated(0)
