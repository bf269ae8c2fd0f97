"""Fuzz suite (hypothesis) over every parser: CARIBO notation, Colomino and Wauri JSON,
the commands that read them, and the web API's JSON bodies.

Contract checked for every input: a parser returns or raises a one-line
:class:`engines.errors.FormatError`; a command exits 0, 1 or 2 (2 with exactly one
``boardcam: error:`` line, never a traceback); an HTTP endpoint answers a JSON object
with a 2xx/4xx status — never 500 (the app runs without ``TESTING``, so an unhandled
exception *is* a 500 here). Inputs are both free-form (any text, any JSON) and
structure-aware (valid documents with one part replaced), so the fuzz reaches past
the first check of each parser. Uploaded image bytes are fuzzed in
``test_reliability_images.py``.
"""

from __future__ import annotations

import json
import string

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from reliability_support import fuzz_examples

from companion_web import create_app
from engines.caribo.notation import format_board, parse_board, parse_figure
from engines.colomino import default_layout, state_to_json
from engines.colomino.board import parse_state
from engines.colomino.layout import layout_to_json, parse_layout
from engines.colomino.rules import parse_move
from engines.colomino.tiles import parse_tile_list
from engines.errors import FormatError
from engines.wauri import Move, Position

FIXTURE_OK = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]

# --- strategies ---------------------------------------------------------------------

JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()  # NaN and ±Infinity too: not JSON, the server must refuse them
    | st.text(max_size=12)
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner,
                                                                  max_size=6),
    max_leaves=25,
)  # fmt: skip

CARIBO_TOKENS = [
    "0", "1", "S", "W", "B", "R", "G", "34WS", "56SW", "12WB", "61BS", "23SB", "34GS",
    "12BR", "45WS", "12SS", "13WB", "X", "7", "", " ", "0 ", "e0", "s", "1.5", "34ws", "∞",
]  # fmt: skip


@st.composite
def caribo_notation(draw) -> str:
    """Rows of cells from real and broken tokens, joined like the notation (or not)."""
    height = draw(st.integers(0, 6))
    width = draw(st.integers(1, 6))
    shifted = draw(st.booleans())
    rows = []
    for r in range(height):
        w = width if draw(st.integers(0, 9)) else draw(st.integers(1, 7))  # sometimes ragged
        cells = [draw(st.sampled_from(CARIBO_TOKENS)) for _ in range(w)]
        prefix = "e" if (r % 2 == 1) != shifted else ""
        if not draw(st.integers(0, 9)):
            prefix = draw(st.sampled_from(["", "e", "E", "ee"]))
        rows.append(prefix + ",".join(cells))
    separator = draw(st.sampled_from([" - ", "-", "\n", " -\n", "\r\n", " , ", "--"]))
    return separator.join(rows)


NOTATION_TEXT = caribo_notation() | st.text(alphabet="01e,- \nSWBRG123456", max_size=60) | st.text(
    max_size=40
)

COLOMINO_CODES = ["RRGB", "YYBB", "*", ".", "BRRG", "GGGG", "RGBY", "rrgb", "RRG", "", 7, None]


def _colomino_valid(size: int = 9) -> dict:
    state = {"game": "colomino", "size": size, "rows": [["."] * size for _ in range(size)]}
    state["rows"][size - 1][1] = "BRRG"
    return state


def _wauri_valid() -> dict:
    return {"game": "wauri", "south": [4] * 6, "north": [4] * 6,
            "stores": {"south": 0, "north": 0}, "to_move": "south"}  # fmt: skip


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(obj, list):
        for index, value in enumerate(obj):
            yield from _paths(value, (*prefix, index))


@st.composite
def mutated(draw, valid: dict, leaves=JSON_VALUES):
    """``valid`` with 1–3 parts replaced by other JSON, or deleted (structure-aware)."""
    doc = json.loads(json.dumps(valid))
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and draw(st.integers(0, 4)) == 0:
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(leaves)
    return doc


COLOMINO_LEAVES = JSON_VALUES | st.sampled_from(COLOMINO_CODES) | st.integers(-2, 14)
WAURI_LEAVES = JSON_VALUES | st.integers(-3, 80) | st.sampled_from(["south", "north", "wauri"])
COLOMINO_DOCS = (
    mutated(_colomino_valid(9), COLOMINO_LEAVES)
    | mutated(_colomino_valid(12), COLOMINO_LEAVES)
    | JSON_VALUES
)
WAURI_DOCS = mutated(_wauri_valid(), WAURI_LEAVES) | JSON_VALUES


