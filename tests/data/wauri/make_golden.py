"""Regenerate the Wauri golden games with the naive reference in tests/test_wauri_reference.py.

Run from the repository root: ``.venv/bin/python tests/data/wauri/make_golden.py``.
The engine itself is not used here, so the golden files are an independent check.
Each file: ``{"rule", "start", "moves", "final" (with "winner"), "winner", "other_rule":
{"rule", "moves_legal", "winner"}}`` -- the same moves replayed under the other end rule
stay legal for ``moves_legal`` moves, after which that rule has a winner (or none).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from test_wauri_reference import (  # noqa: E402
    ref_from_position,
    ref_legal,
    ref_play,
    ref_to_position,
    ref_winner,
)


def start(south, north, ss=0, ns=0, to_move="south"):
    return {
        "game": "wauri",
        "south": south,
        "north": north,
        "stores": {"south": ss, "north": ns},
        "to_move": to_move,
    }


def replay(position, moves, rule):
    """(number of moves legal under ``rule``, position after them, winner)."""
    ref = ref_from_position(position)
    for k, pit in enumerate(moves):
        if pit not in ref_legal(ref, rule):
            return k, ref, ref_winner(ref, rule)
        ref = ref_play(ref, pit)
    return len(moves), ref, ref_winner(ref, rule)


def game(name, position, rule, seed):
    rng = random.Random(seed)
    ref = ref_from_position(position)
    moves = []
    while ref_legal(ref, rule):
        pit = rng.choice(ref_legal(ref, rule))
        moves.append(pit)
        ref = ref_play(ref, pit)
    final = ref_to_position(ref)
    final["winner"] = ref_winner(ref, rule)
    other = "variant" if rule == "main" else "main"
    legal, _, other_winner = replay(position, moves, other)
    data = {
        "name": name,
        "rule": rule,
        "start": position,
        "moves": moves,
        "final": final,
        "winner": final["winner"],
        "other_rule": {"rule": other, "moves_legal": legal, "winner": other_winner},
    }
    lines = [f" {json.dumps(key)}: {json.dumps(value)}" for key, value in data.items()]
    (HERE / f"{name}.json").write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    print(name, len(moves), final["winner"], data["other_rule"])


def main():
    four = start([4] * 6, [4] * 6)
    for i in range(3):
        game(f"game_main_{i + 1}", four, "main", 100 + i)
        game(f"game_variant_{i + 1}", four, "variant", 200 + i)
    big = start([0, 13, 2, 0, 26, 1], [3, 0, 14, 0, 0, 5], 4, 0, "north")
    game("game_main_big_pits", big, "main", 300)
    game("game_variant_big_pits", big, "variant", 301)
    small = start([1, 0, 0, 0, 2, 0], [0, 1, 0, 0, 0, 1], 20, 23)
    game("game_main_endgame", small, "main", 400)
    game("game_variant_endgame", small, "variant", 401)


if __name__ == "__main__":
    main()
