"""The companion's pages, status, static files and error contract (Flask test client)."""

from __future__ import annotations

import pytest

from companion_web import create_app


@pytest.mark.parametrize(
    "path, needle",
    [
        ("/", "boardcam"),
        ("/caribo/", 'id="camera-start"'),
        ("/colomino/", 'id="score-button"'),
        ("/wauri/", 'id="best-button"'),
        ("/calibrate/", "Calibration wizard"),
    ],
)
def test_pages_render(client, path, needle):
    response = client.get(path)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert needle in response.get_data(as_text=True)


@pytest.mark.parametrize("game", ["caribo", "colomino", "wauri"])
def test_game_page_has_upload_fallback_and_local_scripts(client, game):
    html = client.get(f"/{game}/").get_data(as_text=True)
    # the phone fallback: a file input that opens the camera
    assert 'type="file"' in html and 'accept="image/*"' in html and "capture=" in html
    assert f'data-game="{game}"' in html
    assert "http://" not in html and "https://" not in html  # no CDN: everything local
    for script in ("app.js", f"{game}.js"):
        assert f"/static/{script}" in html
        assert client.get(f"/static/{script}").status_code == 200


def test_status_reports_what_this_build_can_do(client):
    data = client.get("/api/status").get_json()
    assert set(data) >= {"engines", "rules", "recognizers", "sample_images", "lan"}
    assert set(data["rules"]) == {"caribo", "colomino", "wauri"}
    assert data["lan"] is False


def test_json_errors_for_unknown_routes_and_methods(client):
    assert client.get("/api/nope").get_json() == {"error": "not found"}
    response = client.get("/api/caribo/moves")  # POST only
    assert response.status_code == 405
    assert "error" in response.get_json()


def test_security_headers(client):
    response = client.get("/caribo/")
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]


def test_sample_images_are_served_and_listed(tmp_path):
    samples = tmp_path / "samples"
    (samples / "wauri").mkdir(parents=True)
    (samples / "wauri" / "wauri-001.jpg").write_bytes(b"\xff\xd8fake")
    (samples / "notes.txt").write_text("not a picture")
    (samples / "table-7.jpg").write_bytes(b"\xff\xd8x")
    (samples / "table-7.json").write_text('{"game": "colomino", "state": {}}')
    app = create_app(
        {"TESTING": True, "INSTANCE_PATH": str(tmp_path / "i"), "SAMPLE_IMAGES": str(samples)}
    )
    client = app.test_client()
    listed = client.get("/api/status").get_json()["sample_images"]
    assert listed == ["table-7.jpg", "wauri/wauri-001.jpg"]
    assert client.get("/sample_images/wauri/wauri-001.jpg").data == b"\xff\xd8fake"
    assert client.get("/sample_images/notes.txt").status_code == 404
    assert client.get("/sample_images/../pyproject.toml").status_code == 404
    wauri_page = client.get("/wauri/").get_data(as_text=True)
    assert "wauri/wauri-001.jpg" in wauri_page and "table-7.jpg" not in wauri_page
    assert "table-7.jpg" in client.get("/colomino/").get_data(as_text=True)  # by its truth
    assert "table-7.jpg" not in client.get("/caribo/").get_data(as_text=True)


def test_figures_come_from_the_engine_library(client):
    figures = client.get("/api/caribo/figures").get_json()["figures"]
    names = {f["name"] for f in figures}
    assert "butterfly" in names
    butterfly = next(f for f in figures if f["name"] == "butterfly")
    assert butterfly["figure"].startswith("0,0,1,1,0 - e0,1,1,0,0")
    assert butterfly["cells"] == 36
    assert "solution" not in butterfly  # no spoilers


def test_colomino_layouts(client):
    data = client.get("/api/colomino/layout/9").get_json()
    assert data["size"] == 9
    assert all(len(data["layout"]["rim"][side]) == 9 for side in ("north", "east", "south", "west"))
    assert len(client.get("/api/colomino/layout/12").get_json()["layout"]["rim"]["north"]) == 12
    assert client.get("/api/colomino/layout/10").status_code == 404
