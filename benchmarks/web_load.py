"""Load benchmark of ``POST /api/<game>/recognize``: latency, errors and memory under load.

Two modes:

- in-process (default): the companion under waitress in this process (as ``boardcam
  serve`` runs it); N client threads post 1080p JPEGs for a fixed time or number of
  requests; prints p50/p95/max latency, throughput and the status codes seen.
  ``--decode-only`` swaps the recogniser for a stub (the web layer's own cost).
- ``--serve`` (the reliability run): starts the real ``boardcam serve`` as a child
  process on a free loopback port with a fresh instance folder, drives it with N
  keep-alive clients for ``--seconds`` (requests still in flight at the end are waited
  for), samples the server's resident memory (its process tree, ``/proc``) every
  0.5 s, and reports requests, errors, p50/p95/max, throughput and RSS (after
  warm-up, peak, end, and whether it kept growing).

An *error* is anything but an answer: a connection failure or timeout, a 5xx, or a
4xx other than 422 (422 is the recogniser's documented "no board of this game in the
photo" answer). The server has no back-pressure status (no 429/503 for "busy"): a
request waits in waitress's queue, which holds at most one request per open connection
(``connection_limit`` 100, bodies over 512 KB spooled to disk).

Pictures: the sample pictures of the game (``sample_images/``) resized to 1920×1080,
or a synthetic 1080p picture when there are none. ``--game all`` rotates the three
games request by request.

    python benchmarks/web_load.py --game caribo --clients 4 --requests 40
    python benchmarks/web_load.py --game caribo --decode-only   # the web layer alone
    nice python benchmarks/web_load.py --serve --game all --clients 20 --seconds 60
"""

from __future__ import annotations

import argparse
import http.client
import json
import logging
import os
import statistics
import subprocess
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
GAMES = ("caribo", "colomino", "wauri")
#: Statuses that are answers (422: no board of the game in the photo).
ANSWERS = {200, 422}


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


def _tree_rss_kb(pid: int) -> int:
    """Resident memory (KB) of ``pid`` and all its descendants (Linux ``/proc``)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/status", encoding="ascii") as status:
                total += next(
                    (int(line.split()[1]) for line in status if line.startswith("VmRSS:")), 0
                )
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children", encoding="ascii") as kids:
                    todo += [int(k) for k in kids.read().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (Linux ``/proc``)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_serve(instance: str, threads: int) -> tuple[subprocess.Popen, int]:
    """``boardcam serve --port 0 --instance DIR`` as a child; returns it and its port."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion_web.cli", "serve", "--host", "127.0.0.1",
         "--port", "0", "--instance", instance, "--threads", str(threads)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    line = proc.stdout.readline()
    if "http://127.0.0.1:" not in line:
        proc.kill()
        raise RuntimeError(f"boardcam serve did not start: {line!r}")
    return proc, int(line.rsplit(":", 1)[1].strip().strip("/"))


