"""Golden Colomino games (``tests/data/colomino/games.json``, see
``benchmarks/colomino_golden.py``): recorded seeded random games replayed move by move."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engines.colomino import ColominoGame, Rules, parse_move, score_turn
from engines.game import random_playout

GOLDEN = Path(__file__).resolve().parent / "data" / "colomino" / "games.json"
GAMES = json.loads(GOLDEN.read_text(encoding="utf-8"))["games"]


def new_game(record):
    rules = Rules(side_walls=record["side_walls"], final_round=record["final_round"])
    return ColominoGame(
        players=record["players"], size=record["size"], seed=record["seed"], rules=rules
    )


@pytest.mark.parametrize("record", GAMES, ids=[f"seed{g['seed']}" for g in GAMES])
def test_replay_recorded_moves(record):
    game = new_game(record)
    for i, text in enumerate(record["moves"]):
        assert not game.is_over(), f"game over before move {i}"
        move = parse_move(text)
        assert move in game.legal_moves(), f"move {i} {text} not legal"
        game.push(move)
    assert game.is_over()
    assert [[s.yellow, s.blue] for s in game.scores()] == record["chips"]
    assert [s.points for s in game.scores()] == record["points"]
    assert game.winners() == record["winners"]
    assert [list(r) for r in game.board_state().cells] == record["final_rows"]


@pytest.mark.parametrize("record", GAMES[:3], ids=[f"seed{g['seed']}" for g in GAMES[:3]])
def test_seeded_playout_reproduces_the_record(record):
    game = new_game(record)
    random_playout(game, random.Random(record["seed"]))
    assert [str(m) for m in game.history] == record["moves"]


def test_golden_games_cover_the_options():
    assert {g["size"] for g in GAMES} == {9, 12}
    assert {g["players"] for g in GAMES} == {2, 3, 4}
    assert {g["final_round"] for g in GAMES} == {"all", "others"}
    assert any(g["side_walls"] for g in GAMES)
    assert any(sum(g["points"]) > 0 for g in GAMES)


@pytest.mark.parametrize("record", GAMES, ids=[f"seed{g['seed']}" for g in GAMES])
def test_every_turn_scores_as_recorded(record):
    """score_turn on each recorded turn: the recorded answer, never below what the game paid."""
    game = new_game(record)
    rules = game.rules
    turns = iter(record["turns"])
    before, player, start = game.board_state(), game.current_player(), game.scores()
    count = 0
    for text in record["moves"]:
        game.push(parse_move(text))
        if game.current_player() != player or game.is_over():
            expected = next(turns)
            end = game.scores()[player]
            awarded = [end.points - start[player].points, end.blue - start[player].blue]
            result = score_turn(before, game.board_state(), rules)
            assert expected["player"] == player and expected["awarded"] == awarded
            assert result.to_json() == expected["score"]
            assert (result.points, result.blue) >= tuple(awarded)
            count += 1
            before, player, start = game.board_state(), game.current_player(), game.scores()
    assert count == len(record["turns"]) > 0
