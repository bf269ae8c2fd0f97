"""Hand-built Colomino positions, one rule at a time (default 9×9 layout unless noted).

Default 9×9 layout: south rim ``YRGBYBRGY``; printed fields (3,3) G, (4,2) Y, (4,4) R,
(4,6) B, (5,5) G. Tiles come from a consistent edge-colour field (see helpers), so they
fit each other and the rim unless a test breaks that on purpose.
"""

from __future__ import annotations

import pytest
from test_colomino_helpers import PLAIN9, field, filled, state

from engines.colomino import Board, Rules, Tile, default_layout, score_turn
from engines.colomino.rules import CLOSED, OPEN

F = field()


def after(before, *cells, extra=None):
    """``before`` with the field tiles at ``cells`` (and ``extra`` codes) added."""
    changes = {(r, c): F(r, c) for r, c in cells}
    changes.update(extra or {})
    return before.with_cells(changes)


def courts(result):
    return [(c.row, c.col, c.kind, c.multiplier) for c in result.courts]


# -- courts ---------------------------------------------------------------------------
def test_open_court_between_two_tiles_on_the_base_line():
    before = filled([(8, 3), (8, 5)])
    result = score_turn(before, after(before, (8, 4)))
    assert result.legal, result.problems
    assert courts(result) == [(8, 4, OPEN, 1)]
    assert (result.yellow, result.blue, result.points) == (1, 0, 1)


def test_closed_court_pays_one_blue_chip_two_points():
    before = filled([(8, 3), (8, 5), (7, 3), (7, 4)])
    result = score_turn(before, after(before, (8, 4)))
    assert courts(result) == [(8, 4, CLOSED, 1)]
    assert (result.yellow, result.blue, result.points) == (0, 1, 2)


def test_two_walls_are_no_court():
    before = filled([(8, 3)])
    result = score_turn(before, after(before, (8, 4)))
    assert result.legal and result.courts == () and result.points == 0


def test_three_courts_in_one_turn_pay_x1_x2_x3():
    before = filled([(8, 1), (8, 3), (8, 5), (8, 7)])
    result = score_turn(before, after(before, (8, 2), (8, 4), (8, 6)))
    assert [c.multiplier for c in result.courts] == [1, 2, 3]
    assert all(c.kind == OPEN for c in result.courts)
    assert (result.yellow, result.blue, result.points) == (6, 0, 6)


def test_best_order_puts_the_closed_court_last():
    # (8,4) is closed (tile above it), (8,2) and (8,6) are open.
    before = filled([(8, 1), (8, 3), (8, 5), (8, 7), (7, 3), (7, 4)])
    result = score_turn(before, after(before, (8, 2), (8, 4), (8, 6)))
    # orders: closed first 1B+2Y+3Y = 7, closed second 1Y+2B+3Y = 8, closed last 1Y+2Y+3B = 9
    assert courts(result)[-1] == (8, 4, CLOSED, 3)
    assert [c.kind for c in result.courts] == [OPEN, OPEN, CLOSED]
    assert (result.yellow, result.blue, result.points) == (3, 3, 9)
    assert (result.placements[-1].row, result.placements[-1].col) == (8, 4)


def test_a_court_made_during_the_turn_counts():
    # (8,3) and (8,4) between tiles at 2 and 5: the second of them is an open court.
    before = filled([(8, 2), (8, 5)])
    result = score_turn(before, after(before, (8, 3), (8, 4)))
    assert len(result.courts) == 1 and result.courts[0].multiplier == 1
    second = result.placements[1]
    assert (result.courts[0].row, result.courts[0].col) == (second.row, second.col)


def test_joker_replacement_in_a_court_pays_the_court():
    before = filled([(8, 3), (8, 5)], extra={(8, 4): "*"})
    result = score_turn(before, after(before, (8, 4)))
    assert result.legal, result.problems
    assert courts(result) == [(8, 4, OPEN, 1)]


def test_joker_replacement_outside_a_court_pays_nothing():
    before = filled([(8, 3)], extra={(8, 4): "*"})
    result = score_turn(before, after(before, (8, 4)))
    assert result.legal and result.points == 0


