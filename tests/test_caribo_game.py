"""CARIBO game flow: deals, opening, turns, passes, end, winners, championship match."""

from __future__ import annotations

import random

import pytest

from engines.caribo import ALL_TILES, Placement, Tile
from engines.caribo.game import (
    BLACK_ID,
    PASS,
    CariboGame,
    ChampionshipMatch,
    Pass,
)
from engines.errors import IllegalMoveError
from engines.game import random_playout

S = Tile.parse("S")


class CheckedGame(CariboGame):
    """A game that checks every rule invariant around each push."""

    def push(self, move):
        if self.is_over():
            return super().push(move)
        player = self.current_player()
        before = len(self.board)
        can = self.board.has_legal_placement(self.hands[player]) if before else True
        if isinstance(move, Pass):
            assert not can
        else:
            assert move in self.legal_moves()
            touching = self.board.touching(move.row, move.col)
            if before == 0:
                assert self.open_with_any or move.tile == S
            elif before == 1:
                assert touching == 1
            else:
                assert touching >= 2
        super().push(move)
        # 36 tiles conserved between hands and board, no tile twice
        union = self.board.used_mask
        for h in self.hands:
            assert not union & h
            union |= h
        assert union == (1 << 36) - 1
        assert sum(h.bit_count() for h in self.hands) + len(self.board) == 36
        assert self.board.mismatches() == []
        assert self.current_player() == (player + 1) % self.n_players


def checked(players, seed, **kw):
    game = CariboGame.deal(players, seed, **kw)
    game.__class__ = CheckedGame
    return game


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_invariants(players):
    for seed in range(40):
        game = checked(players, seed)
        plies = random_playout(game, random.Random(seed * 7 + players))
        assert game.is_over() and plies >= 1
        counts = [h.bit_count() for h in game.hands]
        winners = game.winners()
        if 0 in counts:
            assert winners == [counts.index(0)]
        else:
            # blocked: nobody can place
            assert not any(game.board.has_legal_placement(h) for h in game.hands)
            fewest = [p for p, c in enumerate(counts) if c == min(counts)]
            assert winners == ([] if len(fewest) == players else fewest)
        assert list(game.legal_moves()) == []
        with pytest.raises(IllegalMoveError):
            game.push(PASS)
        # undo everything
        while game.history:
            game.pop()
        assert len(game.board) == 0 and sum(h.bit_count() for h in game.hands) == 36


@pytest.mark.parametrize("players, size", [(2, 18), (3, 12), (4, 9)])
def test_deal_sizes_and_black_opens(players, size):
    game = CariboGame.deal(players, 42)
    assert [h.bit_count() for h in game.hands] == [size] * players
    holder = next(p for p in range(players) if game.hands[p] >> BLACK_ID & 1)
    assert game.current_player() == holder
    assert list(game.legal_moves()) == [Placement(0, 0, S)]
    other = next(t for t in game.hand(holder) if t != S)
    with pytest.raises(IllegalMoveError):
        game.push(Placement(0, 0, other))
    assert CariboGame.deal(players, 42).hands == game.hands  # seeded


def test_pass_only_when_forced():
    found = 0
    for seed in range(60):
        game = CariboGame.deal(3, seed)
        rng = random.Random(seed)
        while not game.is_over():
            moves = list(game.legal_moves())
            if moves == [PASS]:
                found += 1
                assert not game.can_place(game.current_player())
                with pytest.raises(IllegalMoveError):
                    game.push(Placement(50, 50, game.hand()[0]))
            else:
                assert PASS not in moves
                with pytest.raises(IllegalMoveError):
                    game.push(PASS)
            game.push(rng.choice(moves))
    assert found > 0


def test_wrong_player_tile_rejected():
    game = CariboGame.deal(2, 1)
    game.push(next(iter(game.legal_moves())))
    mover = game.current_player()
    foreign = game.hand(1 - mover)[0]
    with pytest.raises(IllegalMoveError, match="not in player"):
        game.push(Placement(0, 1, foreign))


