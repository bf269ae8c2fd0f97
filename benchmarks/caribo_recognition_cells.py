"""CARIBO tile reading, cell by cell, against the truth (which cells are missed or invented).

Usage::

    .venv/bin/python benchmarks/caribo_recognition_cells.py DIR [DIR ...] [--save OUT.npz]

Every photo (``*.jpg`` + ``*.json`` from ``boardcam dataset``) is read with
:func:`vision.caribo_recognition.recognize_with_colours`; the lattice finally chosen is then
re-read once with the reader's debug record on, and every candidate cell of that lattice is
labelled with the truth (a truth tile centre within 0.3 pitch of the cell centre). Per photo
it prints the board verdict and the cells *missed* (a tile there, read empty), *invented*
(read as a tile, none there) and *misread* (a tile read with the wrong code), and at the end
the counts per kind. ``--save`` writes the cell measurements and labels of photos whose
lattice is right (for studying the occupancy decision). The truth is only read here.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from engines.caribo.tiles import ALL_ROTATIONS
from vision import caribo_recognition as cr
from vision import hexlattice
from vision.evaluation import compare_states
from vision.recognize import NothingFound


def _truth_cells(H: np.ndarray, truth: dict):
    """``{(q, r): segments}`` of the truth tiles on the lattice ``H`` (full resolution) or None
    when some tile centre is not within 0.3 pitch of a cell centre (wrong lattice)."""
    pieces = truth["pieces"]
    centres = np.array([p["center_px"] for p in pieces], float)
    ax = hexlattice.world_to_axial(hexlattice.apply_homography(np.linalg.inv(H), centres))
    cells = hexlattice.round_axial(ax)
    resid = hexlattice.axial_to_world(ax) - hexlattice.axial_to_world(cells)
    if np.hypot(*resid.T).max() > 0.3 or len({tuple(c) for c in cells}) != len(cells):
        return None
    return {(int(q), int(r)): p["segments"] for (q, r), p in zip(cells, pieces, strict=True)}


def study(photo: Path):
    truth = json.loads(photo.with_suffix(".json").read_text())
    image = cv2.imread(str(photo))
    chosen = {}
    original = cr._read_tiles

    def spy(*args, **kw):
        out = original(*args, **kw)
        chosen.setdefault("all", []).append((args[5], out[2]))
        return out

    cr._read_tiles = spy
    try:
        answer, _ = cr.recognize_with_colours(image)
    except NothingFound:
        return "no-tiles", None, Counter()
    finally:
        cr._read_tiles = original
    cmp = compare_states("caribo", truth["state"], answer)
    # the lattice whose reading is the answer: the one re-read last with the best quality
    best_lattice = None
    for lattice, q in chosen["all"]:
        if best_lattice is None or q > best_lattice[1]:
            best_lattice = (lattice, q)
    lattice = best_lattice[0]
    cr.DEBUG = {}
    small, scale, lab_det, tdist, _ = cr.detection_inputs(image)
    try:
        cr._read_tiles(image, small, scale, lab_det, tdist, lattice, None)
    except NothingFound:
        pass
    dbg, cr.DEBUG = cr.DEBUG, None
    H = dbg["H"]
    tcells = _truth_cells(H, truth)
    kinds = Counter()
    if tcells is None:
        verdict = "ok" if cmp.perfect else "lattice"
        return verdict, None, kinds
    read = {}
    for t in answer["tiles"]:
        ax = hexlattice.world_to_axial(hexlattice.apply_homography(
            np.linalg.inv(H), np.array([t["center_px"]], float)))
        q, r = hexlattice.round_axial(ax)[0]
        read[(int(q), int(r))] = t["tile"]
    # the reading's grid may be turned by a multiple of 60 degrees against the truth's
    common = [c for c in tcells if c in read]
    turn = max(range(6), key=lambda k: sum(_turned(_SEGMENTS[read[c]], k) == tcells[c]
                                           for c in common))
    for c, code in tcells.items():
        if c not in read:
            kinds["missed"] += 1
        elif _turned(_SEGMENTS[read[c]], turn) != code:
            kinds["misread"] += 1
    kinds["invented"] = sum(1 for c in read if c not in tcells)
    labels = np.array([1 if (int(q), int(r)) in tcells else 0 for q, r in dbg["cand"]])
    rec = dict(feats=dbg["feats"], labels=labels, occupied=dbg["occupied"],
               inside=dbg["inside"], cand=dbg["cand"], own_logit=dbg["own_logit"],
               occ_logit=dbg["occ_logit"], tablelike=dbg["tablelike"],
               seg_ll_all=dbg["seg_ll"])
    verdict = "ok" if cmp.perfect else "cells"
    return verdict, rec, kinds


_SEGMENTS = {t.code: "".join(t.segments) for t in ALL_ROTATIONS}


def _turned(segments: str, k: int) -> str:
    """Segments of a tile turned by ``k`` × 60° (as in :mod:`vision.evaluation`)."""
    k %= 6
    return segments[-k:] + segments[:-k] if k else segments


def main(argv: list[str]) -> int:
    save = None
    if "--save" in argv:
        i = argv.index("--save")
        save = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    verdicts: Counter[str] = Counter()
    kinds_all: Counter[str] = Counter()
    photos_with: Counter[str] = Counter()
    recs = []
    for d in argv:
        for photo in sorted(Path(d).glob("*.jpg")):
            t0 = time.process_time()
            verdict, rec, kinds = study(photo)
            verdicts[verdict] += 1
            kinds_all.update(kinds)
            for k, v in kinds.items():
                if v:
                    photos_with[k] += 1
            if rec is not None:
                rec["photo"] = np.full(len(rec["labels"]), len(recs))
                recs.append(rec)
            print(f"{photo.name:32s} {verdict:8s} "
                  + " ".join(f"{k}={v}" for k, v in sorted(kinds.items()) if v)
                  + f"  ({time.process_time() - t0:.1f} s)", flush=True)
    total = sum(verdicts.values())
    print("boards:", ", ".join(f"{k} {v}/{total}" for k, v in verdicts.most_common()))
    print("cells:", ", ".join(f"{k} {v} (in {photos_with[k]} photos)"
                              for k, v in kinds_all.most_common()))
    if save and recs:
        keys = list(recs[0])
        np.savez(save, **{k: np.concatenate([r[k] for r in recs]) for k in keys})
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
