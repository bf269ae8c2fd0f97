"""CARIBO notation and hex geometry: the seed's examples, round trips, malformed input."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.caribo import (
    ALL_TILES,
    Board,
    CellValueError,
    EmptyCellError,
    Figure,
    NotationError,
    RaggedRowError,
    RowAlternationError,
    Tile,
    cell_centre,
    format_board,
    format_figure,
    from_axial,
    is_indented,
    neighbour,
    neighbours,
    opposite_edge,
    parse_board,
    parse_figure,
    to_axial,
)
from engines.caribo.puzzles import BUTTERFLY

SEED_ROWS = "0,0,34WS,56SW,0 - e0,12WB,34BW,0,0 - 12BR,B,23SB,61BS,34GS"


def test_butterfly_has_36_cells():
    fig = parse_figure(BUTTERFLY)
    assert len(fig) == 36
    assert fig.height == 11 and fig.width == 5 and not fig.first_row_shifted
    assert format_figure(fig) == BUTTERFLY


def test_seed_rows_parse_and_print_back():
    board = parse_board(SEED_ROWS)
    assert board.tiles[(0, 2)] == Tile.parse("34WS")
    assert board.tiles[(2, 4)].code == "34GS"
    assert len(board) == 9 and board.height == 3 and board.width == 5
    assert format_board(board) == SEED_ROWS


def test_seed_geometry_convention():
    # (0,2)=34WS seg4=W meets (1,1)=12WB seg1=W; (0,3)=56SW seg5=S meets (0,2) seg2=S
    board = parse_board(SEED_ROWS)
    assert neighbour(0, 2, 4, False) == (1, 1)
    assert neighbour(1, 1, 1, False) == (0, 2)
    assert neighbour(0, 3, 5, False) == (0, 2)
    assert board.tiles[(0, 2)].segments[3] == board.tiles[(1, 1)].segments[0] == "W"
    assert board.tiles[(0, 3)].segments[4] == board.tiles[(0, 2)].segments[1] == "S"
    assert board.mismatches() == []


def test_neighbour_tables():
    # indented row (row 1 when row 0 is not shifted)
    assert neighbours(1, 2, False) == [(0, 3), (1, 3), (2, 3), (2, 2), (1, 1), (0, 2)]
    # plain row
    assert neighbours(2, 2, False) == [(1, 2), (2, 3), (3, 2), (3, 1), (2, 1), (1, 1)]
    # parity follows the alternation for negative rows and shifted first rows
    assert is_indented(-1, False) and not is_indented(-2, False)
    assert is_indented(0, True) and not is_indented(-1, True)


@given(st.integers(-20, 20), st.integers(-20, 20), st.booleans(), st.integers(1, 6))
def test_neighbours_are_symmetric_and_at_unit_distance(r, c, fs, edge):
    n = neighbour(r, c, edge, fs)
    assert neighbour(*n, opposite_edge(edge), fs) == (r, c)
    x0, y0 = cell_centre(r, c, fs)
    x1, y1 = cell_centre(*n, fs)
    assert math.isclose(math.hypot(x1 - x0, y1 - y0), 1.0)
    # edge k points at angle 60° steps starting at upper-right (-60°), clockwise (y down)
    angle = math.degrees(math.atan2(y1 - y0, x1 - x0))
    assert math.isclose((angle - (-60 + 60 * (edge - 1)) + 180) % 360 - 180, 0, abs_tol=1e-9)


@given(st.integers(-20, 20), st.integers(-20, 20), st.booleans())
def test_axial_round_trip(r, c, fs):
    assert from_axial(*to_axial(r, c, fs), fs) == (r, c)


def test_cell_centre():
    assert cell_centre(0, 0, False) == (0.0, 0.0)
    assert cell_centre(1, 1, False) == (1.5, math.sqrt(3) / 2)
    assert cell_centre(0, 0, True) == (0.5, 0.0)


def test_whitespace_tolerance_and_newlines():
    loose = "  0, 0,34WS , 56SW,0 -e0 ,12WB,34BW,0,0\n- 12BR , B,23SB,61BS,34GS \n"
    assert format_board(parse_board(loose)) == SEED_ROWS
    assert format_board(parse_board(SEED_ROWS.replace(" - ", "\n"))) == SEED_ROWS


def test_first_row_shifted_round_trip():
    text = "e0,S,0 - 12WS,0,0"
    board = parse_board(text)
    assert board.first_row_shifted
    assert format_board(board) == text


def test_empty_board():
    board = parse_board("")
    assert len(board) == 0 and format_board(board) == ""


def test_open_cells_kept():
    board = parse_board("1,S - e0,1")
    assert board.open_cells == {(0, 0), (1, 1)}
    assert format_board(board) == "1,S - e0,1"
    assert Figure.from_board(board).cells == {(0, 0), (0, 1), (1, 1)}


@pytest.mark.parametrize(
    "text, error, row, col, reason",
    [
        ("S,X", CellValueError, 0, 1, "unknown colour"),
        ("S,13WS", CellValueError, 0, 1, "not adjacent"),
        ("0 - e12WW", CellValueError, 1, 0, "same colour"),
        ("S - S", RowAlternationError, 1, None, "leading 'e'"),
        ("eS - eW", RowAlternationError, 1, None, "without"),
        ("S,0 - e0,0 - 0,0 - 0,0", RowAlternationError, 3, None, "with a leading"),
        ("S,0,0 - e0,0", RaggedRowError, 1, None, "2 cells but row 0 has 3"),
        ("S,,0", EmptyCellError, 0, 1, "empty cell"),
        ("S,0,", EmptyCellError, 0, 2, "empty cell"),
        ("S - - eW", EmptyCellError, 1, None, "empty row"),
    ],
)
def test_malformed_boards(text, error, row, col, reason):
    with pytest.raises(error, match=reason) as info:
        parse_board(text)
    exc = info.value
    assert isinstance(exc, NotationError) and isinstance(exc, ValueError)
    assert (exc.row, exc.col) == (row, col)
    assert f"row {row}" in str(exc) and "\n" not in str(exc)
    if col is not None:
        assert f"col {col}" in str(exc)


@pytest.mark.parametrize("text", ["", "0,0 - e0,0", "1,S", "1,2"])
def test_malformed_figures(text):
    with pytest.raises(NotationError):
        parse_figure(text)


CELL = st.one_of(
    st.just("0"),
    st.just("1"),
    st.sampled_from(ALL_TILES).flatmap(
        lambda t: st.integers(0, 5).map(lambda p: Tile(t.minor, t.major, p).code)
    ),
)


@st.composite
def notations(draw):
    h = draw(st.integers(1, 6))
    w = draw(st.integers(1, 6))
    fs = draw(st.booleans())
    rows = []
    for r in range(h):
        cells = [draw(CELL) for _ in range(w)]
        rows.append(("e" if is_indented(r, fs) else "") + ",".join(cells))
    return " - ".join(rows)


@settings(max_examples=200, deadline=None)
@given(notations(), st.data())
def test_parse_print_parse_round_trip(text, data):
    board = parse_board(text)
    assert format_board(board) == text
    again = parse_board(format_board(board))
    assert again == board and again.height == board.height and again.width == board.width
    # whitespace around tokens never matters
    spaced = text.replace(",", data.draw(st.sampled_from([" ,", ", ", " , "]))).replace(
        " - ", data.draw(st.sampled_from(["-", " -  ", "\n"]))
    )
    assert format_board(parse_board(spaced)) == text


def test_board_from_tiles_outside_grid_grows_and_keeps_geometry():
    board = parse_board("S")
    board.place(-1, 0, Tile.parse("12WS"), check=False)  # row -1 is indented: upper-right
    text = format_board(board)
    assert text == "e12WS - S"
    back = parse_board(text)
    assert back.first_row_shifted
    # the same adjacency: 12WS is across edge 1 (upper-right) of S
    assert neighbour(1, 0, 1, True) == (0, 0)
    assert isinstance(back, Board)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456eE,- \nWSBRGYXs", max_size=40) | st.text(max_size=30))
def test_garbage_either_parses_or_raises_a_format_error(text):
    from engines.errors import FormatError

    for parser in (parse_board, parse_figure):
        try:
            result = parser(text)
        except FormatError as exc:
            assert "\n" not in str(exc) and str(exc)
        else:
            printed = format_board(result) if isinstance(result, Board) else format_figure(result)
            assert parser(printed) == result
