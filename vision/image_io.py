"""Decoding untrusted photo bytes into arrays, with bounds checked before decoding.

Every photo that reaches a recogniser — from the command line or an upload — passes
through :func:`decode_photo`: the header is read first (Pillow, lazily), the pixel
count is checked against a limit before any pixel is decoded (decompression bombs), the
EXIF orientation is applied, and the result is an ``(H, W, 3)`` ``uint8`` array in
OpenCV's BGR channel order.

Memory: a photo that passes the limit is decoded once in its own mode (Pillow keeps
RGB at 4 bytes per pixel, grey at 1) and copied into the BGR result in strips of about
4 MB, so the peak is about the decoded image plus the 3-byte-per-pixel result (no
whole-image RGB copy, no whole-image channel swap). ``benchmarks/upload_bombs.py``
measures it.
"""

from __future__ import annotations

import io
import re
import warnings
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from engines.errors import FormatError

#: Largest photo accepted, in pixels (a 12 MP phone photo is 12e6; 50 MP leaves room).
MAX_PIXELS = 50_000_000
#: Largest encoded photo accepted, in bytes.
MAX_BYTES = 40 * 1024 * 1024
ACCEPTED_FORMATS = {"JPEG", "PNG", "WEBP", "BMP", "TIFF", "MPO"}
#: Bytes of the result copied per strip (bounds the temporary copies of the conversion).
STRIP_BYTES = 4 * 1024 * 1024


class PhotoError(FormatError):
    """The bytes are not a photo this tool can read (empty, corrupt, too large, wrong type)."""


def decode_photo(data: bytes, *, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Decode encoded image bytes to a BGR ``uint8`` array of shape ``(H, W, 3)``.

    Raises :class:`PhotoError` with a one-line reason for empty, oversized, truncated,
    corrupt or non-image input; the pixel limit is enforced from the header alone.
    """
    if not data:
        raise PhotoError("image: empty file")
    if len(data) > MAX_BYTES:
        raise PhotoError(f"image: file larger than {MAX_BYTES // (1024 * 1024)} MB")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            warnings.simplefilter("ignore", UserWarning)  # corrupt EXIF/TIFF tags: skipped
            img = Image.open(io.BytesIO(data))
            if img.format not in ACCEPTED_FORMATS:
                raise PhotoError(f"image: unsupported format {img.format}")
            width, height = img.size
            if width <= 0 or height <= 0:
                raise PhotoError("image: zero-sized image")
            if width * height > max_pixels:
                raise PhotoError(
                    f"image: {width}x{height} pixels exceeds the limit of {max_pixels} pixels"
                )
            ImageOps.exif_transpose(img, in_place=True)  # no whole-image copy when upright
            img.load()
            return _to_bgr(img)
    except PhotoError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        # Pillow's own guard fires in Image.open, before our check, for headers that
        # declare more than Image.MAX_IMAGE_PIXELS (about 89 million) pixels.
        match = re.search(r"\((\d+) pixels\)", str(exc))
        declared = f"{match.group(1)} pixels" if match else "its declared size"
        raise PhotoError(
            f"image: {declared} exceeds the limit of {max_pixels} pixels (decompression bomb)"
        ) from None
    except UnidentifiedImageError:
        raise PhotoError("image: not a readable image (unknown type or corrupt header)") from None
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        raise PhotoError(f"image: corrupt or truncated ({reason})") from None
    except Exception as exc:  # any other decoder failure on untrusted bytes is a bad photo
        raise PhotoError(f"image: could not be decoded ({exc.__class__.__name__})") from None


def _to_bgr(img: Image.Image) -> np.ndarray:
    """Copy a loaded Pillow image of any mode into a new ``(H, W, 3)`` BGR ``uint8`` array,
    converting strips of about :data:`STRIP_BYTES` at a time."""
    width, height = img.size
    out = np.empty((height, width, 3), dtype=np.uint8)
    step = max(1, STRIP_BYTES // (3 * width))
    for top in range(0, height, step):
        bottom = min(height, top + step)
        strip = img.crop((0, top, width, bottom))
        if strip.mode != "RGB":
            strip = strip.convert("RGB")
        out[top:bottom] = np.asarray(strip)[:, :, ::-1]
    return out


def read_photo(path: str | Path, *, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Read and decode a photo file (see :func:`decode_photo`)."""
    path = Path(path)
    try:
        # a bounded read: st_size is 0 for /dev/zero, pipes and /proc files
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise PhotoError(f"image: {path} is larger than {MAX_BYTES // (1024 * 1024)} MB")
    except PhotoError:
        raise
    except FileNotFoundError:
        raise PhotoError(f"image: no such file: {path}") from None
    except IsADirectoryError:
        raise PhotoError(f"image: is a directory: {path}") from None
    except OSError as exc:
        raise PhotoError(f"image: cannot read {path}: {exc.strerror}") from None
    return decode_photo(data, max_pixels=max_pixels)
