"""Move tracking benchmark: random Wauri games, each position photographed, tracked turn by turn.

For every game (seeded), random legal turns are played from the start position with the
engine; after every complete turn (a move plus its extra moves) the position is rendered
with the table simulator, and the recogniser is asked — given the previous *confirmed*
position (the truth, as the companion app would confirm it) — which moves explain the new
photo. A turn counts as tracked when the answer is explained, its moves equal the moves
played and its position equals the true one.

Photos are cached in ``--cache`` (rendering dominates the run time), so the tracking can
be re-run after recogniser changes::

    nice .venv/bin/python benchmarks/wauri_tracking.py --games 4 --turns 12 \
        --difficulty normal --seed 777777 --cache /tmp/wauri_track_cache

Prints one line per turn and a summary: turns explained with a wrong turn (must be 0),
turns not explained, photos without a board found, turns tracked / total, photos whose
raw counts were already exact, and median recognition time.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engines.wauri import Position, WauriState  # noqa: E402


def play_turn(state: WauriState, rng: random.Random) -> list[int]:
    """Play one random complete turn (extra moves included); returns the pits."""
    side = state.current_player()
    pits = []
    while not state.is_over() and state.current_player() == side:
        move = rng.choice(list(state.legal_moves()))
        state.push(move)
        pits.append(move.pit)
    return pits


def photo_for(pos: Position, seed: int, difficulty: str, cache: Path) -> tuple[Path, dict]:
    """Render (or reuse) the photo of ``pos``; returns its path and truth."""
    from vision.simulator.dataset import render_state, write_photo

    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"track_{difficulty}_{seed}.jpg"
    truth_path = path.with_suffix(".json")
    if path.is_file() and truth_path.is_file():
        truth = json.loads(truth_path.read_text())
        if truth.get("state") == pos.to_json():
            return path, truth
    photo = render_state("wauri", pos.to_json(), seed, difficulty, source="tracking")
    write_photo(photo, path)
    return path, json.loads(truth_path.read_text())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--turns", type=int, default=12, help="turns per game at most")
    ap.add_argument("--difficulty", default="normal")
    ap.add_argument("--seed", type=int, default=777777)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/wauri_track_cache"))
    ap.add_argument("--json", type=Path, help="write per-turn results here")
    args = ap.parse_args(argv)

    from vision.image_io import read_photo
    from vision.wauri_recognition import recognize

    total = tracked = raw_exact = wrong = unexplained = 0
    times = []
    rows = []
    for g in range(args.games):
        rng = random.Random(f"wauri-track-{args.seed}-{g}")
        state = WauriState()
        prev = state.position()
        for t in range(args.turns):
            if state.is_over():
                break
            pits = play_turn(state, rng)
            pos = state.position()
            photo_seed = args.seed * 1000 + g * 100 + t
            path, truth = photo_for(pos, photo_seed, args.difficulty, args.cache)
            image = read_photo(str(path))
            t0 = time.perf_counter()
            try:
                answer = recognize(image, previous=prev.to_json())
                err = None
            except Exception as exc:  # noqa: BLE001 - a benchmark records every failure
                answer, err = {}, f"{type(exc).__name__}: {exc}"
            times.append(time.perf_counter() - t0)
            got = {k: answer.get(k) for k in ("south", "north", "stores", "to_move")}
            ok = (answer.get("explained") is True and answer.get("moves") == pits
                  and got == {k: pos.to_json()[k] for k in got})
            obs = answer.get("observed") or {}
            raw_ok = all(obs.get(k) == pos.to_json()[k] for k in ("south", "north", "stores"))
            total += 1
            tracked += ok
            wrong += answer.get("explained") is True and not ok
            unexplained += answer.get("explained") is False
            raw_exact += raw_ok
            rows.append({"game": g, "turn": t, "moves": pits, "answer_moves": answer.get("moves"),
                         "explained": answer.get("explained"), "tracked": ok,
                         "raw_exact": raw_ok, "south_side": truth.get("south_side"),
                         "photo": str(path), "error": err,
                         "warnings": answer.get("warnings")})
            print(f"game {g} turn {t:2d}: played {pits} read {answer.get('moves')} "
                  f"{'OK' if ok else 'MISS'} raw={'exact' if raw_ok else 'off'} "
                  f"side={truth.get('south_side')}{' ' + err if err else ''}", flush=True)
            prev = pos
    print(f"explained but wrong: {wrong}; not explained: {unexplained}; no board found or "
          f"error: {sum(1 for r in rows if r['error'])}")
    print(f"turns tracked: {tracked}/{total} ({100.0 * tracked / max(total, 1):.1f} %); "
          f"raw readings exact (all 14 cavities): {raw_exact}/{total}; median recognition "
          f"{statistics.median(times) if times else 0:.3f} s ({args.difficulty}, seed "
          f"{args.seed})")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0 if tracked == total else 1


if __name__ == "__main__":
    raise SystemExit(main())
