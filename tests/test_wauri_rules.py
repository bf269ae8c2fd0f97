"""Hand-built Wauri positions, one per rule of the seed text and the SPEC decisions."""

from __future__ import annotations

import re

import pytest

from engines.errors import FormatError, IllegalMoveError
from engines.game import GameState
from engines.wauri import MAX_SEEDS, Move, Position, Rule, WauriState, explain, turn_outcomes


def pos(south, north, ss=0, ns=0, to_move="south") -> Position:
    return Position(tuple(south), tuple(north), ss, ns, to_move)


def play(position: Position, *pits, rule=Rule.MAIN) -> WauriState:
    state = WauriState(position, rule)
    for pit in pits:
        state.push(pit)
    return state


# --- format ---------------------------------------------------------------------------------


def test_start_position_and_json_round_trip():
    start = Position.start()
    obj = start.to_json()
    assert obj == {
        "game": "wauri",
        "south": [4] * 6,
        "north": [4] * 6,
        "stores": {"south": 0, "north": 0},
        "to_move": "south",
    }
    assert Position.from_json(obj) == start
    assert start.total() == 48
    assert WauriState().position() == start
    assert isinstance(WauriState(), GameState)


def test_board_array_layout():
    p = pos([1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12], 13, 14, "north")
    assert p.board() == (1, 2, 3, 4, 5, 6, 13, 7, 8, 9, 10, 11, 12, 14)
    assert Position.from_board(p.board(), 1) == p


def _obj(**changes):
    obj = Position.start().to_json()
    obj.update(changes)
    return obj


@pytest.mark.parametrize(
    ("obj", "field"),
    [
        (_obj(north=[4, 4, 4, -1, 4, 4]), "north[3] (pit 4)"),
        (_obj(south=[4, 4, 4, 4, 4]), "south"),
        (_obj(south=[4, 4, 4, 4, 4, 4, 4]), "south"),
        (_obj(south=[4, 4, 4.0, 4, 4, 4]), "south[2] (pit 3)"),
        (_obj(south=[4, 4, True, 4, 4, 4]), "south[2] (pit 3)"),
        (_obj(south=[4, 4, "4", 4, 4, 4]), "south[2] (pit 3)"),
        (_obj(south="444444"), "south"),
        (_obj(game="kalah"), "game"),
        (_obj(to_move="east"), "to_move"),
        (_obj(to_move=0), "to_move"),
        (_obj(stores={"south": 0}), "stores.north"),
        (_obj(stores={"south": 0, "north": -2}), "stores.north"),
        (_obj(stores={"south": 0, "north": 0, "east": 0}), "stores"),
        (_obj(stores=[0, 0]), "stores"),
        (_obj(colour="red"), "unknown key 'colour'"),
        (_obj(south=[MAX_SEEDS + 1, 0, 0, 0, 0, 0]), "south[0] (pit 1)"),
        (_obj(south=[300, 300, 300, 300, 0, 0]), "seeds in total"),
        ([1, 2, 3], "position"),
    ],
)
def test_malformed_positions_name_the_field(obj, field):
    with pytest.raises(FormatError, match=re.escape(field)):
        Position.from_json(obj)


def test_missing_keys_and_metadata_keys():
    obj = _obj()
    del obj["to_move"]
    with pytest.raises(FormatError, match="to_move: missing"):
        Position.from_json(obj)
    # recogniser / play output metadata is accepted and ignored
    assert Position.from_json(_obj(winner=None, confidence=0.9, warnings=[])) == Position.start()


def test_positions_need_not_have_48_seeds():
    p = Position.from_json(_obj(south=[0, 0, 0, 0, 0, 1], north=[30, 0, 0, 0, 0, 0]))
    assert p.total() == 31


def test_move_parse_and_print():
    assert Move.parse(" 3 ") == Move(3)
    assert str(Move(6)) == "6"
    for bad in ["0", "7", "x", "", "1.0", "-1", "12"]:
        with pytest.raises(FormatError):
            Move.parse(bad)
    for bad in [0, 7, True, 2.0]:
        with pytest.raises(FormatError):
            Move(bad)
    with pytest.raises(FormatError):
        WauriState().push(7)


# --- sowing ---------------------------------------------------------------------------------


