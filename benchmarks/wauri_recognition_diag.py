"""Wauri counting diagnosis: per cavity, true count vs visible seed peaks, with the truth.

For every photo of a simulator dataset whose board is found, checks the board fit against
the truth (cavity centres within a third of a pit radius, either orientation) and prints
the joint histogram of (true count, visible peaks) for pits and stores, and the exact
share of the answered counts for correctly fitted boards. ``--dump FILE`` writes one JSON
line per cavity (photo, cavity, kind, true count, visible peaks, answered count,
seed-coloured area in seed disks) for further analysis.

Usage::

    nice .venv/bin/python benchmarks/wauri_recognition_diag.py /tmp/wc_3400 [--dump F]
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    import cv2
    import numpy as np

    from vision import wauri_recognition as wr
    from vision.evaluation import find_photos
    from vision.recognize import NothingFound

    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--dump")
    args = ap.parse_args(argv)
    root = Path(args.folder)
    joint = {"pit": collections.Counter(), "store": collections.Counter()}
    photos = found = fit_ok = 0
    exact = total = 0
    out = open(args.dump, "w") if args.dump else None  # noqa: SIM115
    for path, truth in find_photos(root, "wauri"):
        img = cv2.imread(str(path))
        photos += 1
        try:
            reading = wr.read_board(img)
        except NothingFound:
            continue
        found += 1
        by_name = {p["pit"]: p for p in truth["pieces"]}
        tc = np.array([by_name[n]["center_px"] for n in wr.NAMES])
        flip = wr.flip_counts(list(range(14)))
        d0 = np.hypot(*(reading.centres_px - tc).T)
        d1 = np.hypot(*(reading.centres_px - tc[flip]).T)
        flipped = d1.mean() < d0.mean()
        d = d1 if flipped else d0
        pit_px = np.median(np.hypot(*(tc[1:6] - tc[0:5]).T)) * 25.0 / 62.0
        ok = bool((d < pit_px / 3).all())
        fit_ok += ok
        want = wr.counts_of(truth["state"])
        if flipped:
            want = wr.flip_counts(want)
        counts, _ = wr.best_counts(reading)
        for k in range(14):
            kind = "store" if k >= 12 else "pit"
            if ok:
                joint[kind][(want[k], reading.visible[k])] += 1
                exact += counts[k] == want[k]
                total += 1
            if out:
                out.write(json.dumps({"photo": truth["image"], "k": k, "kind": kind,
                                      "fit_ok": ok, "true": want[k],
                                      "visible": reading.visible[k],
                                      "answer": counts[k]}) + "\n")
    print(f"photos {photos}, boards found {found}, fitted right {fit_ok}")
    if total:
        print(f"cavities of right fits: {total}, answered exactly {100 * exact / total:.1f} %")
    for kind, c in joint.items():
        if not c:
            continue
        print(f"{kind}: true count -> visible peaks histogram")
        for t in sorted({k[0] for k in c}):
            row = {v: n for (tt, v), n in sorted(c.items()) if tt == t}
            print(f"  {t:2d}: {row}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
