"""Load benchmark of ``POST /api/<game>/recognize``: latency with concurrent clients.

Starts the companion under waitress (as ``boardcam serve`` does) on a free local port,
then N client threads post 1080p JPEGs for a fixed time or number of requests and the
script prints the latency percentiles (p50, p95, max), throughput and the status
codes seen, as a table and (``--json``) as one JSON object.

Pictures: the sample pictures of the game (``sample_images/``) resized to 1920×1080,
or a synthetic 1080p picture when there are none. By default the real recogniser is
measured; while a game has no recogniser the endpoint answers 503 after decoding the
upload, so the figure is then the upload + decode + dispatch cost only — the report
says which (``statuses``).

    python benchmarks/web_load.py --game caribo --clients 4 --requests 40
    python benchmarks/web_load.py --game caribo --decode-only   # the web layer alone
"""

from __future__ import annotations

import argparse
import http.client
import json
import logging
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion_web import create_app  # noqa: E402

SIZE = (1920, 1080)


def pictures(game: str, limit: int = 4) -> list[bytes]:
    """1080p JPEG bytes of the game's sample pictures (or one synthetic picture)."""
    out = []
    for path in sorted((ROOT / "sample_images").glob(f"{game}*.jpg"))[:limit]:
        img = cv2.imread(str(path))
        if img is not None:
            out.append(_jpeg(cv2.resize(img, SIZE, interpolation=cv2.INTER_AREA)))
    if not out:
        rng = np.random.default_rng(0)
        img = np.full((SIZE[1], SIZE[0], 3), (60, 110, 160), np.uint8)
        for _ in range(30):
            centre = (int(rng.integers(0, SIZE[0])), int(rng.integers(0, SIZE[1])))
            cv2.circle(img, centre, 40, tuple(int(c) for c in rng.integers(0, 255, 3)), -1)
        out.append(_jpeg(img))
    return out


def _jpeg(img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()


def multipart(data: bytes) -> tuple[bytes, str]:
    """A multipart/form-data body with the photo as field ``image``."""
    boundary = uuid.uuid4().hex
    head = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; "
        f"filename=\"frame.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
    ).encode()
    return head + data + f"\r\n--{boundary}--\r\n".encode(), boundary


def client_loop(port, game, bodies, deadline, quota, results, lock):
    """One client: keep-alive connection, post until the deadline or the quota is used."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    i = 0
    while time.perf_counter() < deadline:
        with lock:
            if quota[0] <= 0:
                break
            quota[0] -= 1
        body, boundary = bodies[i % len(bodies)]
        i += 1
        start = time.perf_counter()
        conn.request(
            "POST",
            f"/api/{game}/recognize",
            body=body,
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
        )
        response = conn.getresponse()
        response.read()
        elapsed = time.perf_counter() - start
        with lock:
            results.append((elapsed, response.status))
    conn.close()


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def decode_only(game, image, *, previous=None, calibration=None):
    """BENCHMARK STUB, not a recogniser: answers at once, so the timing is the web layer's
    own cost (upload, multipart parsing, header check, full decode, JSON)."""
    return {"game": game, "confidence": 0.0, "warnings": ["benchmark stub: decode only"]}


def run(game: str, clients: int, requests: int, seconds: float, threads: int,
        stub: bool = False) -> dict:  # fmt: skip
    """Serve the app, drive it with ``clients`` threads, return the measurements."""
    import waitress

    bodies = [multipart(p) for p in pictures(game)]
    with tempfile.TemporaryDirectory() as instance:
        config = {"INSTANCE_PATH": instance}
        if stub:
            config["RECOGNIZER"] = decode_only
        app = create_app(config)
        server = waitress.create_server(app, host="127.0.0.1", port=0, threads=threads)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            # warm-up: imports, first decode
            warm = []
            client_loop(server.effective_port, game, bodies, time.perf_counter() + 60, [1],
                        warm, threading.Lock())  # fmt: skip
            results: list[tuple[float, int]] = []
            lock = threading.Lock()
            quota = [requests]
            deadline = time.perf_counter() + seconds
            started = time.perf_counter()
            workers = [
                threading.Thread(
                    target=client_loop,
                    args=(server.effective_port, game, bodies, deadline, quota, results, lock),
                )
                for _ in range(clients)
            ]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            wall = time.perf_counter() - started
        finally:
            logging.getLogger("waitress").setLevel(logging.CRITICAL)  # quiet shutdown
            server.close()
    latencies = [r[0] * 1000 for r in results]
    statuses: dict[str, int] = {}
    for _lat, status in results:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    return {
        "game": game,
        "recognizer": "decode-only stub" if stub else "real (vision.recognize)",
        "clients": clients,
        "server_threads": threads,
        "requests": len(results),
        "upload_kb": round(statistics.mean(len(b[0]) for b in bodies) / 1024, 1),
        "picture": f"{SIZE[0]}x{SIZE[1]} JPEG",
        "p50_ms": round(percentile(latencies, 50), 1),
        "p95_ms": round(percentile(latencies, 95), 1),
        "max_ms": round(max(latencies), 1) if latencies else None,
        "throughput_rps": round(len(results) / wall, 2) if wall else None,
        "statuses": statuses,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=("caribo", "colomino", "wauri"), default="caribo")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--requests", type=int, default=40, help="total requests (40)")
    parser.add_argument("--seconds", type=float, default=120.0, help="time limit (120)")
    parser.add_argument("--threads", type=int, default=4, help="waitress threads (4)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--decode-only",
        action="store_true",
        help="replace the recogniser by a stub that answers at once (web layer cost only)",
    )
    args = parser.parse_args(argv)
    report = run(args.game, args.clients, args.requests, args.seconds, args.threads,
                 stub=args.decode_only)  # fmt: skip
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:>16}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
