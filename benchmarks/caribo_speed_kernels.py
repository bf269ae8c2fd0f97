"""CPU time of the CARIBO numerical kernels (``vision/hexlattice.py``, ``vision/colour.py``):
a git revision vs the working tree, per kernel on recorded real inputs and end to end.

Usage::

    nice .venv/bin/python benchmarks/caribo_speed_kernels.py record OUT.pkl DIR [DIR ...]
        [--limit 5]
    nice .venv/bin/python benchmarks/caribo_speed_kernels.py kernels OUT.pkl --base REV
        [--rounds 3] [--only outline_scores,_fit_lights]
    nice .venv/bin/python benchmarks/caribo_speed_kernels.py ab DIR [DIR ...] --base REV
        [--limit 40] [--runs 2] [--new hexlattice,colour]

``record``: recognises the first ``limit`` photos (``*.jpg``) of each folder with the
working tree's recogniser while every kernel of :data:`KERNELS` is wrapped, and pickles
the arguments of each call (images shared, not copied).

``kernels``: replays the recorded calls through both versions of each kernel (``REV``'s
``hexlattice`` / ``colour`` imported beside the working tree's), checks the outputs are
equal (``bitwise``, or the largest absolute difference), then times all calls of a kernel
with the base and the new version alternately, ``rounds`` times each (smallest total CPU
time, ``time.process_time``, so a shared machine's load falls on both alike); ``--only``:
just the kernels named (function names, comma list).

``ab``: the whole CARIBO recognition, both sides importing ``caribo_recognition`` and
``caribo_lattice`` of ``REV``; the base side with ``REV``'s ``hexlattice``/``colour``, the
new side with the working tree's (``--new colour``: only that one), so only the kernels
differ (the other modules may be
edited by others meanwhile). Every photo answers once per side (answers compared as JSON),
then both run interleaved ``runs`` times (smallest CPU each); prints the median and total
CPU, ratio to the JPEG decode and the photos whose answers differ.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import pickle
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ab_timing import folder_photos, timed_answer  # noqa: E402

MODULES = ("hexlattice", "colour", "caribo_lattice", "caribo_recognition")
KERNELS = {
    "hexlattice": ("apply_homography", "sample_bilinear", "outline_scores", "refit_on_scores"),
    "colour": ("bgr8_to_linear", "linear_to_lab", "_weighted_dist2", "_fit_lights",
               "classify_paints_both", "_label_paints", "light_from_labels"),
}


def _source(name: str, rev: str | None) -> str:
    if rev is None:
        return (ROOT / "vision" / f"{name}.py").read_text()
    return subprocess.run(["git", "show", f"{rev}:vision/{name}.py"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout


def load_side(tmp: Path, prefix: str, revs: dict[str, str | None]) -> dict:
    """Import the :data:`MODULES` named in ``revs`` (name → git revision, None: working
    tree) as ``<prefix>_<name>``, their imports of each other rewritten to those copies."""
    def rewrite(src: str) -> str:
        def names(m):
            parts = [p.strip() for p in m.group(1).split(",")]
            out = [f"import {prefix}_{p} as {p}" if p in revs else f"from vision import {p}"
                   for p in parts]
            return "\n".join(out)
        src = re.sub(r"^from vision import ([\w, ]+)$", names, src, flags=re.M)
        for n in revs:
            src = src.replace(f"from vision.{n} import", f"from {prefix}_{n} import")
        return src

    for name, rev in revs.items():
        (tmp / f"{prefix}_{name}.py").write_text(rewrite(_source(name, rev)))
    if str(tmp) not in sys.path:
        sys.path.insert(0, str(tmp))
    mods = {}
    for name in revs:  # dependencies first (MODULES order)
        alias = f"{prefix}_{name}"
        spec = importlib.util.spec_from_file_location(alias, tmp / f"{alias}.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[alias] = mod
        spec.loader.exec_module(mod)
        mods[name] = mod
    return mods


_IMAGES: dict = {}


def _keep(a):
    """A recorded argument: small arrays copied (callers may reuse them), images kept once
    per content."""
    if isinstance(a, np.ndarray):
        if a.size < 200_000:
            return a.copy()
        key = (a.shape, a.dtype.str, hashlib.blake2b(a.tobytes(), digest_size=16).digest())
        return _IMAGES.setdefault(key, a.copy())
    if isinstance(a, list):
        return [_keep(x) for x in a]
    if isinstance(a, tuple):
        return tuple(_keep(x) for x in a)
    return a


def record(out: str, folders, limit: int) -> None:
    """Run the working tree's recogniser with the kernels wrapped; pickle their calls."""
    from vision import caribo_recognition as cr
    from vision import colour, hexlattice
    from vision.recognize import NothingFound

    mods = {"hexlattice": hexlattice, "colour": colour}
    calls: dict[str, list] = {}

    def wrap(mod, name):
        fn = getattr(mod, name)
        key = f"{mod.__name__.split('.')[-1]}.{name}"
        calls[key] = []

        def wrapper(*args, **kwargs):
            calls[key].append((_keep(args), _keep(kwargs)))
            return fn(*args, **kwargs)
        setattr(mod, name, wrapper)

    for m, names in KERNELS.items():
        for n in names:
            wrap(mods[m], n)
    for path in folder_photos(folders, limit):
        try:
            cr.recognize(cv2.imread(str(path)))
        except NothingFound:
            pass
    with open(out, "wb") as fh:
        pickle.dump(calls, fh, protocol=pickle.HIGHEST_PROTOCOL)
    for k, v in calls.items():
        print(f"{k}: {len(v)} calls")


