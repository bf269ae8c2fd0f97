"""Wauri board geometry: how far off are the fitted cavities, and are the off ones the
cavities the counter gets wrong?

For every photo of a simulator folder (``boardcam dataset --game wauri ...``) the board
is read exactly as ``boardcam recognize`` reads it (:func:`vision.wauri_recognition.
read_board` then :func:`~vision.wauri_recognition.best_counts`), and for a located
board (every cavity centre within 0.3 pit radius of the truth, as in
``wauri_board_find.py``) each cavity's

* centre error in units of that tolerance, and in board millimetres along (x) and
  across (y) the board (the truth's pixel centre taken back through the fit),
* scale error: the fit's local pixels per mm at the cavity over the truth's (a
  homography least-squares fitted through the 14 truth centres), i.e. how far off the
  radius of the counter's window is,
* count right or wrong (the physical cavity's count, whichever way round the board is
  read, so orientation errors do not count here), and the same when the counter reads
  through the truth's homography instead of the fit's (an oracle fit: what exact
  geometry would buy the counter),

and, for comparison, the error of the truth's own homography (the least-squares one
through the 14 truth centres): what a perfect single-homography fit would leave (lens
distortion, the truth's centres off the board-top plane).

Printed: per cavity class (near row, far row, stores) the mean / 90th percentile centre
error and scale error; the count error rate by centre-error bin; with ``--verbose``
every located photo's worst cavities.

Usage::

    nice .venv/bin/python benchmarks/wauri_board_geometry.py /tmp/wf12_h [--verbose]
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from wauri_board_find import place_errors, truth_centres  # noqa: E402

BINS = (0.0, 0.25, 0.5, 0.75, 1.0, 1e9)


def _local_scale(hom: np.ndarray, pts_mm: np.ndarray) -> np.ndarray:
    """Pixels per mm (geometric mean of both axes) of ``hom`` at ``pts_mm`` ``(n, 2)``."""
    import cv2

    out = []
    for p in pts_mm:
        q = cv2.perspectiveTransform(np.array([[p, p + (1, 0), p + (0, 1)]], np.float64),
                                     hom)[0]
        out.append(np.sqrt(np.linalg.norm(q[1] - q[0]) * np.linalg.norm(q[2] - q[0])))
    return np.array(out)


def analyse(folder: Path, verbose: bool, rows: list) -> None:
    import cv2

    from vision import pit_layout as pl
    from vision import wauri_recognition as wr
    from vision.evaluation import find_photos
    from vision.image_io import decode_photo
    from vision.recognize import NothingFound

    for path, truth in find_photos(folder, "wauri"):
        image = decode_photo(path.read_bytes())
        want, tol = truth_centres(truth)
        counts_true = wr.counts_of(truth["state"])
        cv2.setNumThreads(1)
        try:
            reading = wr.read_board(image)
        except NothingFound:
            continue
        fit = reading.fit
        e_as, e_turn = place_errors(fit, truth)
        turned = e_turn < e_as
        if min(e_as, e_turn) > 1.0:
            continue
        counts, _w = wr.best_counts(reading, wr.GAME_SEEDS)
        order = wr.flip_counts(list(range(14))) if turned else list(range(14))
        # physical truth cavity of the fit's cavity k: order[k]
        t_px = want[order]
        t_tol = tol[order]
        t_counts = np.array(counts_true)[order]
        got = fit.centres_px()
        err = np.linalg.norm(got - t_px, axis=1) / t_tol
        inv = np.linalg.inv(fit.homography)
        t_mm = cv2.perspectiveTransform(t_px[None], inv)[0]
        d_mm = t_mm - pl.CENTRES_MM  # truth minus fit, board mm (fit's frame)
        h_true, _ = cv2.findHomography(pl.CENTRES_MM, t_px, 0)
        own = np.linalg.norm(cv2.perspectiveTransform(pl.CENTRES_MM[None], h_true)[0] - t_px,
                             axis=1) / t_tol
        scale = _local_scale(fit.homography, pl.CENTRES_MM) / _local_scale(h_true,
                                                                            pl.CENTRES_MM)
        # near row: the row whose centres lie lower in the image (nearer the camera)
        south_low = got[:6, 1].mean() > got[6:12, 1].mean()
        # the same counting through the truth's own homography (an oracle fit): what exact
        # geometry would change
        oracle = dataclasses.replace(fit, homography=h_true)
        o_read = wr._read_fit(pl.Pyramid(image), oracle)
        o_counts, _w = wr.best_counts(o_read, wr.GAME_SEEDS)
        for k in range(14):
            if k >= 12:
                cls = "store"
            elif (k < 6) == south_low:
                cls = "near"
            else:
                cls = "far"
            rows.append(dict(photo=f"{folder.name}/{path.stem}", k=k, cls=cls, err=err[k],
                             dx=d_mm[k, 0], dy=d_mm[k, 1], scale=scale[k], own=own[k],
                             wrong=int(counts[k] != t_counts[k]),
                             o_wrong=int(o_counts[k] != t_counts[k]), count=int(t_counts[k])))
        if verbose:
            worst = np.argsort(-err)[:3]
            print(f"{folder.name}/{path.name}: max err {err.max():.2f} (own {own.max():.2f})"
                  f" wrong {[wr.NAMES[k] for k in range(14) if counts[k] != t_counts[k]]}"
                  f" worst {[(wr.NAMES[k], round(float(err[k]), 2)) for k in worst]}",
                  flush=True)


def report(rows: list) -> None:
    if not rows:
        print("no located boards")
        return
    print(f"located boards {len(rows) // 14}, cavities {len(rows)}")
    print(f"{'class':6s} {'n':>4s} {'err mean':>8s} {'err p90':>7s} {'own mean':>8s} "
          f"{'|dx| mm':>7s} {'|dy| mm':>7s} {'scale':>6s} {'|1-s| p90':>9s} {'wrong':>6s} "
          f"{'oracle':>6s}")
    by = collections.defaultdict(list)
    for r in rows:
        by[r["cls"]].append(r)
        by["all"].append(r)
    for cls in ("near", "far", "store", "all"):
        rs = by[cls]
        if not rs:
            continue
        e = np.array([r["err"] for r in rs])
        s = np.array([r["scale"] for r in rs])
        print(f"{cls:6s} {len(rs):4d} {e.mean():8.3f} {np.percentile(e, 90):7.3f} "
              f"{np.mean([r['own'] for r in rs]):8.3f} "
              f"{np.mean([abs(r['dx']) for r in rs]):7.2f} "
              f"{np.mean([abs(r['dy']) for r in rs]):7.2f} {s.mean():6.3f} "
              f"{np.percentile(np.abs(1 - s), 90):9.3f} {sum(r['wrong'] for r in rs):6d} "
              f"{sum(r['o_wrong'] for r in rs):6d}")
    print("count errors by centre error (tolerances):")
    for lo, hi in zip(BINS[:-1], BINS[1:], strict=True):
        rs = [r for r in rows if lo <= r["err"] < hi]
        if rs:
            w = sum(r["wrong"] for r in rs)
            o = sum(r["o_wrong"] for r in rs)
            print(f"  [{lo:.2f}, {hi:.2f}): cavities {len(rs):4d}  wrong {w:3d} "
                  f"({100 * w / len(rs):.1f} %), through the truth's homography {o:3d}")
    per_photo = collections.defaultdict(lambda: [0, 0])
    for r in rows:
        per_photo[r["photo"]][0] += r["wrong"]
        per_photo[r["photo"]][1] += r["o_wrong"]
    fit_ok = sum(a == 0 for a, _ in per_photo.values())
    oracle_ok = sum(b == 0 for _, b in per_photo.values())
    print(f"located boards counted exactly: fit {fit_ok}, truth's homography {oracle_ok} "
          f"of {len(per_photo)}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    rows: list = []
    for folder in args.folders:
        analyse(folder, args.verbose, rows)
    report(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
