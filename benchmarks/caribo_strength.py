"""CARIBO move suggestion against a uniformly random player (2 players, open hands).

Plays ``--games`` games (default 200) from seeded deals.  Fairness: game *i* uses deal
seed ``base + i // 2``; in the pair of games on one deal the suggestion plays once as
player 0 and once as player 1, so it holds ``S`` (and opens) in exactly half the games.
Draws count as half a win in the "score" and are listed separately.

    .venv/bin/python benchmarks/caribo_strength.py --games 200 --seed 1
"""

from __future__ import annotations

import argparse
import random
import time

from engines.caribo.game import CariboGame
from engines.caribo.strategy import suggest_move


def play(seed: int, smart: int, rng: random.Random) -> tuple[list[int], int]:
    """One game; returns the winners and which player was the suggestion."""
    game = CariboGame.deal(2, seed)
    while not game.is_over():
        if game.current_player() == smart:
            move = suggest_move(game, rng)
        else:
            move = rng.choice(list(game.legal_moves()))
        game.push(move)
    return game.winners(), smart


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    wins = draws = losses = 0
    opened_wins = [0, 0]
    start = time.perf_counter()
    for i in range(args.games):
        deal_seed = args.seed * 100_000 + i // 2
        smart = i % 2
        winners, _ = play(deal_seed, smart, rng)
        if winners == [smart]:
            wins += 1
            opened_wins[smart] += 1
        elif not winners:
            draws += 1
        else:
            losses += 1
    elapsed = time.perf_counter() - start
    n = args.games
    print(f"games {n}  wins {wins}  draws {draws}  losses {losses}")
    print(f"win rate {wins / n:.3f}  score (draw = 1/2) {(wins + draws / 2) / n:.3f}")
    print(f"wins as player 0 {opened_wins[0]}, as player 1 {opened_wins[1]}")
    print(f"time {elapsed:.1f} s ({elapsed / n * 1000:.0f} ms per game)")


if __name__ == "__main__":
    main()
