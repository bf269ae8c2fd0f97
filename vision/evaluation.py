"""Accuracy and speed of the recognisers on photos with ground truth.

A *truth file* sits beside each photo (``photo.jpg`` + ``photo.json``) and holds at least
``{"game": ..., "state": <SPEC board state>}`` plus, optionally, ``"difficulty"``; the
simulator (:mod:`vision.simulator`) writes them. :func:`compare_states` scores one answer
against its truth; :func:`evaluate_folder` runs the recogniser over a folder and
aggregates per game and difficulty.

Scores
    *board perfect* — the answer equals the truth exactly (CARIBO: up to one of the six
    60° rotations and a translation, as SPEC allows); *piece errors* — CARIBO tiles or
    Colomino cells or Wauri pits/stores that differ, are missing or are invented;
    *segment errors* — CARIBO segments (6 per tile), Colomino cell edges (4 per cell) or
    seed-count units (|Δ| summed over pits) that differ.
    Timing is the ratio of the recogniser's time (decoded image → answer) to the time
    OpenCV takes to decode the same JPEG bytes (``cv2.imdecode``), so figures compare
    across machines.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from engines.errors import BoardcamError

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")


@dataclass(frozen=True)
class Comparison:
    """How one recognised board state differs from its truth."""

    perfect: bool
    piece_errors: int
    pieces: int
    segment_errors: int
    segments: int
    detail: tuple[str, ...] = ()


# --------------------------------------------------------------------------- CARIBO
def _caribo_axial(notation: str) -> dict[tuple[int, int], tuple[str, ...]]:
    from engines.caribo import parse_board, to_axial

    board = parse_board(notation)
    fs = board.first_row_shifted
    return {to_axial(r, c, fs): tile.segments for (r, c), tile in board.tiles.items()}


def _rotate_segments(segments: tuple[str, ...], k: int) -> tuple[str, ...]:
    k %= 6
    return segments[-k:] + segments[:-k] if k else segments


def compare_caribo(truth: dict, answer: dict) -> Comparison:
    """Compare CARIBO notations up to rotation (6 × 60°) and translation."""
    from engines.caribo import rotate_axial

    want = _caribo_axial(truth["notation"])
    got_raw = _caribo_axial(answer.get("notation") or "") if answer.get("notation") else {}
    best = None
    for k in range(6):
        got = {rotate_axial(q, r, k): _rotate_segments(s, k) for (q, r), s in got_raw.items()}
        shifts = Counter(
            (tq - gq, tr - gr) for (gq, gr) in got for (tq, tr) in want
        ) or Counter({(0, 0): 0})
        for (dq, dr), _overlap in shifts.most_common(4):
            moved = {(q + dq, r + dr): s for (q, r), s in got.items()}
            seg_err = 0
            piece_err = 0
            for cell in set(want) | set(moved):
                a, b = want.get(cell), moved.get(cell)
                if a == b:
                    continue
                piece_err += 1
                if a is None or b is None:
                    seg_err += 6
                else:
                    seg_err += sum(x != y for x, y in zip(a, b, strict=True))
            key = (piece_err, seg_err)
            if best is None or key < best:
                best = key
    piece_err, seg_err = best
    return Comparison(piece_err == 0, piece_err, len(want), seg_err, 6 * len(want))


# --------------------------------------------------------------------------- Colomino
def _rot_rows(rows: list[list[str]]) -> list[list[str]]:
    """Rows turned 90° clockwise, tile edges turned with them (NESW → the new NESW)."""
    n = len(rows)
    out = [[rows[n - 1 - c][r] for c in range(n)] for r in range(n)]
    return [[cell if len(cell) != 4 else cell[3] + cell[:3] for cell in row] for row in out]


def compare_colomino(truth: dict, answer: dict) -> Comparison:
    """Compare Colomino boards cell by cell (all four turns if the base was not known)."""
    want = truth["rows"]
    n = len(want)
    got = answer.get("rows")
    if not isinstance(got, list) or len(got) != n or any(len(r) != n for r in got):
        return Comparison(False, n * n, n * n, 4 * n * n, 4 * n * n, ("wrong board size",))
    candidates = [got]
    if answer.get("base_known") is False:
        for _ in range(3):
            candidates.append(_rot_rows(candidates[-1]))
    best = None
    for rows in candidates:
        piece_err = seg_err = 0
        for r in range(n):
            for c in range(n):
                a, b = want[r][c], rows[r][c]
                if a == b:
                    continue
                piece_err += 1
                if len(a) == 4 and len(b) == 4:
                    seg_err += sum(x != y for x, y in zip(a, b, strict=True))
                else:
                    seg_err += 4
        if best is None or (piece_err, seg_err) < best:
            best = (piece_err, seg_err)
    piece_err, seg_err = best
    return Comparison(piece_err == 0, piece_err, n * n, seg_err, 4 * n * n)


# --------------------------------------------------------------------------- Wauri
def compare_wauri(truth: dict, answer: dict) -> Comparison:
    """Compare seed counts of the 12 pits and 2 stores (segments = seeds miscounted)."""
    def counts(state):
        try:
            return (
                [int(x) for x in state["south"]]
                + [int(x) for x in state["north"]]
                + [int(state["stores"]["south"]), int(state["stores"]["north"])]
            )
        except (KeyError, TypeError, ValueError):
            return None

    want = counts(truth)
    got = counts(answer)
    total = sum(want)
    if got is None or len(got) != 14:
        return Comparison(False, 14, 14, total, total, ("no counts",))
    piece_err = sum(a != b for a, b in zip(want, got, strict=True))
    seg_err = sum(abs(a - b) for a, b in zip(want, got, strict=True))
    return Comparison(piece_err == 0, piece_err, 14, seg_err, max(total, 1))


COMPARATORS: dict[str, Callable[[dict, dict], Comparison]] = {
    "caribo": compare_caribo,
    "colomino": compare_colomino,
    "wauri": compare_wauri,
}


def compare_states(game: str, truth_state: dict, answer: dict) -> Comparison:
    """Score a recogniser's answer against the truth state of one photo."""
    return COMPARATORS[game](truth_state, answer)


