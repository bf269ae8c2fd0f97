"""Random-simulation invariants of the Wauri engine (hypothesis and seeded loops)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_wauri_reference import positions

from engines.game import random_playout
from engines.wauri import Position, Rule, WauriState

rules = st.sampled_from(list(Rule))


@settings(max_examples=200, deadline=None)
@given(positions, st.lists(st.integers(0, 5), max_size=60), rules)
def test_seeds_conserved_stores_grow_push_pop_round_trip(pos, choices, rule):
    state = WauriState(Position.from_json(pos), rule)
    total = state.position().total()
    snapshots = [state.position()]
    for choice in choices:
        legal = list(state.legal_moves())
        # the GameState contract: moves exist exactly while the game is not over
        assert bool(legal) == (not state.is_over()) == (state.winners() == [])
        if not legal:
            assert len(state.winners()) == 1
            break
        before = state.position()
        state.push(legal[choice % len(legal)])
        after = state.position()
        assert after.total() == total
        assert after.south_store >= before.south_store
        assert after.north_store >= before.north_store
        # a move never empties the opponent's row
        mover_row = before.south if before.to_move == "south" else before.north
        other_before = before.north if before.to_move == "south" else before.south
        other_after = after.north if before.to_move == "south" else after.south
        assert all(b <= a for b, a in zip(other_before, other_after, strict=True))
        assert sum(mover_row) >= 1
        snapshots.append(after)
    for expected in reversed(snapshots[:-1]):
        state.pop()
        assert state.position() == expected
    assert state.history == []


@settings(max_examples=100, deadline=None)
@given(positions, rules, st.integers(0, 2**32 - 1))
def test_games_from_any_position_end(pos, rule, seed):
    state = WauriState(Position.from_json(pos), rule)
    random_playout(state, random.Random(seed), max_plies=20_000)
    assert state.is_over() and len(state.winners()) == 1


@pytest.mark.parametrize("rule", list(Rule))
def test_many_random_games_from_the_start(rule):
    rng = random.Random(4242)
    lengths = []
    winners = {"south": 0, "north": 0}
    for _ in range(400):
        state = WauriState(rule=rule)
        plies = random_playout(state, rng, max_plies=5_000)
        lengths.append(plies)
        winners[state.winner()] += 1
        # the winner has no seeds in their row; under the main rule it is the player to move
        w = state.winner()
        row = state.position().south if w == "south" else state.position().north
        assert sum(row) == 0
        if rule is Rule.MAIN:
            assert w == state.current_player()
        # the whole game undoes back to the start
        for _ in range(plies):
            state.pop()
        assert state.position() == Position.start()
    assert min(winners.values()) > 100  # both sides win some random games
    assert 20 < sum(lengths) / len(lengths) < 500


def test_copy_keeps_history_and_is_independent():
    rng = random.Random(5)
    state = WauriState()
    for _ in range(10):
        state.push(rng.choice(list(state.legal_moves())))
    clone = state.copy()
    assert clone.history == state.history and clone.position() == state.position()
    random_playout(clone, rng)
    assert len(clone.history) > len(state.history)
    while clone.history != state.history:
        clone.pop()
    assert clone.position() == state.position()
