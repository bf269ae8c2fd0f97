"""Write the Colomino golden games to ``tests/data/colomino/games.json``.

Each game is dealt with ``ColominoGame(players, size, seed, rules)`` and played by
``engines.game.random_playout`` with ``random.Random(seed)``; the file records the move
list, the final chips, the winners and the final board. ``tests/test_colomino_golden.py``
replays the recorded moves and checks the recorded outcome, so a rules change that alters
any of it shows up as a failing test. Regenerate only after a deliberate rules change:

    .venv/bin/python benchmarks/colomino_golden.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from engines.colomino import ColominoGame, Rules
from engines.game import random_playout

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "colomino" / "games.json"

#: (seed, players, size, side_walls, final_round)
GAMES = [
    (1, 2, 9, False, "all"),
    (2, 3, 9, False, "others"),
    (3, 4, 9, True, "all"),
    (4, 2, 12, False, "all"),
    (5, 3, 12, True, "others"),
    (6, 4, 12, False, "all"),
]


def play(seed: int, players: int, size: int, side_walls: bool, final_round: str) -> dict:
    """Play one seeded random game and return its golden record."""
    rules = Rules(side_walls=side_walls, final_round=final_round)
    game = ColominoGame(players=players, size=size, seed=seed, rules=rules)
    random_playout(game, random.Random(seed))
    return {
        "seed": seed,
        "players": players,
        "size": size,
        "side_walls": side_walls,
        "final_round": final_round,
        "moves": [str(m) for m in game.history],
        "chips": [[s.yellow, s.blue] for s in game.scores()],
        "points": [s.points for s in game.scores()],
        "winners": game.winners(),
        "final_rows": [list(r) for r in game.board_state().cells],
    }


def main() -> None:
    records = [play(*spec) for spec in GAMES]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"games": records}, indent=1) + "\n", encoding="utf-8")
    for r in records:
        print(r["seed"], r["players"], r["size"], len(r["moves"]), r["points"], r["winners"])


if __name__ == "__main__":
    main()
