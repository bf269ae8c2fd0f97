"""Crash safety: ``boardcam serve`` killed with SIGKILL mid-game loses no confirmed move.

The server runs as a real child process (``boardcam serve --port 0 --instance DIR``)
with its own instance folder. Moves are confirmed over HTTP (each 201 is a promise that
the move is stored: one SQLite transaction per move, WAL journal). The process group is
then killed with SIGKILL — between requests, while a request body is half sent, and at
a random moment while a client keeps confirming moves — and a fresh server on the same
folder must show every confirmed move, in order, with the same states; a move whose
answer was lost with the kill is either wholly there or wholly absent.
"""

from __future__ import annotations

import http.client
import json
import random
import socket
import sqlite3
import threading
import time

import pytest
from reliability_support import ServeProcess


def _next_pit(state: dict) -> int:
    """A legal Wauri move: the mover's first non-empty pit (1-6)."""
    row = state[state["to_move"]]
    return next(i + 1 for i, seeds in enumerate(row) if seeds)


def _play(server: ServeProcess, sid: str, state: dict, count: int) -> list[dict]:
    """Confirm ``count`` moves; return the states the server confirmed (201)."""
    confirmed = []
    for _ in range(count):
        status, body = server.request(
            "POST", f"/api/sessions/{sid}/events", {"kind": "move", "moves": [_next_pit(state)]}
        )
        assert status == 201, body
        state = body["session"]["state"]
        confirmed.append(state)
        if body["session"]["summary"]["over"]:
            break
    return confirmed


def _active_states(server: ServeProcess, sid: str) -> list[dict]:
    status, session = server.request("GET", f"/api/sessions/{sid}")
    assert status == 200, session
    return [e["state"] for e in session["events"] if e["kind"] == "move" and not e["undone"]]


def _check_database(instance) -> None:
    conn = sqlite3.connect(instance / "boardcam.sqlite3")
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


@pytest.fixture
def servers():
    started: list[ServeProcess] = []

    def start(instance):
        server = ServeProcess(instance).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()


def test_sigkill_between_moves_keeps_every_confirmed_move(tmp_path, servers):
    instance = tmp_path / "instance"
    server = servers(instance)
    status, session = server.request("POST", "/api/sessions", {"game": "wauri"})
    assert status == 201
    sid = session["id"]
    confirmed = _play(server, sid, session["state"], 6)
    assert len(confirmed) == 6
    server.kill()
    assert server.proc.returncode == -9  # really killed, no clean shutdown

    server = servers(instance)
    assert _active_states(server, sid) == confirmed
    # the game goes on where it stopped
    confirmed += _play(server, sid, confirmed[-1], 2)
    server.kill()
    server = servers(instance)
    assert _active_states(server, sid) == confirmed
    # an answered undo survives a kill too (it is one transaction as well)
    status, _ = server.request("POST", f"/api/sessions/{sid}/undo")
    assert status == 200
    server.kill()
    server = servers(instance)
    assert _active_states(server, sid) == confirmed[:-1]
    _check_database(instance)


def test_sigkill_while_a_request_body_is_half_sent(tmp_path, servers):
    instance = tmp_path / "instance"
    server = servers(instance)
    status, session = server.request("POST", "/api/sessions", {"game": "wauri"})
    sid = session["id"]
    confirmed = _play(server, sid, session["state"], 3)
    # a move whose body is still arriving when the server dies
    body = json.dumps({"kind": "move", "moves": [_next_pit(confirmed[-1])]}).encode()
    raw = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    raw.sendall(
        f"POST /api/sessions/{sid}/events HTTP/1.1\r\nHost: x\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body[: len(body) // 2]
    )
    time.sleep(0.3)
    server.kill()
    raw.close()

    server = servers(instance)
    assert _active_states(server, sid) == confirmed  # the half move never happened
    _check_database(instance)


def test_sigkill_at_a_random_moment_of_a_busy_game(tmp_path, servers):
    """A client confirms moves as fast as it can; the server is killed at random
    moments (twice). Every answered move survives; the one in flight at the kill
    is wholly stored or wholly absent."""
    instance = tmp_path / "instance"
    server = servers(instance)
    status, session = server.request("POST", "/api/sessions", {"game": "wauri"})
    sid = session["id"]
    confirmed: list[dict] = []
    rng = random.Random(8)
    for _round in range(2):
        state = confirmed[-1] if confirmed else session["state"]
        attempted: list[dict] = []
        stop, answered = threading.Event(), threading.Event()

        def client(state=state, port=server.port, attempted=attempted, stop=stop,
                   answered=answered):  # fmt: skip
            while not stop.is_set():
                body = {"kind": "move", "moves": [_next_pit(state)]}
                attempted.append(body)
                try:
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                    conn.request("POST", f"/api/sessions/{sid}/events", json.dumps(body),
                                 {"Content-Type": "application/json"})  # fmt: skip
                    response = conn.getresponse()
                    answer = json.loads(response.read())
                    conn.close()
                except (OSError, http.client.HTTPException, ValueError):
                    return  # the server died under this request
                if response.status != 201:
                    return
                state = answer["session"]["state"]
                confirmed.append(state)
                answered.set()
                if answer["session"]["summary"]["over"]:
                    return

        thread = threading.Thread(target=client, daemon=True)
        before = len(confirmed)
        thread.start()
        assert answered.wait(30), "no move was confirmed"
        time.sleep(rng.uniform(0.0, 0.8))  # then a random moment, mostly mid-request
        server.kill()
        stop.set()
        thread.join(15)
        assert not thread.is_alive()
        assert len(confirmed) > before, "no move was confirmed before the kill"

        server = servers(instance)
        stored = _active_states(server, sid)
        assert stored[: len(confirmed)] == confirmed
        # at most the one move whose answer the kill swallowed, and only whole
        assert len(stored) - len(confirmed) in (0, 1)
        if len(stored) > len(confirmed):
            confirmed.append(stored[-1])
        if stored and server.request("GET", f"/api/sessions/{sid}")[1]["summary"]["over"]:
            break
    _check_database(instance)
