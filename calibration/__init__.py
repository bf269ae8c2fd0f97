"""Camera and colour calibration: data model, fitting, files."""
