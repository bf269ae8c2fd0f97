"""Camera and colour calibration: data model, fitting, files.

CARIBO paint calibration: :class:`PaintCalibration` (see :mod:`calibration.paints` for the
versioned JSON format), :func:`load_calibration`, :func:`save_calibration`,
:func:`fit_paints`.
"""

from .paints import (
    CalibrationFormatError,
    PaintCalibration,
    fit_paints,
    load_calibration,
    save_calibration,
)

__all__ = [
    "CalibrationFormatError",
    "PaintCalibration",
    "fit_paints",
    "load_calibration",
    "save_calibration",
]
