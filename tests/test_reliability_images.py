"""Hostile uploads: truncated, corrupt, wrong type, empty, huge, bombs, EXIF rotation.

Each ends in a one-line :class:`PhotoError` (HTTP 400 from the upload endpoints, CLI
exit 2), never a traceback, a hang or unbounded memory. The memory of the bombs is
measured in a fresh child process (``ru_maxrss``); ``benchmarks/upload_bombs.py``
prints the exact figures.
"""

from __future__ import annotations

import io
import time

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from reliability_support import (
    compressible_png,
    decode_peak_rss,
    fuzz_examples,
    jpeg_header_bomb,
    png_header_bomb,
)
from web_scaffolding import upload

from companion_web import create_app
from vision.image_io import PhotoError, decode_photo

#: Stated bound: refusing a bomb may add at most this much to the peak RSS (MB).
BOMB_RSS_BOUND_MB = 50
#: Stated bound for the largest photo the server accepts (40 MP) decoded in full (MB).
ACCEPTED_RSS_BOUND_MB = 250
APP_MAX_PIXELS = 40_000_000  # create_app's default MAX_PIXELS


def _encode(img: Image.Image, fmt: str, **kw) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


def _photo(fmt: str = "JPEG") -> bytes:
    rng = np.random.default_rng(3)
    return _encode(Image.fromarray(rng.integers(0, 255, (60, 80, 3), dtype=np.uint8)), fmt)


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    app = create_app({"INSTANCE_PATH": str(tmp_path_factory.mktemp("inst"))})
    return app.test_client()


HOSTILE = {
    "empty": b"",
    "text": b"hello, this is not a photo\n",
    "html": b"<!doctype html><script>alert(1)</script>",
    "truncated_jpeg": _photo("JPEG")[:300],
    "truncated_png": _photo("PNG")[:120],
    "jpeg_header_only": _photo("JPEG")[:20],
    "png_signature_only": b"\x89PNG\r\n\x1a\n",
    "corrupt_jpeg_body": _photo("JPEG")[:200] + b"\xff" * 500 + _photo("JPEG")[700:],
    "gif_wrong_type": _encode(Image.new("RGB", (10, 10)), "GIF"),
    "pdf_wrong_type": b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF",
    "zip_wrong_type": b"PK\x03\x04" + b"\0" * 60,
    "png_header_bomb": png_header_bomb(50_000, 50_000),
    "jpeg_header_bomb": jpeg_header_bomb(50_000, 50_000),
    "png_zero_width": png_header_bomb(0, 100),
    "compressible_png_bomb": compressible_png(20_000, 20_000),
    "wide_png_over_limit": compressible_png(65_000, 700),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_bytes_are_one_line_photo_errors(name):
    start = time.perf_counter()
    with pytest.raises(PhotoError) as caught:
        decode_photo(HOSTILE[name], max_pixels=APP_MAX_PIXELS)
    assert time.perf_counter() - start < 5
    message = str(caught.value)
    assert message.startswith("image: ") and "\n" not in message


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_uploads_are_400_json(web, name):
    for route in ("/api/caribo/recognize", "/api/wauri/recognize", "/api/calibrate/caribo"):
        response = web.post(route, data=upload(HOSTILE[name]), content_type="multipart/form-data")
        assert response.status_code == 400, (route, response.status_code)
        assert response.get_json()["error"].startswith("image: ")


@pytest.mark.parametrize("name", ["png_header_bomb", "jpeg_header_bomb", "compressible_png_bomb"])
def test_hostile_files_are_exit_2_on_the_command_line(cli, tmp_path, name):
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(HOSTILE[name])
    result = cli("recognize", "--game", "caribo", str(photo))
    assert result.code == 2 and result.out == ""
    assert result.err.startswith("boardcam: error: image: ") and result.err.count("\n") == 1
    assert "Traceback" not in result.err


def test_bomb_messages_name_the_limit():
    for name in ("png_header_bomb", "jpeg_header_bomb", "compressible_png_bomb"):
        with pytest.raises(PhotoError, match="exceeds the limit of 40000000 pixels"):
            decode_photo(HOSTILE[name], max_pixels=APP_MAX_PIXELS)


@pytest.mark.parametrize("name", ["png_header_bomb", "jpeg_header_bomb", "compressible_png_bomb"])
def test_bombs_are_refused_in_bounded_memory(tmp_path, name):
    report = decode_peak_rss(HOSTILE[name], APP_MAX_PIXELS, tmp_path)
    assert report["outcome"] == "refused", report
    assert report["growth_mb"] < BOMB_RSS_BOUND_MB, report
    assert report["seconds"] < 2, report


def test_the_largest_accepted_photo_decodes_in_bounded_memory(tmp_path):
    """A 6000×6000 1-bit PNG (4 KB) is under the 40 MP limit, so it is decoded: the
    result alone is 108 MB; the strip-wise conversion keeps the peak near
    decoded-image + result instead of four whole-image copies (373 MB before)."""
    report = decode_peak_rss(compressible_png(6000, 6000), APP_MAX_PIXELS, tmp_path)
    assert report["outcome"] == "decoded" and report["shape"] == [6000, 6000, 3]
    assert report["growth_mb"] < ACCEPTED_RSS_BOUND_MB, report


def test_over_the_byte_limit_is_refused_before_decoding(web):
    big = b"\xff\xd8" + b"\0" * (21 * 1024 * 1024)
    response = web.post("/api/caribo/recognize", data=upload(big),
                        content_type="multipart/form-data")  # fmt: skip
    assert response.status_code == 413 and "too large" in response.get_json()["error"]


# --- EXIF orientation: every one of the 8 values ends upright ---------------------------

# A 4×2 (w×h) asymmetric pattern: every one of the 8 symmetries of the rectangle
# gives a different array, so only the right correction restores it.
UPRIGHT = np.array(
    [[[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0]],
     [[0, 255, 255], [255, 0, 255], [255, 255, 255], [0, 0, 0]]],
    dtype=np.uint8,
)  # fmt: skip
# What a camera stores for each EXIF orientation so that a viewer applying the tag
# shows UPRIGHT (the inverse of the viewer's correction).
STORED = {
    1: lambda a: a,
    2: lambda a: a[:, ::-1],
    3: lambda a: a[::-1, ::-1],
    4: lambda a: a[::-1, :],
    5: lambda a: a.transpose(1, 0, 2),
    6: lambda a: np.rot90(a, 1),  # viewer turns 90° clockwise
    7: lambda a: a.transpose(1, 0, 2)[::-1, ::-1],  # transverse (anti-diagonal)
    8: lambda a: np.rot90(a, -1),  # viewer turns 90° counter-clockwise
}


def _big(a: np.ndarray, k: int = 16) -> np.ndarray:
    return np.kron(a, np.ones((k, k, 1), np.uint8))


@pytest.mark.parametrize("orientation", range(1, 9))
@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
def test_exif_orientation_ends_upright(orientation, fmt):
    stored = np.ascontiguousarray(STORED[orientation](_big(UPRIGHT)))
    exif = Image.Exif()
    exif[0x0112] = orientation
    data = _encode(Image.fromarray(stored), fmt, exif=exif.tobytes())
    bgr = decode_photo(data)
    rgb = bgr[:, :, ::-1].astype(int)
    expected = _big(UPRIGHT).astype(int)
    assert rgb.shape == expected.shape
    # block centres (JPEG blurs the edges of each 16×16 block)
    centres = rgb[8::16, 8::16]
    assert np.abs(centres - expected[8::16, 8::16]).max() < 40, orientation


def test_stored_layouts_are_the_eight_distinct_symmetries():
    layouts = {STORED[k](UPRIGHT).tobytes() + bytes(STORED[k](UPRIGHT).shape) for k in STORED}
    assert len(layouts) == 8


# --- mutation fuzz: valid photos of every accepted format, bytes flipped/cut/inserted ----

SEEDS = {
    fmt: _photo(fmt) for fmt in ("JPEG", "PNG", "WEBP", "BMP", "TIFF")
}
SEEDS["TIFF_DEFLATE"] = _encode(Image.open(io.BytesIO(_photo("PNG"))), "TIFF",
                                compression="tiff_deflate")  # fmt: skip
_exif = Image.Exif()
_exif[0x0112] = 6
SEEDS["JPEG_EXIF"] = _encode(Image.open(io.BytesIO(_photo("PNG"))), "JPEG", exif=_exif.tobytes())


@st.composite
def mutated_photo(draw):
    data = bytearray(SEEDS[draw(st.sampled_from(sorted(SEEDS)))])
    for _ in range(draw(st.integers(1, 8))):
        pos = draw(st.integers(0, len(data) - 1))
        op = draw(st.sampled_from(["flip", "cut", "insert", "truncate"]))
        if op == "flip":
            data[pos] = draw(st.integers(0, 255))
        elif op == "cut":
            del data[pos : pos + draw(st.integers(1, 64))]
        elif op == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=16))
        else:
            del data[max(pos, 1) :]
        if not data:
            break
    return bytes(data)


