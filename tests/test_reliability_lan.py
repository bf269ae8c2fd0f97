"""LAN mode security: pairing on every route, random constant-time tokens, no path
traversal, and a client address that cannot be spoofed.

Checked at both layers: the WSGI app (Flask test client, where the pairing check
lives) and the real HTTPS path (``TLSTerminator`` → waitress → app, as
``boardcam serve --lan`` wires it, and that command itself as a child process).
"""

from __future__ import annotations

import hmac
import http.client
import json
import os
import secrets
import shutil
import ssl
import subprocess
import sys
import time

import pytest
from web_scaffolding import LiveServer

from companion_web import create_app
from companion_web.commands import serve as serve_command
from companion_web.pairing import COOKIE, HEADER
from companion_web.tls import PeerAddress, TLSTerminator, ensure_certificate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKEN = secrets.token_urlsafe(24)
needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl tool")
ARGUMENTS = {"filename": "app.js", "name": None, "game": "caribo", "size": "9"}


@pytest.fixture
def lan_app(tmp_path):
    app = create_app(
        {
            "INSTANCE_PATH": str(tmp_path / "instance"),
            "PAIRING_TOKEN": TOKEN,
            "PUBLIC_URL": "https://192.168.1.20:8000",
        }
    )

    @app.get("/test-only/whoami")  # test route: the address the app sees
    def whoami():
        from flask import jsonify, request

        return jsonify(addr=request.remote_addr, port=request.environ.get("REMOTE_PORT"),
                       forwarded=request.headers.get("X-Forwarded-For"))  # fmt: skip

    return app


def _every_route(app, session_id: str) -> list[tuple[str, str]]:
    """(method, URL) of every route of the app, arguments filled with real values."""
    sample = next(iter(_samples(app)), "none.jpg")
    values = {**ARGUMENTS, "name": sample, "session_id": session_id}
    out = []
    for rule in app.url_map.iter_rules():
        url = rule.rule
        for arg in rule.arguments:
            for conv in ("path:", "int:", ""):
                url = url.replace(f"<{conv}{arg}>", values[arg])
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            out.append((method, url))
    out += [("GET", "/no/such/page"), ("GET", "/static/no-such.js"), ("PUT", "/api/sessions")]
    return out


def _samples(app):
    with app.test_request_context():
        from companion_web.status import sample_pictures

        return sample_pictures()


def test_every_route_is_refused_without_the_token(lan_app):
    client = lan_app.test_client()
    created = client.post("/api/sessions", json={"game": "wauri"}, headers={HEADER: TOKEN})
    assert created.status_code == 201
    routes = _every_route(lan_app, created.get_json()["id"])
    assert len(routes) >= 30
    assert any(url.startswith("/static/") for _m, url in routes)
    assert any(url.startswith("/sample_images/") for _m, url in routes)
    wrong = ["", "x", TOKEN[:-1], TOKEN + "x", TOKEN.upper(), " " + TOKEN, TOKEN[:8], "é"]
    for method, url in routes:
        assert client.open(url, method=method).status_code == 403, (method, url)
        for bad in wrong:
            for kwargs in ({"headers": {HEADER: bad}}, {"query_string": {"token": bad}}):
                response = client.open(url, method=method, **kwargs)
                assert response.status_code == 403, (method, url, bad)
        other = lan_app.test_client()
        other.set_cookie(COOKIE, TOKEN[:-1] + ("A" if TOKEN[-1] != "A" else "B"))
        assert other.open(url, method=method).status_code == 403, (method, url)
    # and the same URLs are real: with the token none of them is refused
    for method, url in routes:
        if method == "GET":
            assert client.get(url, headers={HEADER: TOKEN}).status_code != 403, url


def test_api_refusal_is_json_and_pages_are_html(lan_app):
    client = lan_app.test_client()
    api = client.post("/api/wauri/play", json={})
    assert api.status_code == 403 and "not paired" in api.get_json()["error"]
    page = client.get("/caribo/")
    assert page.status_code == 403 and page.mimetype == "text/html"
    assert TOKEN not in page.get_data(as_text=True)  # the refusal never leaks the token


