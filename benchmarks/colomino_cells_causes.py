"""Colomino wrong cells by cause, with the fields cached as in ``colomino_cells_diag.py``.

Usage: ``python benchmarks/colomino_cells_causes.py DIR [DIR ...] [--cache CACHE_DIR]
[--limit N] [--field-off CELLS] [-v]``.

Every wrong cell of every photo found at the right size is put under one cause, the
first that applies:

* ``field`` — the grid was fitted off there: the cell's reported centre lies more than
  ``--field-off`` (default 0.15) of a cell from its true pixel centre (the field
  finder's, not the cell reading's);
* ``joker`` — the truth or the reading is a joker;
* ``own-print`` — a one-colour tile on a printed field of its own colour;
* ``glare`` — the cell has a channel clipped in most pixels of a triangle, or was taken
  as a glare-washed / paled tile (:func:`vision.colomino_recognition.washed_tiles`,
  ``pale_tiles``, ``washed_solid_tiles``);
* ``other``.

and by kind (tile→empty, empty→tile, colour, joker). Prints the table per folder and
over all; ``-v`` lists every wrong cell (photo, SPEC row/col, truth, read, confidence,
offset in cells, clip share). The truth is used only here, never by the recogniser.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from colomino_cells_calib import traced_answers  # noqa: E402


def _kind(tru: str, got: str) -> str:
    if tru == "*" or got == "*":
        return "joker"
    if len(tru) == 4 and got == ".":
        return "tile→empty"
    if tru == "." and len(got) == 4:
        return "empty→tile"
    return "colour"


def wrong_cells(folder: Path, cache: Path, limit: int, off_cells: float):
    """Per wrong cell ``(photo, r, c, truth, read, conf, offset, clip, cause, kind)``,
    plus (photos found, perfect)."""
    out, found, perfect = [], 0, 0
    for f, truth, ans, feats in traced_answers(folder, cache, limit):
        want = truth["state"]["rows"]
        n = len(want)
        found += 1
        corners = np.array(truth["board_corners_px"], float)
        pitch = float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, 0), axis=1))) / n
        centre = {(p["row"], p["col"]): p for p in truth["pieces"]}
        bad = 0
        for cell in ans["cells"]:
            r, c = cell["row"], cell["col"]
            got, tru = ans["rows"][r][c], want[r][c]
            if got == tru:
                continue
            bad += 1
            p = centre.get((r, c))
            off = (float(np.hypot(*np.subtract(cell["centre_px"], p["center_px"]))) / pitch
                   if p else float("nan"))
            printed = p.get("printed") if p else None
            clip = float(feats["clip"][r, c]) if feats else 0.0
            kindcode = int(feats["kind"][r, c]) if feats else 0
            if off > off_cells:
                cause = "field"
            elif tru == "*" or got == "*":
                cause = "joker"
            elif len(tru) == 4 and len(set(tru)) == 1 and printed and printed[0] == tru[0]:
                cause = "own-print"
            elif clip >= 0.5 or kindcode in (2, 3, 4):
                cause = "glare"
            else:
                cause = "other"
            out.append((f.stem, r, c, tru, got, cell["confidence"], off, clip, cause,
                        _kind(tru, got)))
        perfect += bad == 0
    return out, found, perfect


def table(name: str, rows, found: int, perfect: int) -> str:
    """One line: boards perfect, wrong cells, counts per cause and per cause/kind."""
    causes = Counter(r[8] for r in rows)
    kinds = Counter(f"{r[8]}/{r[9]}" for r in rows)
    boards = len({r[0] for r in rows})
    return (f"{name}: boards {perfect}/{found} perfect ({boards} with wrong cells), "
            f"wrong cells {len(rows)} | " + ", ".join(f"{k} {v}" for k, v in
                                                      causes.most_common())
            + " | " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--cache", default="")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--field-off", type=float, default=0.15)
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args(argv)
    allrows, allf, allp = [], 0, 0
    for d in args.dirs:
        folder = Path(d)
        cache = Path(args.cache) / folder.name if args.cache else folder / ".field_cache"
        rows, found, perfect = wrong_cells(folder, cache, args.limit, args.field_off)
        print(table(folder.name, rows, found, perfect), flush=True)
        if args.v:
            for r in rows:
                print(f"  {r[0]} ({r[1]},{r[2]}) {r[3]}->{r[4]} conf {r[5]:.3f} "
                      f"off {r[6]:.2f} clip {r[7]:.2f} {r[8]}")
        allrows += rows
        allf += found
        allp += perfect
    if len(args.dirs) > 1:
        print(table("all", allrows, allf, allp))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