@settings(max_examples=fuzz_examples(250), deadline=2000,
          suppress_health_check=[HealthCheck.too_slow])
@given(mutated_photo())
def test_mutated_photos_decode_or_are_photo_errors(data):
    try:
        img = decode_photo(data, max_pixels=APP_MAX_PIXELS)
    except PhotoError as exc:
        assert str(exc).startswith("image: ") and "\n" not in str(exc)
    else:
        assert img.ndim == 3 and img.shape[2] == 3 and img.dtype == np.uint8


@settings(max_examples=fuzz_examples(40), deadline=5000,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=mutated_photo())
def test_mutated_uploads_are_never_500(web, data):
    response = web.post("/api/wauri/recognize", data=upload(data),
                        content_type="multipart/form-data")  # fmt: skip
    assert response.status_code in (200, 400, 422), response.status_code
    assert isinstance(response.get_json(), dict)


def test_strip_conversion_matches_a_whole_image_conversion():
    """The strip-wise BGR copy equals OpenCV's whole-image decode (lossless PNG)."""
    rng = np.random.default_rng(5)
    bgr = rng.integers(0, 255, (1500, 1100, 3), dtype=np.uint8)  # > 1 strip
    ok, buf = cv2.imencode(".png", bgr)
    assert ok
    assert np.array_equal(decode_photo(buf.tobytes()), bgr)
    grey = rng.integers(0, 255, (900, 2100), dtype=np.uint8)
    ok, buf = cv2.imencode(".png", grey)
    assert np.array_equal(decode_photo(buf.tobytes()), cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR))


@pytest.mark.parametrize(
    "argv",
    [
        ["recognize", "--game", "caribo", "/dev/zero"],  # st_size 0, endless: bounded read
        ["recognize", "--game", "wauri", "/"],
        ["recognize", "--game", "colomino", "/nonexistent/photo.jpg"],
        ["calibrate", "caribo", "/dev/zero", "-o", "/dev/null"],
    ],
)
def test_photo_paths_that_are_not_photos_are_exit_2(cli, argv):
    start = time.perf_counter()
    result = cli(*argv)
    assert result.code == 2 and result.out == ""
    assert result.err.startswith("boardcam: error: image: ") and result.err.count("\n") == 1
    assert time.perf_counter() - start < 10
