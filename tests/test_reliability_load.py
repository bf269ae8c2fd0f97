"""Load on a real ``boardcam serve``: no errors, bounded memory; oversized bodies are
refused from their headers. The full figure (20 clients × 60 s) is
``benchmarks/web_load.py --serve``; this is its quick version."""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

import pytest
from reliability_support import ServeProcess

ROOT = Path(__file__).resolve().parent.parent


def test_oversized_body_is_refused_before_it_is_sent(tmp_path):
    """waitress's own limit follows MAX_CONTENT_LENGTH: a 200 MB upload is answered 413
    from its headers (before the fix waitress waited for, and spooled, up to 1 GB)."""
    server = ServeProcess(tmp_path / "instance").start()
    try:
        raw = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        raw.sendall(
            b"POST /api/caribo/recognize HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: multipart/form-data; boundary=b\r\n"
            b"Content-Length: 200000000\r\n\r\n--b\r\n" + b"\0" * 1024
        )
        start = time.monotonic()
        answer = raw.recv(4096)
        raw.close()
        assert answer.startswith(b"HTTP/1.1 413"), answer[:80]
        assert time.monotonic() - start < 5
        # the server is fine afterwards
        assert server.request("GET", "/api/status")[0] == 200
    finally:
        server.kill()


@pytest.mark.slow
def test_quick_load_has_no_errors_and_bounded_memory():
    """5 clients posting 1080p Wauri frames for 3 s to a real ``boardcam serve``."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import web_load
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    report = web_load.run_serve("wauri", clients=5, seconds=3, threads=4)
    assert report["server_alive_at_end"]
    assert report["requests"] >= 5, report
    assert report["errors"] == 0, report["statuses"]
    assert report["rss_peak_mb"] < 800, report
