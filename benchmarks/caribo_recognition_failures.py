"""What went wrong in each CARIBO reading, tile by tile (uses the truth files).

Usage::

    .venv/bin/python benchmarks/caribo_recognition_failures.py DIR [DIR ...]

Unlike ``caribo_recognition_diagnose.py`` (which checks the lattice candidates before
the refit), this runs the whole recogniser (:func:`vision.caribo_recognition.recognize`,
as ``boardcam evaluate`` does) and compares its *answer* with the truth: every answer
tile is matched to the truth piece whose pixel centre lies within 0.3 tile pitch, the
answer's 60° turn is the one that makes most matched tiles agree. Each photo gets one
cause:

``ok`` board perfect · ``lattice`` fewer than half of the answer's tiles sit on a truth
tile (a wrong lattice) · ``missed`` / ``invented`` / ``colour`` the largest count of
truth tiles without an answer tile, answer tiles on no truth tile, and matched tiles with
a wrong code · ``no-tiles`` nothing found.

Per photo it also prints the reading's whole-figure checks (shared edges of the answer
whose two facing segments differ, of all shared edges) and the answer's confidence, so
one can see whether a wrong reading is told by them. The truth is only read here.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from caribo_recognition_confidence import truth_centres

from engines.caribo import Tile, parse_board, to_axial
from engines.caribo.geometry import AXIAL_DIRECTIONS
from vision import caribo_recognition as cr
from vision.evaluation import compare_states
from vision.image_io import decode_photo
from vision.recognize import NothingFound


def edge_mismatches(notation: str) -> tuple[int, int]:
    """``(clashing, shared)`` edges of the figure written in ``notation``."""
    board = parse_board(notation)
    tiles = {to_axial(r, c, board.first_row_shifted): t for (r, c), t in board.tiles.items()}
    clash = shared = 0
    for (q, r), t in tiles.items():
        for k, (dq, dr) in enumerate(AXIAL_DIRECTIONS[:3]):
            o = tiles.get((q + dq, r + dr))
            if o is None:
                continue
            shared += 1
            clash += t.segments[k] != o.segments[k + 3]
    return clash, shared


def compare(answer: dict, truth: dict) -> dict:
    """Counts of missed, invented and wrongly coloured tiles of ``answer``."""
    pieces = truth["pieces"]
    tc, pitch = truth_centres(truth, 60.0)
    pairs, used = [], set()
    for t in answer["tiles"]:
        dist = np.hypot(*(tc - np.array(t["center_px"])).T)
        i = int(np.argmin(dist))
        if dist[i] < 0.3 * pitch and i not in used:
            used.add(i)
            pairs.append((t, pieces[i]))
    def agree(k):
        return sum(Tile.parse(t["tile"]).rotated(k).code == p["tile"] for t, p in pairs)

    k = max(range(6), key=agree)
    wrong = [(t, p) for t, p in pairs if Tile.parse(t["tile"]).rotated(k).code != p["tile"]]
    return {"matched": len(pairs), "missed": len(pieces) - len(pairs),
            "invented": len(answer["tiles"]) - len(pairs), "colour": len(wrong),
            "missed_codes": [p["tile"] for i, p in enumerate(pieces) if i not in used],
            "wrong": [(t["tile"], p["tile"], t["confidence"]) for t, p in wrong]}


def main(argv: list[str]) -> int:
    counts: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    for d in argv:
        for photo in sorted(Path(d).glob("*.jpg")):
            truth = json.loads(photo.with_suffix(".json").read_text())
            try:
                # decoded as `boardcam evaluate` does (PIL): cv2.imread's pixels differ
                # slightly, and a hard photo can be read differently from them
                answer = cr.recognize(decode_photo(photo.read_bytes()))
            except NothingFound:
                counts["no-tiles"] += 1
                print(f"{photo.name:28s} no-tiles")
                continue
            res = compare_states("caribo", truth["state"], answer)
            c = compare(answer, truth)
            clash, shared = edge_mismatches(answer["notation"])
            if res.perfect:
                cause = "ok"
            elif c["matched"] < 0.5 * len(answer["tiles"]):
                cause = "lattice"
            else:
                cause = max(("missed", "invented", "colour"), key=lambda k: c[k])
            counts[cause] += 1
            for k in ("missed", "invented", "colour"):
                errors[k] += c[k]
            cond = truth["conditions"]
            print(f"{photo.name:28s} {cause:9s} err={res.piece_errors:2d} tiles "
                  f"{len(answer['tiles'])}/{len(truth['pieces'])} miss={c['missed']} "
                  f"inv={c['invented']} col={c['colour']} clash={clash}/{shared} "
                  f"conf={answer['confidence']:.3f} [{cond['light_kind']} "
                  f"{cond['table']['kind']}/{cond['table'].get('tone', '')}] "
                  f"{c['missed_codes'][:6] if c['missed'] else ''}"
                  f"{c['wrong'][:4] if c['colour'] else ''}", flush=True)
    total = sum(counts.values())
    print("causes:", ", ".join(f"{k} {v}/{total}" for k, v in counts.most_common()))
    print("tiles:", dict(errors))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