def test_goal_line_encloses_courts():
    board = Board.from_state(state({(0, 3): F(0, 3), (0, 5): F(0, 5)}))
    assert board.court_at(0, 4) == OPEN
    board.put(1, 4, Tile.parse(F(1, 4)))
    assert board.court_at(0, 4) == CLOSED


def test_side_edges_are_walls_only_with_the_option():
    s = filled([(8, 1), (7, 1), (7, 0)])
    assert Board.from_state(s).court_at(8, 0) == OPEN
    assert Board.from_state(s, Rules(side_walls=True)).court_at(8, 0) == CLOSED
    result = score_turn(s, after(s, (8, 0)), Rules(side_walls=True))
    assert courts(result) == [(8, 0, CLOSED, 1)]


def test_unconnected_printed_fields_are_no_walls_connected_ones_are():
    column = [(8, 5), (7, 5), (6, 5)]  # connects the printed field (5,5)
    board = Board.from_state(filled(column))
    assert (5, 5) in board.connected() and (4, 4) not in board.connected()
    # (4,5): south the connected field (5,5); west (4,4) and east (4,6) not yet connected
    assert board.court_at(4, 5) is None
    board.put(5, 4, Tile.parse(F(5, 4)))  # connects (4,4)
    board.put(5, 6, Tile.parse(F(5, 6)))  # connects (4,6)
    assert {(4, 4), (4, 6)} <= board.connected()
    assert board.court_at(4, 5) == OPEN


# -- matching and connection ---------------------------------------------------------
def test_rim_mismatch_is_named_by_cell_and_edge():
    layout = default_layout(9)
    assert layout.rim["south"][2] == "G"
    before = filled([])
    result = score_turn(before, before.with_cells({(8, 2): "RRRR"}))
    assert not result.legal
    assert result.problems == (
        "rows[8][2]: south edge R of RRRR does not match the south rim marking G",
    )


def test_west_and_east_rim_markings_must_match():
    board = Board.from_state(filled([]))
    west = default_layout(9).rim["west"][8]
    tile = F(8, 0)
    assert tile[3] == west and board.placement_problem(8, 0, Tile.parse(tile)) is None
    wrong = tile[:3] + ("R" if west != "R" else "B")
    assert "west edge" in board.placement_problem(8, 0, Tile.parse(wrong))


def test_neighbour_mismatch_is_named_by_cell_and_edge():
    before = filled([(8, 3)])
    good = F(8, 4)
    bad = good[:3] + ("R" if good[3] != "R" else "B")  # west edge against (8,3)
    result = score_turn(before, before.with_cells({(8, 4): bad}))
    assert not result.legal
    assert any(
        p.startswith("rows[8][3]: east edge") or p.startswith("rows[8][4]: west edge")
        for p in result.problems
    ), result.problems


def test_joker_matches_anything_rim_included():
    board = Board.from_state(filled([(8, 3)]))
    assert board.placement_problem(8, 4, Tile.parse("*")) is None
    assert board.placement_problem(8, 0, Tile.parse("*")) is None


def test_disconnected_tile_is_illegal():
    before = filled([(8, 3)])
    result = score_turn(before, after(before, (6, 3)))
    assert not result.legal
    assert result.problems == ("rows[6][3]: not connected to the base line",)


def test_connection_through_a_tile_of_the_same_turn_in_some_order():
    before = filled([])
    # listed north first; only the order (8,3) then (7,3) then (6,3) is legal
    result = score_turn(before, after(before, (6, 3), (7, 3), (8, 3)))
    assert result.legal, result.problems
    assert [(p.row, p.col) for p in result.placements] == [(8, 3), (7, 3), (6, 3)]


def test_tile_on_an_occupied_cell_and_joker_on_joker_are_illegal():
    board = Board.from_state(filled([(8, 3)], extra={(8, 4): "*"}))
    assert "already holds" in board.placement_problem(8, 3, Tile.parse(F(8, 3)))
    assert "joker cannot replace a joker" in board.placement_problem(8, 4, Tile.parse("*"))