def test_token_is_random_from_secrets(monkeypatch, tmp_path):
    """``serve --lan`` draws the token from :func:`secrets.token_urlsafe` (≥ 128 bits),
    a new one per start."""
    drawn, apps = [], []
    real_token = secrets.token_urlsafe

    def spy_token(nbytes=None):
        value = real_token(nbytes)
        drawn.append((nbytes, value))
        return value

    import companion_web

    original_create = companion_web.create_app

    def spy_create(config=None):
        app = original_create(config)
        apps.append(app)
        return app

    class NoServer:  # waitress stand-in: returns at once, as after Ctrl-C
        effective_port = 1

        def run(self):
            raise KeyboardInterrupt

        def close(self):
            pass

    class NoTerminator:
        port = 1

        def __init__(self, *args, **kwargs):
            pass

        def start(self):
            return self

        def stop(self):
            pass

    import waitress

    import companion_web.tls as tls

    monkeypatch.setattr(serve_command.secrets, "token_urlsafe", spy_token)
    monkeypatch.setattr(companion_web, "create_app", spy_create)
    monkeypatch.setattr(waitress, "create_server", lambda *a, **k: NoServer())
    monkeypatch.setattr(tls, "TLSTerminator", NoTerminator)
    monkeypatch.setattr(tls, "ensure_certificate", lambda folder, hosts: ("c", "k"))
    for _ in range(2):
        assert serve_command._run_lan(_namespace(tmp_path)) == 0
    assert len(drawn) == 2 and all(nbytes >= 16 for nbytes, _ in drawn)
    assert [a.config["PAIRING_TOKEN"] for a in apps] == [v for _n, v in drawn]
    assert drawn[0][1] != drawn[1][1]


def _namespace(tmp_path):
    import argparse

    return argparse.Namespace(host="127.0.0.1", port=0, lan=True, threads=1,
                              instance=str(tmp_path / "instance"))  # fmt: skip


def test_tokens_are_compared_with_compare_digest_only(lan_app, monkeypatch):
    """Every check goes through :func:`hmac.compare_digest` (constant time), and its
    verdict alone decides: a spy that says "different" refuses the right token."""
    import companion_web.pairing as pairing

    calls = []
    verdict = {"value": None}
    real = hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b) if verdict["value"] is None else verdict["value"]

    monkeypatch.setattr(pairing.hmac, "compare_digest", spy)
    client = lan_app.test_client()
    assert client.get("/api/status", headers={HEADER: TOKEN}).status_code == 200
    assert calls and calls[-1] == (TOKEN.encode(), TOKEN.encode())
    verdict["value"] = False
    assert client.get("/api/status", headers={HEADER: TOKEN}).status_code == 403
    verdict["value"] = True
    assert client.get("/api/status", headers={HEADER: "anything"}).status_code == 200
    assert calls[-1] == (b"anything", TOKEN.encode())


# --- path traversal ---------------------------------------------------------------


TRAVERSALS = [
    "../secret.jpg", "..%2fsecret.jpg", "%2e%2e%2fsecret.jpg", "%2e%2e/secret.jpg",
    "..%252fsecret.jpg", "%252e%252e%252fsecret.jpg", "..\\secret.jpg", "..%5csecret.jpg",
    "link.jpg", "dirlink/inner.jpg", "sub/../../secret.jpg", "./../secret.jpg",
    "{abs}", "/{abs}", "%2f{abs}", "secret.jpg%00.jpg", "....//secret.jpg", "..;/secret.jpg",
]  # fmt: skip


@pytest.fixture
def traversal_app(tmp_path):
    samples = tmp_path / "samples"
    (samples / "sub").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "sample_images", "caribo_easy_107.jpg"), samples / "a.jpg")
    secret = tmp_path / "secret.jpg"
    secret.write_bytes(b"SECRET-OUTSIDE-THE-SAMPLE-FOLDER")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "inner.jpg").write_bytes(b"SECRET-IN-A-LINKED-FOLDER")
    (samples / "link.jpg").symlink_to(secret)
    (samples / "dirlink").symlink_to(outside, target_is_directory=True)
    app = create_app({"INSTANCE_PATH": str(tmp_path / "instance"),
                      "SAMPLE_IMAGES": str(samples)})  # fmt: skip
    return app, secret


def test_no_route_serves_a_file_outside_the_sample_and_static_folders(traversal_app):
    app, secret = traversal_app
    client = app.test_client()
    assert client.get("/sample_images/a.jpg").status_code == 200  # the real one works
    assert client.get("/static/app.js").status_code == 200
    listed = client.get("/api/status").get_json()["sample_images"]
    assert listed == ["a.jpg"]  # symlinks leading out are not even listed
    for prefix in ("/sample_images/", "/static/", "/api/calibrate/", "/api/calibration/",
                   "/api/colomino/layout/", "/api/sessions/"):  # fmt: skip
        for attack in TRAVERSALS:
            url = prefix + attack.format(abs=str(secret).lstrip("/"))
            for method in ("GET", "POST", "DELETE"):
                response = client.open(url, method=method)
                assert b"SECRET" not in response.data, (method, url)
                assert response.status_code in (308, 400, 404, 405), (method, url)
                if response.status_code == 308:  # werkzeug merged "//": follow once
                    target = response.headers["Location"]
                    again = client.open(target, method=method)
                    assert b"SECRET" not in again.data and again.status_code != 200, target
    assert secret.exists()


