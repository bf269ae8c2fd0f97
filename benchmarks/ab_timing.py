"""Interleaved A/B timing of two recognisers in one process, shared by the
``*_recognition_ab.py`` benchmarks.

:func:`load_revision` imports a recogniser as it was at a git revision, beside the working
tree's (its own ``vision`` helper modules from that revision too, under other names).

For every photo the base and the new recogniser answer once (answers compared as JSON),
then run interleaved ``runs`` times each (smallest CPU time, ``process_time``), so the load
of a shared machine falls on both alike; the JPEG decode of the same bytes is timed too.
"""

from __future__ import annotations

import importlib.util
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def load_revision(rev: str, tmp: Path, module: str, helpers: list[str]):
    """Import ``vision/<module>.py`` of git revision ``rev`` with its ``helpers`` (names of
    ``vision`` modules it imports) from the same revision, written into ``tmp`` as
    ``ab_base_<name>.py`` (helpers that do not exist at ``rev`` are left out); the rest of
    ``vision`` and ``engines`` is the working tree's."""
    def show(name: str) -> str:
        src = subprocess.run(["git", "show", f"{rev}:vision/{name}.py"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout
        for h in helpers:
            src = src.replace(f"from vision.{h} import", f"from ab_base_{h} import").replace(
                f"from vision import {h} as", f"import ab_base_{h} as")
        return src

    def exists(name: str) -> bool:
        return subprocess.run(["git", "cat-file", "-e", f"{rev}:vision/{name}.py"], cwd=ROOT,
                              capture_output=True).returncode == 0

    helpers = [h for h in helpers if exists(h)]  # a helper split out after ``rev``
    for name in [*helpers, module]:
        (tmp / f"ab_base_{name}.py").write_text(show(name))
    sys.path.insert(0, str(tmp))
    alias = f"ab_base_{module}"
    spec = importlib.util.spec_from_file_location(alias, tmp / f"{alias}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[alias] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def compare(base, new, photos: list[Path], runs: int = 3):
    """``(rows, differ)``: per photo ``(base s, new s, decode s)`` CPU times, and the
    photos whose answers differ. ``base``/``new`` are recogniser modules."""
    from vision.recognize import NothingFound

    def run(mod, image):
        t0 = time.process_time()
        try:
            answer = mod.recognize(image)
        except NothingFound:
            answer = None
        return time.process_time() - t0, answer

    cv2.setNumThreads(1)
    rows, differ = [], []
    for path in photos:
        data = np.frombuffer(path.read_bytes(), np.uint8)
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
        _, a = run(base, image)
        _, b = run(new, image)
        if json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):
            differ.append(str(path))
        tb = tn = td = float("inf")
        for _ in range(runs):
            tb = min(tb, run(base, image)[0])
            tn = min(tn, run(new, image)[0])
            t0 = time.process_time()
            cv2.imdecode(data, cv2.IMREAD_COLOR)
            td = min(td, time.process_time() - t0)
        rows.append((tb, tn, td))
    return rows, differ


def report(rows, differ) -> int:
    """Print the medians, ratios and differing photos; exit status for ``main``."""
    if not rows:
        print("no photos")
        return 1
    tb, tn = [r[0] for r in rows], [r[1] for r in rows]
    print(f"photos {len(rows)}: median CPU base {statistics.median(tb) * 1000:.1f} ms, "
          f"new {statistics.median(tn) * 1000:.1f} ms; median ratio to decode base "
          f"{statistics.median([r[0] / r[2] for r in rows]):.2f}, new "
          f"{statistics.median([r[1] / r[2] for r in rows]):.2f}; total base/new "
          f"{sum(tb) / sum(tn):.2f}x")
    print(f"answers differing: {len(differ)}")
    for p in differ:
        print(f"  {p}")
    return 0
