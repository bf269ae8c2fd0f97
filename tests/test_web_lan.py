"""LAN mode: pairing token, QR code, self-signed certificate, HTTPS through the terminator."""

from __future__ import annotations

import http.client
import json
import shutil
import ssl
import subprocess

import pytest
from web_scaffolding import LiveServer

from companion_web import create_app
from companion_web.commands.serve import pairing_banner
from companion_web.pairing import COOKIE
from companion_web.tls import TLSTerminator, ensure_certificate

TOKEN = "s3cret-token-for-tests"
needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl tool")


@pytest.fixture
def lan_app(tmp_path):
    return create_app(
        {
            "TESTING": True,
            "INSTANCE_PATH": str(tmp_path / "instance"),
            "PAIRING_TOKEN": TOKEN,
            "PUBLIC_URL": "https://192.168.1.20:8000",
        }
    )


def test_everything_needs_the_token(lan_app):
    client = lan_app.test_client()
    for path in ("/", "/caribo/", "/static/app.js", "/api/status", "/pairing.svg"):
        response = client.get(path)
        assert response.status_code == 403, path
    assert "not paired" in client.get("/api/status").get_json()["error"]
    assert client.get("/api/status?token=wrong").status_code == 403
    assert client.get("/api/status", headers={"X-Pairing-Token": "wrong"}).status_code == 403


def test_token_in_the_url_pairs_the_browser_with_a_cookie(lan_app):
    client = lan_app.test_client()
    first = client.get(f"/?token={TOKEN}")
    assert first.status_code == 200
    cookie = first.headers["Set-Cookie"]
    assert f"{COOKIE}={TOKEN}" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    # the cookie now carries the pairing
    assert client.get("/api/status").get_json()["lan"] is True
    other = lan_app.test_client()
    assert other.get("/api/status", headers={"X-Pairing-Token": TOKEN}).status_code == 200


def test_start_page_shows_the_pairing_url_and_its_qr(lan_app):
    html = lan_app.test_client().get(f"/?token={TOKEN}").get_data(as_text=True)
    assert f"https://192.168.1.20:8000/?token={TOKEN}" in html
    assert "<svg" in html
    svg = lan_app.test_client().get("/pairing.svg", headers={"X-Pairing-Token": TOKEN})
    assert svg.mimetype == "image/svg+xml" and svg.data.startswith(b"<?xml")


def test_qr_decodes_to_the_pairing_url(lan_app):
    """The QR code on the page carries exactly the URL (decoded with OpenCV)."""
    import cv2
    import numpy as np
    import segno

    url = f"https://192.168.1.20:8000/?token={TOKEN}"
    matrix = np.array(segno.make(url, error="m").matrix, dtype=np.uint8)
    img = np.kron(np.pad(1 - matrix, 4, constant_values=1) * 255, np.ones((8, 8), np.uint8))
    decoded, _points, _ = cv2.QRCodeDetector().detectAndDecode(img)
    assert decoded == url
    banner = pairing_banner(url)
    assert url in banner and "█" in banner


def test_no_pairing_in_localhost_mode(client):
    assert client.get("/api/status").status_code == 200
    assert client.get("/pairing.svg").status_code == 404


@needs_openssl
def test_certificate_is_made_once_and_covers_the_hosts(tmp_path):
    cert, key = ensure_certificate(tmp_path, ["192.168.1.20", "localhost", "127.0.0.1"])
    assert key.stat().st_mode & 0o077 == 0
    text = subprocess.run(["openssl", "x509", "-in", str(cert), "-noout", "-ext",
                           "subjectAltName"], capture_output=True, text=True).stdout  # fmt: skip
    assert "IP Address:192.168.1.20" in text and "DNS:localhost" in text
    stamp = cert.stat().st_mtime_ns
    again, _ = ensure_certificate(tmp_path, ["192.168.1.20", "localhost"])
    assert again.stat().st_mtime_ns == stamp
    # a new address makes a new certificate
    ensure_certificate(tmp_path, ["10.0.0.7"])
    assert cert.stat().st_mtime_ns != stamp


