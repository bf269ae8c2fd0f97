"""Reliability of the CARIBO recogniser's confidences on photos with truth files.

Usage::

    .venv/bin/python benchmarks/caribo_recognition_confidence.py [--cache F.json]
        [--weights W1,...,B] [--fit] [--runs R.json] DIR [DIR ...] [--heldout DIR ...]

For every photo (``*.jpg`` + ``*.json`` from ``boardcam dataset``) the answer's tiles are
matched to the truth pieces by pixel centre (within 0.3 tile pitch), the answer's 60°
turn relative to the truth is the one that makes most tiles agree, and a tile counts as
right when its code, turned back, equals the truth's. Prints, per confidence bin, the
mean stated confidence and the observed fraction right (tiles), the tiles' log-loss, and
the same bins for whole boards (answer ``confidence`` vs. board perfect as in
``boardcam evaluate``).

The features :func:`vision.caribo_recognition._calibrate_confidences` is given (raw tile
confidence, the lattice quality, the runner-up's quality, the tile's clashing and shared
edges) are recorded for every tile, so
the tables can be recomputed for other weights without reading the photos again:

``--cache F.json``
    keep the per-tile features and outcomes of each folder in ``F.json`` (a folder
    already in it is not read again; delete the file after changing the recogniser).
``--weights W1,...,W5,B``
    print the tables for these Platt weights instead of ``CONFIDENCE_WEIGHTS``.
``--fit``
    fit the weights (logistic regression, label = tile right) on the tiles of the
    folders, print them and the tables before (current weights) and after (fitted).
``--runs R.json``
    take the folders' photos from a ``caribo_recognition_runs.py`` result file (it
    records the same features and outcomes) instead of reading them (may repeat).
``--heldout DIR ...``
    folders reported with the current and the fitted weights but never fitted on.
``--small-weight W``, ``--l2 L``
    the fit's weight of the tiles of readings of at most three tiles (few among the big
    figures' hundreds) and its L2 penalty on the weights.

The tables are printed per folder, for the readings of at most three tiles and the
bigger ones over all folders, and for all; each with the tiles stated >= 0.99 and how
many of them are wrong.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from engines.caribo import Tile
from vision import caribo_recognition as cr
from vision.evaluation import compare_states
from vision.image_io import decode_photo
from vision.recognize import NothingFound

BINS = ((0.0, 0.5), (0.5, 0.8), (0.8, 0.9), (0.9, 0.99), (0.99, 1.01))
SMALL_TILES = 3
"""Readings of at most this many tiles are reported apart ("small") as well."""


def truth_centres(truth: dict, lone_pitch: float) -> tuple[np.ndarray, float]:
    """The truth tiles' pixel centres ``(n, 2)`` and the pitch between neighbours (px,
    median nearest-neighbour distance; ``lone_pitch`` for a single tile)."""
    tc = np.array([p["center_px"] for p in truth["pieces"]], float)
    if len(tc) < 2:
        return tc, lone_pitch
    d = np.hypot(*(tc[:, None] - tc[None]).transpose(2, 0, 1))
    return tc, float(np.median(np.sort(d, axis=1)[:, 1]))


def tile_outcomes(answer: dict, truth: dict) -> list[tuple[float, bool]]:
    """``(confidence, right)`` for every tile of ``answer`` against the truth file."""
    pieces = truth["pieces"]
    tc, pitch = truth_centres(truth, 50.0)
    pairs = []
    for t in answer["tiles"]:
        dist = np.hypot(*(tc - np.array(t["center_px"])).T)
        i = int(np.argmin(dist))
        pairs.append((t, pieces[i]["tile"] if dist[i] < 0.3 * pitch else None))

    def agree(k):
        return sum(1 for t, want in pairs
                   if want and Tile.parse(t["tile"]).rotated(k).code == want)

    k = max(range(6), key=agree)
    return [(t["confidence"], bool(want) and Tile.parse(t["tile"]).rotated(k).code == want)
            for t, want in pairs]


def read_folder(folder: str) -> list[dict]:
    """Per photo: the inputs of the confidence calibration and the outcomes.

    Returns one dict per photo: ``raw`` (tile confidences before calibration),
    ``quality``, ``runner_up``, ``right`` (per tile, bools) and ``perfect`` (the board);
    a photo where no board was found has ``raw`` None.
    """
    seen: list = []
    original = cr._calibrate_confidences

    def recording(answer, quality, runner_up, clashes=None):
        clash, shared = clashes if clashes is not None else cr._reading_clashes(answer)
        seen.append(([float(t["confidence"]) for t in answer["tiles"]], quality, runner_up,
                     [int(v) for v in clash], [int(v) for v in shared]))
        original(answer, quality, runner_up, clashes)

    photos = []
    cr._calibrate_confidences = recording
    try:
        for photo in sorted(Path(folder).glob("*.jpg")):
            truth = json.loads(photo.with_suffix(".json").read_text())
            seen.clear()
            try:
                answer = cr.recognize(decode_photo(photo.read_bytes()))  # as evaluate
            except NothingFound:
                photos.append({"photo": photo.name, "raw": None, "perfect": False})
                continue
            raw, quality, runner_up, clash, shared = seen[-1]
            photos.append({
                "photo": photo.name, "raw": raw, "quality": float(quality),
                "runner_up": float(runner_up), "clash": clash, "shared": shared,
                "right": [r for _, r in tile_outcomes(answer, truth)],
                "perfect": compare_states("caribo", truth["state"], answer).perfect,
            })
    finally:
        cr._calibrate_confidences = original
    return photos


def design(photos: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Stack the feature rows ``(N, F)`` and the labels ``(N,)`` of all tiles."""
    xs, ys = [np.zeros((0, len(cr.CONFIDENCE_WEIGHTS) - 1))], [np.zeros(0)]
    for p in photos:
        if p["raw"]:
            xs.append(cr._calibration_features(p["raw"], p["quality"], p["runner_up"],
                                               p["clash"]))
            ys.append(np.array(p["right"], float))
    return np.concatenate(xs), np.concatenate(ys)


