"""Sessions: SQLite in the instance folder, confirmed moves, undo, history, export."""

from __future__ import annotations

import json
import sqlite3
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from web_scaffolding import colomino_column

from companion_web import create_app
from companion_web.games import caribo_extends, caribo_tile_count, summary
from engines.caribo.tiles import Tile

START = {"game": "wauri", "south": [4] * 6, "north": [4] * 6,
         "stores": {"south": 0, "north": 0}, "to_move": "south"}  # fmt: skip


def new(client, **body):
    response = client.post("/api/sessions", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_create_and_show_a_wauri_session(client):
    session = new(client, game="wauri", players=["Ana", "Ben"])
    assert session["players"] == ["Ana", "Ben"]
    assert session["state"] == START
    assert session["summary"]["turn"] == 0 and not session["summary"]["over"]
    again = client.get(f"/api/sessions/{session['id']}").get_json()
    assert again["events"] == session["events"]
    listed = client.get("/api/sessions?game=wauri").get_json()["sessions"]
    assert [s["id"] for s in listed] == [session["id"]]
    assert client.get("/api/sessions?game=chess").status_code == 400


@pytest.mark.parametrize(
    "body, field",
    [
        ({"game": "chess"}, "game"),
        ({"game": "caribo", "players": ["solo"]}, "players"),
        ({"game": "caribo", "players": ["a", "b", "c", "d", "e"]}, "players"),
        ({"game": "wauri", "players": "Ana"}, "players"),
        ({"game": "caribo", "mode": "blitz"}, "mode"),
        ({"game": "colomino", "settings": {"size": 10}}, "settings.size"),
        ({"game": "wauri", "state": {"south": [4] * 6}}, "state.north"),
        ({"game": "caribo", "settings": {"first_player": 5}}, "settings.first_player"),
    ],
)
def test_bad_session_requests_are_400(client, body, field):
    response = client.post("/api/sessions", json=body)
    assert response.status_code == 400
    assert response.get_json()["error"].startswith(field)


def test_unknown_session_is_404(client):
    assert client.get("/api/sessions/nope").status_code == 404
    assert client.post("/api/sessions/nope/undo").status_code == 404


def test_wauri_moves_through_the_engine_then_undo(client):
    session = new(client, game="wauri")
    sid = session["id"]
    # pit 3 ends in south's store: an extra move, south moves again
    first = client.post(f"/api/sessions/{sid}/events", json={"kind": "move", "moves": [3]})
    assert first.status_code == 201
    state = first.get_json()["session"]["state"]
    assert state["south"] == [4, 4, 0, 5, 5, 5] and state["to_move"] == "south"
    assert first.get_json()["event"]["player"] == 0
    # pit 3 is empty now: the engine refuses (a negative answer), nothing is stored
    bad = client.post(f"/api/sessions/{sid}/events", json={"moves": [3]})
    assert bad.status_code == 422
    assert "3" in bad.get_json()["error"]
    assert client.post(f"/api/sessions/{sid}/events", json={"moves": [7]}).status_code == 400
    second = client.post(f"/api/sessions/{sid}/events", json={"moves": [1]}).get_json()
    assert second["session"]["state"]["to_move"] == "north"
    assert second["session"]["summary"]["turn"] == 1
    history = second["session"]["summary"]["history"]
    assert [h["moves"] for h in history] == [[3], [1]]
    assert len(second["session"]["events"]) == 3
    undone = client.post(f"/api/sessions/{sid}/undo").get_json()
    assert undone["undone"]["seq"] == 3 and undone["undone"]["undone"] is True
    assert undone["session"]["state"]["to_move"] == "south"
    assert [e["undone"] for e in undone["session"]["events"]] == [False, False, True]
    client.post(f"/api/sessions/{sid}/undo")
    assert client.post(f"/api/sessions/{sid}/undo").status_code == 409  # start stays
    # after undo the sequence continues, undone events stay in the history
    again = client.post(f"/api/sessions/{sid}/events", json={"moves": [2]}).get_json()
    assert again["event"]["seq"] == 4


def test_wauri_pass_and_bad_moves_field_are_400(client):
    sid = new(client, game="wauri")["id"]
    assert client.post(f"/api/sessions/{sid}/events", json={"kind": "pass"}).status_code == 400
    for moves in ([], ["3"], [True], "3"):
        response = client.post(f"/api/sessions/{sid}/events", json={"moves": moves})
        assert response.status_code == 400
        assert response.get_json()["error"].startswith("moves")
    assert client.post(f"/api/sessions/{sid}/events", json={"kind": "jump"}).status_code == 400


def test_caribo_session_checks_every_placement(client):
    sid = new(client, game="caribo", players=["A", "B", "C"])["id"]
    one = client.post(f"/api/sessions/{sid}/events",
                      json={"state": {"game": "caribo", "notation": "S"}})  # fmt: skip
    assert one.status_code == 201
    assert one.get_json()["session"]["summary"]["tiles_left"] == [11, 12, 12]
    # two tiles at once is not one move
    two = client.post(f"/api/sessions/{sid}/events",
                      json={"state": {"notation": "S,34WS,W"}})  # fmt: skip
    assert two.status_code == 422
    assert "exactly one tile" in two.get_json()["error"]
    # a mismatching edge is refused with the engine's problems
    clash = client.post(f"/api/sessions/{sid}/events", json={"state": {"notation": "S,W"}})
    assert clash.status_code == 422
    assert "do not match" in clash.get_json()["problems"][0]
    good = client.post(f"/api/sessions/{sid}/events", json={"state": {"notation": "S,34WS"}})
    assert good.status_code == 201
    passed = client.post(f"/api/sessions/{sid}/events", json={"kind": "pass"}).get_json()
    s = passed["session"]["summary"]
    assert s["tiles_left"] == [11, 11, 12] and s["turn"] == 0


def test_caribo_summary_ends_when_everybody_passes():
    events = [{"kind": "start", "player": None, "state": {}, "answer": {}},
              {"kind": "move", "player": 0, "state": {}, "answer": {}},
              {"kind": "pass", "player": 1, "state": {}, "answer": {}},
              {"kind": "pass", "player": 0, "state": {}, "answer": {}}]  # fmt: skip
    s = summary("caribo", ["A", "B"], {}, events)
    assert s["over"] and s["winner"] == [0] and s["tiles_left"] == [17, 18]
    s = summary("caribo", ["A", "B"], {}, events[:3])
    assert not s["over"] and s["turn"] == 0


def test_caribo_extends_up_to_moving_and_turning_the_table():
    from engines.caribo.notation import format_board, parse_board

    before = "0,0,34WS,56SW,0 - e0,12WB,34BW,0,0 - 12BR,B,23SB,61BS,34GS"
    board = parse_board(before)
    assert caribo_extends(before, before) and caribo_extends("", before)
    for k in range(6):  # the same table in each of its six rotations
        assert caribo_extends(before, format_board(board.rotated(k))), k
    grown = board.copy()
    grown.place(-1, 2, Tile.parse("Y"), check=False)  # a row added on top
    assert caribo_extends(before, format_board(grown))
    changed = before.replace("34BW", "61BW")  # one tile turned
    assert not caribo_extends(before, changed)
    assert not caribo_extends(before, before.replace("34GS", "0"))  # one tile gone


def test_caribo_tile_count():
    assert caribo_tile_count("") == 0
    assert caribo_tile_count("0,0,34WS,56SW,0 - e0,12WB,34BW,0,0 - 12BR,B,1") == 6


def test_colomino_session_scores_turns(client):
    session = new(client, game="colomino", players=["Ana", "Ben"], settings={"size": 9})
    sid = session["id"]
    after = json.loads(json.dumps(session["state"]))
    after["rows"][8][1] = "BRRG"
    ok = client.post(f"/api/sessions/{sid}/events", json={"state": after})
    assert ok.status_code == 201
    body = ok.get_json()
    assert body["event"]["answer"]["placements"] == [{"row": 8, "col": 1, "tile": "BRRG"}]
    assert body["event"]["notation"] == "8,1=BRRG +0"
    assert body["session"]["summary"]["turn"] == 1
    assert body["session"]["summary"]["scores"][0] == {"yellow": 0, "blue": 0, "points": 0}
    # taking the tile back is not a legal turn
    back = client.post(f"/api/sessions/{sid}/events", json={"state": session["state"]})
    assert back.status_code == 422
    assert back.get_json()["problems"]


def colomino_move(player, points=0, blue=0, rows=None, placements=((8, 0),)):
    """A confirmed Colomino move as the session stores it (rules answer included)."""
    answer = {"points": points, "blue": blue, "yellow": points - 2 * blue,
              "placements": [{"row": r, "col": c, "tile": "RRRR"} for r, c in placements]}
    return {"kind": "move", "player": player, "answer": answer,
            "state": {"rows": rows or [["."] * 9 for _ in range(9)]}}  # fmt: skip


def colomino_pass(player):
    return {"kind": "pass", "player": player, "answer": {}, "state": {"rows": [["."] * 9] * 9}}


START_EVENT = {"kind": "start", "player": None, "state": {"rows": [["."] * 9] * 9}, "answer": {}}


def test_colomino_scoreboard_and_end_of_game():
    events = [START_EVENT, colomino_move(0, 3, 1), colomino_move(1, 3, 0, placements=[(0, 4)]),
              colomino_move(0)]  # fmt: skip
    s = summary("colomino", ["A", "B"], {}, events)
    assert s["scores"][0]["points"] == 3 and s["scores"][1]["points"] == 3
    assert not s["over"] and s["turns_left"] == 1 and s["final_round"] == "all"
    events.append(colomino_move(1))
    s = summary("colomino", ["A", "B"], {}, events)
    assert s["over"] and s["winner"] == [0]  # equal points, more blue chips
    assert s["decided_by"] == "blue chips" and s["end_reason"] == "final round played"


@pytest.mark.parametrize("final_round, turns_after", [("all", 3), ("others", 2)])
def test_colomino_final_round_option(final_round, turns_after):
    """A tile in row 0 starts the final round: after that turn every player plays once
    more ("all", the one who reached it included) or only the others ("others")."""
    players = ["A", "B", "C"]
    events = [START_EVENT, colomino_move(0), colomino_move(1, 2, placements=[(0, 3)])]
    settings = {"final_round": final_round}
    for k in range(turns_after):
        s = summary("colomino", players, settings, events)
        assert not s["over"] and s["turns_left"] == turns_after - k
        events.append(colomino_move((2 + k) % 3))
    s = summary("colomino", players, settings, events)
    assert s["over"] and s["turns_left"] == 0 and s["winner"] == [1]
    assert s["decided_by"] == "points"


def test_colomino_ends_after_a_full_round_without_a_tile():
    players = ["A", "B", "C"]
    events = [START_EVENT, colomino_move(0, 2), colomino_pass(1),
              colomino_move(2, placements=[]), colomino_pass(0)]  # a 0-tile turn is no tile
    s = summary("colomino", players, {}, events[:-1])
    assert not s["over"]
    s = summary("colomino", players, {}, events)
    assert s["over"] and s["end_reason"] == "a full round without a tile placed"
    assert s["winner"] == [0]


def test_colomino_ends_when_every_tile_lies_on_the_board():
    full = [["RRRR"] * 12 for _ in range(12)]
    events = [START_EVENT, colomino_move(0, 1, rows=full, placements=[(5, 5)])]
    s = summary("colomino", ["A", "B"], {"size": 12}, events)
    assert s["over"] and s["end_reason"] == "every tile is on the board"


def test_colomino_winners_shared_and_draw():
    events = [START_EVENT, colomino_move(0, 2, 1), colomino_move(1, 2, 1), colomino_pass(2),
              colomino_pass(0), colomino_pass(1), colomino_pass(2)]  # fmt: skip
    s = summary("colomino", ["A", "B", "C"], {}, events)
    assert s["over"] and s["winner"] == [0, 1] and s["decided_by"] == "shared"
    events = [START_EVENT, colomino_pass(0), colomino_pass(1)]
    s = summary("colomino", ["A", "B"], {}, events)
    assert s["over"] and s["winner"] == [] and s["decided_by"] == "draw"


def test_colomino_session_options_side_walls_and_final_round(client):
    """Through the API with the real engine: side walls make the corner cell a court,
    "others" ends the game after the other player's turn, the winner is announced."""
    column, top = colomino_column()
    settings = {"size": 9, "final_round": "others", "side_walls": True}
    session = new(client, game="colomino", players=["Ana", "Ben"], settings=settings)
    assert session["settings"] == settings
    sid = session["id"]
    fixed = client.post(f"/api/sessions/{sid}/events", json={"kind": "correction",
                                                             "state": column})  # fmt: skip
    assert fixed.status_code == 201
    after = json.loads(json.dumps(column))
    after["rows"][top["row"]][top["col"]] = top["tile"]
    body = client.post(f"/api/sessions/{sid}/events", json={"state": after}).get_json()
    assert body["event"]["answer"]["courts"] == [
        {"row": 0, "col": 0, "kind": "open", "multiplier": 1}
    ]
    summary_now = body["session"]["summary"]
    assert summary_now["scores"][0]["points"] == 1 and summary_now["turns_left"] == 1
    assert not summary_now["over"] and summary_now["turn"] == 1
    body = client.post(f"/api/sessions/{sid}/events", json={"kind": "pass"}).get_json()
    final = body["session"]["summary"]
    assert final["over"] and final["winner"] == [0] and final["decided_by"] == "points"
    late = client.post(f"/api/sessions/{sid}/events", json={"kind": "pass"})
    assert late.status_code == 422 and late.get_json()["error"] == "the game is over"
    # without side walls the same turn pays nothing
    plain = new(client, game="colomino", players=["Ana", "Ben"])["id"]
    assert new(client, game="colomino")["settings"] == {
        "size": 9, "final_round": "all", "side_walls": False}  # fmt: skip
    client.post(f"/api/sessions/{plain}/events", json={"kind": "correction", "state": column})
    body = client.post(f"/api/sessions/{plain}/events", json={"state": after}).get_json()
    assert body["event"]["answer"]["points"] == 0


@pytest.mark.parametrize(
    "settings, field",
    [({"final_round": "first"}, "settings.final_round"),
     ({"side_walls": "yes"}, "settings.side_walls"), ({"size": 10}, "settings.size")],
)  # fmt: skip
def test_bad_colomino_settings_are_400(client, settings, field):
    response = client.post("/api/sessions", json={"game": "colomino", "settings": settings})
    assert response.status_code == 400
    assert response.get_json()["error"].startswith(field)


def test_corrections_replace_the_state_without_a_turn(client):
    sid = new(client, game="wauri")["id"]
    fixed = dict(START, south=[4, 4, 4, 4, 4, 5], north=[4, 4, 4, 4, 4, 3])
    body = client.post(f"/api/sessions/{sid}/events",
                       json={"kind": "correction", "state": fixed}).get_json()  # fmt: skip
    assert body["event"]["player"] is None and body["session"]["state"]["south"][5] == 5
    assert body["session"]["summary"]["turn"] == 0


def test_export_json_and_notation(client):
    session = new(client, game="wauri", players=["Ana", "Ben"])
    sid = session["id"]
    client.post(f"/api/sessions/{sid}/events", json={"moves": [3]})
    client.post(f"/api/sessions/{sid}/events", json={"moves": [1]})
    exported = client.get(f"/api/sessions/{sid}/export?format=json")
    assert exported.mimetype == "application/json"
    assert "attachment" in exported.headers["Content-Disposition"]
    data = json.loads(exported.data)
    assert [e["seq"] for e in data["events"]] == [1, 2, 3]
    text = client.get(f"/api/sessions/{sid}/export?format=notation").get_data(as_text=True)
    lines = text.splitlines()
    assert lines[0] == f"# boardcam wauri session {sid}"
    assert lines[-2:] == ["2. Ana: 3", "3. Ana: 1"]
    assert client.get(f"/api/sessions/{sid}/export?format=pdf").status_code == 400


def test_delete(client):
    sid = new(client, game="caribo")["id"]
    assert client.delete(f"/api/sessions/{sid}").status_code == 204
    assert client.get(f"/api/sessions/{sid}").status_code == 404


def test_sessions_survive_a_restart_and_use_wal(tmp_path):
    config = {"TESTING": True, "INSTANCE_PATH": str(tmp_path / "instance")}
    first = create_app(config).test_client()
    sid = new(first, game="wauri")["id"]
    first.post(f"/api/sessions/{sid}/events", json={"moves": [3]})
    restarted = create_app(config).test_client()
    session = restarted.get(f"/api/sessions/{sid}").get_json()
    assert session["state"]["south"] == [4, 4, 0, 5, 5, 5]
    db_file = tmp_path / "instance" / "boardcam.sqlite3"
    assert db_file.is_file()
    with sqlite3.connect(db_file) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_concurrent_confirmations_never_fork_the_history(app, monkeypatch):
    from companion_web import games

    def slow_confirm(game, prev, kind, payload, settings):
        time.sleep(0.05)  # the rules take a moment: requests overlap
        return games.Confirmed(prev)

    monkeypatch.setattr(games, "confirm", slow_confirm)
    client = app.test_client()
    sid = new(client, game="caribo")["id"]
    codes = []

    def post():
        body = {"kind": "correction"}
        response = app.test_client().post(f"/api/sessions/{sid}/events", json=body)
        codes.append(response.status_code)

    threads = [threading.Thread(target=post) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(codes) <= {201, 409} and 201 in codes
    seqs = [e["seq"] for e in client.get(f"/api/sessions/{sid}").get_json()["events"]]
    assert seqs == list(range(1, 2 + codes.count(201)))


def test_a_move_judged_on_a_stale_history_is_409(app, monkeypatch):
    from companion_web import games

    client = app.test_client()
    sid = new(client, game="caribo")["id"]
    real_confirm = games.confirm

    def confirm_while_someone_else_moves(game, prev, kind, payload, settings):
        monkeypatch.setattr(games, "confirm", real_confirm)
        other = app.test_client().post(f"/api/sessions/{sid}/events", json={"kind": "pass"})
        assert other.status_code == 201
        return games.Confirmed(prev)

    monkeypatch.setattr(games, "confirm", confirm_while_someone_else_moves)
    response = client.post(f"/api/sessions/{sid}/events", json={"kind": "pass"})
    assert response.status_code == 409
    assert "changed meanwhile" in response.get_json()["error"]
    assert len(client.get(f"/api/sessions/{sid}").get_json()["events"]) == 2


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(script=st.lists(st.tuples(st.booleans(), st.integers(0, 5)), min_size=1, max_size=12))
def test_wauri_session_history_is_consistent_under_moves_and_undos(client, script):
    """Property: after any mix of moves and undos, the session's state is what the engine
    gives for the moves still active, played from the start, and the notation export
    lists exactly those moves."""
    sid = new(client, game="wauri")["id"]
    for undo, choice in script:
        if undo:
            client.post(f"/api/sessions/{sid}/undo")
            continue
        state = client.get(f"/api/sessions/{sid}").get_json()
        if state["summary"]["over"]:
            break
        position = state["state"]
        pits = [i + 1 for i, n in enumerate(position[position["to_move"]]) if n > 0]
        pit = pits[choice % len(pits)]
        response = client.post(f"/api/sessions/{sid}/events", json={"moves": [pit]})
        assert response.status_code == 201, response.get_json()
    session = client.get(f"/api/sessions/{sid}").get_json()
    played = [e["answer"]["moves"][0] for e in session["events"]
              if e["kind"] == "move" and not e["undone"]]  # fmt: skip
    replay = client.post("/api/wauri/play", json={"position": START, "moves": played}).get_json()
    expected = {k: v for k, v in replay["answer"].items() if k != "winner"}
    assert session["state"] == expected
    text = client.get(f"/api/sessions/{sid}/export?format=notation").get_data(as_text=True)
    events = [line for line in text.splitlines() if not line.startswith("#")][1:]  # no start
    assert [line.rsplit(": ", 1)[1] for line in events] == list(map(str, played))
