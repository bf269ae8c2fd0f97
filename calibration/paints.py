"""Paint calibration: the six CARIBO paints as the user's camera sees them under the
user's light.

File format (JSON, versioned)::

    {
      "format": "boardcam-paint-calibration",
      "version": 1,
      "game": "caribo",
      "paints": {"W": [r, g, b], "S": [...], "B": [...], "R": [...], "G": [...], "Y": [...]},
      "samples": {"W": n, ...},
      "source": "photo.jpg"
    }

``paints`` are **linear RGB** (sRGB transfer curve undone, 0..1) as measured in the
photo without any white balance: the light's colour is part of the paint colour. A
recogniser using a calibration keeps the light's colour fixed and only re-estimates the
exposure. ``samples`` counts the segments each mean was taken from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engines.errors import FormatError

FORMAT = "boardcam-paint-calibration"
VERSION = 1
LETTERS = "WSBRGY"


class CalibrationFormatError(FormatError):
    """A calibration file is not valid JSON of the documented format."""


@dataclass(frozen=True)
class PaintCalibration:
    """Measured paints: ``paints`` maps a colour letter to linear RGB ``(r, g, b)``."""

    paints: tuple[tuple[str, tuple[float, float, float]], ...]
    samples: tuple[tuple[str, int], ...] = ()
    source: str = ""

    def paints_linear(self) -> np.ndarray:
        """``(6, 3)`` linear RGB in ``WSBRGY`` order."""
        d = dict(self.paints)
        return np.array([d[c] for c in LETTERS], dtype=np.float64)

    def to_json(self) -> dict:
        """The documented JSON object."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": "caribo",
            "paints": {c: [round(float(x), 6) for x in v] for c, v in self.paints},
            "samples": dict(self.samples),
            "source": self.source,
        }

    @classmethod
    def from_json(cls, data) -> PaintCalibration:
        """Parse the JSON object; raises :class:`CalibrationFormatError` naming the field."""
        if not isinstance(data, dict):
            raise CalibrationFormatError("calibration: expected a JSON object")
        if data.get("format") != FORMAT:
            raise CalibrationFormatError(f"calibration: 'format' must be {FORMAT!r}")
        if data.get("version") != VERSION:
            raise CalibrationFormatError(
                f"calibration: unsupported 'version' {data.get('version')!r}")
        paints = data.get("paints")
        if not isinstance(paints, dict) or set(paints) != set(LETTERS):
            raise CalibrationFormatError("calibration: 'paints' must hold W, S, B, R, G, Y")
        out = []
        for c in LETTERS:
            v = paints[c]
            if (not isinstance(v, list) or len(v) != 3
                    or not all(isinstance(x, int | float) and 0 <= x <= 4 for x in v)):
                raise CalibrationFormatError(
                    f"calibration: 'paints.{c}' must be three numbers 0..4 (linear RGB)")
            out.append((c, tuple(float(x) for x in v)))
        samples = data.get("samples", {})
        if not isinstance(samples, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in samples.values()
        ):
            raise CalibrationFormatError(
                "calibration: 'samples' must be an object of sample counts")
        return cls(tuple(out), tuple((k, int(v)) for k, v in samples.items()),
                   str(data.get("source", "")))


def load_calibration(path) -> PaintCalibration:
    """Read a calibration file; raises :class:`CalibrationFormatError` for bad files."""
    p = Path(path)
    limit = 16 * 1024 * 1024  # a calibration is a few KB; bounded even for /dev/zero
    try:
        with p.open("rb") as handle:
            raw = handle.read(limit + 1)
    except OSError as exc:
        raise CalibrationFormatError(f"--calibration: cannot read {path}: {exc.strerror}") from None
    if len(raw) > limit:
        raise CalibrationFormatError(f"--calibration: {path} is larger than {limit} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise CalibrationFormatError(f"--calibration: {path} is not UTF-8 JSON text") from None
    except json.JSONDecodeError as exc:
        raise CalibrationFormatError(f"--calibration: invalid JSON ({exc.msg})") from None
    except RecursionError:
        raise CalibrationFormatError("--calibration: invalid JSON (nested too deeply)") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        reason = str(exc).split(";")[0]
        raise CalibrationFormatError(f"--calibration: invalid JSON ({reason})") from None
    return PaintCalibration.from_json(data)


def save_calibration(cal: PaintCalibration, path) -> None:
    """Write ``cal`` as JSON to ``path``."""
    Path(path).write_text(json.dumps(cal.to_json(), indent=1) + "\n", encoding="utf-8")


def fit_paints(answer_tiles, segment_colours: np.ndarray, source: str = "") -> PaintCalibration:
    """Paint means from recognised tiles and their measured segment colours.

    ``answer_tiles``: tile codes (one per tile, the global assignment's choice);
    ``segment_colours (N, 6, 3)`` linear RGB of segments 1..6 of those tiles. Every
    paint must occur at least once.
    """
    from engines.caribo import Tile

    sums = {c: np.zeros(3) for c in LETTERS}
    counts = dict.fromkeys(LETTERS, 0)
    for code, cols in zip(answer_tiles, segment_colours, strict=True):
        for letter, rgb in zip(Tile.parse(code).segments, cols, strict=True):
            sums[letter] += rgb
            counts[letter] += 1
    missing = [c for c in LETTERS if counts[c] == 0]
    if missing:
        raise ValueError(f"photo: no segments of paint(s) {', '.join(missing)} were found")
    paints = tuple((c, tuple(float(x) for x in sums[c] / counts[c])) for c in LETTERS)
    return PaintCalibration(paints, tuple(counts.items()), source)