def test_first_move_extra_move():
    state = play(Position.start(), 3)  # 4 seeds: S4, S5, S6, south store
    assert state.position() == pos([4, 4, 0, 5, 5, 5], [4] * 6, 1, 0, "south")
    assert state.current_player() == "south"


def test_turn_passes_when_last_seed_in_a_pit():
    state = play(Position.start(), 1)  # S2..S5
    assert state.position() == pos([0, 5, 5, 5, 5, 4], [4] * 6, 0, 0, "north")


def test_sowing_skips_the_opponents_store_south():
    # 10 seeds from south pit 6: south store, N1..N6, (not NS), S1, S2, S3
    state = play(pos([0, 0, 0, 0, 0, 10], [0] * 6, 5, 7), 6)
    assert state.position() == pos([1, 1, 1, 0, 0, 0], [1] * 6, 6, 7, "north")


def test_sowing_skips_the_opponents_store_north():
    # 10 seeds from north pit 6: north store, S1..S6, (not SS), N1, N2, N3
    state = play(pos([0] * 6, [0, 0, 0, 0, 0, 10], 5, 7, "north"), 6)
    assert state.position() == pos([1] * 6, [1, 1, 1, 0, 0, 0], 5, 8, "south")


def test_north_extra_move():
    state = play(pos([4] * 6, [4] * 6, to_move="north"), 3)
    assert state.position() == pos([4] * 6, [4, 4, 0, 5, 5, 5], 0, 1, "north")


def test_twelve_seeds_do_not_reach_the_starting_pit():
    # from S2: S3..S6 (4), SS, N1..N6 (6), S1 = 12 -> S2 stays empty
    state = play(pos([0, 12, 0, 0, 0, 0], [0] * 6, 0, 0), 2)
    assert state.position() == pos([1, 0, 1, 1, 1, 1], [1] * 6, 1, 0, "north")


def test_thirteen_seeds_resow_the_starting_pit():
    state = play(pos([0, 13, 0, 0, 0, 0], [0] * 6, 0, 0), 2)
    assert state.position() == pos([1, 1, 1, 1, 1, 1], [1] * 6, 1, 0, "north")


def test_twenty_six_seeds_resow_twice():
    state = play(pos([0, 26, 0, 0, 0, 0], [0] * 6, 0, 0), 2)
    assert state.position() == pos([2] * 6, [2] * 6, 2, 0, "north")


def test_fourteen_seeds_from_pit_six_end_in_the_store():
    # one full lap (S6 gets a seed back), the 14th seed lands in the store: extra move
    state = play(pos([0, 0, 0, 0, 0, 14], [0] * 6, 0, 3), 6)
    assert state.position() == pos([1] * 6, [1] * 6, 2, 3, "south")


def test_lap_for_north_never_feeds_souths_store():
    state = play(pos([0] * 6, [0, 0, 0, 27, 0, 0], 4, 4, "north"), 4)
    # 27 = 2 laps + 1: every cycle hole +2, then N5 +1
    assert state.position() == pos([2] * 6, [2, 2, 2, 2, 3, 2], 4, 6, "south")


def test_no_captures():
    # the last seed lands in an empty own pit opposite a full pit: nothing is taken
    state = play(pos([1, 0, 0, 0, 0, 0], [9, 9, 9, 9, 9, 9], 0, 0), 1)
    assert state.position() == pos([0, 1, 0, 0, 0, 0], [9] * 6, 0, 0, "north")


def test_empty_pit_is_illegal_and_there_is_no_pass():
    state = WauriState(pos([0, 3, 0, 0, 0, 0], [1] * 6))
    assert [m.pit for m in state.legal_moves()] == [2]
    assert Move(1) not in state.legal_moves() and 2 in state.legal_moves()
    with pytest.raises(IllegalMoveError, match="pit 1 for south: pit is empty"):
        state.push(1)
    assert state.position() == pos([0, 3, 0, 0, 0, 0], [1] * 6)  # unchanged


def test_gives_extra_move():
    state = WauriState()
    assert [state.gives_extra_move(m) for m in state.legal_moves()] == [
        False, False, True, False, False, False,
    ]


# --- end of the game ------------------------------------------------------------------------


def test_main_rule_mover_without_seeds_wins():
    # south to move with an empty row: south cannot move and wins
    state = WauriState(pos([0] * 6, [1, 0, 0, 0, 0, 0], 20, 27))
    assert state.is_over() and state.winner() == "south" and state.winners() == ["south"]
    assert list(state.legal_moves()) == [] and not state.legal_moves()