def _difference(a, b) -> tuple[bool, float]:
    """``(bitwise equal, largest absolute difference)`` of two kernel results."""
    if isinstance(a, (tuple, list)):
        res = [_difference(x, y) for x, y in zip(a, b, strict=True)]
        return all(r[0] for r in res), max([r[1] for r in res], default=0.0)
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False, float("inf")
    same = a.tobytes() == b.tobytes()
    diff = float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))) if a.size else 0.0
    return same, diff


def kernels(path: str, rev: str, rounds: int, only=None) -> None:
    """Replay the recorded calls through ``rev``'s and the working tree's kernels
    (``only``: the function names to replay, default all)."""
    cv2.setNumThreads(1)
    with open(path, "rb") as fh:
        calls = pickle.load(fh)
    if only:
        calls = {k: v for k, v in calls.items() if k.split(".")[1] in only}
    with tempfile.TemporaryDirectory() as tmp:
        base = load_side(Path(tmp), "kb_base", {"hexlattice": rev, "colour": rev})
        new = load_side(Path(tmp), "kb_new", {"hexlattice": None, "colour": None})
        print(f"{'kernel':32s} {'calls':>6s} {'base s':>8s} {'new s':>8s} {'ratio':>6s}  equal")
        for key, rec in calls.items():
            if not rec:
                continue
            m, name = key.split(".")
            fb, fn = getattr(base[m], name), getattr(new[m], name)
            bitwise, worst = True, 0.0
            for args, kwargs in rec:
                same, diff = _difference(fb(*args, **kwargs), fn(*args, **kwargs))
                bitwise &= same
                worst = max(worst, diff)
            tb = tn = float("inf")
            for _ in range(rounds):
                for which in (0, 1):
                    f = fb if which == 0 else fn
                    t0 = time.process_time()
                    for args, kwargs in rec:
                        f(*args, **kwargs)
                    t = time.process_time() - t0
                    if which == 0:
                        tb = min(tb, t)
                    else:
                        tn = min(tn, t)
            eq = "bitwise" if bitwise else f"max |diff| {worst:.3g}"
            print(f"{key:32s} {len(rec):6d} {tb:8.3f} {tn:8.3f} {tb / tn:6.2f}x  {eq}")


def ab(folders, rev: str, limit: int, runs: int, new_files=("hexlattice", "colour")) -> None:
    """Whole CARIBO recognition, ``rev``'s kernels vs the working tree's ``new_files``
    (see the module docstring)."""
    cv2.setNumThreads(1)
    with tempfile.TemporaryDirectory() as tmp:
        base = load_side(Path(tmp), "ab_base", dict.fromkeys(MODULES, rev))
        new = load_side(Path(tmp), "ab_new", {m: None if m in new_files else rev
                                              for m in MODULES})
        b, n = base["caribo_recognition"], new["caribo_recognition"]
        rows, differ = [], []
        for path in folder_photos(folders, limit):
            data = np.frombuffer(path.read_bytes(), np.uint8)
            image = cv2.imdecode(data, cv2.IMREAD_COLOR)
            tb, ja = timed_answer(b, image)
            tn, jb = timed_answer(n, image)
            ja, jb = json.dumps(ja, sort_keys=True), json.dumps(jb, sort_keys=True)
            if ja != jb:
                differ.append(str(path))
            t0 = time.process_time()
            cv2.imdecode(data, cv2.IMREAD_COLOR)
            td = time.process_time() - t0
            if runs:  # the answering calls warm up; the timed runs follow
                tb = tn = float("inf")
            for _ in range(runs):
                tb = min(tb, timed_answer(b, image)[0])
                tn = min(tn, timed_answer(n, image)[0])
                t0 = time.process_time()
                cv2.imdecode(data, cv2.IMREAD_COLOR)
                td = min(td, time.process_time() - t0)
            rows.append((tb, tn, td))
            print(f"{path.name}: base {tb * 1000:.0f} ms, new {tn * 1000:.0f} ms, "
                  f"{'same' if ja == jb else 'DIFFERS'}", flush=True)
    tb, tn = [r[0] for r in rows], [r[1] for r in rows]
    print(f"photos {len(rows)}: CPU total base {sum(tb):.2f} s, new {sum(tn):.2f} s "
          f"({sum(tn) / sum(tb):.3f} of base); median base {statistics.median(tb) * 1000:.0f} "
          f"ms, new {statistics.median(tn) * 1000:.0f} ms; median ratio to decode base "
          f"{statistics.median([r[0] / r[2] for r in rows]):.1f}, new "
          f"{statistics.median([r[1] / r[2] for r in rows]):.1f}")
    print(f"answers differing: {len(differ)}")
    for p in differ:
        print(f"  {p}")


def main(argv=None) -> int:
    """Command line: see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("out")
    r.add_argument("folders", nargs="+")
    r.add_argument("--limit", type=int, default=5)
    k = sub.add_parser("kernels")
    k.add_argument("calls")
    k.add_argument("--base", required=True)
    k.add_argument("--rounds", type=int, default=3)
    k.add_argument("--only", default="", help="kernel function names (comma list)")
    a = sub.add_parser("ab")
    a.add_argument("folders", nargs="+")
    a.add_argument("--base", required=True)
    a.add_argument("--limit", type=int, default=40)
    a.add_argument("--runs", type=int, default=2,
                   help="timed runs per photo and side (0: the answering call is timed)")
    a.add_argument("--new", default="hexlattice,colour",
                   help="the working tree's modules on the new side (comma list)")
    args = ap.parse_args(argv)
    if args.cmd == "record":
        record(args.out, args.folders, args.limit)
    elif args.cmd == "kernels":
        kernels(args.calls, args.base, args.rounds, [n for n in args.only.split(",") if n])
    else:
        ab(args.folders, args.base, args.limit, args.runs, tuple(args.new.split(",")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