def calibrated(photo: dict, weights) -> list[float]:
    """Tile confidences of ``photo`` with ``weights``, via the recogniser's own code."""
    saved = cr.CONFIDENCE_WEIGHTS
    cr.CONFIDENCE_WEIGHTS = tuple(weights)
    try:
        ans = {"tiles": [{"confidence": c, "tile": "", "row": 0, "col": 0}
                         for c in photo["raw"]]}
        cr._calibrate_confidences(ans, photo["quality"], photo["runner_up"],
                                  (np.array(photo["clash"]), np.array(photo["shared"])))
    finally:
        cr.CONFIDENCE_WEIGHTS = saved
    return [t["confidence"] for t in ans["tiles"]]


def fit(photos: list[dict], l2: float = 1e-3, small_weight: float = 1.0) -> tuple[float, ...]:
    """Logistic regression of tile right on the calibration features (tiny L2 on weights).

    ``small_weight``: the weight of a tile of a reading with at most
    :data:`SMALL_TILES` tiles in the likelihood (small figures are few tiles among the
    big figures' hundreds)."""
    X, y = design(photos)
    sw = np.concatenate([np.full(len(p["raw"]), small_weight if len(p["raw"]) <= SMALL_TILES
                                 else 1.0) for p in photos if p["raw"]] or [np.zeros(0)])
    Xb = np.column_stack([X, np.ones(len(X))])

    def loss(w):
        z = Xb @ w
        ll = sw * (np.logaddexp(0.0, z) - y * z)
        g = Xb.T @ (sw * (1 / (1 + np.exp(-z)) - y))
        return ll.sum() + l2 * w[:-1] @ w[:-1], g + np.r_[2 * l2 * w[:-1], 0.0]

    res = minimize(loss, np.asarray(cr.CONFIDENCE_WEIGHTS, float), jac=True, method="BFGS")
    return tuple(round(float(v), 4) for v in res.x)