def _one_line_format_error(exc: BaseException) -> None:
    assert isinstance(exc, FormatError), repr(exc)
    message = str(exc)
    assert message.strip() and "\n" not in message, repr(message)


# --- parsers --------------------------------------------------------------------------


@settings(max_examples=fuzz_examples(250), deadline=None)
@given(NOTATION_TEXT)
def test_caribo_board_notation(text):
    try:
        board = parse_board(text)
    except FormatError as exc:
        _one_line_format_error(exc)
        return
    # what parses prints canonically and parses back to the same board
    again = parse_board(format_board(board))
    assert format_board(again) == format_board(board)


@settings(max_examples=fuzz_examples(200), deadline=None)
@given(NOTATION_TEXT)
def test_caribo_figure_notation(text):
    try:
        parse_figure(text)
    except FormatError as exc:
        _one_line_format_error(exc)


@settings(max_examples=fuzz_examples(150), deadline=None)
@given(COLOMINO_DOCS | st.text(max_size=40))
def test_colomino_state_json(doc):
    try:
        state = parse_state(doc if isinstance(doc, str) else json.dumps(doc))
    except FormatError as exc:
        _one_line_format_error(exc)
        return
    assert parse_state(state_to_json(state)) == state


@settings(max_examples=fuzz_examples(80), deadline=None)
@given(mutated(layout_to_json(default_layout(9)), COLOMINO_LEAVES) | JSON_VALUES)
def test_colomino_layout_json(doc):
    try:
        parse_layout(doc, 9)
    except FormatError as exc:
        _one_line_format_error(exc)


@settings(max_examples=fuzz_examples(150), deadline=None)
@given(st.lists(st.sampled_from([c for c in COLOMINO_CODES if isinstance(c, str)])
                | st.text(max_size=6), max_size=5).map(",".join)
       | st.text(max_size=30))  # fmt: skip
def test_colomino_rack_and_move_text(text):
    for parse in (parse_tile_list, parse_move):
        try:
            parse(text)
        except FormatError as exc:
            _one_line_format_error(exc)


@settings(max_examples=fuzz_examples(150), deadline=None)
@given(WAURI_DOCS)
def test_wauri_position_json(doc):
    try:
        position = Position.from_json(doc)
    except FormatError as exc:
        _one_line_format_error(exc)
        return
    assert Position.from_json(position.to_json()) == position


@given(st.text(max_size=6) | st.integers().map(str))
def test_wauri_move_text(text):
    try:
        move = Move.parse(text)
    except FormatError as exc:
        _one_line_format_error(exc)
        return
    assert 1 <= move.pit <= 6


def test_colomino_valid_seed_documents_parse():
    """The seeds of the structure-aware strategies are valid documents themselves."""
    parse_state(json.dumps(_colomino_valid(9)))
    parse_state(json.dumps(_colomino_valid(12)))
    Position.from_json(_wauri_valid())


# --- the commands that read them (in-process ``boardcam``) ----------------------------


def _check_cli(result) -> None:
    assert result.code in (0, 1, 2), (result.code, result.err)
    assert "Traceback" not in result.err
    if result.code == 2:
        assert result.out == ""
        assert result.err.startswith("boardcam: error: ") and result.err.count("\n") == 1
    else:
        json.loads(result.out)


ARG_TEXT = st.text(max_size=30).filter(lambda s: not s.startswith("@"))


@settings(max_examples=fuzz_examples(50), deadline=None, suppress_health_check=FIXTURE_OK)
@given(board=NOTATION_TEXT, hand=st.text(alphabet="SWBRG, 123456x@", max_size=12))
def test_cli_caribo_check_and_moves(cli, board, hand):
    assume(not board.startswith(("@", "-")) and not hand.startswith(("@", "-")))
    _check_cli(cli("caribo", "check", board))
    _check_cli(cli("caribo", "check", board, "--figure", board))
    _check_cli(cli("caribo", "moves", board, "--hand", hand or "S"))


@settings(max_examples=fuzz_examples(40), deadline=None, suppress_health_check=FIXTURE_OK)
@given(text=NOTATION_TEXT)
def test_cli_caribo_solve(cli, text):
    """Figures (0/1 cells, tile codes for laid tiles); the node limit bounds the search."""
    assume(not text.startswith(("@", "-")))
    _check_cli(cli("caribo", "solve", text, "--node-limit", "2000"))


