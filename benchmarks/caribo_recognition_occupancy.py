"""Why each missed or invented CARIBO tile was missed or invented (uses the truth files).

Usage::

    .venv/bin/python benchmarks/caribo_recognition_occupancy.py DIR [DIR ...]
        [--lattice-cache CACHE_DIR] [--jobs N] [--save OUT.json]

Every photo is read by :func:`vision.caribo_recognition.recognize_with_colours` with the
reader's debug record on; the record of the final reading (the one that became the
answer: ``drop_clashing`` and the answer's notation) gives every candidate cell's
measurements and decisions. Every truth tile is put on that lattice (its pixel centre
within 0.3 pitch of a cell centre, else the photo's lattice is *wrong* and its tiles are
not attributed). Each missed truth tile gets the stage that lost it:

``not-candidate`` never measured (beyond the grown rings) · ``outside`` not wholly in
the photo · ``table-veto`` its colours the table's and no paint's (not rescued) ·
``low-evidence`` own log-odds plus edge evidence <= 0 · ``disconnected`` dropped as a
group apart from the figure · ``clash`` dropped by :func:`_drop_clashing_tiles` ·
``assignment`` no tile left for it.

Each invented tile (a read tile on no truth tile): ``own`` (its own log-odds > 0) or
``neighbours`` (carried by the edge evidence), with ``hole`` when at least 3 of its 6
neighbours are truth tiles (a hole or bay of the figure) else ``rim``.

Both are tallied by the table's kind, the light, whether the cell lies in the arm
shadow's darkened brightness (its segments' median lightness below 0.75 of the figure's
median) and whether the table colours are near a paint. ``--lattice-cache`` as in
``caribo_recognition_runs.py``. The truth is only read here.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def study(photo: str) -> dict:
    """The attribution record of one photo (see the module docstring)."""
    from caribo_recognition_runs import _cached_lattice

    from vision import caribo_lattice, hexlattice
    from vision import caribo_recognition as cr
    from vision.image_io import decode_photo
    from vision.recognize import NothingFound

    path = Path(photo)
    data = path.read_bytes()
    truth = json.loads(path.with_suffix(".json").read_text())
    cond = truth.get("conditions", {})
    info = {"photo": path.name, "table": cond.get("table", {}).get("kind"),
            "light": cond.get("light_kind"), "shadow": cond.get("arm_shadow") is not None,
            "n_truth": len(truth["pieces"])}
    find = caribo_lattice.find_lattice
    cache = os.environ.get("CARIBO_LATTICE_CACHE")
    if cache:
        key = hashlib.sha1(data).hexdigest()[:16]
        caribo_lattice.find_lattice = _cached_lattice(find, Path(cache) / f"{key}.pkl")
    finals = []
    original = cr._read_tiles_under

    def spy(*args, **kw):
        cr.DEBUG = {}
        out = original(*args, **kw)
        if kw.get("drop_clashing") or (len(args) > 8 and args[8]):
            finals.append((out[0]["notation"], dict(cr.DEBUG)))
        cr.DEBUG = None
        return out

    cr._read_tiles_under = spy
    image = decode_photo(data)
    try:
        answer, _ = cr.recognize_with_colours(image)
    except NothingFound:
        answer = None
    finally:
        cr._read_tiles_under = original
        caribo_lattice.find_lattice = find
        cr.DEBUG = None
    if answer is None:
        info["verdict"] = "no-tiles"
        return info
    dbg = next((d for n, d in reversed(finals) if n == answer["notation"]), None)
    if dbg is None:
        info["verdict"] = "no-record"
        return info
    H = dbg["H"]
    Hinv = np.linalg.inv(H)
    centres = np.array([p["center_px"] for p in truth["pieces"]], float)
    ax = hexlattice.world_to_axial(hexlattice.apply_homography(Hinv, centres))
    cells = hexlattice.round_axial(ax)
    resid = np.hypot(*(hexlattice.axial_to_world(ax) - hexlattice.axial_to_world(cells)).T)
    on = resid <= 0.3
    if on.mean() < 0.8:
        info["verdict"] = "wrong-lattice"
        return info
    tset = {(int(q), int(r)) for (q, r), o in zip(cells, on, strict=True) if o}
    cand = [(int(q), int(r)) for q, r in dbg["cand"]]
    where = {c: i for i, c in enumerate(cand)}
    kept = {cand[i] for i in dbg["kept"]}
    read = {}
    for t in answer["tiles"]:
        a = hexlattice.world_to_axial(hexlattice.apply_homography(
            Hinv, np.array([t["center_px"]], float)))
        q, r = hexlattice.round_axial(a)[0]
        read[(int(q), int(r))] = t["confidence"]
    lum = np.median(dbg["med"] @ np.array([0.2126, 0.7152, 0.0722]), axis=1)
    fig_lum = np.median([lum[where[c]] for c in tset if c in where] or [1.0])
    rows = []
    for c in sorted(tset):
        if c in read:
            continue
        i = where.get(c)
        row = {"kind": "missed", "cell": c}
        if i is None:
            row["stage"] = "not-candidate"
        else:
            row.update(own=float(dbg["own_logit"][i]), occ=float(dbg["occ_logit"][i]),
                       tablelike=bool(dbg["tablelike"][i]), dark=bool(lum[i] < 0.75 * fig_lum),
                       feats=[round(float(v), 3) for v in dbg["feats"][i]])
            if not dbg["inside"][i]:
                row["stage"] = "outside"
            elif dbg["tablelike"][i] and not dbg["eligible"][i]:
                row["stage"] = "table-veto"
            elif dbg["occ_logit"][i] <= 0:
                row["stage"] = "low-evidence"
            elif not dbg["occupied"][i]:
                row["stage"] = "disconnected"
            elif c not in kept:
                row["stage"] = "clash"
            else:
                row["stage"] = "assignment"
        rows.append(row)
    for c, conf in read.items():
        if c in tset:
            continue
        i = where.get(c)
        nb = sum((c[0] + dq, c[1] + dr) in tset for dq, dr in cr.AXIAL_DIRECTIONS)
        row = {"kind": "invented", "cell": c, "conf": conf, "truth_nb": nb,
               "place": "hole" if nb >= 3 else "rim"}
        if i is not None:
            row.update(own=float(dbg["own_logit"][i]), occ=float(dbg["occ_logit"][i]),
                       tablelike=bool(dbg["tablelike"][i]), dark=bool(lum[i] < 0.75 * fig_lum),
                       feats=[round(float(v), 3) for v in dbg["feats"][i]])
            row["stage"] = "own" if dbg["own_logit"][i] > 0 else "neighbours"
        rows.append(row)
    info.update(verdict="cells", rows=rows)
    return info


def main(argv=None) -> int:
    """Command line: see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--lattice-cache", type=Path, default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--save", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.lattice_cache is not None:
        args.lattice_cache.mkdir(parents=True, exist_ok=True)
        os.environ["CARIBO_LATTICE_CACHE"] = str(args.lattice_cache)
    photos = [str(p) for d in args.folders for p in sorted(Path(d).glob("*.jpg"))]
    with Pool(args.jobs) as pool:
        recs = pool.map(study, photos, chunksize=1)
    verdicts = Counter(r["verdict"] for r in recs)
    print("photos:", dict(verdicts))
    tally: Counter = Counter()
    by_table: Counter = Counter()
    for r in recs:
        for row in r.get("rows", []):
            key = (row["kind"], row.get("stage"), row.get("place", ""))
            tally[key] += 1
            by_table[(row["kind"], r["table"], "dark" if row.get("dark") else "",
                      "tablelike" if row.get("tablelike") else "")] += 1
            print(f"  {r['photo']} {r['table']:10s} {row['kind']:8s} {row.get('stage')} "
                  f"{row.get('place', '')} own={row.get('own', float('nan')):.2f} "
                  f"occ={row.get('occ', float('nan')):.2f} tl={row.get('tablelike')} "
                  f"dark={row.get('dark')} feats={row.get('feats')}")
    print("by stage:")
    for k, v in tally.most_common():
        print(f"  {v:4d}  {k}")
    print("by table:")
    for k, v in by_table.most_common():
        print(f"  {v:4d}  {k}")
    if args.save:
        args.save.write_text(json.dumps(recs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
