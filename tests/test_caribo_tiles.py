"""CARIBO tiles: codes, segments, rotations, identities, the full set."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.caribo import ALL_TILES, PAIRS, Tile, TileCodeError, full_set, parse_hand
from engines.caribo.errors import DuplicateTileError
from engines.errors import FormatError

CODES = [t.code for t in ALL_TILES] + [p + t.minor + t.major for t in ALL_TILES[6:] for p in PAIRS]


def test_seed_example_segments():
    # 34WS = segments 3 and 4 white, the rest black; index 0 = segment 1
    assert Tile.parse("34WS").segments == ("S", "S", "W", "W", "S", "S")
    assert Tile.parse("61BS").segments == ("B", "S", "S", "S", "S", "B")
    assert Tile.parse("S").segments == ("S",) * 6


def test_full_set_is_36_distinct_physical_tiles():
    tiles = full_set()
    assert len(tiles) == 36 == len(set(t.identity for t in tiles))
    assert sum(t.is_single_colour for t in tiles) == 6
    pairs = {t.identity for t in tiles if not t.is_single_colour}
    assert len(pairs) == 30 and all(a != b for a, b in pairs)
    # every colour appears on exactly 36 segments in the whole set
    for colour in "WSBRGY":
        assert sum(t.segments.count(colour) for t in tiles) == 36


@pytest.mark.parametrize("code", CODES)
def test_parse_print_round_trip(code):
    tile = Tile.parse(code)
    assert tile.code == code
    assert Tile.parse(tile.code) == tile


def test_lenient_digit_order_prints_canonically():
    assert Tile.parse("16WS").code == "61WS"
    assert Tile.parse("21WS") == Tile.parse("12WS")
    assert Tile.parse(" 34WS ").code == "34WS"


@pytest.mark.parametrize(
    "code, reason",
    [
        ("13WS", "not adjacent"),
        ("12WW", "same colour"),
        ("12WX", "unknown colour"),
        ("X", "unknown colour"),
        ("s", "unknown colour"),
        ("", "expected"),
        ("34W", "expected"),
        ("07WS", "digits 1..6"),
        ("34WSS", "expected"),
    ],
)
def test_malformed_codes(code, reason):
    with pytest.raises(TileCodeError, match=reason) as info:
        Tile.parse(code)
    assert isinstance(info.value, FormatError) and isinstance(info.value, ValueError)
    assert "\n" not in str(info.value)


@given(st.sampled_from(ALL_TILES[6:]), st.integers(0, 5), st.integers(-12, 12))
def test_rotation_moves_segments_clockwise(tile, p, k):
    t = Tile(tile.minor, tile.major, p)
    r = t.rotated(k)
    assert all(r.segments[(i + k) % 6] == t.segments[i] for i in range(6))
    assert r.identity == t.identity
    assert t.rotated(k).rotated(-k) == t
    assert len(set(t.rotations())) == 6


def test_single_colour_rotations_collapse():
    s = Tile.parse("S")
    assert s.rotated(3) == s and s.rotations() == (s,)
    assert Tile("S", "S", 4) == s  # position normalised


def test_identity_and_ids():
    assert Tile.parse("34WS").identity == ("W", "S")
    assert Tile.parse("S").identity == ("S", "S")
    assert Tile.from_identity("WS").code == "12WS"
    assert sorted(t.id for t in ALL_TILES) == list(range(36))
    assert Tile.parse("45BR").id == Tile.from_identity("BR").id


def test_parse_hand():
    hand = parse_hand("S, WS ,34BR")
    assert [t.identity_code for t in hand] == ["S", "WS", "BR"]
    assert parse_hand("  ") == []
    with pytest.raises(DuplicateTileError, match="WS listed twice"):
        parse_hand("WS,12WS")
    with pytest.raises(TileCodeError, match="entry 1"):
        parse_hand("S,,W")
    with pytest.raises(TileCodeError, match="same colour"):
        parse_hand("WW")
