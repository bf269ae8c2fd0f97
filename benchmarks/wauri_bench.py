"""Wauri engine benchmark: move speed, search depth and playing strength.

Measures
1. moves/s of the engine: ``WauriState.push`` + ``pop`` pairs over the positions of
   random games (the public API), and the raw 14-slot ``sow`` core used by the search;
2. the depth the search completes in ``--depth-time`` seconds (default 1 s) from the
   start position, for both end rules, with nodes and nodes/s;
3. win rate of ``search`` (``--time`` seconds per move) against a uniformly random
   player and a greedy one-ply player (plays an immediate win if there is one, else the
   move whose resulting position scores best under the same evaluation, ties broken at
   random), ``--games`` games per rule and opponent, sides alternating (even games: the
   engine is south and moves first). Reports a Wilson 95% interval.

Examples::

    .venv/bin/python benchmarks/wauri_bench.py --games 100 --time 0.05
    .venv/bin/python benchmarks/wauri_bench.py --games 10 --time 1 --skip-speed

Time is measured with ``--clock cpu`` (default: ``time.process_time``, CPU seconds of
this process) so that figures stay meaningful on a loaded shared machine; ``--clock
wall`` uses the wall clock as ``boardcam wauri best`` does. Figures depend on the machine;
run with ``nice`` on a shared machine.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.wauri import (  # noqa: E402
    PITS,
    Position,
    Rule,
    Searcher,
    WauriState,
    evaluate,
    sow,
)

PLAYERS_INDEX = {"south": 0, "north": 1}


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def bench_speed(clock, seconds: float = 2.0) -> None:
    """push+pop pairs per second through the API, and raw sow calls per second."""
    rng = random.Random(1)
    pairs = 0
    t0 = clock()
    while clock() - t0 < seconds:
        state = WauriState()
        while not state.is_over():
            moves = list(state.legal_moves())
            for m in moves:
                state.push(m)
                state.pop()
            pairs += len(moves)
            state.push(rng.choice(moves))
    api = pairs / (clock() - t0)

    boards = []
    state = WauriState()
    while not state.is_over():
        boards.append((state.board(), PLAYERS_INDEX[state.current_player()]))
        state.push(rng.choice(list(state.legal_moves())))
    calls = 0
    t0 = clock()
    while clock() - t0 < seconds:
        for board, side in boards:
            base = 7 * side
            for i in range(PITS):
                if board[base + i]:
                    child = list(board)
                    sow(child, side, i)
                    calls += 1
    raw = calls / (clock() - t0)
    print(f"speed: WauriState push+pop {api:,.0f} pairs/s; raw sow on a list copy {raw:,.0f}/s",
          flush=True)


def bench_depth(clock, seconds: float) -> None:
    """Depth completed from the start position within ``seconds``."""
    for rule in Rule:
        r = Searcher(rule, clock=clock).search(Position.start(), seconds=seconds)
        print(
            f"depth in {seconds:g} s from the start ({rule.value}): depth {r.depth}, "
            f"{r.nodes:,} nodes, {r.nodes / r.seconds:,.0f} nodes/s, move {r.move.pit}, "
            f"score {r.score / 10:+.1f}"
        )


def random_player(state: WauriState, rng: random.Random):
    """A uniformly random legal move."""
    return rng.choice(list(state.legal_moves()))


def greedy_player(state: WauriState, rng: random.Random):
    """One ply: an immediate win, else the best evaluation after the move (random ties)."""
    me = state.current_player()
    side = PLAYERS_INDEX[me]
    best, choices = None, []
    for move in list(state.legal_moves()):
        state.push(move)
        if state.is_over():
            score = 10**9 if state.winner() == me else -(10**9)
        else:
            board = state.board()
            mover = PLAYERS_INDEX[state.current_player()]
            if mover == side:
                score = evaluate(board, side, state.rule)
            else:
                score = -evaluate(board, mover, state.rule)
        state.pop()
        if best is None or score > best:
            best, choices = score, [move]
        elif score == best:
            choices.append(move)
    return rng.choice(choices)


def play_match(rule: Rule, opponent, games: int, seconds: float, seed: int, clock) -> dict:
    """``games`` games of the search against ``opponent``; sides alternate."""
    rng = random.Random(seed)
    wins = plies = depth_sum = depth_n = proven = 0
    t0 = time.perf_counter()
    for g in range(games):
        hero = ("south", "north")[g % 2]
        state = WauriState(rule=rule)
        searcher = Searcher(rule, clock=clock)
        while not state.is_over():
            if state.current_player() == hero:
                r = searcher.search(state.position(), seconds=seconds)
                depth_sum += r.depth
                depth_n += 1
                proven += r.proven
                move = r.move
            else:
                move = opponent(state, rng)
            state.push(move)
            plies += 1
        wins += state.winner() == hero
    lo, hi = wilson(wins, games)
    return {
        "wins": wins,
        "games": games,
        "rate": wins / games,
        "ci": (lo, hi),
        "plies": plies / games,
        "depth": depth_sum / max(depth_n, 1),
        "proven_share": proven / max(depth_n, 1),
        "seconds": time.perf_counter() - t0,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per rule and opponent")
    parser.add_argument("--time", type=float, default=0.05, help="seconds per engine move")
    parser.add_argument("--depth-time", type=float, default=1.0, help="budget of the depth test")
    parser.add_argument("--rules", default="main,variant")
    parser.add_argument("--opponents", default="random,greedy")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    parser.add_argument("--skip-speed", action="store_true", help="skip speed and depth")
    args = parser.parse_args(argv)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    print(f"clock: {args.clock} seconds", flush=True)

    if not args.skip_speed:
        bench_speed(clock)
        bench_depth(clock, args.depth_time)
    opponents = {"random": random_player, "greedy": greedy_player}
    for rule_name in args.rules.split(","):
        rule = Rule(rule_name)
        for name in args.opponents.split(","):
            m = play_match(rule, opponents[name], args.games, args.time, args.seed, clock)
            lo, hi = m["ci"]
            print(
                f"{rule.value:7s} vs {name:6s}: {m['wins']}/{m['games']} won "
                f"({m['rate']:.0%}, 95% CI {lo:.0%}-{hi:.0%}) "
                f"at {args.time:g} {args.clock} s/move; "
                f"avg game {m['plies']:.0f} plies, avg depth {m['depth']:.1f}, "
                f"proven at {m['proven_share']:.0%} of engine moves, {m['seconds']:.0f} s wall",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
