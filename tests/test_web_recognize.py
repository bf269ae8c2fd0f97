"""``POST /api/<game>/recognize``: bounded uploads, JSON errors, the recogniser's answer."""

from __future__ import annotations

import io
from importlib.util import find_spec

import numpy as np
import pytest
from PIL import Image
from web_scaffolding import SCAFFOLD_WARNING, jpeg_bytes, png_bytes, truth_recognizer, upload

from companion_web import create_app
from vision.recognize import NothingFound, RecognizerUnavailable

GAMES = ["caribo", "colomino", "wauri"]
PICTURE = np.full((120, 160, 3), 90, np.uint8)


def make_app(tmp_path, **config):
    return create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "inst"), **config})


@pytest.mark.parametrize("game", GAMES)
def test_no_recogniser_yet_is_503_json(client, game, monkeypatch):
    import vision.recognize

    def missing(name):
        raise RecognizerUnavailable(f"recognition for {name} is not available yet")

    monkeypatch.setattr(vision.recognize, "recognizer_module", missing)
    response = client.post(f"/api/{game}/recognize", data=upload(jpeg_bytes(PICTURE)))
    assert response.status_code == 503
    assert response.get_json()["error"] == f"recognition for {game} is not available yet"


@pytest.mark.parametrize("game", GAMES)
def test_real_recogniser_path_answers_json_for_a_blank_picture(client, game):
    """Whatever is installed: 503 (no recogniser), 422 (nothing found) or 200 — JSON."""
    response = client.post(f"/api/{game}/recognize", data=upload(jpeg_bytes(PICTURE)))
    assert response.status_code in (200, 422, 503)
    body = response.get_json()
    if response.status_code == 503:
        assert find_spec(f"vision.{game}_recognition") is None
    elif response.status_code == 422:
        assert body["confidence"] == 0.0 and body["error"]
    else:
        assert body["game"] == game and "confidence" in body


@pytest.mark.parametrize("game", GAMES)
def test_missing_image_field_is_400(client, game):
    response = client.post(f"/api/{game}/recognize", data={"photo": (io.BytesIO(b"x"), "a.jpg")})
    assert response.status_code == 400
    assert "image" in response.get_json()["error"]
    assert client.post(f"/api/{game}/recognize", json={"image": "x"}).status_code == 400


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "empty"),
        (b"this is not a picture at all", "not a readable image"),
        (jpeg_bytes(PICTURE)[:200], "corrupt or truncated"),
    ],
)
def test_bad_uploads_are_400_with_a_message(client, data, message):
    response = client.post("/api/caribo/recognize", data=upload(data))
    assert response.status_code == 400
    assert message in response.get_json()["error"]


def test_unsupported_format_is_400(client):
    buf = io.BytesIO()
    Image.new("RGB", (8, 8)).save(buf, format="GIF")
    response = client.post("/api/wauri/recognize", data=upload(buf.getvalue(), "a.gif"))
    assert response.status_code == 400
    assert "unsupported format GIF" in response.get_json()["error"]


def test_request_larger_than_max_content_length_is_413(tmp_path):
    client = make_app(tmp_path, MAX_CONTENT_LENGTH=10_000).test_client()
    big = jpeg_bytes(np.random.default_rng(0).integers(0, 255, (400, 400, 3), np.uint8))
    assert len(big) > 10_000
    response = client.post("/api/caribo/recognize", data=upload(big))
    assert response.status_code == 413
    assert "too large" in response.get_json()["error"]


def test_pixel_limit_is_checked_before_decoding(tmp_path):
    client = make_app(tmp_path, MAX_PIXELS=100 * 100).test_client()
    # a 4000x4000 PNG of one colour is tiny in bytes but 16 MP in pixels
    data = png_bytes(np.zeros((4000, 4000, 3), np.uint8))
    assert len(data) < 200_000
    response = client.post("/api/colomino/recognize", data=upload(data, "bomb.png"))
    assert response.status_code == 400
    assert "exceeds the limit of 10000 pixels" in response.get_json()["error"]


