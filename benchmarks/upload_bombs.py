"""Memory and time of hostile uploads: decompression bombs and the largest accepted photo.

Each case is decoded by :func:`vision.image_io.decode_photo` (what every upload and
every ``boardcam recognize`` goes through) in a fresh child process, with the server's
default limit (``MAX_PIXELS`` 40 million). The figure is the growth of the child's peak
resident memory (Linux ``VmHWM``; ``ru_maxrss`` is inherited from the parent through
fork and exec, so it is not used) over its peak after the imports and reading the
bytes, i.e. what decoding them cost. ``tests/test_reliability_images.py`` asserts the stated bounds
(bombs < 50 MB, the largest accepted photo < 250 MB).

    python benchmarks/upload_bombs.py            # table
    python benchmarks/upload_bombs.py --json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from reliability_support import (  # noqa: E402
    compressible_png,
    decode_peak_rss,
    jpeg_header_bomb,
    png_header_bomb,
)

MAX_PIXELS = 40_000_000  # create_app's default


def cases() -> dict[str, bytes]:
    """The uploads measured, by name."""
    import cv2
    import numpy as np

    photo = cv2.imread(str(ROOT / "sample_images" / "caribo_easy_107.jpg"))
    ok, hd = cv2.imencode(".jpg", cv2.resize(photo, (1920, 1080)), [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    rng = np.random.default_rng(0)
    ok, noisy = cv2.imencode(".jpg", rng.integers(0, 255, (3024, 4032, 3), dtype=np.uint8))
    assert ok
    return {
        "png header 50000x50000 (refused)": png_header_bomb(50_000, 50_000),
        "jpeg header 50000x50000 (refused)": jpeg_header_bomb(50_000, 50_000),
        "real 1-bit png 20000x20000 (refused)": compressible_png(20_000, 20_000),
        "real 1-bit png 8000x8000 (refused: 64 MP)": compressible_png(8_000, 8_000),
        "real 1-bit png 6000x6000 (36 MP, accepted)": compressible_png(6_000, 6_000),
        "1080p JPEG frame (accepted)": hd.tobytes(),
        "12 MP noise JPEG 4032x3024 (accepted)": noisy.tobytes(),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, data in cases().items():
            report = decode_peak_rss(data, MAX_PIXELS, Path(folder), timeout=120)
            rows.append(
                {
                    "case": name,
                    "upload_bytes": len(data),
                    "outcome": report["outcome"],
                    "rss_growth_mb": round(report["growth_mb"], 1),
                    "seconds": round(report["seconds"], 3),
                    "message": report["message"],
                }
            )
    if args.json:
        print(json.dumps({"max_pixels": MAX_PIXELS, "cases": rows}))
        return 0
    print(f"decode_photo, MAX_PIXELS {MAX_PIXELS}, peak RSS growth in a fresh process")
    print(f"{'case':<44} {'bytes':>9} {'outcome':>8} {'RSS+ MB':>8} {'s':>7}")
    for r in rows:
        print(f"{r['case']:<44} {r['upload_bytes']:>9} {r['outcome']:>8} "
              f"{r['rss_growth_mb']:>8} {r['seconds']:>7}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
