"""CARIBO engine speed: the solver on the butterfly and every library figure, and
listing legal placements.

    nice .venv/bin/python benchmarks/caribo_bench.py [--runs 7]

Solver: median wall time and node count over ``--runs`` runs for the butterfly, one
run for each library figure.  Legal placements: median time of ``Board.legal_placements``
for (a) an 18-tile hand against the lone opening tile, (b) an 18-tile hand on an
18-tile board, (c) a 9-tile hand on a 27-tile board and (d) a 6-tile hand on a 30-tile
board (a 9-tile hand on a 30-tile board cannot exist: 30 + 9 > 36 tiles).  The boards
are the stored butterfly solution with tiles removed (every remaining tile still
matches), so the frontier is large and many placements exist.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engines.caribo import Board, Tile, parse_board
from engines.caribo.puzzles import library
from engines.caribo.solver import solve


def bench_solver(runs: int) -> None:
    lib = library()
    butterfly = lib["butterfly"].figure
    times, nodes = [], None
    for _ in range(runs):
        result = solve(butterfly)
        assert result.board is not None
        times.append(result.seconds)
        nodes = result.nodes
    print(
        f"solver butterfly (36 cells): median {statistics.median(times) * 1000:.1f} ms "
        f"over {runs} runs (min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f}), "
        f"{nodes} nodes"
    )
    print(f"{'figure':20s} {'cells':>5s} {'nodes':>8s} {'ms':>9s}")
    for name, entry in lib.items():
        result = solve(entry.figure)
        assert result.board is not None, name
        print(f"{name:20s} {len(entry.figure):5d} {result.nodes:8d} {result.seconds * 1000:9.1f}")


def _time(fn, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def bench_moves(repeat: int) -> None:
    full = parse_board(library()["butterfly"].solution)
    rng = random.Random(7)
    cells = sorted(full.tiles)

    def reduced(keep: int) -> tuple[Board, list[Tile]]:
        removed = set(rng.sample(cells, 36 - keep))
        kept = {c: t for c, t in full.tiles.items() if c not in removed}
        board = Board(kept, first_row_shifted=full.first_row_shifted)
        return board, [full.tiles[c] for c in removed]

    opening = Board()
    opening.place(0, 0, Tile.parse("S"))
    others = [t for t in full.tiles.values() if t.identity != ("S", "S")]
    cases = [("18-tile hand, board = opening S", opening, rng.sample(others, 18))]
    for keep, hand_size in ((18, 18), (27, 9), (30, 6)):
        board, spare = reduced(keep)
        cases.append((f"{hand_size}-tile hand, {keep}-tile board", board, spare[:hand_size]))
    for label, board, hand in cases:
        count = len(board.legal_placements(hand))
        seconds = _time(lambda b=board, h=hand: b.legal_placements(h), repeat)
        print(f"legal placements, {label}: {seconds * 1000:.3f} ms median ({count} placements)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    bench_solver(args.runs)
    bench_moves(args.repeat)


if __name__ == "__main__":
    main()