@settings(max_examples=fuzz_examples(50), deadline=None, suppress_health_check=FIXTURE_OK)
@given(before=COLOMINO_DOCS, after=COLOMINO_DOCS, rack=ARG_TEXT)
def test_cli_colomino_score_and_moves(cli, before, after, rack):
    assume(not rack.startswith("-"))
    _check_cli(cli("colomino", "score", json.dumps(before), json.dumps(after)))
    _check_cli(cli("colomino", "moves", json.dumps(before), "--rack", rack))


@settings(max_examples=fuzz_examples(40), deadline=None, suppress_health_check=FIXTURE_OK)
@given(position=WAURI_DOCS, moves=st.lists(st.integers(-2, 8).map(str) | ARG_TEXT, max_size=4))
def test_cli_wauri_play_moves_best(cli, position, moves):
    assume(not any(m.startswith("-") and not m.lstrip("-").isdigit() for m in moves))
    text = json.dumps(position)
    _check_cli(cli("wauri", "play", text, *moves))
    _check_cli(cli("wauri", "moves", text))
    _check_cli(cli("wauri", "best", text, "--time", "0.02"))


@pytest.mark.parametrize(
    "argv",
    [
        ["caribo", "check", "@/dev/zero"],  # st_size 0, endless: the read is bounded
        ["caribo", "check", "@/nonexistent/x.txt"],
        ["caribo", "check", "@/"],
        ["colomino", "score", "[" * 100_000, "{}"],  # nesting deeper than the parser
        ["wauri", "play", "{" * 100_000],
        ["wauri", "play", '{"game": "wauri"}', "7"],
        ["caribo", "moves", "", "--hand", "@/proc/self/status"],
        ["wauri", "best", json.dumps(_wauri_valid()), "--time", "nan"],
        ["colomino", "score", "9" * 5000, "{}"],  # more digits than int() converts
    ],
)
def test_cli_hostile_arguments_are_exit_2(cli, argv):
    result = cli(*argv)
    _check_cli(result)
    assert result.code == 2


# --- HTTP endpoints that take JSON (Flask test client, no TESTING: a bug is a 500) ----


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    app = create_app({"INSTANCE_PATH": str(tmp_path_factory.mktemp("inst")),
                      "RULES_TIMEOUT": 5.0})  # fmt: skip
    return app.test_client()


def _strict_json(data: bytes):
    """Parse like a browser's JSON.parse: NaN/Infinity are errors."""

    def refuse(name):
        raise AssertionError(f"the server answered invalid JSON ({name})")

    return json.loads(data, parse_constant=refuse)


def _check_http(response, *, allow_redirect=False) -> None:
    """2xx/4xx with a JSON body (``error`` on 4xx); a rules search over its time limit
    is 422, an engine crash 500 (a bug), a missing part 503 (none here)."""
    status = response.status_code
    if status == 308 and allow_redirect:  # werkzeug merges "//" in a path with a redirect
        return
    body = _strict_json(response.data) if response.is_json else None
    assert status in (200, 201, 204, 400, 404, 405, 409, 413, 422), (status, body)
    if status >= 400:
        assert isinstance(body, dict) and isinstance(body.get("error"), str), body
        assert body["error"].strip() and "Traceback" not in body["error"]


RULES_ENDPOINTS = {
    "/api/caribo/moves": st.fixed_dictionaries({"board": NOTATION_TEXT, "hand": ARG_TEXT}),
    "/api/caribo/check": st.fixed_dictionaries(
        {"solution": NOTATION_TEXT}, optional={"figure": NOTATION_TEXT}
    ),
    "/api/caribo/solve": st.fixed_dictionaries({"figure": NOTATION_TEXT}),
    "/api/colomino/score": st.fixed_dictionaries({"before": COLOMINO_DOCS, "after": COLOMINO_DOCS}),
    "/api/wauri/play": st.fixed_dictionaries(
        {"position": WAURI_DOCS},
        optional={"moves": st.lists(st.integers(-2, 8), max_size=5) | JSON_VALUES,
                  "variant": JSON_VALUES},
    ),  # fmt: skip
    "/api/wauri/best": st.fixed_dictionaries(
        {"position": WAURI_DOCS},
        optional={"time": st.floats(0.0, 0.2) | JSON_VALUES, "variant": st.booleans()},
    ),
}


@pytest.mark.parametrize("route", sorted(RULES_ENDPOINTS))
def test_http_rules_endpoints(web, route):
    @settings(max_examples=fuzz_examples(20), deadline=None,
              suppress_health_check=FIXTURE_OK, database=None)
    @given(body=RULES_ENDPOINTS[route] | JSON_VALUES)
    def run(body):
        _check_http(web.post(route, json=body))

    run()


