"""Untrusted photo bytes: decoded when sound, refused with one line otherwise."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from vision.image_io import PhotoError, decode_photo


def _jpeg(h=30, w=40, colour=(10, 200, 30)) -> bytes:
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = colour
    ok, buf = cv2.imencode(".jpg", img)
    assert ok
    return buf.tobytes()


def test_jpeg_decodes_to_bgr():
    img = decode_photo(_jpeg())
    assert img.shape == (30, 40, 3) and img.dtype == np.uint8
    assert abs(int(img[15, 20, 1]) - 200) < 8 and img[15, 20, 0] < 30


@pytest.mark.parametrize("data", [b"", b"not an image", b"\x89PNG\r\n\x1a\n" + b"\0" * 20])
def test_garbage_is_refused(data):
    with pytest.raises(PhotoError):
        decode_photo(data)


def test_truncated_jpeg_is_refused():
    with pytest.raises(PhotoError):
        decode_photo(_jpeg(300, 400)[:200])


def test_pixel_limit_is_checked_from_the_header():
    buf = io.BytesIO()
    Image.new("L", (4000, 3000)).save(buf, "PNG")
    with pytest.raises(PhotoError, match="exceeds the limit"):
        decode_photo(buf.getvalue(), max_pixels=1_000_000)


def test_exif_orientation_is_applied():
    buf = io.BytesIO()
    img = Image.new("RGB", (40, 20), (255, 0, 0))
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise on display
    img.save(buf, "JPEG", exif=exif.tobytes())
    assert decode_photo(buf.getvalue()).shape == (40, 20, 3)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_random_bytes_never_escape_as_other_errors(data):
    try:
        decode_photo(data)
    except PhotoError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=len(_jpeg()) - 1))
def test_every_truncation_is_a_photo_error_or_decodes(cut):
    try:
        decode_photo(_jpeg()[:cut])
    except PhotoError:
        pass
