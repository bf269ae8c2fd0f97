"""The calibration wizard's API: upload → ``boardcam calibrate`` → stored → used."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from web_scaffolding import jpeg_bytes, upload

from calibration import PaintCalibration
from companion_web import calibration_pages, create_app, rules

PICTURE = np.full((120, 160, 3), 90, np.uint8)
CAL = PaintCalibration(tuple((c, (0.2, 0.3, 0.4)) for c in "WSBRGY"), source="test")


def test_wizard_page_and_empty_status(client):
    html = client.get("/calibrate/").get_data(as_text=True)
    assert 'id="calibrate-photo"' in html and 'accept="image/*"' in html
    assert client.get("/api/calibration").get_json() == {"caribo": None}


def test_bad_uploads_and_unknown_game(client):
    assert client.post("/api/calibrate/caribo", data={}).status_code == 400
    bad = client.post("/api/calibrate/caribo", data=upload(b"not a photo"))
    assert bad.status_code == 400 and "not a readable image" in bad.get_json()["error"]
    assert client.post("/api/calibrate/chess", data=upload(jpeg_bytes(PICTURE))).status_code == 404


def test_a_photo_without_the_set_is_422(client):
    """The real command on a blank picture: nothing found / not 36 tiles → 422."""
    response = client.post("/api/calibrate/caribo", data=upload(jpeg_bytes(PICTURE)))
    assert response.status_code == 422
    assert response.get_json()["error"]
    assert client.get("/api/calibration").get_json() == {"caribo": None}


def test_success_is_stored_used_by_recognition_and_forgotten(tmp_path, monkeypatch):
    calls = []

    def fake_command(argv, *, cwd, timeout):  # stands in for a photo of all 36 tiles
        calls.append(argv)
        out = Path(argv[argv.index("-o") + 1])
        out.write_text(json.dumps(CAL.to_json()), encoding="utf-8")
        return 0, json.dumps(CAL.to_json()) + "\n", ""

    monkeypatch.setattr(rules, "run_command", fake_command)
    seen = {}

    def spy(game, image, *, previous=None, calibration=None):
        seen["calibration"] = calibration
        return {"game": game, "confidence": 1.0, "warnings": []}

    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "RECOGNIZER": spy})
    client = app.test_client()
    response = client.post("/api/calibrate/caribo", data=upload(jpeg_bytes(PICTURE)))
    assert response.status_code == 200
    assert response.get_json()["paints"]["W"] == [0.2, 0.3, 0.4]
    assert calls[0][:2] == ["calibrate", "caribo"]
    assert (tmp_path / "calibration-caribo.json").is_file()
    assert client.get("/api/calibration").get_json()["caribo"]["source"] == "test"
    client.post("/api/caribo/recognize", data=upload(jpeg_bytes(PICTURE)))
    assert seen["calibration"] == CAL
    assert client.delete("/api/calibration/caribo").status_code == 204
    client.post("/api/caribo/recognize", data=upload(jpeg_bytes(PICTURE)))
    assert seen["calibration"] is None


def test_a_broken_calibration_file_is_ignored(tmp_path):
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path)})
    (tmp_path / "calibration-caribo.json").write_text("{not json", encoding="utf-8")
    with app.app_context():
        assert calibration_pages.load_for("caribo") is None


def test_a_fit_over_the_time_limit_is_422_and_a_crash_is_500(client, monkeypatch):
    monkeypatch.setattr(rules, "run_command", lambda argv, *, cwd, timeout: None)
    slow = client.post("/api/calibrate/caribo", data=upload(jpeg_bytes(PICTURE)))
    assert slow.status_code == 422
    assert slow.get_json()["error"].startswith("calibration did not finish within 120 s")
    monkeypatch.setattr(
        rules, "run_command", lambda argv, *, cwd, timeout: (70, "", "Traceback\nValueError: x\n")
    )
    crash = client.post("/api/calibrate/caribo", data=upload(jpeg_bytes(PICTURE)))
    assert crash.status_code == 500
    assert crash.get_json() == {"error": "calibration failed (ValueError: x)"}
    assert client.get("/api/calibration").get_json() == {"caribo": None}