@needs_openssl
def test_https_through_the_terminator_end_to_end(tmp_path, lan_app):
    cert, key = ensure_certificate(tmp_path / "tls", ["127.0.0.1", "localhost"])
    backend = LiveServer(lan_app, url_scheme="https").start()  # as `serve --lan` runs it
    terminator = TLSTerminator("127.0.0.1", 0, ("127.0.0.1", backend.port), cert, key).start()
    try:
        context = ssl.create_default_context(cafile=str(cert))  # trust exactly this cert
        conn = http.client.HTTPSConnection("127.0.0.1", terminator.port, context=context,
                                           timeout=10)  # fmt: skip
        conn.request("GET", "/api/status")
        response = conn.getresponse()
        assert response.status == 403
        response.read()
        # keep-alive: a second request on the same TLS connection
        conn.request("GET", "/api/status", headers={"X-Pairing-Token": TOKEN})
        response = conn.getresponse()
        assert response.status == 200
        assert json.loads(response.read())["lan"] is True
        conn.close()
        # the pairing cookie is marked Secure when served over HTTPS
        conn = http.client.HTTPSConnection("127.0.0.1", terminator.port, context=context,
                                           timeout=10)  # fmt: skip
        conn.request("GET", f"/?token={TOKEN}")
        response = conn.getresponse()
        cookie = response.getheader("Set-Cookie")
        assert "Secure" in cookie
        response.read()
        conn.close()
        # plain HTTP to the TLS port gets nothing
        plain = http.client.HTTPConnection("127.0.0.1", terminator.port, timeout=10)
        with pytest.raises((http.client.HTTPException, ConnectionError, OSError)):
            plain.request("GET", "/api/status")
            plain.getresponse().read()
    finally:
        terminator.stop()
        backend.stop()


def test_serve_refuses_a_bad_port(cli):
    result = cli("serve", "--port", "70000")
    assert result.code == 2 and "--port" in result.err


def _start_serve(*args, tmp_path):
    """Start ``boardcam serve ARGS --port 0 --instance TMP`` (stdout piped)."""
    import os
    import signal
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "companion_web.cli", "serve", *args, "--port", "0",
         "--instance", str(tmp_path / "instance")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        # A shell without job control starts background jobs with SIGINT ignored, and the
        # child would inherit that: _stop() stands for Ctrl-C, so give it the default.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    return proc


def _stop(proc):
    import signal

    proc.send_signal(signal.SIGINT)
    try:
        return proc.wait(20)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_boardcam_serve_plain(tmp_path):
    proc = _start_serve("--host", "127.0.0.1", tmp_path=tmp_path)
    try:
        line = proc.stdout.readline()
        assert line.startswith("boardcam companion on http://127.0.0.1:"), line
        port = int(line.rsplit(":", 1)[1].strip("/\n"))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/api/status")
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        assert _stop(proc) == 0
    assert (tmp_path / "instance" / "boardcam.sqlite3").is_file()


@needs_openssl
def test_boardcam_serve_lan_end_to_end(tmp_path):
    proc = _start_serve("--lan", "--host", "127.0.0.1", tmp_path=tmp_path)
    try:
        first = proc.stdout.readline()
        assert first.startswith("boardcam companion on https://127.0.0.1:"), first
        assert proc.stdout.readline().startswith("Pair a phone")
        url = proc.stdout.readline().strip()
        assert "/?token=" in url
        qr = proc.stdout.readline()
        assert "█" in qr or "▀" in qr  # the QR code follows in the terminal
        port = int(url.split(":")[2].split("/")[0])
        cert = tmp_path / "instance" / "lan-cert.pem"
        context = ssl.create_default_context(cafile=str(cert))
        conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
        conn.request("GET", "/api/status")
        assert conn.getresponse().status == 403
        conn.close()
        conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
        conn.request("GET", url.split(str(port), 1)[1])
        response = conn.getresponse()
        assert response.status == 200 and COOKIE in response.getheader("Set-Cookie")
        conn.close()
    finally:
        assert _stop(proc) == 0
