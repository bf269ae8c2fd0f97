"""Colomino cell reading on the pixels: every misread cell of simulator photos with the
colour evidence the reader had.

Usage: ``python benchmarks/colomino_cells_pixels.py DIR [--limit N] [--cache CACHE_DIR]``
(``--cache``: the fields found, as :mod:`colomino_cells_diag` stores them).

Runs :func:`vision.colomino_recognition.recognize` once per photo (the field found once
and reused), maps truth and answer into the canonical view of the field and prints one
line per wrong cell: truth → read, and for each of its four triangles the linear RGB
after the board's print balance, the share of pixels with a clipped channel (≥ 250 of
255) per channel, Lab lightness and chroma. Photo conditions (light, kelvin, gloss) head
each photo's block. The truth is used only here, never by the recogniser.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from colomino_cells_diag import cached_locate  # noqa: E402

from vision import colomino_recognition as cr  # noqa: E402
from vision.colomino_field import CELL, MARGIN_CELLS  # noqa: E402
from vision.colour import linear_to_lab  # noqa: E402
from vision.recognize import NothingFound  # noqa: E402

_DIRS = ((0, -1), (1, 0), (0, 1), (-1, 0))  # canonical N, E, S, W as (dx, dy)


def canonical_codes(Hc: np.ndarray, n: int, centres: dict, codes: dict) -> dict:
    """``{(cr, cc): code in canonical NESW}`` from SPEC cells ``(r, c)`` with their pixel
    centres ``centres[(r, c)] = (x, y)`` and codes."""
    M = MARGIN_CELLS * CELL
    keys = sorted(centres)
    pts = cv2.perspectiveTransform(np.array([[centres[k] for k in keys]], np.float64), Hc)[0]
    pos = {k: ((p - M) / CELL) for k, p in zip(keys, pts, strict=True)}
    # board north in canonical: from cell (1, c) to cell (0, c)
    v = pos[(0, 0)] - pos[(1, 0)]
    s = int(np.argmax([v @ np.array(d) for d in _DIRS]))
    out = {}
    for k in keys:
        cc, rr = (int(np.floor(x)) for x in pos[k])
        code = codes[k]
        if len(code) == 4:
            code = "".join(code[(i - s) % 4] for i in range(4))
        out[(rr, cc)] = code
    return out


def read_with_field(image: np.ndarray):
    """``(answer, (Hc, n, score, canon))``: the recogniser's answer for a BGR photo and
    the field :func:`vision.colomino_field.locate_field` gave it (the canonical view the
    cells were read from). Raises :class:`NothingFound` like the recogniser."""
    real_locate = cr.locate_field
    got = {}

    def locate(img):
        got["r"] = real_locate(img)
        return got["r"]

    cr.locate_field = locate
    try:
        answer = cr.recognize(image)
    finally:
        cr.locate_field = real_locate
    return answer, got["r"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--cache", default="")
    args = ap.parse_args(argv)
    real_locate = cr.locate_field
    files = sorted(f for f in Path(args.dir).glob("*.json") if f.with_suffix(".jpg").exists())
    if args.limit:
        files = files[:args.limit]
    kinds: Counter = Counter()
    tris: Counter = Counter()
    for f in files:
        truth = json.loads(f.read_text())
        image = cv2.imread(str(f.with_suffix(".jpg")))
        if args.cache:
            cr.locate_field = cached_locate(Path(args.cache) / Path(args.dir).name, f.stem)
        try:
            ans, (Hc, n, _, canon) = read_with_field(image)
        except NothingFound:
            print(f"{f.stem}: not found")
            continue
        finally:
            cr.locate_field = real_locate
        want = truth["state"]["rows"]
        if n != len(want):
            print(f"{f.stem}: size {n}")
            continue
        t_centres = {(p["row"], p["col"]): p["center_px"] for p in truth["pieces"]}
        t_codes = {(r, c): want[r][c] for r in range(n) for c in range(n)}
        a_centres = {(c["row"], c["col"]): c["centre_px"] for c in ans["cells"]}
        a_codes = {(r, c): ans["rows"][r][c] for r in range(n) for c in range(n)}
        try:
            tcan = canonical_codes(Hc, n, t_centres, t_codes)
        except (KeyError, ValueError):
            print(f"{f.stem}: truth not mappable")
            continue
        acan = canonical_codes(Hc, n, a_centres, a_codes)
        # (truth cells outside the field found, as on a misfitted grid, are left out)
        wrong = [k for k in sorted(tcan) if acan.get(k) != tcan[k]
                 and 0 <= k[0] < n and 0 <= k[1] < n]
        cond = truth.get("conditions", {})
        print(f"{f.stem}: {len(wrong)} wrong  light={cond.get('light_kind')} "
              f"K={cond.get('kelvin', 0):.0f} gloss={cond.get('gloss', 0):.2f} "
              f"exp={cond.get('exposure_bias', 0):.2f} "
              f"plastic={truth.get('palette', {}).get('plastic')}")
        if not wrong:
            continue
        tri, centre, _ = cr.read_canonical(canon, n)
        gain = cr.white_balance(tri, centre)
        wb = tri / gain
        lab = linear_to_lab(wb)
        M = MARGIN_CELLS * CELL
        masks = cr._cell_masks(CELL)
        for rr, cc in wrong:
            t, a = tcan[(rr, cc)], acan.get((rr, cc), "?")  # "?": no answer cell there
            kind = ("joker" if "*" in (t, a) else "colour" if len(t) == len(a) == 4
                    else "empty")
            kinds[kind] += 1
            cell = canon[M + rr * CELL:M + (rr + 1) * CELL, M + cc * CELL:M + (cc + 1) * CELL]
            parts = []
            for i, side in enumerate("NESW"):
                px = cell[masks[side] > 0][:, ::-1]  # RGB uint8
                clip = (px >= 250).mean(axis=0)
                if kind == "colour" and t[i] != a[i]:
                    tris[(f"{t[i]}>{a[i]}", "clipped" if clip.max() >= 0.5 else "unclipped")] += 1
                L, A, B = lab[rr, cc, i]
                tside = t[i] if len(t) == 4 else t
                aside = a[i] if a and len(a) == 4 else a
                parts.append(f"{side}:{tside}>{aside}"
                             f" wb=({wb[rr, cc, i, 0]:.2f},{wb[rr, cc, i, 1]:.2f},"
                             f"{wb[rr, cc, i, 2]:.2f}) clip=({clip[0]:.1f},{clip[1]:.1f},"
                             f"{clip[2]:.1f}) L={L:.0f} C={np.hypot(A, B):.0f} "
                             f"h={np.degrees(np.arctan2(B, A)):.0f}")
            print(f"  ({rr},{cc}) {t} -> {a}  gain={np.round(gain, 2)}")
            for p in parts:
                print("     " + p)
    print("wrong cells by kind:", dict(kinds))
    print("wrong triangles:", ", ".join(f"{k[0]} {k[1]} {v}" for k, v in tris.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
