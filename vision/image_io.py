"""Decoding untrusted photo bytes into arrays, with bounds checked before decoding.

Every photo that reaches a recogniser — from the command line or an upload — passes
through :func:`decode_photo`: the header is read first (Pillow, lazily), the pixel
count is checked against a limit before any pixel is decoded (decompression bombs), the
EXIF orientation is applied, and the result is an ``(H, W, 3)`` ``uint8`` array in
OpenCV's BGR channel order.
"""

from __future__ import annotations

import io
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
            img = ImageOps.exif_transpose(img)
            img = img.convert("RGB")
    except PhotoError:
        raise
    except (UnidentifiedImageError, Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise PhotoError("image: not a readable image (unknown type or corrupt header)") from None
    except (OSError, SyntaxError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        raise PhotoError(f"image: corrupt or truncated ({reason})") from None
    rgb = np.asarray(img, dtype=np.uint8)
    return np.ascontiguousarray(rgb[:, :, ::-1])


def read_photo(path: str | Path, *, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Read and decode a photo file (see :func:`decode_photo`)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise PhotoError(f"image: {path} is larger than {MAX_BYTES // (1024 * 1024)} MB")
        data = path.read_bytes()
    except FileNotFoundError:
        raise PhotoError(f"image: no such file: {path}") from None
    except IsADirectoryError:
        raise PhotoError(f"image: is a directory: {path}") from None
    except OSError as exc:
        raise PhotoError(f"image: cannot read {path}: {exc.strerror}") from None
    return decode_photo(data, max_pixels=max_pixels)
