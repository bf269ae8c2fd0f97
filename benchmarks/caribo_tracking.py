"""CARIBO tracking: random games, each figure photographed, read with the previous one.

For every game (seeded deal, two players) ``--opening`` placements are made unseen with
the engine, then ``--turns`` more; after each of those the figure is rendered with the
table simulator (1920×1080) and the recogniser is given the previous *confirmed* figure
(the truth) and the photo. A turn counts as tracked when the answer is explained, its
figure equals the true one (in any of its six turns) and ``added`` names one tile. For
comparison the raw reading (``"observed"`` when previous tiles were carried over, else
the notation) is explained against the previous figure as before session 18 (no
carrying over): "alone".

Photos are cached in ``--cache`` (rendering dominates the run time)::

    python benchmarks/caribo_tracking.py --games 8 --turns 4 --difficulty normal \\
        --seed 181818 --cache /tmp/caribo_track_cache
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--turns", type=int, default=4)
    ap.add_argument("--opening", type=int, default=5, help="placements before the first photo")
    ap.add_argument("--difficulty", default="normal")
    ap.add_argument("--seed", type=int, default=181818)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/caribo_track_cache"))
    args = ap.parse_args(argv)

    from engines.caribo import CariboGame, format_board, parse_board
    from engines.caribo.game import Pass
    from vision import caribo_recognition as cr
    from vision.evaluation import compare_states
    from vision.image_io import read_photo
    from vision.recognize import NothingFound
    from vision.simulator.dataset import render_state, write_photo

    args.cache.mkdir(parents=True, exist_ok=True)
    total = tracked = wrong = alone_tracked = missing = kept_turns = 0
    for g in range(args.games):
        rng = random.Random(f"caribo-track-{args.seed}-{g}")
        game = CariboGame.deal(2, rng)
        placed = 0
        t = 0
        while not game.is_over() and t < args.turns:
            prev = format_board(game.board)
            moves = [m for m in game.legal_moves() if not isinstance(m, Pass)]
            if not moves:
                game.push(next(iter(game.legal_moves())))
                continue
            game.push(rng.choice(moves))
            placed += 1
            if placed <= args.opening:
                continue
            truth = {"game": "caribo", "notation": format_board(game.board)}
            seed = args.seed * 1000 + g * 10 + t
            t += 1
            path = args.cache / f"track_{args.difficulty}_{seed}.jpg"
            meta = path.with_suffix(".json")
            if not (path.is_file() and meta.is_file()
                    and json.loads(meta.read_text()).get("state") == truth):
                write_photo(render_state("caribo", truth, seed, args.difficulty, 1920, 1080,
                                         source="tracking"), path)
            total += 1
            try:
                ans = cr.recognize(read_photo(str(path)), previous=prev)
            except NothingFound:
                missing += 1
                print(f"game {g} turn {t}: no tiles found")
                continue
            right = compare_states("caribo", truth, ans).perfect
            ok = ans.get("explained") is True and right and len(ans.get("added", [])) == 1
            tracked += ok
            wrong += ans.get("explained") is True and not right
            raw = ans.get("observed", ans["notation"])
            kept_turns += "observed" in ans
            alone = cr._explain(parse_board(prev), parse_board(raw))
            alone_ok = (alone["explained"] and compare_states(
                "caribo", truth, {**ans, "notation": raw}).perfect)
            alone_tracked += alone_ok
            conf = {(x["row"], x["col"]): x["confidence"] for x in ans["tiles"]}
            added = [conf.get((a["row"], a["col"]), 0.0) for a in ans.get("added", [])]
            print(f"game {g} turn {t}: {'OK' if ok else 'MISS'} explained="
                  f"{ans.get('explained')} right={right} kept={'observed' in ans} "
                  f"alone={'OK' if alone_ok else 'off'} added conf {added}", flush=True)
    print(f"turns tracked: {tracked}/{total}; claimed wrong: {wrong}; previous tiles kept "
          f"in {kept_turns} turns; alone (no carrying over): {alone_tracked}/{total}; no "
          f"tiles found: {missing} ({args.difficulty}, seed {args.seed})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
