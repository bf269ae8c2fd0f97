"""Whole-game Colomino rules: turns, joker return, multipliers, end round, winners."""

from __future__ import annotations

import random

import pytest
from test_colomino_helpers import PLAIN9, field

from engines.colomino import (
    END_TURN,
    ColominoGame,
    Placement,
    Rules,
    Tile,
    full_tile_set,
    parse_move,
)
from engines.colomino.tiles import all_patterns
from engines.errors import IllegalMoveError

F = field()


def game_with(rack0, players=2, rules=None, layout=None, bag_rest=None):
    """A game whose player 0 draws exactly ``rack0`` (the rest of the set stays in the bag)."""
    rest = list(bag_rest) if bag_rest is not None else full_tile_set()
    if bag_rest is None:
        for code in rack0:
            rest.remove(Tile.parse(code).pattern)
    return ColominoGame(players=players, rules=rules, layout=layout,
                        bag=rest + list(reversed(rack0)))


def put(game, cells):
    for r, c in cells:
        game.board.put(r, c, Tile.parse(F(r, c)))


def play_turn(game, rng):
    """Play random legal moves until the turn passes to someone else (or the game ends)."""
    player = game.current_player()
    while not game.is_over() and game.current_player() == player:
        game.push(rng.choice(list(game.legal_moves())))
    return player


def fingerprint(game):
    return (
        game.board.to_state(), tuple(map(tuple, game.racks)), tuple(game.bag),
        tuple(game.yellow), tuple(game.blue), game.player, game.placed_this_turn,
        game.courts_this_turn, game.passes_in_row, game.end_triggered_by,
        game.final_turns_left, game.over, tuple(game.history),
    )


# -- tile set -------------------------------------------------------------------------
def test_tile_set_counts():
    tiles = full_tile_set()
    assert len(all_patterns()) == 70
    assert len(tiles) == 144
    assert tiles.count("*") == 4
    assert all(tiles.count(p) == 2 for p in all_patterns())


def test_racks_of_five_and_the_start_player():
    game = ColominoGame(players=4, seed=3)
    assert [len(r) for r in game.racks] == [5, 5, 5, 5]
    assert len(game.bag) == 124 and game.current_player() == 0
    assert game.tile_count() == 144


@pytest.mark.parametrize("players", [1, 5])
def test_player_count_is_checked(players):
    with pytest.raises(ValueError, match="players"):
        ColominoGame(players=players)


# -- turns ----------------------------------------------------------------------------
def test_three_placements_then_draw_back_to_five_and_next_player():
    rack = [F(8, 1), F(8, 2), F(8, 3), "RRRR", "BBBB"]
    game = game_with(rack)
    bag_before = len(game.bag)
    for col in (1, 2, 3):
        assert game.current_player() == 0
        game.push(Placement(8, col, Tile.parse(F(8, col))))
    assert game.current_player() == 1
    assert len(game.racks[0]) == 5 and len(game.bag) == bag_before - 3
    assert "RRRR" in game.racks[0] and "BBBB" in game.racks[0]


def test_end_turn_only_when_nothing_fits():
    # all rims red: after RRRR in the corner, no green or blue tile fits anywhere
    rack = ["RRRR", "GGGG", "GGGG", "BBBB", "BBBB"]
    game = game_with(rack, layout=PLAIN9, bag_rest=["YYYY"] * 20)
    with pytest.raises(IllegalMoveError, match="still fits"):
        game.push(END_TURN)
    game.push(Placement(8, 0, Tile.parse("RRRR")))
    assert list(game.legal_moves()) == [END_TURN]
    game.push(END_TURN)  # a turn of one tile
    assert game.current_player() == 1 and game.passes_in_row == 0
    assert sorted(game.racks[0]) == ["BBBB", "BBBB", "GGGG", "GGGG", "YYYY"]


def test_illegal_moves_are_refused():
    game = game_with([F(8, 1), F(8, 2), "RRRR", "BBBB", "*"])
    with pytest.raises(IllegalMoveError, match="not on player 0's rack"):
        game.push(Placement(8, 1, Tile.parse("GGGG")))
    with pytest.raises(IllegalMoveError, match="not connected"):
        game.push(Placement(5, 1, Tile.parse("*")))
    assert game.history == []


def test_joker_goes_back_to_the_rack_and_the_court_pays():
    game = game_with([F(8, 4), "RRRR", "RRRR", "BBBB", "BBBB"])
    put(game, [(8, 3), (8, 5)])
    game.board.put(8, 4, Tile.parse("*"))
    game.push(Placement(8, 4, Tile.parse(F(8, 4))))
    assert game.racks[0].count("*") == 1
    assert (game.yellow[0], game.blue[0]) == (1, 0)
    game.pop()
    assert game.board.grid[8][4].is_joker and "*" not in game.racks[0]
    assert game.yellow[0] == 0


@pytest.mark.parametrize(
    ("order", "chips"),
    [((2, 6, 4), (3, 3)), ((4, 2, 6), (5, 1)), ((2, 4, 6), (4, 2))],
)
def test_multipliers_follow_the_order_played(order, chips):
    game = game_with([F(8, 2), F(8, 4), F(8, 6), "RRRR", "BBBB"])
    put(game, [(8, 1), (8, 3), (8, 5), (8, 7), (7, 3), (7, 4)])
    for col in order:
        game.push(Placement(8, col, Tile.parse(F(8, col))))
    assert (game.yellow[0], game.blue[0]) == chips
    assert game.courts_this_turn == 0 and game.current_player() == 1


