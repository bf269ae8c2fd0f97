"""Wauri board finding: is the board found, and is every cavity where the truth has it?

For every photo of a simulator folder (``boardcam dataset --game wauri ...``) the board
fits of :func:`vision.pit_layout.find_boards` are filtered exactly as the recogniser
filters them (:func:`vision.wauri_recognition.read_boards`: template score, pits located,
cavity contrast), and the accepted fit is compared with the truth's cavity centres
(``pieces[*].center_px``): a photo counts as *located* when every one of the 14 cavity
centres lies within 0.3 pit radius of the truth (pit radius taken as
``PIT_R / PIT_PITCH`` of the local pit spacing in the truth). A board turned by 180° is
the same set of places (the orientation is a separate question), so both orientations
are compared and the better taken.

Printed: located / rejected (no fit accepted) / wrong place (a fit accepted elsewhere),
by table kind; the best fit's contrast when rejected; the median CPU-time ratio of
``find_boards`` to the JPEG decode by ``cv2.imdecode`` (OpenCV held to one thread for
both; steadier than wall time on a shared machine). With ``--others DIR...`` it also
runs on non-Wauri photos (CARIBO/Colomino renders, sample images) and counts boards
accepted there (should be 0).

Usage::

    nice .venv/bin/python benchmarks/wauri_board_find.py /tmp/wf_dev_n [--verbose]
    nice .venv/bin/python benchmarks/wauri_board_find.py --others sample_images /tmp/other
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TOL = 0.3  # of a pit radius


def truth_centres(truth: dict):
    """(14, 2) truth cavity centres in :data:`vision.wauri_recognition.NAMES` order and
    (14,) tolerance in px (0.3 of the local pit radius)."""
    import numpy as np

    from vision import pit_layout as pl
    from vision.wauri_recognition import NAMES

    by = {p["pit"]: np.array(p["center_px"], float) for p in truth["pieces"]}
    c = np.array([by[n] for n in NAMES])
    rows = (c[0:6], c[6:12])
    pitch = np.zeros(14)
    for k, row in enumerate(rows):
        d = np.linalg.norm(np.diff(row, axis=0), axis=1)  # (5,)
        local = np.concatenate([[d[0]], (d[:-1] + d[1:]) / 2, [d[-1]]])
        pitch[6 * k:6 * k + 6] = local
    # stores: the spacing of the pits at their end (south's store beside south6/north1)
    pitch[12] = (pitch[5] + pitch[6]) / 2
    pitch[13] = (pitch[0] + pitch[11]) / 2
    return c, TOL * pitch * pl.PIT_R / pl.PIT_PITCH


def accepted_fit(pyr):
    """The fit the recogniser would read (or None) and the best fit found (or None)."""
    from vision import pit_layout as pl
    from vision import wauri_recognition as wr

    fits = pl.find_boards(pyr, 1)
    ok = [f for f in fits if f.template_score >= wr.MIN_TEMPLATE_SCORE
          and f.pits_found >= wr.MIN_PITS_FOUND and f.contrast >= wr.MIN_CONTRAST]
    return (ok[0] if ok else None), (fits[0] if fits else None)


def _cpu_decode(data: bytes) -> float:
    """CPU seconds of one ``cv2.imdecode`` of ``data`` (the reference ``boardcam
    evaluate`` divides by; Pillow's decode in ``decode_photo`` is about twice slower)."""
    import cv2
    import numpy as np

    buf = np.frombuffer(data, np.uint8)
    best = float("inf")
    for _ in range(3):
        c0 = time.process_time()
        cv2.imdecode(buf, cv2.IMREAD_COLOR)
        best = min(best, time.process_time() - c0)
    return best


def place_errors(fit, truth) -> tuple[float, float]:
    """Largest cavity-centre error of ``fit`` in units of the tolerance (≤ 1 = located),
    as the fit names the cavities and with the board turned by 180°."""
    import numpy as np

    from vision.wauri_recognition import flip_counts

    want, tol = truth_centres(truth)
    got = fit.centres_px()
    errs = []
    for order in (list(range(14)), flip_counts(list(range(14)))):
        errs.append(float((np.linalg.norm(got[order] - want, axis=1) / tol).max()))
    return errs[0], errs[1]


def place_error(fit, truth) -> float:
    """Largest cavity-centre error of ``fit`` in units of the tolerance (≤ 1 = located),
    whichever way round the board is read."""
    return min(place_errors(fit, truth))


def camera_side(truth) -> tuple[str, float]:
    """Where the simulator's camera stands relative to the board: ``"south"`` or
    ``"north"`` (the sign of its position across the board, board frame) and its
    bearing in degrees (0 = straight out from south's side, ±90 = off an end, 180 =
    north's side)."""
    import math

    cam = truth["camera"]["position_mm"]
    a = math.radians(truth.get("board_rotation_deg", 0.0))
    x = math.cos(a) * cam[0] + math.sin(a) * cam[1]
    y = -math.sin(a) * cam[0] + math.cos(a) * cam[1]
    bearing = math.degrees(math.atan2(x, -y))
    return ("south" if y < 0 else "north"), bearing


def run_wauri(folder: Path, verbose: bool) -> None:
    import cv2

    from vision import pit_layout as pl
    from vision.evaluation import find_photos
    from vision.image_io import decode_photo

    photos = find_photos(folder, "wauri")
    tally = collections.Counter()
    orient = collections.Counter()  # (camera side, read turned) of located boards
    by_table = collections.defaultdict(collections.Counter)
    ratios = []
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        for path, truth in photos:
            data = path.read_bytes()
            dec = _cpu_decode(data)
            image = decode_photo(data)
            c0 = time.process_time()
            fit, best = accepted_fit(pl.Pyramid(image))
            ratios.append((time.process_time() - c0) / max(dec, 1e-6))
            table = truth["conditions"]["table"]["kind"]
            if fit is None:
                outcome = "rejected"
                err = place_error(best, truth) if best is not None else float("inf")
                detail = (f"best contrast {best.contrast:.3f} tpl {best.template_score:.2f} "
                          f"pits {best.pits_found} err {err:.1f}" if best else "no fit")
            else:
                e_as, e_turn = place_errors(fit, truth)
                err = min(e_as, e_turn)
                outcome = "located" if err <= 1.0 else "wrong place"
                side, bearing = camera_side(truth)
                turned = e_turn < e_as
                detail = (f"contrast {fit.contrast:.3f} pits {fit.pits_found} err {err:.2f}"
                          f" camera {side} {bearing:+.0f}{' TURNED' if turned else ''}"
                          f"{' across' if fit.across else ''}")
                if outcome == "located":
                    orient[(side, turned)] += 1
            tally[outcome] += 1
            by_table[table][outcome] += 1
            if verbose:
                h, w = image.shape[:2]
                print(f"{path.name} {table:9s} {w}x{h} {outcome:11s} {detail} "
                      f"ratio {ratios[-1]:.1f}", flush=True)
    finally:
        cv2.setNumThreads(threads)
    n = len(photos)
    print(f"{folder}: photos {n}  located {tally['located']}  rejected {tally['rejected']}  "
          f"wrong place {tally['wrong place']}")
    print("by table:", {k: f"{v['located']}/{sum(v.values())}"
                        for k, v in sorted(by_table.items())})
    print("located boards read turned by 180°: "
          f"{orient[('south', True)] + orient[('north', True)]} "
          f"(camera on south's side: {orient[('south', True)]} turned of "
          f"{orient[('south', True)] + orient[('south', False)]}; on north's side: "
          f"{orient[('north', True)]} turned of "
          f"{orient[('north', True)] + orient[('north', False)]})")
    if ratios:
        print(f"median CPU time find_boards / decode: {statistics.median(ratios):.2f} "
              f"(max {max(ratios):.2f})")


def run_others(folders: list[Path], verbose: bool) -> None:
    import cv2

    from vision import pit_layout as pl

    paths = []
    for folder in folders:
        for p in sorted(folder.glob("*.jpg")):
            meta = p.with_suffix(".json")
            game = json.loads(meta.read_text()).get("game") if meta.is_file() else None
            if game != "wauri":
                paths.append(p)
    found = 0
    for p in paths:
        image = cv2.imread(str(p), cv2.IMREAD_COLOR)
        fit, _best = accepted_fit(pl.Pyramid(image))
        found += fit is not None
        if verbose or fit is not None:
            print(f"{p}: {'BOARD ACCEPTED' if fit else 'no board'}"
                  + (f" contrast {fit.contrast:.3f}" if fit else ""))
    print(f"non-Wauri photos {len(paths)}: boards accepted {found} (should be 0)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="*", type=Path)
    ap.add_argument("--others", nargs="*", type=Path, default=[])
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    for folder in args.folders:
        run_wauri(folder, args.verbose)
    if args.others:
        run_others(args.others, args.verbose)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
