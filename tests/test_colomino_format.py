"""Colomino interchange formats: tiles, layouts and board states (parse and print)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.colomino import (
    COLOURS,
    BoardFormatError,
    BoardState,
    Layout,
    LayoutFormatError,
    Tile,
    TileFormatError,
    default_layout,
    layout_to_json,
    parse_layout,
    parse_state,
    parse_tile_list,
    state_to_json,
)
from engines.errors import FormatError

colour = st.sampled_from(COLOURS)
tile_code = st.text(alphabet=COLOURS, min_size=4, max_size=4)
cell = st.one_of(st.just("."), st.just("*"), tile_code)


@st.composite
def layouts(draw, size):
    rim = {side: draw(st.text(alphabet=COLOURS, min_size=size, max_size=size))
           for side in ("north", "east", "south", "west")}
    positions = draw(st.sets(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)),
                             max_size=6))
    printed = [[r, c, draw(colour)] for r, c in sorted(positions)]
    return parse_layout({"rim": rim, "printed": printed}, size)


@st.composite
def states(draw):
    size = draw(st.sampled_from([9, 12]))
    rows = tuple(tuple(draw(st.lists(cell, min_size=size, max_size=size))) for _ in range(size))
    layout = draw(st.one_of(st.just(default_layout(size)), layouts(size)))
    return BoardState(size, rows, layout, draw(st.booleans()))


# -- tiles ----------------------------------------------------------------------------
def test_tile_parse_print_rotate():
    t = Tile.parse("RRGB")
    assert str(t) == "RRGB" and t.edge(0) == "R" and t.edge(3) == "B"
    assert t.rotated(1).code == "BRRG"  # west edge turns north
    assert t.rotated(4) == t and t.rotated(-1).code == "RGBR"
    assert Tile.parse("rrgb") == t
    assert Tile.parse("*").is_joker and Tile.parse("*").edge(2) is None
    assert [o.code for o in Tile.parse("RGRG").orientations()] == ["RGRG", "GRGR"]
    assert len(Tile.parse("YYYY").orientations()) == 1
    assert Tile.parse("GBRR").pattern == Tile.parse("RRGB").pattern == "BRRG"


@given(tile_code, st.integers(-8, 8))
def test_rotation_keeps_the_pattern_and_composes(code, k):
    t = Tile.parse(code)
    assert t.rotated(k).pattern == t.pattern
    assert t.rotated(k).rotated(-k) == t
    assert t.pattern in {o.code for o in t.orientations()}


@pytest.mark.parametrize(
    ("text", "message"),
    [("RRG", "must be 4 colour letters"), ("RXGB", "unknown colour 'X' in 'RXGB'"),
     ("", "must be 4"), ("RRGBB", "must be 4")],
)
def test_bad_tile_codes(text, message):
    with pytest.raises(TileFormatError, match=message):
        Tile.parse(text)


def test_rack_lists():
    assert [t.code for t in parse_tile_list("RRGB, yybb,*")] == ["RRGB", "YYBB", "*"]
    assert parse_tile_list("") == []
    with pytest.raises(TileFormatError, match=r"--rack\[1\]: unknown colour"):
        parse_tile_list("RRGB,RQGB", "--rack")
    with pytest.raises(TileFormatError, match="empty tile code at position 2"):
        parse_tile_list("RRGB,,YYYY")


# -- layouts --------------------------------------------------------------------------
@pytest.mark.parametrize("size", [9, 12])
def test_default_layouts_are_well_balanced(size):
    layout = default_layout(size)
    assert isinstance(layout, Layout) and layout.size == size
    for side, text in layout.rim.items():
        assert len(text) == size
        for c in COLOURS:
            assert text.count(c) >= 2, (side, c)
    centre = (size - 1) / 2
    assert 3 <= len(layout.printed) <= 8
    assert {c for _, _, c in layout.printed} == set(COLOURS)
    cells = {(r, c) for r, c, _ in layout.printed}
    for r, c in cells:
        assert abs(r - centre) <= 2 and 1 <= c <= size - 2
        assert not {(r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)} & cells


def test_rim_colour_lookup():
    layout = default_layout(9)
    assert layout.rim_colour(0, 2, 0) == layout.rim["north"][2]
    assert layout.rim_colour(8, 3, 2) == layout.rim["south"][3]
    assert layout.rim_colour(4, 0, 3) == layout.rim["west"][4]
    assert layout.rim_colour(5, 8, 1) == layout.rim["east"][5]
    assert layout.rim_colour(4, 4, 0) is None
    assert layout.printed_colour(4, 4) == "R" and layout.printed_colour(0, 0) is None


@settings(max_examples=30)
@given(st.sampled_from([9, 12]).flatmap(layouts))
def test_layout_round_trip(layout):
    assert parse_layout(json.loads(json.dumps(layout_to_json(layout))), layout.size) == layout


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda o: o["rim"].update(north="RGB"), "layout.rim.north: has 3 letters, expected 9"),
        (lambda o: o["rim"].update(east="RGBYRGBYX"), r"layout.rim.east\[8\]: unknown colour"),
        (lambda o: o["rim"].pop("west"), "layout.rim.west: expected a string"),
        (lambda o: o.update(printed=[[9, 1, "R"]]), r"layout.printed\[0\]: row 9 out of range"),
        (lambda o: o.update(printed=[[1, -1, "R"]]), r"layout.printed\[0\]: col -1 out of"),
        (lambda o: o.update(printed=[[1, 1, "W"]]), r"layout.printed\[0\]: unknown colour"),
        (lambda o: o.update(printed=[[1, 1]]), r"layout.printed\[0\]: expected \[row, col"),
        (lambda o: o.update(printed=[[1, 1, "R"], [1, 1, "G"]]), r"printed\[1\]: .* twice"),
        (lambda o: o.update(printed="x"), "layout.printed: expected a list"),
        (lambda o: o.update(rim=[]), "layout.rim: expected an object"),
    ],
)
def test_bad_layouts(mutate, message):
    obj = layout_to_json(default_layout(9))
    mutate(obj)
    with pytest.raises(LayoutFormatError, match=message):
        parse_layout(obj, 9)


# -- board states ---------------------------------------------------------------------
@settings(max_examples=60)
@given(states())
def test_state_json_round_trip(state):
    obj = state_to_json(state)
    assert parse_state(obj) == state
    assert parse_state(json.dumps(obj)) == state
    assert obj["game"] == "colomino" and len(obj["rows"]) == state.size
    assert ("layout" in obj) == (state.layout != default_layout(state.size))
    assert ("base_known" in obj) == (not state.base_known)


def test_state_format_example():
    rows = [["."] * 9 for _ in range(9)]
    rows[8][2] = "RRGB"
    rows[7][2] = "*"
    s = parse_state({"game": "colomino", "size": 9, "rows": rows, "base_known": False,
                     "confidence": 0.9})
    assert s.cells[8][2] == "RRGB" and s.cell(7, 2) == "*" and not s.base_known
    assert s.layout == default_layout(9) and s.tile_count() == 2
    assert state_to_json(s) == {"game": "colomino", "size": 9, "rows": rows,
                                "base_known": False}


def _valid_obj(size=9):
    return {"game": "colomino", "size": size, "rows": [["."] * size for _ in range(size)]}


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda o: o.update(size=10), "size: 10 is not a Colomino board size"),
        (lambda o: o.update(size="9"), "size: '9' is not"),
        (lambda o: o.pop("size"), "size: None is not"),
        (lambda o: o.update(game="wauri"), "game: expected 'colomino'"),
        (lambda o: o.update(rows="x"), "rows: expected a list"),
        (lambda o: o["rows"].pop(), "rows: has 8 rows, expected 9"),
        (lambda o: o["rows"][2].append("."), r"rows\[2\]: has 10 cells, expected 9"),
        (lambda o: o["rows"].__setitem__(4, "........."), r"rows\[4\]: expected a list"),
        (lambda o: o["rows"][3].__setitem__(7, "RXGB"), r"rows\[3\]\[7\]: unknown colour 'X'"),
        (lambda o: o["rows"][0].__setitem__(0, "RGB"), r"rows\[0\]\[0\]: cell 'RGB' must be"),
        (lambda o: o["rows"][0].__setitem__(1, 5), r"rows\[0\]\[1\]: expected a cell string"),
        (lambda o: o["rows"][0].__setitem__(1, "rrgb"), r"rows\[0\]\[1\]: unknown colour 'r'"),
        (lambda o: o.update(base_known="no"), "base_known: expected true or false"),
        (lambda o: o.update(layout={"rim": {}}), "layout.rim.north: expected a string"),
    ],
)
def test_bad_states_name_the_field(mutate, message):
    obj = _valid_obj()
    mutate(obj)
    with pytest.raises(BoardFormatError if "layout" not in message else FormatError,
                       match=message):
        parse_state(obj)


def test_bad_json_text_and_non_objects():
    with pytest.raises(BoardFormatError, match="board: not valid JSON"):
        parse_state("{nope")
    with pytest.raises(BoardFormatError, match="board: expected a JSON object"):
        parse_state([1, 2])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["game", "size", "rows", "layout", "base_known", "x"]), children,
        max_size=5),
    max_leaves=20,
)


@settings(max_examples=200)
@given(json_values)
def test_arbitrary_json_is_parsed_or_refused_with_format_error(value):
    try:
        parse_state(value)
    except FormatError as exc:
        assert "\n" not in str(exc) and ":" in str(exc)


@settings(max_examples=100)
@given(states(), st.data())
def test_a_corrupted_cell_is_refused(state, data):
    obj = state_to_json(state)
    r = data.draw(st.integers(0, state.size - 1))
    c = data.draw(st.integers(0, state.size - 1))
    bad = data.draw(st.text(min_size=1, max_size=6).filter(
        lambda t: t not in (".", "*") and not (len(t) == 4 and set(t) <= set(COLOURS))))
    obj["rows"][r][c] = bad
    with pytest.raises(BoardFormatError, match=rf"^rows\[{r}\]\[{c}\]: "):
        parse_state(obj)


def test_board_state_is_immutable_and_checks_itself():
    s = BoardState.empty(9)
    with pytest.raises(AttributeError):
        s.size = 12
    with pytest.raises(BoardFormatError):
        BoardState(9, s.cells[:8], s.layout)
    with pytest.raises(BoardFormatError, match="layout: made for size 12"):
        BoardState(9, s.cells, default_layout(12))
