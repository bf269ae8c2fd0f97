"""CARIBO recognition speed and accuracy, photo by photo (for lattice-stage work).

Usage::

    nice .venv/bin/python benchmarks/caribo_lattice_speed.py DIR [DIR ...] [--json OUT]
        [--compare BEFORE.json]

For every photo (``*.jpg`` + ``*.json`` from ``boardcam dataset``) the photo is decoded,
:func:`vision.caribo_recognition.recognize` is timed in CPU seconds of this process
(``time.process_time``, more stable than wall clock on a shared machine) and in wall
seconds, and the JPEG decode is timed the same way; the answer is compared with the truth.
Prints per directory: photos, boards perfect, piece errors, median CPU seconds per photo,
median CPU-time ratio recognise / decode, the time spent in ``find_lattice`` (CPU), and
the number of lattice candidates returned. ``--json`` stores the per-photo results;
``--compare`` lists the photos whose notation changed against such a file.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import cv2
import numpy as np

from vision import caribo_lattice
from vision import caribo_recognition as cr
from vision.evaluation import compare_states
from vision.recognize import NothingFound


def _cpu(fn, *args, repeats: int = 1):
    t0 = time.process_time()
    for _ in range(repeats):
        out = fn(*args)
    return out, (time.process_time() - t0) / repeats


def run_photo(photo: Path) -> dict:
    """Per-photo result: notation, perfect, piece errors, CPU seconds, decode seconds."""
    data = photo.read_bytes()
    truth = json.loads(photo.with_suffix(".json").read_text())
    buf = np.frombuffer(data, np.uint8)
    image, dec = _cpu(cv2.imdecode, buf, cv2.IMREAD_COLOR, repeats=3)
    stats = {"lattice_s": 0.0, "candidates": 0}
    original = caribo_lattice.find_lattice

    def timed(*a, **k):
        t0 = time.process_time()
        out = original(*a, **k)
        stats["lattice_s"] += time.process_time() - t0
        stats["candidates"] += len(out or [])
        return out

    cr.caribo_lattice.find_lattice = timed
    try:
        t0, w0 = time.process_time(), time.perf_counter()
        try:
            answer = cr.recognize(image)
        except NothingFound:
            answer = {"game": "caribo", "notation": "", "tiles": []}
        cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    finally:
        cr.caribo_lattice.find_lattice = original
    cmp = compare_states("caribo", truth["state"], answer)
    return {"photo": photo.name, "notation": answer["notation"], "perfect": bool(cmp.perfect),
            "piece_errors": int(cmp.piece_errors), "cpu_s": cpu, "wall_s": wall,
            "decode_s": dec, "ratio": cpu / max(dec, 1e-9), **stats}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--json")
    ap.add_argument("--compare")
    args = ap.parse_args(argv)
    before = {}
    if args.compare:
        before = {(r["dir"], r["photo"]): r for r in json.loads(Path(args.compare).read_text())}
    rows = []
    for d in args.dirs:
        res = []
        for photo in sorted(Path(d).glob("*.jpg")):
            r = run_photo(photo)
            r["dir"] = Path(d).name
            res.append(r)
            b = before.get((r["dir"], r["photo"]))
            if b is not None and b["notation"] != r["notation"]:
                print(f"  changed {r['dir']}/{r['photo']}: perfect {b['perfect']}->"
                      f"{r['perfect']} errors {b['piece_errors']}->{r['piece_errors']}",
                      flush=True)
        rows += res
        n = len(res)
        print(f"{Path(d).name}: photos {n}  perfect {sum(r['perfect'] for r in res)}/{n}  "
              f"piece errors {sum(r['piece_errors'] for r in res)}  "
              f"median CPU {statistics.median(r['cpu_s'] for r in res):.3f} s  "
              f"median ratio {statistics.median(r['ratio'] for r in res):.1f}x  "
              f"lattice CPU median {statistics.median(r['lattice_s'] for r in res):.3f} s  "
              f"candidates mean {np.mean([r['candidates'] for r in res]):.1f}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