def test_calibration_delete_cannot_reach_outside_the_instance(traversal_app, tmp_path):
    app, _ = traversal_app
    victim = tmp_path / "instance" / ".." / "victim.json"
    victim.write_text("{}")
    client = app.test_client()
    for name in ("../victim", "..%2fvictim", "%2e%2e%2fvictim", "..\\victim", "/victim"):
        client.delete(f"/api/calibration/{name}")
    assert victim.exists()


# --- the real HTTPS path: terminator → waitress → app -----------------------------------


@pytest.fixture
def https_stack(tmp_path, lan_app):
    cert, key = ensure_certificate(tmp_path / "tls", ["127.0.0.1", "localhost"])
    backend = LiveServer(lan_app, url_scheme="https").start()
    terminator = TLSTerminator("127.0.0.1", 0, ("127.0.0.1", backend.port), cert, key).start()
    lan_app.wsgi_app = PeerAddress(lan_app.wsgi_app, terminator)  # as serve --lan does
    context = ssl.create_default_context(cafile=str(cert))
    yield lan_app, terminator, backend, context
    terminator.stop()
    backend.stop()


def _https(terminator, context, source="127.0.0.1"):
    return http.client.HTTPSConnection("127.0.0.1", terminator.port, context=context,
                                       timeout=10, source_address=(source, 0))  # fmt: skip


@needs_openssl
def test_every_route_is_refused_through_the_terminator(https_stack):
    app, terminator, _backend, context = https_stack
    client = app.test_client()
    sid = client.post("/api/sessions", json={"game": "wauri"}, headers={HEADER: TOKEN})
    conn = _https(terminator, context)
    for method, url in _every_route(app, sid.get_json()["id"]):
        conn.request(method, url, headers={"X-Forwarded-For": "127.0.0.1"})
        response = conn.getresponse()
        response.read()
        assert response.status == 403, (method, url)
    conn.close()


@needs_openssl
def test_the_app_sees_the_real_peer_and_cannot_be_spoofed(https_stack):
    app, terminator, backend, context = https_stack
    spoof = {
        HEADER: TOKEN,
        "X-Forwarded-For": "6.6.6.6",
        "X-Forwarded-Host": "evil.example",
        "Forwarded": "for=6.6.6.6",
        "X-Real-IP": "6.6.6.6",
    }
    seen = {}
    for source in ("127.0.0.2", "127.0.0.3"):
        conn = _https(terminator, context, source)
        for _ in range(2):  # two requests on one keep-alive connection
            conn.request("GET", "/test-only/whoami", headers=spoof)
            response = conn.getresponse()
            data = json.loads(response.read())
            assert response.status == 200
            assert data["addr"] == source and data["forwarded"] is None, data
            seen.setdefault(source, set()).add(data["port"])
        local_port = conn.sock.getsockname()[1]
        assert seen[source] == {str(local_port)}  # the client's own port, both times
        conn.close()
    # straight to the loopback backend (no terminator): a local process, spoof ignored
    direct = http.client.HTTPConnection("127.0.0.1", backend.port, timeout=10)
    direct.request("GET", "/test-only/whoami", headers=spoof)
    data = json.loads(direct.getresponse().read())
    assert data["addr"] == "127.0.0.1" and data["forwarded"] is None
    direct.close()
    # and the relays' entries are gone once their connections closed
    deadline = time.monotonic() + 5
    while terminator._peers and time.monotonic() < deadline:
        time.sleep(0.05)
    assert terminator._peers == {}