RAW_BODIES = (
    st.binary(max_size=200)
    | st.text(max_size=100).map(str.encode)
    | st.sampled_from([b"[" * 50_000, b'{"a":' * 50_000, b"9" * 5000, b"\xff\xfe{}", b"null",
                       b'{"game": "wauri", "players": ["a", "b"], "x": NaN}'])
)  # fmt: skip


@settings(max_examples=fuzz_examples(50), deadline=None, suppress_health_check=FIXTURE_OK)
@given(route=st.sampled_from(sorted(RULES_ENDPOINTS) + ["/api/sessions"]), raw=RAW_BODIES,
       content_type=st.sampled_from(["application/json", "text/plain", "multipart/form-data"]))
def test_http_raw_bodies(web, route, raw, content_type):  # fmt: skip
    _check_http(web.post(route, data=raw, content_type=content_type))


SESSION_BODIES = st.fixed_dictionaries(
    {"game": st.sampled_from(["caribo", "colomino", "wauri"]) | JSON_VALUES},
    optional={
        "mode": st.sampled_from(["game", "puzzle"]) | JSON_VALUES,
        "players": st.lists(st.text(max_size=50), max_size=6) | JSON_VALUES,
        "settings": st.fixed_dictionaries(
            {}, optional={"first_player": JSON_VALUES | st.integers(-1, 5),
                          "size": st.sampled_from([9, 12, 10]) | JSON_VALUES,
                          "variant": JSON_VALUES}) | JSON_VALUES,
        "state": COLOMINO_DOCS | WAURI_DOCS | st.fixed_dictionaries({"notation": NOTATION_TEXT}),
    },
)  # fmt: skip


@settings(max_examples=fuzz_examples(100), deadline=None, suppress_health_check=FIXTURE_OK)
@given(body=SESSION_BODIES | JSON_VALUES)
def test_http_create_session(web, body):
    response = web.post("/api/sessions", json=body)
    _check_http(response)
    if response.status_code == 201:  # whatever was accepted is readable and exportable
        sid = response.get_json()["id"]
        _check_http(web.get(f"/api/sessions/{sid}"))
        for fmt in ("json", "notation"):
            assert web.get(f"/api/sessions/{sid}/export?format={fmt}").status_code == 200


EVENT_BODIES = st.fixed_dictionaries(
    {},
    optional={
        "kind": st.sampled_from(["move", "pass", "correction"]) | JSON_VALUES,
        "moves": st.lists(st.integers(-1, 8), max_size=3) | JSON_VALUES,
        "state": COLOMINO_DOCS | WAURI_DOCS | st.fixed_dictionaries({"notation": NOTATION_TEXT}),
    },
)


@pytest.mark.parametrize("game", ["caribo", "colomino", "wauri"])
def test_http_session_events(web, game):
    created = web.post("/api/sessions", json={"game": game})
    assert created.status_code == 201
    sid = created.get_json()["id"]

    @settings(max_examples=fuzz_examples(20), deadline=None,
              suppress_health_check=FIXTURE_OK, database=None)
    @given(body=EVENT_BODIES | JSON_VALUES, undo=st.booleans())
    def run(body, undo):
        _check_http(web.post(f"/api/sessions/{sid}/events", json=body))
        if undo:
            _check_http(web.post(f"/api/sessions/{sid}/undo"))
        shown = web.get(f"/api/sessions/{sid}")
        assert shown.status_code == 200 and shown.get_json()["events"][0]["kind"] == "start"

    run()


@settings(max_examples=fuzz_examples(50), deadline=None, suppress_health_check=FIXTURE_OK)
@given(text=st.text(alphabet=string.printable + "é∞/%", max_size=20))
def test_http_query_and_path_parameters(web, text):
    from urllib.parse import quote

    get = {"allow_redirect": True}
    _check_http(web.get("/api/sessions", query_string={"game": text}))
    _check_http(web.get(f"/api/sessions/{quote(text, safe='')}"), **get)
    _check_http(web.get(f"/api/sessions/{quote(text, safe='')}/export",
                        query_string={"format": text}), **get)  # fmt: skip
    _check_http(web.get(f"/api/colomino/layout/{quote(text, safe='')}"), **get)
    _check_http(web.delete(f"/api/calibration/{quote(text, safe='')}"), **get)


