"""Colomino jokers on the pixels: every cell of simulator photos that is a joker in the
truth or in the answer, with the evidence :func:`vision.colomino_recognition.find_jokers`
weighed.

Usage: ``python benchmarks/colomino_cells_jokers.py DIR [DIR ...]`` (the fields stored in
``DIR/.field_cache`` by ``colomino_cells_diag.py`` are used where present).

One line per cell: photo, ``OK``/``BAD``, truth → read (canonical cell), lightness
against the print around (relative to the photo's plain cells) with the photo's robust
spread of it, the floor (darkest channel against the print), the spread of the four
triangles' chromaticities, whether the cell counted as coloured (``tile``), and its tint
against the print (:func:`vision.colomino_recognition.tint_z`: length in log opponent
units and robust z), and its smallest step up at the border against the plain print
beside it (:func:`vision.colomino_recognition.edge_steps`, log lightness; nan where no
plain print lies beside it). A last line counts missed, false and right jokers. The
truth is used only here, never by the recogniser.
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
from colomino_cells_pixels import canonical_codes, read_with_field  # noqa: E402

from vision import colomino_recognition as cr  # noqa: E402
from vision.recognize import NothingFound  # noqa: E402


def joker_features(canon: np.ndarray, n: int) -> dict[str, np.ndarray]:
    """The per-cell quantities ``(n, n)`` of :func:`cr.find_jokers` for a canonical view
    ``canon`` (uint8 BGR) of an ``n``×``n`` field, computed as the recogniser does."""
    tri, centre, _ = cr.read_canonical(canon, n)
    local, loo = cr.print_field(tri, centre, cr.white_balance(tri, centre))
    tri_n = tri / local[:, :, None, :]
    sat = (tri_n.max(-1) - tri_n.min(-1)) / np.maximum(tri_n.max(-1), 1e-4)
    score = np.sort(sat, axis=-1)[..., -2:].mean(axis=-1)
    is_tile = score > cr.tile_threshold(score)
    chrom = tri_n / np.maximum(tri_n.sum(-1, keepdims=True), 1e-5)
    spread = (chrom.max(axis=2) - chrom.min(axis=2)).max(-1)
    ratio = centre.mean(-1) / np.maximum(loo.mean(-1), 1e-5)
    floor = tri_n.mean(axis=2).min(-1)
    plain = (spread < cr.JOKER_UNIFORM) & ~is_tile
    sigma = np.full((n, n), np.nan)
    length = z = np.full((n, n), np.nan)
    if plain.sum() >= 5:
        ratio = ratio / float(np.median(ratio[plain]))
        floor = floor / float(np.median(floor[plain]))
        sigma[:] = 1.4826 * float(np.median(np.abs(ratio[plain] - 1.0)))
        length, z = cr.tint_z(centre, loo, plain)
    # the smallest step up at the border against the plain print beside it (NaN: none)
    steps = cr.edge_steps(tri, plain)
    seen = np.isfinite(steps).any(axis=-1)
    step = np.where(seen, np.where(np.isfinite(steps), steps, np.inf).min(axis=-1), np.nan)
    return {"ratio": ratio, "sigma": sigma, "floor": floor, "spread": spread,
            "tile": is_tile, "tint": length, "z": z, "step": step}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args(argv)
    counts: Counter = Counter()
    for d in args.dirs:
        for f in sorted(p for p in Path(d).glob("*.json") if p.with_suffix(".jpg").exists()):
            truth = json.loads(f.read_text())
            if "state" not in truth:
                continue
            real = cr.locate_field
            if (Path(d) / ".field_cache").is_dir():  # the fields colomino_cells_diag stored
                cr.locate_field = cached_locate(Path(d) / ".field_cache", f.stem)
            try:
                ans, (Hc, n, _, canon) = read_with_field(cv2.imread(str(f.with_suffix(".jpg"))))
            except NothingFound:
                continue
            finally:
                cr.locate_field = real
            want = truth["state"]["rows"]
            if n != len(want):
                continue
            t_centres = {(p["row"], p["col"]): p["center_px"] for p in truth["pieces"]}
            try:
                tcan = canonical_codes(Hc, n, t_centres, {
                    (r, c): want[r][c] for r in range(n) for c in range(n)})
            except (KeyError, ValueError):
                continue
            acan = canonical_codes(
                Hc, n, {(c["row"], c["col"]): c["centre_px"] for c in ans["cells"]},
                {(r, c): ans["rows"][r][c] for r in range(n) for c in range(n)})
            feats = joker_features(canon, n)
            for (r, c), t in sorted(tcan.items()):
                a = acan.get((r, c))
                if "*" not in (t, a) or not (0 <= r < n and 0 <= c < n):
                    continue
                ok = t == a
                counts["right" if ok else "missed" if t == "*" else "false"] += 1
                v = {k: x[r, c] for k, x in feats.items()}
                print(f"{Path(d).name}/{f.stem} {'OK ' if ok else 'BAD'} {t:>4}->{a:>4} "
                      f"({r},{c}) ratio={v['ratio']:.3f} sd={v['sigma']:.3f} "
                      f"floor={v['floor']:.2f} spread={v['spread']:.3f} tile={int(v['tile'])} "
                      f"tint={v['tint']:.3f} z={v['z']:.1f} step={v['step']:.3f}")
    print("jokers:", dict(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