@needs_openssl
def test_serve_lan_logs_the_real_address_of_a_refused_client(tmp_path):
    """End to end through ``boardcam serve --lan``: an unpaired request from 127.0.0.2
    with a forged X-Forwarded-For is refused and logged under its real address."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion_web.cli", "serve", "--lan", "--host", "127.0.0.1",
         "--port", "0", "--instance", str(tmp_path / "instance")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        first = proc.stdout.readline()
        port = int(first.split("https://127.0.0.1:")[1].split("/")[0])
        context = ssl.create_default_context(cafile=str(tmp_path / "instance" / "lan-cert.pem"))
        conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10,
                                           source_address=("127.0.0.2", 0))  # fmt: skip
        conn.request("GET", "/api/status", headers={"X-Forwarded-For": "6.6.6.6"})
        assert conn.getresponse().status == 403
        conn.close()
    finally:
        proc.terminate()
        _out, err = proc.communicate(timeout=20)
    assert "refused an unpaired request from 127.0.0.2: GET /api/status" in err
    assert "6.6.6.6" not in err


REBINDING_REQUESTS = (
    ("GET", "/api/status", None),
    ("GET", "/", None),
    ("POST", "/api/sessions", b'{"game": "wauri"}'),
)


def test_localhost_serve_refuses_foreign_host_names(tmp_path):
    """DNS rebinding: a page on ``evil.example`` whose name is made to resolve to
    127.0.0.1 reaches the local companion with ``Host: evil.example``; ``serve`` on a
    loopback address answers only its loopback names (400 JSON otherwise)."""
    from reliability_support import ServeProcess

    server = ServeProcess(tmp_path / "instance").start()
    try:
        for host, expected in (
            (f"127.0.0.1:{server.port}", 200),
            (f"localhost:{server.port}", 200),
            (f"evil.example:{server.port}", 400),
            ("127.0.0.1.evil.example", 400),
            ("localhost.evil.example", 400),
        ):
            for method, path, body in REBINDING_REQUESTS:
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
                conn.putrequest(method, path, skip_host=True)
                conn.putheader("Host", host)
                if body is not None:
                    conn.putheader("Content-Type", "application/json")
                    conn.putheader("Content-Length", str(len(body)))
                conn.endheaders(body)
                response = conn.getresponse()
                data = response.read()
                conn.close()
                wanted = expected if not (method == "POST" and expected == 200) else 201
                assert response.status == wanted, (host, method, path, data[:100])
                if expected == 400:
                    assert b"not trusted" in data
        # nothing was created through a foreign name
        sessions = server.request("GET", "/api/sessions")[1]["sessions"]
        assert len(sessions) == 2  # the two through 127.0.0.1 and localhost
    finally:
        server.kill()


@needs_openssl
def test_one_address_cannot_hold_all_connections(tmp_path, lan_app):
    """A stranger without the token must not exhaust waitress's 100 connections: past
    ``max_per_address`` open TLS connections from one address, new ones are closed;
    other devices are served, and the address gets its room back as it closes some."""
    cert, key = ensure_certificate(tmp_path / "tls", ["127.0.0.1", "localhost"])
    backend = LiveServer(lan_app, url_scheme="https").start()
    terminator = TLSTerminator("127.0.0.1", 0, ("127.0.0.1", backend.port), cert, key,
                               max_per_address=3).start()  # fmt: skip
    context = ssl.create_default_context(cafile=str(cert))

    def status(conn):
        conn.request("GET", "/api/status", headers={HEADER: TOKEN})
        response = conn.getresponse()
        response.read()
        return response.status

    try:
        held = [_https(terminator, context, "127.0.0.2") for _ in range(3)]
        assert [status(c) for c in held] == [200, 200, 200]
        extra = _https(terminator, context, "127.0.0.2")
        with pytest.raises((http.client.HTTPException, ConnectionError, OSError)):
            status(extra)
        other = _https(terminator, context, "127.0.0.3")
        assert status(other) == 200
        other.close()
        held.pop().close()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            again = _https(terminator, context, "127.0.0.2")
            try:
                assert status(again) == 200
                break
            except (http.client.HTTPException, ConnectionError, OSError):
                time.sleep(0.1)  # the terminator has not seen the close yet
            finally:
                again.close()
        else:
            raise AssertionError("the address never got its connection back")
        for conn in held:
            conn.close()
    finally:
        terminator.stop()
        backend.stop()


def test_refusals_are_logged_once_a_minute_per_address(lan_app, caplog, monkeypatch):
    import companion_web.pairing as pairing

    monkeypatch.setattr(pairing, "_last_logged", {})
    client = lan_app.test_client()
    with caplog.at_level("WARNING", logger=lan_app.logger.name):
        for _ in range(50):
            client.get("/api/status", environ_base={"REMOTE_ADDR": "192.0.2.7"})
        client.get("/api/status", environ_base={"REMOTE_ADDR": "192.0.2.8"})
    lines = [r.getMessage() for r in caplog.records if "unpaired" in r.getMessage()]
    assert len(lines) == 2
    assert "from 192.0.2.7" in lines[0] and "from 192.0.2.8" in lines[1]
