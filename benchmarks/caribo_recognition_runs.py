"""Run the CARIBO recogniser once over photo folders and keep everything for later tables.

Usage::

    .venv/bin/python benchmarks/caribo_recognition_runs.py OUT.json DIR [DIR ...]
        [--jobs N] [--lattice-cache CACHE_DIR]
    .venv/bin/python benchmarks/caribo_recognition_runs.py --report OUT.json [OUT2.json]

The first form reads every ``*.jpg`` of the folders as ``boardcam evaluate`` does (PIL
decode, :func:`vision.caribo_recognition.recognize`) and stores per photo: the answer
(notation, tiles, confidence, or the "no tiles" message), the calibration inputs
(raw tile confidences, lattice quality, runner-up quality, clashing edges), the CPU time
of the recognition and of the JPEG decode, and - when a truth file lies next to the
photo - piece errors, board perfect and per tile right/wrong with the failure counts of
``caribo_recognition_failures.py`` (missed / invented / colour). The second form prints,
per folder: photos, boards perfect, piece errors, failure causes, the median CPU ratio
recognition / decode, the tile reliability bins and log-loss; with two files, the
photos whose answers differ (an A/B of two versions of the recogniser).

``--lattice-cache``: the lattice candidates of each photo
(:func:`vision.caribo_lattice.find_lattice`, about 60 % of the time) are kept in
``CACHE_DIR`` (one pickle per photo) and reused on the next run, so versions of the tile
reading are compared on the same lattices, fast (the CPU times then leave the lattice
search out; time with ``caribo_recognition_ab.py``).

The truth is only read to score the answers, never inside the recogniser.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import sys
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

BINS = ((0.0, 0.5), (0.5, 0.8), (0.8, 0.9), (0.9, 0.99), (0.99, 1.01))


def _cached_lattice(find, path: Path):
    """``find`` (:func:`vision.caribo_lattice.find_lattice`) answered from the pickle
    ``path`` when it exists, else computed and stored there."""

    def cached(*args, **kwargs):
        if path.exists():
            return pickle.loads(path.read_bytes())
        found = find(*args, **kwargs)
        path.write_bytes(pickle.dumps(found))
        return found

    return cached


def read_photo(photo: str) -> dict:
    """Recognise one photo; the record described in the module docstring."""
    from caribo_recognition_confidence import tile_outcomes
    from caribo_recognition_failures import compare

    from vision import caribo_lattice
    from vision import caribo_recognition as cr
    from vision.evaluation import compare_states
    from vision.image_io import decode_photo
    from vision.recognize import NothingFound

    path = Path(photo)
    data = path.read_bytes()
    t0 = time.process_time()
    for _ in range(3):
        image = decode_photo(data)
    decode = (time.process_time() - t0) / 3
    seen = []
    original = cr._calibrate_confidences

    def recording(answer, quality, runner_up, clashes=None):
        clash, shared = clashes if clashes is not None else cr._reading_clashes(answer)
        seen.append(([float(t["confidence"]) for t in answer["tiles"]], float(quality),
                     float(runner_up), [int(v) for v in clash], [int(v) for v in shared]))
        original(answer, quality, runner_up, clashes)

    cr._calibrate_confidences = recording
    find = caribo_lattice.find_lattice
    cache = os.environ.get("CARIBO_LATTICE_CACHE")
    if cache:
        key = hashlib.sha1(data).hexdigest()[:16]
        caribo_lattice.find_lattice = _cached_lattice(find, Path(cache) / f"{key}.pkl")
    rec = {"photo": str(path), "decode_s": decode}
    t0 = time.process_time()
    try:
        answer = cr.recognize(image)
    except NothingFound as exc:
        answer = None
        rec["nothing"] = str(exc)
    finally:
        cr._calibrate_confidences = original
        caribo_lattice.find_lattice = find
    rec["recognize_s"] = time.process_time() - t0
    if seen:
        raw, quality, runner_up, clash, shared = seen[-1]
        rec.update(raw=raw, quality=quality, runner_up=runner_up, clash=clash, shared=shared)
    rec["answer"] = answer
    truth_path = path.with_suffix(".json")
    if truth_path.exists():
        truth = json.loads(truth_path.read_text())
        if truth.get("game", "caribo") == "caribo" and "state" in truth:
            if answer is None:
                rec.update(perfect=False, piece_errors=len(truth["pieces"]), cause="no-tiles")
            else:
                res = compare_states("caribo", truth["state"], answer)
                c = compare(answer, truth)
                rec.update(perfect=bool(res.perfect), piece_errors=int(res.piece_errors),
                           right=[r for _, r in tile_outcomes(answer, truth)],
                           missed=c["missed"], invented=c["invented"], colour=c["colour"])
                if res.perfect:
                    rec["cause"] = "ok"
                elif c["matched"] < 0.5 * len(answer["tiles"]):
                    rec["cause"] = "lattice"
                else:
                    rec["cause"] = max(("missed", "invented", "colour"), key=lambda k: c[k])
    return rec


def run(out: Path, folders: list[str], jobs: int) -> None:
    """Read every photo of ``folders`` and write the records, grouped by folder."""
    result = {}
    for folder in folders:
        photos = [str(p) for p in sorted(Path(folder).glob("*.jpg"))]
        with Pool(jobs) as pool:
            result[str(Path(folder).resolve())] = pool.map(read_photo, photos, chunksize=1)
        out.write_text(json.dumps(result))


def report(path: Path) -> dict:
    """Print the tables of one result file; returns it."""
    data = json.loads(path.read_text())
    print(f"#### {path}")
    for folder, recs in data.items():
        scored = [r for r in recs if "perfect" in r]
        ratio = np.median([r["recognize_s"] / max(r["decode_s"], 1e-6) for r in recs])
        line = f"{Path(folder).name}: photos {len(recs)}  cpu ratio median {ratio:.1f}x"
        if not scored:
            nothing = sum(r["answer"] is None for r in recs)
            floors = [max(t["confidence"] for t in r["answer"]["tiles"])
                      for r in recs if r["answer"] is not None]
            print(f"{line}  no-tiles {nothing}/{len(recs)}  max tile confidence of the "
                  f"others: {[round(f, 4) for f in floors]}")
            continue
        perfect = sum(r["perfect"] for r in scored)
        errors = sum(r["piece_errors"] for r in scored)
        causes = Counter(r["cause"] for r in scored)
        tiles = Counter()
        for r in scored:
            for k in ("missed", "invented", "colour"):
                tiles[k] += r.get(k, 0)
        print(f"{line}  perfect {perfect}/{len(scored)} = {100 * perfect / len(scored):.2f} %"
              f"  piece errors {errors}  causes {dict(causes)}  tiles {dict(tiles)}")
        conf = [(c, ok) for r in scored if r["answer"] is not None
                for c, ok in zip((t["confidence"] for t in r["answer"]["tiles"]), r["right"],
                                 strict=True)]
        arr = np.array(conf, float).reshape(-1, 2)
        if len(arr):
            c = np.clip(arr[:, 0], 1e-4, 1 - 1e-4)
            ll = -np.mean(arr[:, 1] * np.log(c) + (1 - arr[:, 1]) * np.log(1 - c))
            bins = []
            for lo, hi in BINS:
                m = (arr[:, 0] >= lo) & (arr[:, 0] < hi)
                if m.any():
                    bins.append(f"[{lo:.2f},{min(hi, 1.0):.2f}) n={int(m.sum())} "
                                f"st {arr[m, 0].mean():.2f} ok {arr[m, 1].mean():.2f}")
            print(f"   tiles log-loss {ll:.4f}; " + "; ".join(bins))
    return data


def differ(a: dict, b: dict) -> None:
    """Print the photos whose answers differ between two result files."""
    n = same = 0
    for folder, recs in a.items():
        other = {r["photo"]: r for r in b.get(folder, [])}
        for r in recs:
            o = other.get(r["photo"])
            if o is None:
                continue
            n += 1
            if json.dumps(r["answer"], sort_keys=True) == json.dumps(o["answer"],
                                                                     sort_keys=True):
                same += 1
            else:
                print(f"  differs: {r['photo']}  errors {r.get('piece_errors')} -> "
                      f"{o.get('piece_errors')}")
    print(f"identical answers {same}/{n}")


def main(argv: list[str] | None = None) -> None:
    """Command line: see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--lattice-cache", type=Path, default=None)
    ap.add_argument("out", type=Path)
    ap.add_argument("rest", nargs="*")
    args = ap.parse_args(argv)
    if args.report:
        a = report(args.out)
        for other in args.rest:
            differ(a, report(Path(other)))
        return
    if args.lattice_cache is not None:
        args.lattice_cache.mkdir(parents=True, exist_ok=True)
        os.environ["CARIBO_LATTICE_CACHE"] = str(args.lattice_cache)  # seen by the workers
    run(args.out, args.rest, args.jobs)


if __name__ == "__main__":
    main()