def test_answer_of_an_injected_recogniser_passes_through(tmp_path):
    truth = {"game": "wauri", "state": {"game": "wauri", "south": [4] * 6, "north": [4] * 6,
             "stores": {"south": 0, "north": 0}, "to_move": "south"}}  # fmt: skip
    client = make_app(tmp_path, RECOGNIZER=truth_recognizer({"wauri": truth})).test_client()
    response = client.post("/api/wauri/recognize", data=upload(jpeg_bytes(PICTURE)))
    assert response.status_code == 200
    answer = response.get_json()
    assert answer["south"] == [4] * 6 and answer["warnings"] == [SCAFFOLD_WARNING]
    assert "recognize;dur=" in response.headers["Server-Timing"]


def test_recogniser_receives_decoded_bgr_and_previous(tmp_path):
    seen = {}

    def spy(game, image, *, previous=None, calibration=None):
        seen.update(game=game, shape=image.shape, dtype=str(image.dtype))
        seen.update(pixel=image[0, 0].tolist(), previous=previous)
        return {"game": game, "confidence": 0.5, "warnings": []}

    client = make_app(tmp_path, RECOGNIZER=spy).test_client()
    picture = np.zeros((30, 40, 3), np.uint8)
    picture[:, :] = (255, 0, 0)  # pure blue in BGR
    form = {**upload(png_bytes(picture), "p.png"), "previous": "S,34WS"}
    assert client.post("/api/caribo/recognize", data=form).status_code == 200
    assert seen == {"game": "caribo", "shape": (30, 40, 3), "dtype": "uint8",
                    "pixel": [255, 0, 0], "previous": "S,34WS"}  # fmt: skip


def test_nothing_found_is_422_with_the_negative_answer(tmp_path):
    def nothing(game, image, *, previous=None, calibration=None):
        raise NothingFound("no CARIBO tiles in the picture")

    client = make_app(tmp_path, RECOGNIZER=nothing).test_client()
    response = client.post("/api/caribo/recognize", data=upload(jpeg_bytes(PICTURE)))
    assert response.status_code == 422
    assert response.get_json() == {
        "game": "caribo",
        "error": "no CARIBO tiles in the picture",
        "confidence": 0.0,
        "warnings": ["no CARIBO tiles in the picture"],
    }


def test_oversized_previous_is_400(client):
    form = {**upload(jpeg_bytes(PICTURE)), "previous": "x" * 100_001}
    response = client.post("/api/caribo/recognize", data=form)
    assert response.status_code == 400
    assert response.get_json()["error"].startswith("previous:")


def _nan_reader(image, *, previous=None, calibration=None):
    return {"game": "colomino", "size": 9, "cells": [{"row": 0, "col": 0,
                                                      "confidence": float("nan")}],
            "confidence": 1.0, "warnings": []}


def test_a_reading_with_nan_is_a_negative_answer_not_invalid_json(client, monkeypatch, cli,
                                                                    tmp_path):
    """A recogniser that loses its numbers (NaN) must not reach the player: NaN is not
    JSON, and a reading without numbers is no reading. CLI exit 1, HTTP 422."""
    from vision import colomino_recognition

    monkeypatch.setattr(colomino_recognition, "recognize", _nan_reader)
    response = client.post("/api/colomino/recognize", data=upload(jpeg_bytes(PICTURE)))
    assert response.status_code == 422
    assert "board could be read reliably" in response.get_json()["error"]
    photo = tmp_path / "p.png"
    photo.write_bytes(png_bytes(np.zeros((80, 80, 3), np.uint8)))
    result = cli("recognize", "--game", "colomino", str(photo))
    assert result.code == 1 and "NaN" not in result.out
    assert "board could be read reliably" in result.json()["error"]