# -- end of the game ------------------------------------------------------------------
@pytest.mark.parametrize(("final_round", "extra_turns"), [("all", [1, 2, 0]), ("others", [1, 2])])
def test_end_round_after_reaching_the_goal_row(final_round, extra_turns):
    game = game_with(["*", "*", "*", "*", "RRRR"], players=3, rules=Rules(final_round=final_round))
    put(game, [(r, 0) for r in range(1, 9)])
    game.push(Placement(0, 0, Tile.parse("*")))
    assert game.end_triggered_by == 0
    rng = random.Random(5)
    play_turn(game, rng)  # player 0 finishes the turn in which the goal row was reached
    assert not game.is_over()
    turns = []
    while not game.is_over():
        turns.append(play_turn(game, rng))
    assert turns == extra_turns
    assert list(game.legal_moves()) == []
    with pytest.raises(IllegalMoveError, match="over"):
        game.push(END_TURN)


def test_game_ends_when_nobody_can_place_for_a_full_round():
    no_red = [p for p in all_patterns() if "R" not in p][:10]
    game = ColominoGame(players=2, layout=PLAIN9, bag=no_red)  # south rim all red
    assert list(game.legal_moves()) == [END_TURN]
    game.push(END_TURN)
    assert not game.is_over() and game.current_player() == 1
    game.push(END_TURN)
    assert game.is_over() and game.winners() == []  # 0:0 is a draw
    game.pop()
    assert not game.is_over() and game.current_player() == 1


def test_winner_by_points_then_blue_chips():
    game = ColominoGame(players=3, seed=1)
    game.yellow, game.blue = [5, 1, 0], [0, 2, 1]  # points 5, 5, 2
    assert game.winners() == [1]  # tie on points, more blue chips
    game.yellow, game.blue = [6, 1, 0], [0, 2, 1]
    assert game.winners() == [0]
    game.yellow, game.blue = [1, 1, 0], [2, 2, 1]
    assert game.winners() == [0, 1]  # shared win
    game.yellow, game.blue = [1, 1, 1], [2, 2, 2]
    assert game.winners() == []  # everybody tied: draw


# -- state interface ------------------------------------------------------------------
def test_push_pop_restore_exactly_and_copy_is_independent():
    game = ColominoGame(players=3, seed=11)
    rng = random.Random(11)
    for _ in range(60):
        if game.is_over():
            break
        before = fingerprint(game)
        move = rng.choice(list(game.legal_moves()))
        twin = game.copy()
        game.push(move)
        assert fingerprint(twin) == before
        after = fingerprint(game)
        assert game.pop() == move
        assert fingerprint(game) == before
        game.push(move)
        assert fingerprint(game) == after


def test_legal_moves_view_is_lazy_and_supports_membership():
    game = ColominoGame(seed=2)
    view = game.legal_moves()
    first = next(iter(view))
    assert first in view and list(view) == list(game.legal_moves())
    assert Placement(4, 4, Tile.parse("*")) not in view


def test_move_text_round_trip():
    for move in (Placement(3, 7, Tile.parse("RRGB")), Placement(0, 0, Tile.parse("*")), END_TURN):
        assert parse_move(str(move)) == move


def test_a_joker_put_down_this_turn_cannot_be_replaced_this_turn():
    game = game_with(["*", F(8, 4), "RRRR", "BBBB", "GGGG"])
    put(game, [(8, 3), (8, 5)])
    game.push(Placement(8, 4, Tile.parse("*")))  # open court with the joker: 1 yellow
    assert game.yellow[0] == 1
    replace = Placement(8, 4, Tile.parse(F(8, 4)))
    assert replace not in game.legal_moves()
    assert all((m.row, m.col) != (8, 4) for m in game.legal_moves() if m != END_TURN)
    with pytest.raises(IllegalMoveError, match="put down this turn"):
        game.push(replace)


def test_a_joker_from_an_earlier_turn_can_be_replaced():
    game = game_with(["*", F(8, 4), "RRRR", "BBBB", "GGGG"])
    put(game, [(8, 3), (8, 5)])
    game.board.put(8, 4, Tile.parse("*"))  # lay there before this turn
    assert Placement(8, 4, Tile.parse(F(8, 4))) in game.legal_moves()


def test_copies_share_nothing_when_both_undo():
    game = ColominoGame(players=2, seed=21)
    rng = random.Random(21)
    while sum(game.yellow) + sum(game.blue) == 0 and not game.is_over():
        game.push(rng.choice(list(game.legal_moves())))
    twin = game.copy()
    for g in (game, twin):
        while g.history:
            g.pop()
    game.yellow[0] += 7
    assert twin.yellow[0] == 0 and twin.board.to_state() == game.board.to_state()


def test_game_ends_when_bag_and_racks_are_empty():
    game = ColominoGame(players=2, bag=["*"] * 10)
    rng = random.Random(4)
    turns = []
    while not game.is_over():
        turns.append(play_turn_with(game, rng))
    assert game.end_triggered_by is None
    assert game.bag == [] and game.racks == [[], []]
    assert game.board.to_state().tile_count() == 10 and game.tile_count() == 10
    assert turns == [0, 1, 0, 1]


def play_turn_with(game, rng):
    """Play a turn choosing among rows 6-8 when possible (keeps away from the goal row)."""
    player = game.current_player()
    while not game.is_over() and game.current_player() == player:
        moves = [m for m in game.legal_moves() if m == END_TURN or m.row >= 6]
        game.push(rng.choice(moves or list(game.legal_moves())))
    return player
