"""Random-simulation invariants of the Colomino engine.

For seeded random games of every size, player count and rule option: tiles are conserved
(bag + racks + board = 144, jokers returned to racks included), chips never go negative,
every tile on the board matches its neighbours and the rim and is connected to the base
line, legal moves are never empty before the end, the game ends, and every turn played is
accepted by :func:`score_turn` with at least the points the game awarded (score_turn picks
the best order of the same placements).
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.colomino import END_TURN, ColominoGame, Rules, score_turn

MAX_PLIES = 2000


def play_checked(seed: int, players: int, size: int, rules: Rules) -> ColominoGame:
    game = ColominoGame(players=players, size=size, seed=seed, rules=rules)
    rng = random.Random(seed)
    turn_start = (game.board_state(), game.current_player(), game.scores())
    plies = 0
    while not game.is_over():
        assert plies < MAX_PLIES, "game did not end"
        moves = list(game.legal_moves())
        assert moves, "no legal move before the end"
        assert END_TURN not in moves or moves == [END_TURN]
        game.push(rng.choice(moves))
        plies += 1
        assert game.tile_count() == 144
        assert all(s.yellow >= 0 and s.blue >= 0 for s in game.scores())
        assert all(len(rack) <= 5 for rack in game.racks)
        if game.current_player() != turn_start[1] or game.is_over():
            board, player, scores = turn_start
            result = score_turn(board, game.board_state(), rules)
            assert result.legal, result.problems
            gained = game.scores()[player]
            before = scores[player]
            played = (gained.points - before.points, gained.blue - before.blue)
            assert (result.points, result.blue) >= played
            assert len(result.placements) <= 3
            turn_start = (game.board_state(), game.current_player(), game.scores())
    assert game.board.problems() == []
    assert list(game.legal_moves()) == []
    return game


def test_random_games_keep_the_invariants():
    configs = [
        (seed, 2 + seed % 3, (9, 12)[seed % 2], Rules(side_walls=seed % 4 == 1,
                                                      final_round=("all", "others")[seed % 3 == 2]))
        for seed in range(12)
    ]
    for seed, players, size, rules in configs:
        game = play_checked(seed, players, size, rules)
        assert game.is_over()


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    players=st.integers(2, 4),
    size=st.sampled_from([9, 12]),
    side_walls=st.booleans(),
    final_round=st.sampled_from(["all", "others"]),
)
def test_random_games_property(seed, players, size, side_walls, final_round):
    play_checked(seed, players, size, Rules(side_walls=side_walls, final_round=final_round))


def test_board_problems_are_checked_every_turn_on_a_long_game():
    # one game checked after every single move (not only at the end)
    game = ColominoGame(players=2, size=12, seed=99)
    rng = random.Random(99)
    while not game.is_over():
        game.push(rng.choice(list(game.legal_moves())))
        assert game.board.problems() == []


def test_fast_legal_listing_agrees_with_placement_problem_in_random_games():
    from engines.colomino import Tile

    for seed in (3, 8):
        game = ColominoGame(players=3, size=(9, 12)[seed % 2], seed=seed)
        rng = random.Random(seed)
        ply = 0
        while not game.is_over():
            if ply % 4 == 0:
                rack = game.racks[game.player]
                listed = {(m.row, m.col, m.tile) for m in game.board.legal_placements(rack)}
                brute = {
                    (r, c, t)
                    for r in range(game.board.size)
                    for c in range(game.board.size)
                    for code in set(rack)
                    for t in Tile.parse(code).orientations()
                    if game.board.placement_problem(r, c, t) is None
                }
                assert listed == brute
            game.push(rng.choice(list(game.legal_moves())))
            ply += 1


def _fingerprint(game):
    return (
        game.board.to_state(), tuple(map(tuple, game.racks)), tuple(game.bag),
        tuple(game.yellow), tuple(game.blue), game.player, game.placed_this_turn,
        game.courts_this_turn, game.turn_cells, game.passes_in_row, game.end_triggered_by,
        game.final_turns_left, game.over, len(game.history),
    )


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 4), size=st.sampled_from([9, 12]))
def test_popping_a_whole_game_retraces_every_position(seed, players, size):
    game = ColominoGame(players=players, size=size, seed=seed)
    rng = random.Random(seed)
    trail = [_fingerprint(game)]
    while not game.is_over():
        game.push(rng.choice(list(game.legal_moves())))
        trail.append(_fingerprint(game))
    while game.history:
        trail.pop()
        game.pop()
        assert _fingerprint(game) == trail[-1]
