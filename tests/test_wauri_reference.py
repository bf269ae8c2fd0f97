"""An independent, deliberately naive Wauri reference and the engine checked against it.

The reference walks named holes seed by seed (no 14-slot arithmetic, no lap shortcut)
and decides the end of the game straight from the rule text. It also provides an
exhaustive solver (plain minimax over the whole game tree, memoised) used to check the
search's proven results. Other Wauri tests import it from here.
"""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.wauri import Position, Rule, WauriState

HOLES = [f"S{i}" for i in range(1, 7)] + ["SS"] + [f"N{i}" for i in range(1, 7)] + ["NS"]


def ref_next_hole(hole: str, mover: str) -> str:
    """The hole after ``hole`` counter-clockwise, skipping the opponent's store."""
    opp_store = "NS" if mover == "south" else "SS"
    i = HOLES.index(hole)
    while True:
        i = (i + 1) % len(HOLES)
        if HOLES[i] != opp_store:
            return HOLES[i]


def ref_from_position(pos: dict) -> dict:
    holes = {f"S{i + 1}": n for i, n in enumerate(pos["south"])}
    holes.update({f"N{i + 1}": n for i, n in enumerate(pos["north"])})
    holes["SS"] = pos["stores"]["south"]
    holes["NS"] = pos["stores"]["north"]
    return {"holes": holes, "to_move": pos["to_move"]}


def ref_to_position(ref: dict) -> dict:
    h = ref["holes"]
    return {
        "game": "wauri",
        "south": [h[f"S{i}"] for i in range(1, 7)],
        "north": [h[f"N{i}"] for i in range(1, 7)],
        "stores": {"south": h["SS"], "north": h["NS"]},
        "to_move": ref["to_move"],
    }


def ref_row_empty(ref: dict, player: str) -> bool:
    letter = "S" if player == "south" else "N"
    return all(ref["holes"][f"{letter}{i}"] == 0 for i in range(1, 7))


def ref_winner(ref: dict, rule: str) -> str | None:
    """Main rule: the player to move who cannot move wins. Variant: an empty row wins
    (the player to move first, which only matters when both rows are empty)."""
    mover = ref["to_move"]
    other = "north" if mover == "south" else "south"
    if ref_row_empty(ref, mover):
        return mover
    if rule == "variant" and ref_row_empty(ref, other):
        return other
    return None


def ref_legal(ref: dict, rule: str) -> list[int]:
    if ref_winner(ref, rule) is not None:
        return []
    letter = "S" if ref["to_move"] == "south" else "N"
    return [i for i in range(1, 7) if ref["holes"][f"{letter}{i}"] > 0]


def ref_play(ref: dict, pit: int) -> dict:
    """Sow seed by seed; returns a new reference position."""
    mover = ref["to_move"]
    letter = "S" if mover == "south" else "N"
    holes = dict(ref["holes"])
    hole = f"{letter}{pit}"
    seeds = holes[hole]
    assert seeds > 0
    holes[hole] = 0
    while seeds:
        hole = ref_next_hole(hole, mover)
        holes[hole] += 1
        seeds -= 1
    own_store = "SS" if mover == "south" else "NS"
    if hole != own_store:
        mover = "north" if mover == "south" else "south"
    return {"holes": holes, "to_move": mover}


def ref_solve(pos: dict, rule: str) -> str:
    """The winner with perfect play (exhaustive minimax; only for small positions)."""

    @cache
    def solve(key):
        ref = {"holes": dict(key[0]), "to_move": key[1]}
        w = ref_winner(ref, rule)
        if w is not None:
            return w
        mover = ref["to_move"]
        results = set()
        for pit in ref_legal(ref, rule):
            child = ref_play(ref, pit)
            r = solve((tuple(sorted(child["holes"].items())), child["to_move"]))
            if r == mover:
                return mover
            results.add(r)
        return results.pop()

    ref = ref_from_position(pos)
    return solve((tuple(sorted(ref["holes"].items())), ref["to_move"]))


def ref_winning_moves(pos: dict, rule: str) -> list[int]:
    """The pits that keep a forced win for the player to move (exhaustive)."""
    ref = ref_from_position(pos)
    mover = ref["to_move"]
    return [
        pit
        for pit in ref_legal(ref, rule)
        if ref_solve(ref_to_position(ref_play(ref, pit)), rule) == mover
    ]


# --- strategies shared with other test modules -------------------------------------------

counts = st.integers(min_value=0, max_value=30)
positions = st.builds(
    lambda s, n, ss, ns, tm: {
        "game": "wauri",
        "south": s,
        "north": n,
        "stores": {"south": ss, "north": ns},
        "to_move": tm,
    },
    st.lists(counts, min_size=6, max_size=6),
    st.lists(counts, min_size=6, max_size=6),
    st.integers(0, 60),
    st.integers(0, 60),
    st.sampled_from(["south", "north"]),
)


# --- the engine against the reference ------------------------------------------------------


@pytest.mark.parametrize("rule", ["main", "variant"])
def test_random_games_match_reference(rule):
    rng = random.Random(20261129)
    plies = 0
    for _ in range(150):
        start = Position.start(rng.choice([1, 2, 3, 4, 4, 4, 6, 9]))
        state = WauriState(start, Rule(rule))
        ref = ref_from_position(start.to_json())
        while True:
            assert state.position().to_json() == ref_to_position(ref)
            assert state.winner() == ref_winner(ref, rule)
            legal = [m.pit for m in state.legal_moves()]
            assert legal == ref_legal(ref, rule)
            if not legal:
                break
            pit = rng.choice(legal)
            state.push(pit)
            ref = ref_play(ref, pit)
            plies += 1
    assert plies > 5000


@settings(max_examples=300, deadline=None)
@given(positions, st.lists(st.integers(1, 6), max_size=40), st.sampled_from(["main", "variant"]))
def test_arbitrary_positions_match_reference(pos, choices, rule):
    """Big pits (laps of 13+ seeds, starting pit re-sown) included."""
    state = WauriState(Position.from_json(pos), Rule(rule))
    ref = ref_from_position(pos)
    for choice in choices:
        legal = ref_legal(ref, rule)
        assert [m.pit for m in state.legal_moves()] == legal
        if not legal:
            break
        pit = legal[choice % len(legal)]
        state.push(pit)
        ref = ref_play(ref, pit)
        assert state.position().to_json() == ref_to_position(ref)
        assert state.winner() == ref_winner(ref, rule)


def test_reference_solver_sanity():
    # south moves its single seed into the store: extra move with an empty row -> south wins
    pos = {
        "game": "wauri",
        "south": [0, 0, 0, 0, 0, 1],
        "north": [3, 0, 0, 0, 0, 0],
        "stores": {"south": 0, "north": 0},
        "to_move": "south",
    }
    assert ref_solve(pos, "main") == "south"
    assert ref_winning_moves(pos, "main") == [6]