def test_main_rule_game_goes_on_when_the_opponent_can_feed():
    # south empties its row but the turn passes; north feeds south: not over
    state = play(pos([0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 3]), 6)
    assert state.position() == pos([0] * 6, [1, 0, 0, 0, 0, 3], 1, 0, "north")
    assert not state.is_over() and state.winner() is None
    state.push(6)  # NS, S1, S2 -> south has seeds again
    assert state.position() == pos([1, 1, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0], 1, 1, "south")
    assert not state.is_over()


def test_main_rule_empty_row_survives_the_opponents_turn():
    state = play(pos([0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 0], 10, 10), 6)
    assert state.winner() is None  # north must move N1 (one seed) -> N2, south's turn
    state.push(1)
    assert state.current_player() == "south" and state.winner() == "south"


def test_emptying_the_row_with_an_extra_move_wins_at_once():
    for rule in Rule:
        state = play(pos([0, 0, 0, 0, 0, 1], [5, 5, 5, 5, 5, 5]), 6, rule=rule)
        assert state.current_player() == "south"
        assert state.winner() == "south"


def test_variant_empty_row_wins_immediately():
    state = play(pos([0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 3]), 6, rule=Rule.VARIANT)
    assert state.current_player() == "north"
    assert state.is_over() and state.winner() == "south"
    with pytest.raises(IllegalMoveError, match="the game is over"):
        state.push(6)


def test_variant_vs_main_on_a_static_position():
    p = pos([3, 0, 0, 0, 0, 0], [0] * 6, to_move="south")  # north (not to move) is empty
    assert WauriState(p, Rule.VARIANT).winner() == "north"
    assert WauriState(p, Rule.MAIN).winner() is None


def test_both_rows_empty_the_player_to_move_wins():
    for side in ("south", "north"):
        for rule in Rule:
            assert WauriState(pos([0] * 6, [0] * 6, 30, 18, side), rule).winner() == side


def test_both_rows_empty_is_reached_only_through_an_extra_move():
    # north's row empty (south to move, main rule), south's last seed into the store
    state = play(pos([0, 0, 0, 0, 0, 1], [0] * 6, 10, 37), 6)
    assert state.position() == pos([0] * 6, [0] * 6, 11, 37, "south")
    assert state.winner() == "south"


# --- undo -----------------------------------------------------------------------------------


def test_undo_restores_exactly():
    state = WauriState(pos([0, 13, 2, 0, 1, 1], [0, 0, 26, 0, 1, 0], 3, 1))
    before = state.position()
    seen = [before]
    for pit in [2, 6, 3, 1]:
        legal = [m.pit for m in state.legal_moves()]
        state.push(pit if pit in legal else legal[0])
        seen.append(state.position())
    assert len(state.history) == 4
    for expected in reversed(seen[:-1]):
        state.pop()
        assert state.position() == expected
    assert state.position() == before and state.history == []
    with pytest.raises(IndexError):
        state.pop()


def test_copy_is_independent():
    state = play(Position.start(), 3)
    other = state.copy()
    other.push(1)
    assert state.position() != other.position()
    assert state.history == [Move(3)] and other.history == [Move(3), Move(1)]
    assert other.pop() == Move(1) and other.position() == state.position()


# --- explaining a photographed change -------------------------------------------------------


def test_explain_a_turn_with_extra_moves():
    before = Position.start()
    after = play(before, 3, 6).position()  # extra move, then a passing move
    assert explain(before, after) == [3, 6]
    assert explain(before, before) == []
    assert explain(before, play(before, 1).position(), check_to_move=True) == [1]
    assert explain(before, pos([4] * 6, [4] * 6, 0, 1)) is None


def test_turn_outcomes_lists_every_reachable_position_once():
    outcomes = turn_outcomes(Position.start())
    lines = [pits for pits, _ in outcomes]
    # 6 first moves; only pit 3 earns an extra move (5 follow-ups), and so on
    assert lines[:6] == [[1], [2], [3], [4], [5], [6]]
    assert [3, 1] in lines and [3, 6] in lines and [1, 2] not in lines
    positions = [p for _, p in outcomes]
    assert len(set(positions)) == len(positions)
    for pits, position in outcomes:
        assert play(Position.start(), *pits).position() == position
