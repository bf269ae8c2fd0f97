"""Helpers of the reliability tests (``tests/test_reliability_*.py``) and benchmarks.

- hostile images: :func:`png_header_bomb`, :func:`jpeg_header_bomb` (a few hundred
  bytes whose header declares a huge size), :func:`compressible_png` (a real, valid PNG
  that inflates to ``width × height`` pixels from a few KB);
- :func:`decode_peak_rss`: decode bytes with :func:`vision.image_io.decode_photo` in a
  fresh child process and measure its peak resident memory (``VmHWM``);
- :func:`fuzz_examples`: example counts of the fuzz tests, scaled by the environment;
- :class:`ServeProcess`: ``boardcam serve`` as a real child process on a free loopback
  port with its own instance folder (start, JSON requests, SIGKILL, restart).
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import struct
import subprocess
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Multiplies every fuzz test's example count (``BOARDCAM_FUZZ_SCALE=20`` for a long run).
FUZZ_SCALE = float(os.environ.get("BOARDCAM_FUZZ_SCALE", "1"))


def fuzz_examples(n: int) -> int:
    """``n`` hypothesis examples scaled by ``BOARDCAM_FUZZ_SCALE`` (default 1)."""
    return max(1, round(n * FUZZ_SCALE))


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def png_header_bomb(width: int = 50_000, height: int = 50_000) -> bytes:
    """A tiny PNG whose IHDR declares ``width × height`` RGB pixels (the data is a
    few bytes: the file is a lie that only a decoder trusting the header would act on)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\0" * 64)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", ihdr)
        + _png_chunk(b"IDAT", idat)
        + _png_chunk(b"IEND", b"")
    )


def jpeg_header_bomb(width: int = 50_000, height: int = 50_000) -> bytes:
    """A small real JPEG whose SOF marker is patched to declare ``width × height``."""
    import cv2
    import numpy as np

    ok, buf = cv2.imencode(".jpg", np.full((16, 16, 3), 128, np.uint8))
    assert ok
    data = bytearray(buf.tobytes())
    i = 2
    while i < len(data):
        marker, length = data[i + 1], struct.unpack(">H", data[i + 2 : i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):  # SOF0/1/2: precision, height, width
            data[i + 5 : i + 9] = struct.pack(">HH", height, width)
            return bytes(data)
        i += 2 + length
    raise AssertionError("no SOF marker found")


def compressible_png(width: int, height: int) -> bytes:
    """A valid 1-bit black PNG of ``width × height`` pixels: about 1 KB per 8 million
    pixels, it inflates to the full pixel count (the classic decompression bomb)."""
    row = b"\0" * (1 + (width + 7) // 8)  # filter byte + packed bits
    packer = zlib.compressobj(9)
    idat = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", ihdr)
        + _png_chunk(b"IDAT", idat)
        + _png_chunk(b"IEND", b"")
    )


_DECODE_CHILD = r"""
import json, resource, sys, time
from vision.image_io import PhotoError, decode_photo

def peak_kb():
    # VmHWM: this process image's own high-water mark. (ru_maxrss is not: Linux carries
    # it over from the parent through fork and exec, so a big parent hides the child.)
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

data = open(sys.argv[1], "rb").read()
max_pixels = int(sys.argv[2])
base = peak_kb()
start = time.perf_counter()
try:
    shape = list(decode_photo(data, max_pixels=max_pixels).shape)
    outcome, message = "decoded", ""
except PhotoError as exc:
    shape, outcome, message = None, "refused", str(exc)
seconds = time.perf_counter() - start
peak = peak_kb()
print(json.dumps({"outcome": outcome, "message": message, "shape": shape,
                  "seconds": seconds, "base_kb": base, "peak_kb": peak}))
"""


def decode_peak_rss(data: bytes, max_pixels: int, folder: Path, timeout: float = 60) -> dict:
    """Decode ``data`` in a fresh Python process; return its outcome and memory.

    Keys: ``outcome`` (``decoded``/``refused``), ``message``, ``shape``, ``seconds``,
    ``base_kb`` (peak RSS after the imports and reading the bytes, before decoding),
    ``peak_kb`` (peak RSS after decoding) and ``growth_mb`` (the difference: what
    decoding added, in MB). Peak RSS is Linux's ``VmHWM`` (``ru_maxrss`` elsewhere).
    """
    path = Path(folder) / "upload.bin"
    path.write_bytes(data)
    proc = subprocess.run(
        [sys.executable, "-c", _DECODE_CHILD, str(path), str(max_pixels)],
        capture_output=True, text=True, timeout=timeout, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    report["growth_mb"] = (report["peak_kb"] - report["base_kb"]) / 1024
    return report


class ServeProcess:
    """``boardcam serve --port PORT --instance DIR`` as a child process on loopback."""

    def __init__(self, instance: Path, port: int = 0, *extra: str):
        self.instance, self.port, self.extra = Path(instance), port, extra
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60) -> ServeProcess:
        """Start the server and wait for its first line (the URL with the bound port)."""
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion_web.cli", "serve", "--host", "127.0.0.1",
             "--port", str(self.port), "--instance", str(self.instance), *self.extra],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)},
            start_new_session=True,
        )  # fmt: skip
        line = self.proc.stdout.readline()
        if not line.startswith("boardcam companion on http://127.0.0.1:"):
            self.kill()
            raise RuntimeError(f"serve did not start: {line!r}")
        self.port = int(line.rsplit(":", 1)[1].strip().strip("/"))
        return self

    def request(self, method: str, path: str, body=None, timeout: float = 60):
        """``(status, JSON answer)`` of one request (a fresh connection)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            headers = {"Content-Type": "application/json"} if body is not None else {}
            payload = json.dumps(body) if body is not None else None
            conn.request(method, path, body=payload, headers=headers)
            response = conn.getresponse()
            return response.status, json.loads(response.read() or b"null")
        finally:
            conn.close()

    def kill(self) -> None:
        """SIGKILL the server and everything it started (its process group)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(10)
        if self.proc.stdout:
            self.proc.stdout.close()

    def rss_kb(self) -> int:
        """The server process's current resident memory in KB (Linux ``/proc``)."""
        with open(f"/proc/{self.proc.pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0