@pytest.mark.parametrize("number", ["NaN", "-Infinity", "Infinity", "1e999", "-2e400"])
def test_non_finite_numbers_are_400_and_never_stored(web, number):
    """Found by this suite: ``{"settings": {"x": NaN}}`` made a session whose every
    answer (and the session list of every device) was invalid JSON for the page."""
    body = '{"game": "wauri", "settings": {"x": ' + number + "}}"
    response = web.post("/api/sessions", data=body, content_type="application/json")
    assert response.status_code == 400
    listed = web.get("/api/sessions")
    assert listed.status_code == 200
    _strict_json(listed.data)


def test_deeply_nested_json_body_is_400_not_500(web):
    """Found by this suite: a body nested deeper than Python's JSON parser recurses
    raised RecursionError inside ``get_json`` (a 500); it is malformed JSON now."""
    for route in ("/api/sessions", "/api/wauri/play", "/api/caribo/check"):
        response = web.post(route, data="[" * 100_000, content_type="application/json")
        assert response.status_code == 400, route
        assert response.get_json()["error"] == "body: expected a JSON object"


def _small_photo(game: str) -> bytes:
    import cv2

    from companion_web import SAMPLE_IMAGES

    path = sorted(SAMPLE_IMAGES.glob(f"{game}_*.jpg"))[0]
    ok, buf = cv2.imencode(".jpg", cv2.resize(cv2.imread(str(path)), (640, 360)))
    assert ok
    return buf.tobytes()


PREVIOUS_TEXT = (
    NOTATION_TEXT
    | COLOMINO_DOCS.map(json.dumps)
    | WAURI_DOCS.map(json.dumps)
    | st.sampled_from(["[" * 5000, "{" * 5000, "NaN", '{"x": NaN}', "[1e999]", "{", "null"])
)


@pytest.mark.parametrize("game", ["wauri", "colomino"])
def test_http_recognize_with_hostile_previous(web, game):
    """Found by this suite: a ``previous`` nested 5 000 deep crashed the recogniser's
    own JSON parsing (500); it is 400 now, before the recogniser runs."""
    import io

    photo = _small_photo(game)

    @settings(max_examples=fuzz_examples(15), deadline=None,
              suppress_health_check=FIXTURE_OK, database=None)  # fmt: skip
    @given(previous=PREVIOUS_TEXT)
    def run(previous):
        response = web.post(f"/api/{game}/recognize",
                            data={"image": (io.BytesIO(photo), "p.jpg"), "previous": previous},
                            content_type="multipart/form-data")  # fmt: skip
        _check_http(response)

    run()


@pytest.mark.parametrize("previous", ["[" * 5000, '{"game": "wauri", "south": NaN}', "{"])
def test_cli_recognize_hostile_previous_is_exit_2(cli, previous):
    from companion_web import SAMPLE_IMAGES

    photo = sorted(SAMPLE_IMAGES.glob("wauri_*.jpg"))[0]
    result = cli("recognize", "--game", "wauri", str(photo), "--previous", previous)
    _check_cli(result)
    assert result.code == 2 and "--previous" in result.err


VALID_CALIBRATION = {
    "format": "boardcam-paint-calibration", "version": 1, "game": "caribo",
    "paints": {c: [0.5, 0.4, 0.3] for c in "WSBRGY"},
    "samples": {c: 6 for c in "WSBRGY"}, "source": "photo.jpg",
}  # fmt: skip


@settings(max_examples=fuzz_examples(150), deadline=None, suppress_health_check=FIXTURE_OK)
@given(doc=mutated(VALID_CALIBRATION, JSON_VALUES | st.integers(-2, 6)) | JSON_VALUES)
def test_calibration_file_json(tmp_path_factory, doc):
    """``--calibration FILE`` (and the stored calibration of the web wizard)."""
    from calibration import load_calibration

    path = tmp_path_factory.mktemp("cal") / "cal.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    try:
        load_calibration(path)
    except FormatError as exc:
        _one_line_format_error(exc)


@pytest.mark.parametrize("content", [b"[" * 5000, b"\xff\xd8\xff\xe0 binary", b"9" * 5000,
                                     b'{"format": NaN}'])  # fmt: skip
def test_cli_hostile_calibration_files_are_exit_2(cli, tmp_path, content):
    from companion_web import SAMPLE_IMAGES

    path = tmp_path / "cal.json"
    path.write_bytes(content)
    photo = sorted(SAMPLE_IMAGES.glob("wauri_*.jpg"))[0]
    result = cli("recognize", "--game", "wauri", str(photo), "--calibration", str(path))
    _check_cli(result)
    assert result.code == 2 and "--calibration" in result.err or "calibration:" in result.err