def serve_client(port, jobs, deadline, results, lock, offset, limit=None):
    """One keep-alive client: post frames until ``deadline`` (or ``limit`` requests);
    record every outcome as ``(game, seconds, status or the exception's name)``."""
    conn = None
    i = offset
    while time.perf_counter() < deadline and (limit is None or i - offset < limit):
        game, (body, boundary) = jobs[i % len(jobs)]
        i += 1
        start = time.perf_counter()
        try:
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            conn.request("POST", f"/api/{game}/recognize", body=body,
                         headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
            response = conn.getresponse()
            response.read()
            outcome = response.status
        except (OSError, http.client.HTTPException) as exc:
            outcome = exc.__class__.__name__
            if conn is not None:
                conn.close()
            conn = None
        with lock:
            results.append((game, time.perf_counter() - start, outcome))
    if conn is not None:
        conn.close()


def run_serve(game: str, clients: int, seconds: float, threads: int) -> dict:
    """Drive a real ``boardcam serve`` child with ``clients`` clients for ``seconds``."""
    games = GAMES if game == "all" else (game,)
    per_game = {g: [multipart(p) for p in pictures(g)] for g in games}
    jobs = []  # interleave: caribo, colomino, wauri, caribo, ...
    for k in range(max(len(v) for v in per_game.values())):
        for g in games:
            jobs.append((g, per_game[g][k % len(per_game[g])]))
    with tempfile.TemporaryDirectory() as instance:
        proc, port = start_serve(instance, threads)
        try:
            warm = []  # warm-up: one request of each game (imports, first decode)
            for g in games:
                serve_client(port, [(g, per_game[g][0])], time.perf_counter() + 600, warm,
                             threading.Lock(), 0, limit=1)  # fmt: skip
            rss_after_warmup = _tree_rss_kb(proc.pid)
            cpu_before = _cpu_seconds(proc.pid)
            samples: list[tuple[float, int]] = []
            stop = threading.Event()

            def sample():
                t0 = time.perf_counter()
                while not stop.is_set():
                    samples.append((time.perf_counter() - t0, _tree_rss_kb(proc.pid)))
                    stop.wait(0.5)

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            results: list = []
            lock = threading.Lock()
            started = time.perf_counter()
            deadline = started + seconds
            workers = [
                threading.Thread(target=serve_client,
                                 args=(port, jobs, deadline, results, lock, k * 7))
                for k in range(clients)
            ]  # fmt: skip
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            wall = time.perf_counter() - started
            cpu = _cpu_seconds(proc.pid) - cpu_before
            stop.set()
            sampler.join()
            alive = proc.poll() is None
            rss_end = _tree_rss_kb(proc.pid)
        finally:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
    report = _serve_report(game, clients, seconds, threads, results, samples, wall,
                           rss_after_warmup, rss_end, alive, per_game)  # fmt: skip
    report["server_cpu_s_per_request"] = round(cpu / len(results), 2) if results else None
    report["load_average_1min"] = round(os.getloadavg()[0], 1)
    return report


def _serve_report(game, clients, seconds, threads, results, samples, wall,
                  rss_after_warmup, rss_end, alive, per_game) -> dict:  # fmt: skip
    statuses: dict[str, int] = {}
    for _g, _t, outcome in results:
        statuses[str(outcome)] = statuses.get(str(outcome), 0) + 1
    errors = sum(1 for _g, _t, outcome in results if outcome not in ANSWERS)
    latencies = [t * 1000 for _g, t, outcome in results if outcome in ANSWERS]
    rss = [kb for _t, kb in samples] or [rss_end]
    quarter = max(1, len(rss) // 4)
    first_q, last_q = statistics.mean(rss[:quarter]), statistics.mean(rss[-quarter:])
    by_game = {}
    for g in per_game:
        mine = [t * 1000 for gg, t, outcome in results if gg == g and outcome in ANSWERS]
        by_game[g] = {"requests": len(mine), "p50_ms": round(percentile(mine, 50), 1),
                      "p95_ms": round(percentile(mine, 95), 1)}  # fmt: skip
    return {
        "mode": "boardcam serve (child process, loopback)",
        "game": game,
        "clients": clients,
        "seconds": seconds,
        "server_threads": threads,
        "wall_s": round(wall, 1),
        "requests": len(results),
        "errors": errors,
        "statuses": statuses,
        "p50_ms": round(percentile(latencies, 50), 1),
        "p95_ms": round(percentile(latencies, 95), 1),
        "max_ms": round(max(latencies), 1) if latencies else None,
        "throughput_rps": round(len(results) / wall, 2) if wall else None,
        "by_game": by_game,
        "picture": f"{SIZE[0]}x{SIZE[1]} JPEG",
        "rss_after_warmup_mb": round(rss_after_warmup / 1024, 1),
        "rss_peak_mb": round(max(rss) / 1024, 1),
        "rss_end_mb": round(rss_end / 1024, 1),
        "rss_first_quarter_mb": round(first_q / 1024, 1),
        "rss_last_quarter_mb": round(last_q / 1024, 1),
        "rss_samples": len(rss),
        "server_alive_at_end": alive,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=(*GAMES, "all"), default="caribo")
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
    parser.add_argument(
        "--serve",
        action="store_true",
        help="drive a real `boardcam serve` child for --seconds (errors, RSS over time)",
    )
    args = parser.parse_args(argv)
    if args.serve:
        report = run_serve(args.game, args.clients, args.seconds, args.threads)
    elif args.game == "all":
        parser.error("--game all needs --serve")
    else:
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
