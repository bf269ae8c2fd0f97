"""CARIBO move suggestion: legal, sensible, and clearly stronger than random."""

from __future__ import annotations

import random

import pytest

from engines.caribo.game import PASS, CariboGame
from engines.caribo.strategy import evaluate, ranked_moves, suggest_move


def test_suggestion_is_legal_and_deterministic():
    game = CariboGame.deal(2, 4)
    rng = random.Random(4)
    while not game.is_over():
        move = suggest_move(game)
        assert move in game.legal_moves()
        assert suggest_move(game) == move
        game.push(move if game.current_player() == 0 else rng.choice(list(game.legal_moves())))


def test_ranked_moves_agree_with_suggestion():
    for seed in range(100):  # the first seeded game still open after 6 plies
        game = CariboGame.deal(2, seed)
        rng = random.Random(seed)
        for _ in range(6):
            if not game.is_over():
                game.push(rng.choice(list(game.legal_moves())))
        if len(game.placements()) >= 2:
            break
    ranked = ranked_moves(game)
    best = suggest_move(game)
    assert dict(ranked)[best] == ranked[0][1]
    assert [v for _, v in ranked] == sorted((v for _, v in ranked), reverse=True)


def test_forced_moves_are_returned():
    game = CariboGame.deal(2, 2)
    assert suggest_move(game) == next(iter(game.legal_moves()))  # opening with S
    for seed in range(30):
        game = CariboGame.deal(2, seed)
        rng = random.Random(seed)
        while not game.is_over():
            if list(game.legal_moves()) == [PASS]:
                assert suggest_move(game) is PASS
            game.push(rng.choice(list(game.legal_moves())))
    with pytest.raises(ValueError):
        suggest_move(game)


def test_terminal_evaluation():
    game = CariboGame.deal(2, 1)
    random_moves = random.Random(1)
    while not game.is_over():
        game.push(random_moves.choice(list(game.legal_moves())))
    winners = game.winners()
    for p in (0, 1):
        value = evaluate(game, p)
        assert value == (0 if not winners else (1e6 if p in winners else -1e6))


@pytest.mark.slow
def test_beats_random_player_clearly():
    # 40 games (the benchmark plays 200); the expected rate is ~0.85, so >= 0.7 here
    rng = random.Random(2024)
    wins = 0
    games = 40
    for i in range(games):
        game = CariboGame.deal(2, 5000 + i // 2)
        smart = i % 2
        while not game.is_over():
            if game.current_player() == smart:
                game.push(suggest_move(game, rng))
            else:
                game.push(rng.choice(list(game.legal_moves())))
        wins += game.winners() == [smart]
    assert wins / games >= 0.7
