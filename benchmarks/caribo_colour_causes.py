"""CARIBO colour errors on boards whose lattice is right, segment by segment (session 16).

Usage::

    .venv/bin/python benchmarks/caribo_colour_causes.py DIR [DIR ...]

Every photo is read with :func:`vision.caribo_recognition.recognize_with_colours`; the
lattice read last with the best quality is re-read with the reader's debug record on and
the truth tiles are put on its cells (as ``caribo_recognition_cells.py`` does). For every
truth tile read with a wrong code, each wrong segment is printed with its truth and read
paint, the paint its own likelihood prefers (``seg``: a segment misjudged, or a decoding
that overrode a right segment), its median sRGB (255 in a channel: clipped) and the
photo's light (kind, colour temperature, exposure bias). At the end: counts of the
(truth -> read) confusions, and of the segments' own argmax being right or wrong. A photo's
verdict is ``colour`` when some tile on a truth cell has a wrong code, ``lattice`` when the
truth tiles do not sit on the lattice's cells, else ``ok`` (missed and invented tiles are
not counted here: ``caribo_recognition_cells.py``). The truth is only read here.

Session 16, dev 16200 normal + 16201 hard (60 photos, base 3eb02f3): colour errors on a
right lattice in 2 photos only (3 tiles): a lamp's specular highlight over part of the
figure (16200 #4: G->W 6 segments, S->W 2) and a ragged paint edge plus a clipped red
(16201 #22: GGGRRG read GGGGGG).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from engines.caribo.tiles import ALL_ROTATIONS
from vision import caribo_recognition as cr
from vision import colour, hexlattice
from vision.recognize import NothingFound

_SEGMENTS = {t.code: "".join(t.segments) for t in ALL_ROTATIONS}


def _turned(segments: str, k: int) -> str:
    k %= 6
    return segments[-k:] + segments[:-k] if k else segments


def _truth_cells(H, truth):
    pieces = truth["pieces"]
    if not pieces:
        return None
    centres = np.array([p["center_px"] for p in pieces], float)
    ax = hexlattice.world_to_axial(hexlattice.apply_homography(np.linalg.inv(H), centres))
    cells = hexlattice.round_axial(ax)
    resid = hexlattice.axial_to_world(ax) - hexlattice.axial_to_world(cells)
    if np.hypot(*resid.T).max() > 0.3 or len({tuple(c) for c in cells}) != len(cells):
        return None
    return {(int(q), int(r)): p["segments"] for (q, r), p in zip(cells, pieces, strict=True)}


def study(photo: Path):
    truth = json.loads(photo.with_suffix(".json").read_text())
    cond = truth["conditions"]
    light = (f"{cond.get('light_kind')} {cond.get('kelvin', 0):.0f}K "
             f"exp{cond.get('exposure_bias', 1):.2f} {cond['table']['kind']}")
    image = cv2.imread(str(photo))
    chosen = []
    original = cr._read_tiles

    def spy(*args, **kw):
        out = original(*args, **kw)
        chosen.append((args[5], out[2]))
        return out

    cr._read_tiles = spy
    try:
        answer, _ = cr.recognize_with_colours(image)
    except NothingFound:
        return "no-tiles", [], light
    finally:
        cr._read_tiles = original
    lattice = max(chosen, key=lambda x: x[1])[0]
    cr.DEBUG = {}
    small, scale, lab_det, tdist, _ = cr.detection_inputs(image)
    try:
        cr._read_tiles(image, small, scale, lab_det, tdist, lattice, None)
    except NothingFound:
        pass
    dbg, cr.DEBUG = cr.DEBUG, None
    H = dbg["H"]
    tcells = _truth_cells(H, truth)
    if tcells is None:
        return "lattice", [], light
    read = {}
    for t in answer["tiles"]:
        ax = hexlattice.world_to_axial(hexlattice.apply_homography(
            np.linalg.inv(H), np.array([t["center_px"]], float)))
        q, r = hexlattice.round_axial(ax)[0]
        read[(int(q), int(r))] = t["tile"]
    common = [c for c in tcells if c in read]
    turn = max(range(6), key=lambda k: sum(_turned(_SEGMENTS[read[c]], k) == tcells[c]
                                           for c in common))
    index = {(int(q), int(r)): i for i, (q, r) in enumerate(dbg["cand"])}
    rows = []
    for c in common:
        rd = _turned(_SEGMENTS[read[c]], turn)
        tr = tcells[c]
        if rd == tr:
            continue
        i = index.get(c)
        for s in range(6):
            if rd[s] == tr[s]:
                continue
            # the debug record's segment k of cell i: segment s of the truth's frame is
            # the same physical segment (turn only relabels the tile code)
            seg = srgb = None
            if i is not None:
                # the read code's segment order is the lattice's; find it unturned
                k = (s - turn) % 6
                seg = colour.LETTERS[int(np.argmax(dbg["seg_ll"][i, k]))]
                med = dbg["med"][i, k]
                srgb = [int(v) for v in np.round(255 * np.where(
                    med <= 0.0031308, 12.92 * med, 1.055 * med ** (1 / 2.4) - 0.055))]
            rows.append((c, tr, rd, s, tr[s], rd[s], seg, srgb))
    return ("ok" if not rows else "colour"), rows, light


def main(argv):
    conf = Counter()
    segown = Counter()
    verdicts = Counter()
    for d in argv:
        for photo in sorted(Path(d).glob("*.jpg")):
            verdict, rows, light = study(photo)
            verdicts[verdict] += 1
            tiles = {r[0] for r in rows}
            name = f"{Path(d).name}/{photo.name}"
            print(f"{name} {verdict} tiles={len(tiles)} [{light}]", flush=True)
            for c, tr, rd, s, t, r, seg, srgb in rows:
                conf[(t, r)] += 1
                segown["seg right (decode overrode)" if seg == t else
                       ("seg says read" if seg == r else f"seg other {seg}")] += 1
                print(f"   cell {c} truth {tr} read {rd} seg{s} {t}->{r} own={seg} "
                      f"srgb={srgb}")
    print("verdicts", dict(verdicts))
    print("confusions", ", ".join(f"{t}->{r} {n}" for (t, r), n in conf.most_common()))
    print("segment argmax", dict(segown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
