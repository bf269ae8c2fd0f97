"""Small CARIBO figures: is the right lattice among the candidates, and at which rank?

Usage::

    .venv/bin/python benchmarks/caribo_lattice_small.py DIR [DIR ...] [--read]

For every photo (``*.jpg`` + ``*.json``, e.g. from ``caribo_small_figures.py --save``)
prints the lattice candidates of :func:`vision.caribo_lattice.find_lattice` best first,
each as ``pitch/truth pitch``, ``R`` when it puts every truth tile on its own cell at the
right scale (``caribo_recognition_diagnose.lattice_right``) or ``.``, and the number of
its cells on the paint; then the rank of the first right candidate (``-`` none). With
``--read`` also the stage of ``caribo_recognition_diagnose.diagnose`` (what the reader
made of the candidates). Ends with the counts: photos with a right first candidate, a
right later one, none. The truth is only read here, never inside the recogniser.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from caribo_recognition_diagnose import diagnose, lattice_candidates, lattice_right  # noqa: E402
from caribo_small_figures import truth_pitch  # noqa: E402

from vision import caribo_lattice, hexlattice  # noqa: E402


def main(argv: list[str]) -> int:
    read = "--read" in argv
    dirs = [a for a in argv if a != "--read"]
    counts: Counter[str] = Counter()
    for d in dirs:
        for photo in sorted(Path(d).glob("*.jpg")):
            truth = json.loads(photo.with_suffix(".json").read_text())
            image = cv2.imread(str(photo))
            small, scale, lab_det, tdist, found = lattice_candidates(image)
            paint = (tdist > caribo_lattice_paint()).astype(np.float32)
            S = np.diag([1 / scale, 1 / scale, 1.0])
            tp = truth_pitch(truth)
            marks, first = [], None
            for i, (H, _, _, pitch) in enumerate(found):
                right = lattice_right(S @ H, truth)
                o = hexlattice.apply_homography(H, np.array([[0.0, 0.0], [1.0, 0.0]]))
                rel = float(np.hypot(*(o[1] - o[0]))) / scale / tp
                n = len(caribo_lattice.cells_on_mask(H, paint, pitch))
                marks.append(f"{rel:.2f}{'R' if right else '.'}{n}")
                if right and first is None:
                    first = i
            kind = "first" if first == 0 else ("later" if first is not None else "none")
            counts[kind] += 1
            stage = ""
            if read:
                stage = " ".join(diagnose(photo))
            print(f"{photo.name:28s} right@{'-' if first is None else first} "
                  f"{' '.join(marks)} {stage}", flush=True)
    print("right candidate:", ", ".join(f"{k} {v}" for k, v in counts.most_common()))
    return 0


def caribo_lattice_paint() -> float:
    from vision import caribo_recognition

    return caribo_recognition.PAINT_DISTANCE


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