# --------------------------------------------------------------------------- folders
@dataclass
class PhotoResult:
    photo: str
    game: str
    difficulty: str
    comparison: Comparison
    seconds: float
    decode_seconds: float
    error: str | None = None

    @property
    def ratio(self) -> float:
        return self.seconds / max(self.decode_seconds, 1e-9)


@dataclass
class GroupSummary:
    game: str
    difficulty: str
    photos: int = 0
    perfect: int = 0
    piece_errors: int = 0
    pieces: int = 0
    segment_errors: int = 0
    segments: int = 0
    failures: int = 0
    ratios: list[float] = field(default_factory=list)

    def add(self, result: PhotoResult) -> None:
        c = result.comparison
        self.photos += 1
        self.perfect += c.perfect
        self.piece_errors += c.piece_errors
        self.pieces += c.pieces
        self.segment_errors += c.segment_errors
        self.segments += c.segments
        self.failures += result.error is not None
        self.ratios.append(result.ratio)

    def to_json(self) -> dict:
        return {
            "game": self.game,
            "difficulty": self.difficulty,
            "photos": self.photos,
            "perfect_percent": round(100.0 * self.perfect / max(self.photos, 1), 2),
            "piece_errors": self.piece_errors,
            "pieces": self.pieces,
            "piece_accuracy_percent": round(
                100.0 * (1 - self.piece_errors / max(self.pieces, 1)), 3
            ),
            "segment_errors": self.segment_errors,
            "segment_error_percent": round(100.0 * self.segment_errors / max(self.segments, 1), 4),
            "failures": self.failures,
            "median_time_ratio": round(statistics.median(self.ratios), 2) if self.ratios else None,
        }


def find_photos(folder: Path, game: str | None = None) -> list[tuple[Path, dict]]:
    """Photos in ``folder`` (recursively) that have a truth JSON beside them."""
    found = []
    for photo in sorted(folder.rglob("*")):
        if photo.suffix.lower() not in PHOTO_SUFFIXES:
            continue
        truth_path = photo.with_suffix(".json")
        if not truth_path.is_file():
            continue
        try:
            truth = json.loads(truth_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        if not isinstance(truth, dict) or "state" not in truth or "game" not in truth:
            continue
        if game and truth["game"] != game:
            continue
        found.append((photo, truth))
    return found


def _decode_seconds(data: bytes, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        times.append(time.perf_counter() - t0)
    return min(times)


def evaluate_photo(photo: Path, truth: dict, recognize: Callable[..., dict]) -> PhotoResult:
    """Run ``recognize(game, image)`` on one photo and compare with its truth."""
    from vision.image_io import decode_photo

    game = truth["game"]
    data = photo.read_bytes()
    decode = _decode_seconds(data)
    image = decode_photo(data)
    error = None
    t0 = time.perf_counter()
    try:
        answer = recognize(game, image)
    except BoardcamError as exc:
        answer, error = {}, str(exc)
    seconds = time.perf_counter() - t0
    comparison = compare_states(game, truth["state"], answer)
    return PhotoResult(
        photo=str(photo),
        game=game,
        difficulty=str(truth.get("difficulty", "unknown")),
        comparison=comparison,
        seconds=seconds,
        decode_seconds=decode,
        error=error,
    )


def summarize(results: Iterable[PhotoResult]) -> list[GroupSummary]:
    """Aggregate per (game, difficulty), in a stable order."""
    order = {"easy": 0, "normal": 1, "hard": 2}
    out: dict[tuple[str, str], GroupSummary] = {}
    for r in results:
        key = (r.game, r.difficulty)
        if key not in out:
            out[key] = GroupSummary(r.game, r.difficulty)
        out[key].add(r)
    return [out[k] for k in sorted(out, key=lambda k: (k[0], order.get(k[1], 9), k[1]))]
