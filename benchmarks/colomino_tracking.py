"""Colomino turn tracking: random games, each position photographed, read with the previous one.

For every game (seeded, 9×9 and 12×12 alternating) ``--opening`` whole turns are played
unseen with the engine, then ``--turns`` more; after each of those the position is
rendered with the table simulator (1920×1080) and the recogniser is given the previous
*confirmed* position (the truth, as the companion's session keeps it) and the photo. A
turn counts as tracked when the answer is explained and its board equals the true one;
"claimed wrong" counts answers explained with another board (must stay 0). For
comparison the photo is also read without the previous position and that board diffed
with it (as before session 18, when "explained" meant a legal difference): right and
legal, legal but wrong. Last, per threshold on the product of
the placed tiles' confidences, the legal turns above it and how many were read right.

Photos are cached in ``--cache`` (rendering dominates the run time)::

    python benchmarks/colomino_tracking.py --games 10 --turns 4 --difficulty normal \\
        --seed 181818 --cache /tmp/colomino_track_cache
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def play_turn(game, rng: random.Random) -> None:
    """One whole turn (up to three tiles) of the player to move, chosen at random."""
    who = game.current_player()
    while not game.is_over() and game.current_player() == who:
        moves = list(game.legal_moves())
        if not moves:
            break
        game.push(rng.choice(moves))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--turns", type=int, default=4)
    ap.add_argument("--opening", type=int, default=6, help="turns played before the first photo")
    ap.add_argument("--difficulty", default="normal")
    ap.add_argument("--seed", type=int, default=181818)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/colomino_track_cache"))
    args = ap.parse_args(argv)

    from engines.colomino import ColominoGame, parse_state, score_turn, state_to_json
    from vision.colomino_recognition import answer_state, recognize
    from vision.image_io import read_photo
    from vision.recognize import NothingFound
    from vision.simulator.dataset import render_state, write_photo

    args.cache.mkdir(parents=True, exist_ok=True)
    total = tracked = wrong = raw_tracked = raw_wrong = missing = 0
    turns = []  # (placed cells' confidence product, read right, legal, least confidence)
    for g in range(args.games):
        size = 9 if g % 2 == 0 else 12
        rng = random.Random(f"colomino-track-{args.seed}-{g}")
        game = ColominoGame(players=2, size=size, seed=args.seed * 100 + g)
        for _ in range(args.opening):
            play_turn(game, rng)
        for t in range(args.turns):
            if game.is_over():
                break
            prev = game.board_state()
            play_turn(game, rng)
            now = game.board_state()
            truth = state_to_json(now)
            seed = args.seed * 1000 + g * 10 + t
            path = args.cache / f"track_{args.difficulty}_{seed}.jpg"
            meta = path.with_suffix(".json")
            if not (path.is_file() and meta.is_file()
                    and json.loads(meta.read_text()).get("state") == truth):
                write_photo(render_state("colomino", truth, seed, args.difficulty, 1920, 1080,
                                         source="tracking"), path)
            total += 1
            image = read_photo(str(path))
            try:
                ans = recognize(image, previous=state_to_json(prev))
                alone = recognize(image)
            except NothingFound:
                missing += 1
                print(f"game {g} turn {t}: no board found")
                continue
            right = ans["rows"] == truth["rows"]
            ok = ans.get("explained") is True and right
            tracked += ok
            wrong += ans.get("explained") is True and not right
            conf = {(c["row"], c["col"]): c["confidence"] for c in ans["cells"]}
            placed = [conf[(p["row"], p["col"])] for p in ans.get("placed", [])]
            legal = score_turn(prev, answer_state(ans)).legal
            turns.append((float(np.prod(placed)) if placed else 1.0, right, legal,
                          min(placed, default=1.0)))
            raw_ok = raw_legal = False
            try:
                raw_state = parse_state({"game": "colomino", "size": alone["size"],
                                         "rows": alone["rows"]})
                raw_legal = score_turn(prev, raw_state).legal
                raw_ok = alone["rows"] == truth["rows"] and raw_legal
            except ValueError:
                pass
            raw_tracked += raw_ok
            raw_wrong += raw_legal and not raw_ok
            print(f"game {g} ({size}x{size}) turn {t}: {'OK' if ok else 'MISS'} "
                  f"explained={ans.get('explained')} placed conf {placed} "
                  f"alone={'OK' if raw_ok else 'off'}", flush=True)
            if not ok:
                diff = [f"({r},{c}) {truth['rows'][r][c]}->{ans['rows'][r][c]} "
                        f"{conf[(r, c)]:.2f} was {prev.cells[r][c]}"
                        for r in range(size) for c in range(size)
                        if truth["rows"][r][c] != ans["rows"][r][c]]
                print("    wrong cells:", "; ".join(diff) or "none", "|",
                      "; ".join(w for w in ans["warnings"] if w.startswith("previous"))[:300])
    print(f"turns tracked: {tracked}/{total}; claimed wrong: {wrong}; read without the "
          f"previous position: {raw_tracked}/{total} right and legal ({raw_wrong} legal but "
          f"wrong); no board found: "
          f"{missing} ({args.difficulty}, seed {args.seed})")
    for th in (0.0, 0.3, 0.5, 0.7, 0.8, 0.9):
        sel = [r for p, r, legal, _m in turns if legal and p >= th]
        least = [r for _p, r, legal, m in turns if legal and m >= th]
        print(f"  legal turns with placed confidence product >= {th:.1f}: {len(sel)}, read "
              f"right {sum(sel)}; with every placed tile >= {th:.1f}: {len(least)}, read "
              f"right {sum(least)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
