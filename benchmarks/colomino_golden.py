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

from engines.colomino import ColominoGame, Rules, score_turn
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
    turns = []
    fresh = ColominoGame(players=players, size=size, seed=seed, rules=rules)
    for before, after, player, awarded in turn_boards(fresh, game.history):
        turns.append({"player": player, "awarded": awarded,
                      "score": score_turn(before, after, rules).to_json()})
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
        "turns": turns,
    }


def turn_boards(fresh: ColominoGame, moves):
    """Play ``moves`` on the freshly dealt ``fresh``; yield every turn's
    ``(before, after, player, [points, blue] awarded by the game)``."""
    before, player, start = fresh.board_state(), fresh.current_player(), fresh.scores()
    for move in moves:
        fresh.push(move)
        if fresh.current_player() != player or fresh.is_over():
            end = fresh.scores()[player]
            awarded = [end.points - start[player].points, end.blue - start[player].blue]
            yield before, fresh.board_state(), player, awarded
            before, player, start = fresh.board_state(), fresh.current_player(), fresh.scores()


def main() -> None:
    records = [play(*spec) for spec in GAMES]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    lines = ",\n".join(json.dumps(r, separators=(",", ":")) for r in records)
    OUT.write_text('{"games": [\n' + lines + "\n]}\n", encoding="utf-8")
    for r in records:
        print(r["seed"], r["players"], r["size"], len(r["moves"]), r["points"], r["winners"])


if __name__ == "__main__":
    main()