# -- printed fields ------------------------------------------------------------------
def test_printed_field_connects_and_then_constrains():
    two = Board.from_state(filled([(8, 5), (7, 5)]))
    assert (5, 5) not in two.connected()
    assert "not yet connected" in two.placement_problem(5, 5, Tile.parse("GGGG"))
    assert "not connected" in two.placement_problem(5, 4, Tile.parse(F(5, 4)))
    three = Board.from_state(filled([(8, 5), (7, 5), (6, 5)]))
    assert (5, 5) in three.connected()
    # (5,4) touches only the printed field (5,5): connected through it, must show G east
    assert F(5, 4)[1] == "G" and three.placement_problem(5, 4, Tile.parse(F(5, 4))) is None
    wrong = F(5, 4)[0] + "R" + F(5, 4)[2:]
    assert three.placement_problem(5, 4, Tile.parse(wrong)) == (
        f"rows[5][4]: east edge R of {wrong} does not match the printed field rows[5][5] G"
    )


def test_connecting_tile_need_not_match_the_unconnected_printed_field():
    board = Board.from_state(filled([(8, 5), (7, 5)]))
    tile = "R" + F(6, 5)[1:]  # north edge R against the (still unconnected) green field
    assert board.placement_problem(6, 5, Tile.parse(tile)) is None


def test_covering_a_printed_field_needs_its_colour_on_some_edge():
    base = filled([(8, 5), (7, 5)])
    below = "R" + F(6, 5)[1:]  # north edge R: the cover must have south edge R
    board = Board.from_state(base.with_cells({(6, 5): below}))
    assert (5, 5) in board.connected()
    assert board.placement_problem(5, 5, Tile.parse("YYRY")) == (
        "rows[5][5]: tile YYRY does not show the printed colour G"
    )
    assert board.placement_problem(5, 5, Tile.parse("GYRY")) is None
    assert board.placement_problem(5, 5, Tile.parse("*")) is None


def test_covering_a_printed_field_in_a_court_pays():
    # (5,5) with tiles south (6,5), west (5,4) and east (5,6): an open court
    before = filled([(8, 5), (7, 5), (6, 5), (5, 4), (5, 6)])
    result = score_turn(before, before.with_cells({(5, 5): "GGGG"}))
    assert result.legal, result.problems
    assert courts(result) == [(5, 5, OPEN, 1)]


# -- score_turn bookkeeping ----------------------------------------------------------
def test_zero_new_tiles_is_a_legal_turn_worth_nothing():
    before = filled([(8, 3)])
    result = score_turn(before, before)
    assert result.legal and result.placements == () and result.points == 0


def test_more_than_three_new_tiles_is_illegal():
    before = filled([])
    result = score_turn(before, after(before, (8, 1), (8, 2), (8, 3), (8, 4)))
    assert result.problems == ("placements: 4 new tiles, at most 3 per turn",)


@pytest.mark.parametrize(
    ("new", "message"),
    [
        (".", "rows[8][3]: tile {t} was removed"),
        ("rot", "rows[8][3]: tile {t} was rotated to {r}"),
        ("RRRR", "rows[8][3]: tile {t} was replaced by RRRR"),
    ],
)
def test_changed_old_tiles_are_named(new, message):
    t = F(8, 3)
    r = Tile.parse(t).rotated(1).code
    if r == t:
        pytest.skip("symmetric field tile")
    before = filled([(8, 3)])
    cell = {"rot": r}.get(new, new)
    result = score_turn(before, before.with_cells({(8, 3): cell}))
    assert not result.legal
    assert message.format(t=t, r=r) in result.problems


def test_moved_tile_is_reported():
    before = filled([(8, 3)])
    moved = before.with_cells({(8, 3): ".", (8, 4): F(8, 3)})
    problems = score_turn(before, moved).problems
    assert f"rows[8][4]: tile {F(8, 3)} was moved there from rows[8][3]" in problems


def test_different_sizes_and_layouts_are_illegal():
    nine = filled([])
    twelve = state({}, size=12)
    assert score_turn(nine, twelve).problems == ("size: before is 9, after is 12",)
    plain = state({}, layout=PLAIN9)
    assert score_turn(nine, plain).problems == ("layout: the boards have different layouts",)


