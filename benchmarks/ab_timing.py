"""Interleaved A/B timing of two recognisers (or two versions of one stage) in one
process, shared by the ``*_ab.py`` benchmarks.

:func:`load_revision` imports a recogniser as it was at a git revision, beside the working
tree's (its own ``vision`` helper modules from that revision too, under other names).

For every photo the base and the new recogniser answer once (answers compared as JSON, or
by the caller's own test), then run interleaved ``runs`` times each (smallest CPU time,
``process_time``), so the load of a shared machine falls on both alike; the JPEG decode of
the same bytes is timed too.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
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
        return re.sub(r"^from vision import ([\w, ]+)$", split_import, src, flags=re.M)

    def split_import(match: re.Match) -> str:
        # ``from vision import a, b``: each helper from its ``ab_base_`` copy, the rest as is
        names = [n.strip() for n in match.group(1).split(",")]
        lines = [f"import ab_base_{n} as {n}" for n in names if n in helpers]
        rest = [n for n in names if n not in helpers]
        if rest:
            lines.append(f"from vision import {', '.join(rest)}")
        return "\n".join(lines)

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


def timed_answer(mod, image):
    """``(CPU s, answer)`` of ``mod.recognize(image)``; ``None`` for "nothing found"."""
    from vision.recognize import NothingFound

    t0 = time.process_time()
    try:
        answer = mod.recognize(image)
    except NothingFound:
        answer = None
    return time.process_time() - t0, answer


def answers_differ(a, b) -> str:
    """Empty when two answers are the same JSON, else a short description."""
    same = json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    return "" if same else "answer differs"


def compare(base, new, photos: list[Path], runs: int = 3, call=timed_answer,
            differ_by=answers_differ):
    """``(rows, differ)``: per photo ``(base s, new s, decode s)`` CPU times, and the
    photos whose results differ (``"path: why"``). ``call(mod, image)`` gives ``(CPU s,
    result)`` of one module (default: a recogniser's ``recognize``); ``differ_by(a, b)``
    says how two results differ (empty: alike). The results come from one untimed call
    of each side before the ``runs`` timed ones."""
    cv2.setNumThreads(1)
    rows, differ = [], []
    for path in photos:
        data = np.frombuffer(path.read_bytes(), np.uint8)
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
        why = differ_by(call(base, image)[1], call(new, image)[1])
        if why:
            differ.append(f"{path}: {why}")
        tb = tn = td = float("inf")
        for _ in range(runs):
            tb = min(tb, call(base, image)[0])
            tn = min(tn, call(new, image)[0])
            t0 = time.process_time()
            cv2.imdecode(data, cv2.IMREAD_COLOR)
            td = min(td, time.process_time() - t0)
        rows.append((tb, tn, td))
    return rows, differ


def report(rows, differ, timed: str = "", what: str = "answers") -> int:
    """Print the medians, ratios and differing photos; exit status for ``main``.
    ``timed`` names what was timed (after "CPU"), ``what`` what was compared."""
    if not rows:
        print("no photos")
        return 1
    tb, tn = [r[0] for r in rows], [r[1] for r in rows]
    print(f"photos {len(rows)}: median CPU{timed} base {statistics.median(tb) * 1000:.1f} ms, "
          f"new {statistics.median(tn) * 1000:.1f} ms; median ratio to decode base "
          f"{statistics.median([r[0] / r[2] for r in rows]):.2f}, new "
          f"{statistics.median([r[1] / r[2] for r in rows]):.2f}; total base/new "
          f"{sum(tb) / sum(tn):.2f}x")
    print(f"{what} differing: {len(differ)}")
    for p in differ:
        print(f"  {p}")
    return 0


def arguments(doc: str, limit: int = 30, runs: int = 3) -> argparse.ArgumentParser:
    """The A/B scripts' common options: photo folders, ``--base REV``, ``--limit`` photos
    per folder, ``--runs`` timed runs per photo and side."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--base", required=True, help="git revision to compare against")
    ap.add_argument("--limit", type=int, default=limit, help="photos per folder")
    ap.add_argument("--runs", type=int, default=runs, help="timed runs per photo and side")
    return ap


def folder_photos(folders: list[str], limit: int, name_has: str = "") -> list[Path]:
    """The first ``limit`` JPEG photos (sorted by name) of each folder whose name
    contains ``name_has``."""
    return [path for folder in folders
            for path in sorted(p for p in Path(folder).glob("*.jpg")
                               if name_has in p.name)[:limit]]