def test_observation_open_in_two_player_hidden_otherwise():
    two = CariboGame.deal(2, 3)
    obs = two.observation(0)
    assert obs["hands"][1] == [t.identity_code for t in two.hand(1)]
    four = CariboGame.deal(4, 3)
    obs = four.observation(2)
    assert "hands" not in obs
    assert obs["hand"] == [t.identity_code for t in four.hand(2)]
    assert obs["hand_counts"] == [9, 9, 9, 9]


def test_copy_is_independent():
    game = CariboGame.deal(2, 9)
    game.push(next(iter(game.legal_moves())))
    clone = game.copy()
    clone.push(next(iter(clone.legal_moves())))
    assert len(game.board) == 1 and len(clone.board) == 2


def test_bad_construction():
    with pytest.raises(ValueError):
        CariboGame.deal(5, 1)
    with pytest.raises(ValueError):
        CariboGame([[0, 1], [2]])
    with pytest.raises(ValueError):
        CariboGame.deal(3, 1, championship=True)


def test_championship_deal_and_any_tile_opening():
    game = CariboGame.deal(2, 5, championship=True)
    for h in game.hands:
        assert (h & 0b111111).bit_count() == 3 and h.bit_count() == 18
    opener = CariboGame.deal(2, 5, championship=True, opener=1)
    assert opener.current_player() == 1
    moves = list(opener.legal_moves())
    assert {m.tile.identity for m in moves} == {t.identity for t in opener.hand(1)}
    assert all(m.cell == (0, 0) for m in moves)


def test_championship_match_flow():
    for seed in range(8):
        match = ChampionshipMatch(seed)
        rng = random.Random(seed)
        while not match.is_over():
            expected_opener = match.next_opener()
            game = match.next_game()
            if expected_opener is None:
                assert not game.open_with_any
                assert game.hands[game.current_player()] >> BLACK_ID & 1  # holds S
            else:
                assert game.open_with_any and game.current_player() == expected_opener
            random_playout(game, rng)
            match.record(game)
        wins = match.wins()
        assert max(wins) == 3 or len(match.results) == 5
        assert len(match.results) <= 5
        if match.winner() is not None:
            assert wins[match.winner()] > wins[1 - match.winner()]
        else:
            assert wins[0] == wins[1]
        with pytest.raises(IllegalMoveError):
            match.next_game()


def test_match_rules_for_draws_and_losers():
    match = ChampionshipMatch(1)
    match.results = [0]
    assert match.next_opener() == 1  # the loser opens with any tile
    match.results = [0, None]
    assert match.next_opener() is None  # after a draw the holder of S opens
    match.results = [0, None, 1, None, None]
    assert match.is_over() and match.winner() is None  # 1:1 after five games: drawn
    match.results = [1, 1, None, 1]
    assert match.is_over() and match.winner() == 1


def test_from_position_continues_a_laid_board():
    from engines.caribo import parse_board
    from engines.caribo.errors import DuplicateTileError

    board = parse_board("0,0,34WS,56SW,0 - e0,12WB,34BW,0,0 - 12BR,B,23SB,61BS,34GS")
    mine = [Tile.from_identity(x) for x in ("GY", "S", "RW")]
    rest = [t for t in ALL_TILES if not board.contains_tile(t) and t.identity not in
            {m.identity for m in mine}]
    game = CariboGame.from_position(board, [mine, rest], 0)
    assert {m.tile.code for m in game.legal_moves()} == {"S"}
    game.push(next(iter(game.legal_moves())))
    assert len(board) == 9 and len(game.board) == 10  # the given board is not changed
    game.pop()
    with pytest.raises(IndexError):
        game.pop()  # the laid tiles have no history
    with pytest.raises(DuplicateTileError):
        CariboGame.from_position(board, [mine, rest + [mine[0]]], 0)
    with pytest.raises(ValueError):
        CariboGame.from_position(board, [mine, rest[1:]], 0)