def test_more_copies_than_the_set_holds():
    layout = PLAIN9
    before = state({(8, 0): "RRRR", (8, 1): "RRRR"}, layout=layout)
    result = score_turn(before, before.with_cells({(8, 2): "RRRR"}))
    assert not result.legal
    assert "only 2 tiles of pattern RRRR" in result.problems[0]


# -- legal placements -----------------------------------------------------------------
def test_legal_placements_on_an_empty_board_are_south_row_only():
    board = Board.from_state(filled([]))
    moves = list(board.legal_placements([Tile.parse(F(8, 4))]))
    assert moves and all(m.row == 8 for m in moves)
    assert any(m.col == 4 and m.tile.code == F(8, 4) for m in moves)
    for m in moves:
        assert m.tile.code[2] == default_layout(9).rim["south"][m.col]


def test_legal_placements_one_per_distinct_board():
    board = Board.from_state(state({}, layout=PLAIN9))
    moves = list(board.legal_placements(["RRRR", "RRRR", "*"]))
    # RRRR has one orientation; every south cell takes RRRR and the joker
    assert len(moves) == 18
    assert len({(m.row, m.col, m.tile) for m in moves}) == 18


def test_legal_placements_agree_with_placement_problem():
    s = filled([(8, 1), (8, 2), (7, 2), (8, 5), (7, 5), (6, 5)], extra={(8, 7): "*"})
    board = Board.from_state(s)
    rack = ["RGBY", "GGYY", "RRRB", "*", "BBBB"]
    listed = {(m.row, m.col, m.tile.code) for m in board.legal_placements(rack)}
    brute = set()
    for r in range(9):
        for c in range(9):
            for code in rack:
                for tile in Tile.parse(code).orientations():
                    if board.placement_problem(r, c, tile) is None:
                        brute.add((r, c, tile.code))
    assert listed == brute and listed
    assert any(m[:2] == (8, 7) for m in listed)  # joker replacement offered


def test_replacing_a_joker_on_a_printed_field_needs_the_printed_colour():
    base = filled([(8, 5), (7, 5)])
    below = "R" + F(6, 5)[1:]
    board = Board.from_state(base.with_cells({(6, 5): below, (5, 5): "*"}))
    assert board.placement_problem(5, 5, Tile.parse("YYRY")) == (
        "rows[5][5]: tile YYRY does not show the printed colour G"
    )
    assert board.placement_problem(5, 5, Tile.parse("GYRY")) is None


def test_turn_illegal_in_every_order_names_the_furthest_problem():
    # (6,5) connects the printed field (5,5); (4,5) reaches the base only through that
    # field and so must show green south, but shows red: no order of the two is legal.
    before = filled([(8, 5), (7, 5)])
    low = "R" + F(6, 5)[1:]
    high = F(4, 5)[:2] + "R" + F(4, 5)[3]
    result = score_turn(before, before.with_cells({(6, 5): low, (4, 5): high}))
    assert not result.legal
    assert result.problems == (
        f"rows[4][5]: south edge R of {high} does not match the printed field rows[5][5] G",
        "placements: no order of the 2 new tiles is legal",
    )
    fixed = score_turn(before, before.with_cells({(6, 5): low, (4, 5): F(4, 5)}))
    assert fixed.legal and [(p.row, p.col) for p in fixed.placements] == [(6, 5), (4, 5)]


def test_diff_boards_lists_new_tiles_and_impossible_changes():
    from engines.colomino import diff_boards

    before = filled([(8, 3), (8, 6)], extra={(8, 4): "*"})
    changed = before.with_cells({(8, 4): F(8, 4), (8, 5): F(8, 5), (8, 6): "."})
    placements, problems = diff_boards(before, changed)
    assert [(p.row, p.col, p.tile.code) for p in placements] == [
        (8, 4, F(8, 4)), (8, 5, F(8, 5))]
    assert problems == [f"rows[8][6]: tile {F(8, 6)} was removed"]
