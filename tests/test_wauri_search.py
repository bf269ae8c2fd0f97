"""The Wauri search: proven results against an exhaustive solver, strength, time budget."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_wauri_reference import positions, ref_solve, ref_winning_moves

from engines.wauri import Move, Position, Rule, Searcher, WauriState, evaluate, search


def random_small_position(rng: random.Random, seeds: int) -> Position:
    pits = [0] * 12
    for _ in range(seeds):
        pits[rng.randrange(12)] += 1
    return Position(
        tuple(pits[:6]),
        tuple(pits[6:]),
        rng.randrange(30),
        rng.randrange(30),
        rng.choice(["south", "north"]),
    )


@pytest.mark.parametrize("rule", [Rule.MAIN, Rule.VARIANT])
def test_proven_results_match_exhaustive_solver(rule):
    rng = random.Random(7 if rule is Rule.MAIN else 8)
    checked = wins = losses = 0
    while checked < 70:
        position = random_small_position(rng, rng.randrange(2, 9))
        if WauriState(position, rule).is_over():
            continue
        obj = position.to_json()
        truth = ref_solve(obj, rule.value)
        result = search(position, seconds=None, rule=rule, max_depth=120)
        assert result.proven, obj
        winner = position.to_move if result.result == "win" else (
            "north" if position.to_move == "south" else "south"
        )
        assert winner == truth, obj
        if truth == position.to_move:
            wins += 1
            assert result.move.pit in ref_winning_moves(obj, rule.value), obj
            if wins <= 12:
                # the reported line really wins: follow it, the loser tries everything
                assert _forced_win(position, rule, result.move) == position.to_move
        else:
            losses += 1
        checked += 1
    assert wins > 15 and losses > 15


def _forced_win(position: Position, rule: Rule, first: Move) -> str:
    """Play ``first``, then the searcher's move for the winner and every loser reply."""
    state = WauriState(position, rule)
    state.push(first)
    searcher = Searcher(rule)
    return _walk(state, position.to_move, searcher)


def _walk(state: WauriState, hero: str, searcher: Searcher, depth: int = 0) -> str:
    if state.is_over():
        return state.winner()
    assert depth < 200
    if state.current_player() == hero:
        move = searcher.search(state.position(), seconds=None, max_depth=120).move
        state.push(move)
        w = _walk(state, hero, searcher, depth + 1)
        state.pop()
        return w
    for move in list(state.legal_moves()):
        state.push(move)
        w = _walk(state, hero, searcher, depth + 1)
        state.pop()
        if w != hero:
            return w
    return hero


def test_extra_move_keeps_the_sign():
    # south pit 6 (1 seed) is an extra move that empties the row: a win in one ply
    one = Position((0, 0, 0, 0, 0, 1), (5, 0, 0, 0, 0, 0), 0, 0, "south")
    result = search(one, seconds=None, max_depth=20)
    assert (result.move, result.result, result.plies_to_end) == (Move(6), "win", 1)
    # a chain of three extra moves, all by south: 6 (1 seed), 5 (2 seeds), 6 (1 seed)
    chain = Position((0, 0, 0, 0, 2, 1), (5, 0, 0, 0, 0, 0), 0, 0, "south")
    result = search(chain, seconds=None, max_depth=20)
    assert (result.move, result.result, result.plies_to_end) == (Move(6), "win", 3)
    assert list(result.pv) == [("south", 6), ("south", 5), ("south", 6)]
    # the same for north, seen from north: negamax must not flip the sign on extra moves
    north = Position((5, 0, 0, 0, 0, 0), (0, 0, 0, 0, 2, 1), 0, 0, "north")
    result = search(north, seconds=None, max_depth=20)
    assert result.score > 0 and result.plies_to_end == 3


def test_search_on_finished_position():
    position = Position((0,) * 6, (1, 0, 0, 0, 0, 0), 10, 37, "south")
    result = search(position)
    assert result.move is None and result.proven
    assert result.result == "win" and result.plies_to_end == 0
    variant = Position((3, 0, 0, 0, 0, 0), (0,) * 6, 10, 35, "south")
    result = search(variant, rule=Rule.VARIANT)
    assert result.move is None and result.result == "loss"


def test_time_budget_is_respected():
    t0 = time.perf_counter()
    result = search(Position.start(), seconds=0.3)
    elapsed = time.perf_counter() - t0
    assert elapsed < 0.3 + 0.25
    assert result.depth >= 4 and result.move is not None and not result.proven
    assert result.move in WauriState().legal_moves()


def test_search_is_deterministic_with_a_node_budget():
    a = search(Position.start(), seconds=None, max_nodes=20_000)
    b = search(Position.start(), seconds=None, max_nodes=20_000)
    assert (a.move, a.score, a.depth) == (b.move, b.score, b.depth)


def test_evaluation_prefers_fewer_own_seeds():
    board = Position((1, 0, 0, 0, 0, 0), (5, 5, 0, 0, 0, 0), 0, 0, "south").board()
    assert evaluate(board, 0) > 0 > evaluate(board, 1)


@pytest.mark.parametrize("rule", [Rule.MAIN, Rule.VARIANT])
def test_search_beats_a_random_player(rule):
    rng = random.Random(99)
    wins = 0
    games = 10
    for g in range(games):
        hero = ("south", "north")[g % 2]
        state = WauriState(rule=rule)
        searcher = Searcher(rule)
        while not state.is_over():
            if state.current_player() == hero:
                move = searcher.search(state.position(), seconds=None, max_nodes=2000).move
            else:
                move = rng.choice(list(state.legal_moves()))
            state.push(move)
        wins += state.winner() == hero
    assert wins >= 9


@settings(max_examples=60, deadline=None)
@given(positions, st.sampled_from(list(Rule)))
def test_search_always_returns_a_legal_move(pos, rule):
    position = Position.from_json(pos)
    state = WauriState(position, rule)
    result = search(position, seconds=None, rule=rule, max_nodes=400)
    if state.is_over():
        assert result.move is None
        return
    assert result.move in state.legal_moves() and result.depth >= 1
    assert result.pv and result.pv[0] == (position.to_move, result.move.pit)
    # the principal variation is a legal line
    for player, pit in result.pv:
        assert state.current_player() == player
        state.push(pit)
