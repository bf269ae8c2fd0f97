"""Colomino engine speed: random playouts, legal-placement listing and turn scoring.

    nice .venv/bin/python benchmarks/colomino_bench.py [--games 20]

Prints games/s and plies/s of seeded random playouts (9×9 and 12×12, 2–4 players), the
mean time of one full legal-move listing, and the mean time of ``score_turn`` on the
turns of those games. Single process; numbers depend on the (shared) machine.
"""

from __future__ import annotations

import argparse
import random
import time

from engines.colomino import ColominoGame, score_turn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    for size in (9, 12):
        plies = 0
        listings = 0
        listing_time = 0.0
        turns = []
        start = time.perf_counter()
        for seed in range(args.games):
            game = ColominoGame(players=2 + seed % 3, size=size, seed=seed)
            rng = random.Random(seed)
            turn_board, turn_player = game.board_state(), game.current_player()
            while not game.is_over():
                t0 = time.perf_counter()
                moves = list(game.legal_moves())
                listing_time += time.perf_counter() - t0
                listings += 1
                game.push(rng.choice(moves))
                plies += 1
                if game.current_player() != turn_player or game.is_over():
                    turns.append((turn_board, game.board_state()))
                    turn_board, turn_player = game.board_state(), game.current_player()
        elapsed = time.perf_counter() - start
        t0 = time.perf_counter()
        for before, after in turns:
            assert score_turn(before, after).legal
        scoring = time.perf_counter() - t0
        print(
            f"{size}x{size}: {args.games} games, {plies} plies in {elapsed:.2f} s "
            f"({args.games / elapsed:.1f} games/s, {plies / elapsed:.0f} plies/s); "
            f"legal listing {1e3 * listing_time / listings:.2f} ms; "
            f"score_turn {1e3 * scoring / len(turns):.2f} ms over {len(turns)} turns"
        )


if __name__ == "__main__":
    main()