def report(photos: list[dict], weights, title: str, boards: bool = True) -> None:
    """Print the tile (and board) reliability tables, the tile log-loss and the tiles
    stated >= 0.99 that are wrong."""
    tiles, brd = [], []
    for p in photos:
        if not p["raw"]:
            brd.append((0.0, False))
            continue
        conf = calibrated(p, weights)
        tiles += list(zip(conf, p["right"], strict=True))
        brd.append((float(np.prod(conf)), p["perfect"]))
    print(f"== {title}  weights {tuple(weights)}")
    for name, rows in (("tiles", tiles), ("boards", brd))[:2 if boards else 1]:
        arr = np.array(rows, float).reshape(-1, 2)
        if not len(arr):
            continue
        c = np.clip(arr[:, 0], 1e-4, 1 - 1e-4)
        ll = -np.mean(arr[:, 1] * np.log(c) + (1 - arr[:, 1]) * np.log(1 - c))
        sure = arr[:, 0] >= 0.99
        print(f"{name}: n={len(arr)}  right {arr[:, 1].mean():.3f}  log-loss {ll:.4f}  "
              f"brier {np.mean((arr[:, 0] - arr[:, 1]) ** 2):.4f}  stated >= 0.99: "
              f"{int(sure.sum())}, wrong {int((sure & (arr[:, 1] == 0)).sum())}")
        for lo, hi in BINS:
            m = (arr[:, 0] >= lo) & (arr[:, 0] < hi)
            if m.any():
                print(f"  confidence [{lo:.2f}, {min(hi, 1.0):.2f}): n={int(m.sum()):4d}  "
                      f"stated {arr[m, 0].mean():.3f}  observed {arr[m, 1].mean():.3f}")


def report_groups(groups: dict[str, list[dict]], weights, title: str) -> None:
    """:func:`report` per folder, then per kind (readings of at most
    :data:`SMALL_TILES` tiles / bigger ones) over all folders."""
    for name, photos in groups.items():
        report(photos, weights, f"{title}: {name}", boards=False)
    everything = [p for photos in groups.values() for p in photos]
    small = [p for p in everything if p["raw"] and len(p["raw"]) <= SMALL_TILES]
    big = [p for p in everything if p["raw"] and len(p["raw"]) > SMALL_TILES]
    report(small, weights, f"{title}: readings of <= {SMALL_TILES} tiles", boards=False)
    report(big, weights, f"{title}: readings of > {SMALL_TILES} tiles", boards=False)
    report(everything, weights, f"{title}: all")


def load(folders: list[str], cache: dict, cache_path: Path | None) -> dict[str, list[dict]]:
    """The photos' records per folder, read (and cached) when not in ``cache``."""
    groups = {}
    for folder in folders:
        key = str(Path(folder).resolve())
        if key not in cache:
            cache[key] = read_folder(folder)
            if cache_path:
                cache_path.write_text(json.dumps(cache))
        groups[Path(folder).name] = cache[key]
    return groups


def main(argv: list[str] | None = None) -> None:
    """Command line: see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cache", type=Path)
    ap.add_argument("--weights", type=lambda s: tuple(float(v) for v in s.split(",")))
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--small-weight", type=float, default=1.0)
    ap.add_argument("--l2", type=float, default=1e-3)
    ap.add_argument("--heldout", nargs="*", default=[])
    ap.add_argument("--runs", type=Path, action="append", default=[])
    args = ap.parse_args(argv)
    cache = json.loads(args.cache.read_text()) if args.cache and args.cache.exists() else {}
    for runs in args.runs:
        for key, recs in json.loads(runs.read_text()).items():
            cache[key] = [{**r, "raw": r.get("raw") if "right" in r else None}
                          for r in recs if "perfect" in r]
    dev = load(args.folders, cache, args.cache)
    held = load(args.heldout, cache, args.cache)
    current = args.weights or cr.CONFIDENCE_WEIGHTS
    name = "current" if args.weights is None else "given"
    report_groups(dev, current, f"{name} dev")
    if held:
        report_groups(held, current, f"{name} held-out")
    if args.fit:
        fitted = fit([p for photos in dev.values() for p in photos], args.l2,
                     args.small_weight)
        report_groups(dev, fitted, "fitted dev")
        if held:
            report_groups(held, fitted, "fitted held-out")
        print("CONFIDENCE_WEIGHTS = (" + ", ".join(f"{v:g}" for v in fitted) + ")")


if __name__ == "__main__":
    main()
