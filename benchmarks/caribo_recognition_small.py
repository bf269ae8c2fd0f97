"""What the CARIBO reader does with small figures (1-3 tiles), photo by photo (uses truth).

Usage::

    .venv/bin/python benchmarks/caribo_recognition_small.py DIR [DIR ...] [--all]
        [--lattice-cache CACHE_DIR]

``DIR``: photos saved by ``benchmarks/caribo_small_figures.py --save`` (or any
``boardcam dataset`` folder). For every photo whose answer is not perfect (every photo
with ``--all``): the lattice candidates (``R`` right, ``.`` wrong, by
``caribo_recognition_diagnose.lattice_right``), the answer (notation or "none", tile
confidences), and the first right candidate read as the final reading is
(``drop_clashing``), with every cell the reader measured that is a truth tile, was
kept, or has own log-odds > -3: truth (``T``), kept (``K``), own and final log-odds,
table-like veto, eligible, paint fraction, ridge, median segment spread, paint fit and
median table distance. Then counts per cause: ``no-right-lattice``, ``choice`` (a right
candidate not chosen), ``missed``/``invented`` cells on the right lattice, ``colour``,
``no-tiles``. The truth is only read here, never inside the recogniser.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def study(photo: Path, show_all: bool, cache: Path | None) -> tuple[str, list[str]]:
    """``(cause, lines)`` for one photo."""
    from caribo_recognition_diagnose import lattice_candidates, lattice_right
    from caribo_recognition_runs import _cached_lattice

    from vision import caribo_lattice, hexlattice
    from vision import caribo_recognition as cr
    from vision.evaluation import compare_states
    from vision.image_io import decode_photo
    from vision.recognize import NothingFound

    data = photo.read_bytes()
    truth = json.loads(photo.with_suffix(".json").read_text())
    find = caribo_lattice.find_lattice
    if cache is not None:
        key = hashlib.sha1(data).hexdigest()[:16]
        caribo_lattice.find_lattice = _cached_lattice(find, cache / f"{key}.pkl")
    try:
        image = decode_photo(data)
        try:
            answer = cr.recognize(image)
        except NothingFound:
            answer = None
        small, scale, lab_det, tdist, found = lattice_candidates(image)
    finally:
        caribo_lattice.find_lattice = find
    S = np.diag([1 / scale, 1 / scale, 1.0])
    rights = [lattice_right(S @ lat[0], truth) for lat in found]
    perfect = answer is not None and compare_states("caribo", truth["state"], answer).perfect
    lines = [f"{photo.name} {'OK ' if perfect else 'BAD'} cands="
             + "".join("R" if r else "." for r in rights) + " read "
             + ("none" if answer is None else answer["notation"] + " conf "
                + ",".join(f"{t['confidence']:.2f}" for t in answer["tiles"]))]
    lines[0] += f" truth {truth['state'].get('notation')}"
    if perfect and not show_all:
        return "ok", lines
    if not any(rights):
        cause = "no-right-lattice"
    elif answer is None:
        cause = "no-tiles"
    else:
        cause = "?"
    if any(rights):
        lat = found[rights.index(True)]
        cr.DEBUG = {}
        try:
            right_answer, _, q = cr._read_tiles(image, small, scale, lab_det, tdist, lat, None,
                                                 cr._exposure_hint(
                                                     small, __import__("vision").colour
                                                     .nominal_paints_linear()),
                                                 drop_clashing=True)
            lines.append(f"  right lattice #{rights.index(True)} reads "
                         f"{right_answer['notation']} q={q:.2f}")
        except NothingFound:
            lines.append("  right lattice reads nothing")
        d = cr.DEBUG
        cr.DEBUG = None
        if d:
            H = d["H"]
            tc = np.array([p["center_px"] for p in truth["pieces"]], float)
            ax = hexlattice.round_axial(hexlattice.world_to_axial(
                hexlattice.apply_homography(np.linalg.inv(H), tc)))
            tset = {(int(a), int(b)) for a, b in ax}
            kept = set(int(i) for i in d.get("kept", []))
            for i, (qq, rr) in enumerate(d["cand"]):
                is_t = (int(qq), int(rr)) in tset
                if not (is_t or i in kept or d["own_logit"][i] > -3 or d["occupied"][i]):
                    continue
                f = d["feats"][i]
                lines.append(
                    f"    ({qq:3d},{rr:3d}) {'T' if is_t else ' '}{'K' if i in kept else ' '}"
                    f"{'O' if d['occupied'][i] else ' '} own {d['own_logit'][i]:6.2f} occ "
                    f"{d['occ_logit'][i]:6.2f} tbl {int(d['tablelike'][i])} elig "
                    f"{int(d['eligible'][i])} pf {f[0]:.2f} ridge {f[2]:.3f} spr {f[3]:5.1f}"
                    f" fit {f[5]:5.1f} rotfit {f[6]:6.1f} td {f[7]:5.1f}/{f[9]:5.1f}")
            if cause == "?":
                rt = {(int(a), int(b)) for a, b in d["cand"][list(kept)]} if kept else set()
                if rt - tset:
                    cause = "invented"
                elif tset - rt:
                    cause = "missed"
                else:
                    cause = "choice-or-colour"
    elif cause == "?":
        cause = "other"
    return cause, lines


def main(argv=None) -> int:
    """Command line: see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--lattice-cache", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.lattice_cache:
        args.lattice_cache.mkdir(parents=True, exist_ok=True)
    counts: Counter[str] = Counter()
    for d in args.folders:
        for photo in sorted(d.glob("*.jpg")):
            cause, lines = study(photo, args.all, args.lattice_cache)
            counts[cause] += 1
            if cause != "ok" or args.all:
                print("\n".join(lines), flush=True)
    print("causes:", ", ".join(f"{k} {v}" for k, v in counts.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
