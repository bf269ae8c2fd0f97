"""Colomino field stage alone: is the field found, of the right size, in the right place?

Usage: ``python benchmarks/colomino_field_bench.py DIR [DIR ...] [--limit N] [-v]
[--json OUT]``.

For every photo with a truth JSON (``boardcam dataset``) only
:func:`vision.colomino_field.locate_field` runs (no cell reading). A Colomino photo is
put in one bucket:

* ``not found`` — :class:`NothingFound`;
* ``size`` — 9×9 found as 12×12 or back;
* ``grid`` — a field corner lies more than 0.3 cell from the true field corner
  (``board_corners_px``), the cell measured along the true outline;
* ``ok``.

Every field found at the right size also gets a per-cell grid error ``cell_err``
(:func:`cell_grid_error`: the largest distance, in cells, of a true empty cell's centre
from the fitted cell centre, and per quadrant of the canonical view) and ``h_floor``
(:func:`homography_floor`, the least any homography can reach); the summary counts the
fields with every cell within 0.2 cell (``exact``). ``--set NAME=VALUE`` overrides a
constant of :mod:`vision.colomino_field` for an A/B run.

``--margins``: every finished field :func:`vision.colomino_field.locate_field` compared
by :func:`vision.colomino_field._field_evidence` (the start, the other size's best grid,
the start divided into the other size) is recorded per photo: ``evidence`` lists their
values in the order computed, ``margin`` is the best minus the runner-up (how close
the choice was; only photos where more than one field was finished). ``bad`` in the
summary counts Colomino photos with a corner more than 0.5 cell off (or the wrong size,
or none found).

A photo of another game (CARIBO, Wauri) counts as ``false board`` when a field is found
and ``no board`` otherwise. CPU time (``process_time``, one OpenCV thread) of the field
stage and of the JPEG decode of the same bytes are reported as medians and as the
median ratio. The truth is read only here, never by the recogniser.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision import colomino_field as cf  # noqa: E402
from vision.recognize import NothingFound  # noqa: E402


def field_corners(Hc: np.ndarray, n: int) -> np.ndarray:
    """The field's four corners ``(4, 2)`` in photo pixels from ``locate_field``'s
    homography ``Hc`` (photo → canonical view) and size ``n``."""
    M = cf.MARGIN_CELLS * cf.CELL
    E = M + n * cf.CELL
    pts = np.array([[[M, M], [E, M], [E, E], [M, E]]], np.float64)
    return cv2.perspectiveTransform(pts, np.linalg.inv(Hc))[0]


def corner_error_cells(got: np.ndarray, truth: np.ndarray, n: int) -> float:
    """Largest distance (in cells) from a true corner to the nearest found corner."""
    pitch = float(np.mean(np.linalg.norm(truth - np.roll(truth, -1, axis=0), axis=1))) / n
    return max(float(np.min(np.linalg.norm(got - p, axis=1))) for p in truth) / pitch


def cell_grid_error(Hc: np.ndarray, n: int, truth: dict, tiles: bool = False
                    ) -> tuple[float, list[float]]:
    """Per-cell grid error: every true centre of an empty cell (``pieces[*].center_px``
    on the board plane; a tile's centre is its top, raised off the plane) mapped by
    ``Hc`` into the canonical view lies this far (cells) from the nearest fitted cell
    centre; returns the largest and the four quadrants' largest (top-left, top-right,
    bottom-right, bottom-left of the canonical view). ``tiles``: the tiles' true centres
    instead (their tops, shifted off the board plane's cell by the parallax of the tile's
    height; what a cell reader sampling the board plane sees)."""
    pcs = [p for p in truth["pieces"] if (p["cell"] != ".") == tiles] or truth["pieces"]
    pts = np.array([[p["center_px"] for p in pcs]], np.float64)
    M = cf.MARGIN_CELLS * cf.CELL
    q = (cv2.perspectiveTransform(pts, Hc)[0] - M) / cf.CELL - 0.5
    off = np.hypot(*(q - np.rint(q)).T)
    mid = (n - 1) / 2.0
    quads = [(q[:, 0] < mid) & (q[:, 1] < mid), (q[:, 0] >= mid) & (q[:, 1] < mid),
             (q[:, 0] >= mid) & (q[:, 1] >= mid), (q[:, 0] < mid) & (q[:, 1] >= mid)]
    return float(off.max()), [float(off[s].max()) if s.any() else 0.0 for s in quads]


def homography_floor(truth: dict) -> float:
    """The least per-cell grid error any homography can reach (cells): the true centres
    of the empty cells (lens distortion included) fitted by least squares to a square
    lattice; the largest residual. Above ~0.1 the lens bends the grid beyond a
    homography (simulator photos: 0.001-0.012)."""
    pcs = [p for p in truth["pieces"] if p["cell"] == "."]
    if len(pcs) < 8:
        return float("nan")
    src = np.array([p["center_px"] for p in pcs], np.float64)
    dst = np.array([[p["col"] + 0.5, p["row"] + 0.5] for p in pcs], np.float64)
    H, _ = cv2.findHomography(src, dst, 0)
    got = cv2.perspectiveTransform(src[None], H)[0]
    return float(np.max(np.hypot(*(got - dst).T)))


def judge(img_path: Path, truth: dict) -> dict:
    """Run the field stage on one photo; returns a dict with ``bucket``, ``err`` (cells,
    or None), ``cpu`` and ``decode`` (seconds)."""
    data = np.frombuffer(img_path.read_bytes(), np.uint8)
    t0 = time.process_time()
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    t_dec = time.process_time() - t0
    t0 = time.process_time()
    try:
        Hc, n, score, _ = cf.locate_field(image)
    except NothingFound:
        Hc = None
    except Exception as exc:  # a crash is a finding too: counted, the run goes on
        return {"photo": img_path.name, "cpu": time.process_time() - t0, "decode": t_dec,
                "err": None, "bucket": f"crash {type(exc).__name__}"}
    dt = time.process_time() - t0
    out = {"photo": img_path.name, "cpu": dt, "decode": t_dec, "err": None}
    if truth.get("game") != "colomino":
        out["bucket"] = "no board" if Hc is None else "false board"
        return out
    want = len(truth["state"]["rows"])
    if Hc is None:
        out["bucket"] = "not found"
        return out
    out["score"] = round(float(score), 3)
    if n != want:
        out["bucket"] = "size"
        return out
    err = corner_error_cells(field_corners(Hc, n), np.array(truth["board_corners_px"], float),
                             n)
    out["err"] = round(err, 3)
    cell_err, quads = cell_grid_error(Hc, n, truth)
    out["cell_err"] = round(cell_err, 3)
    out["cell_err_quadrants"] = [round(v, 3) for v in quads]
    out["tile_err"] = round(cell_grid_error(Hc, n, truth, tiles=True)[0], 3)
    out["h_floor"] = round(homography_floor(truth), 3)
    out["bucket"] = "grid" if err > 0.3 else "ok"
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--limit", type=int, default=0, help="photos per folder")
    ap.add_argument("--json", help="write the per-photo results here")
    ap.add_argument("-v", action="store_true", help="one line per photo")
    ap.add_argument("--margins", action="store_true",
                    help="record the finished fields' evidence per photo")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="override a constant of vision.colomino_field (e.g. SETTLED_MOVE=0)")
    args = ap.parse_args(argv)
    for item in args.set:
        name, value = item.split("=", 1)
        setattr(cf, name, type(getattr(cf, name))(value))
    cv2.setNumThreads(1)
    evidence: list[float] = []
    if args.margins:
        plain = cf._field_evidence

        def recorded(canon, n):
            value = plain(canon, n)
            evidence.append(value)
            return value

        cf._field_evidence = recorded
    results = []
    for d in args.dirs:
        files = sorted(f for f in Path(d).glob("*.json") if f.with_suffix(".jpg").exists())
        if args.limit:
            files = files[:args.limit]
        for f in files:
            truth = json.loads(f.read_text())
            evidence.clear()
            r = judge(f.with_suffix(".jpg"), truth)
            if args.margins:
                r["evidence"] = [round(v, 3) for v in evidence]
                ev = sorted(evidence, reverse=True)
                r["margin"] = round(ev[0] - ev[1], 3) if len(ev) > 1 else None
            r["dir"] = d
            results.append(r)
            if args.v:
                cond = truth.get("conditions", {})
                table = (cond.get("table") or {}).get("kind")
                print(f"{d}/{r['photo']}: {r['bucket']} err={r['err']} "
                      f"cell_err={r.get('cell_err')} q={r.get('cell_err_quadrants')} "
                      f"tile_err={r.get('tile_err')} h_floor={r.get('h_floor')} "
                      f"score={r.get('score')} {r['cpu'] * 1e3:.0f} ms table={table}",
                      flush=True)
    buckets = Counter(r["bucket"] for r in results)
    print(f"photos {len(results)}: " + ", ".join(f"{k} {v}" for k, v in buckets.most_common()))
    col = [r for r in results if r["bucket"] not in ("no board", "false board")]
    bad = [r for r in col if r["err"] is None or r["err"] > 0.5]
    print(f"colomino photos {len(col)}: bad (corner > 0.5 cell, size, none) {len(bad)}")
    ce = [r["cell_err"] for r in col if r.get("cell_err") is not None]
    if ce:
        print(f"per-cell grid error (cells): exact (<= 0.2) {sum(e <= 0.2 for e in ce)} of "
              f"{len(col)}, mean {np.mean(ce):.3f}, p90 {np.percentile(ce, 90):.3f}, "
              f"max {max(ce):.3f}")
        te = [r["tile_err"] for r in col if r.get("tile_err") is not None]
        print(f"tile tops (parallax included): within 0.15 cell {sum(e <= 0.15 for e in te)} "
              f"of {len(te)}, mean of the largest {np.mean(te):.3f}, max {max(te):.3f}")
    if args.margins:
        close = sorted((r["margin"], r["dir"], r["photo"], r["bucket"]) for r in results
                       if r.get("margin") is not None)
        print(f"photos with more than one finished field {len(close)}; margins (best - "
              "runner-up, smallest first): " + ", ".join(
                  f"{Path(d).name}/{p[-9:-4]} {m:.2f} {b}" for m, d, p, b in close))
    if results:
        cpu = np.array([r["cpu"] for r in results])
        dec = np.array([r["decode"] for r in results])
        print(f"field CPU median {np.median(cpu) * 1e3:.1f} ms, decode {np.median(dec) * 1e3:.1f}"
              f" ms, median ratio {np.median(cpu / np.maximum(dec, 1e-6)):.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
