"""Time to render one 1920x1080 simulated photo per game on one core.

    .venv/bin/python benchmarks/simulator_bench.py [--count 3] [--difficulty normal]

OpenCV is limited to one thread. Reports wall-clock and process CPU time per photo
(median over ``--count`` seeds, after one warm-up render); the target is < 2 s.
"""

from __future__ import annotations

import argparse
import statistics
import time

import cv2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=3)
    parser.add_argument("--difficulty", default="normal", choices=("easy", "normal", "hard"))
    parser.add_argument("--width", type=int, default=1920)
    parser.add_argument("--height", type=int, default=1080)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    from vision.simulator.dataset import GAMES, random_photo
    from vision.simulator.states import GENERATORS

    random_photo("caribo", 0, "easy", 320, 240)  # warm-up (imports, LUTs)
    print(f"{args.width}x{args.height}, difficulty {args.difficulty}, {args.count} photos/game")
    print(f"{'game':10} {'wall s (median)':>16} {'cpu s (median)':>15} {'state s':>8} "
          f"{'max wall':>9}")
    for game in GAMES:
        walls, cpus, states = [], [], []
        for i in range(args.count):
            seed = 1000 + i
            t0, c0 = time.perf_counter(), time.process_time()
            GENERATORS[game](seed, args.difficulty)
            states.append(time.perf_counter() - t0)
            t0, c0 = time.perf_counter(), time.process_time()
            random_photo(game, seed, args.difficulty, args.width, args.height)
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
        print(f"{game:10} {statistics.median(walls):16.2f} {statistics.median(cpus):15.2f} "
              f"{statistics.median(states):8.2f} {max(walls):9.2f}")


if __name__ == "__main__":
    main()
