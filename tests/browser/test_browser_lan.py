"""LAN mode in Chromium: HTTPS through the TLS terminator, pairing, camera, under the CSP.

Unlike the other browser tests this context keeps the app's Content-Security-Policy
(no ``bypass_csp``), so it only waits on selectors, never on evaluated strings.
"""

from __future__ import annotations

import pytest
from web_scaffolding import CHROMIUM, CHROMIUM_ARGS, LiveServer, write_y4m

from companion_web import create_app
from companion_web.tls import ensure_certificate

pytestmark = pytest.mark.slow  # real Chromium: seconds per test
TOKEN = "browser-pairing-token"


@pytest.fixture
def lan(tmp_path):
    from companion_web.tls import TLSTerminator

    cert, key = ensure_certificate(tmp_path / "tls", ["127.0.0.1", "localhost"])
    app = create_app(
        {"TESTING": True, "INSTANCE_PATH": str(tmp_path / "instance"), "PAIRING_TOKEN": TOKEN}
    )
    backend = LiveServer(app, url_scheme="https").start()
    terminator = TLSTerminator("127.0.0.1", 0, ("127.0.0.1", backend.port), cert, key).start()
    url = f"https://127.0.0.1:{terminator.port}"
    app.config["PUBLIC_URL"] = url
    yield url
    terminator.stop()
    backend.stop()


def test_phone_path_over_https_with_pairing(playwright_instance, pictures, lan, tmp_path,
                                            artifacts):  # fmt: skip
    y4m = write_y4m(tmp_path / "wauri.y4m", pictures["wauri"][0], frames=3)
    context = playwright_instance.chromium.launch_persistent_context(
        str(tmp_path / "profile"),
        executable_path=CHROMIUM,
        headless=True,
        ignore_https_errors=True,  # the self-signed certificate, as a phone user accepts it
        args=[*CHROMIUM_ARGS, f"--use-file-for-fake-video-capture={y4m}"],
        viewport={"width": 1000, "height": 900},
    )
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        assert page.goto(f"{lan}/wauri/").status == 403
        assert "Not paired" in page.text_content("h1")
        assert page.goto(f"{lan}/?token={TOKEN}").status == 200
        assert page.text_content("#pairing-url") == f"{lan}/?token={TOKEN}"
        assert page.locator("#pairing svg").count() == 1
        page.screenshot(path=str(artifacts / "lan-pairing.png"), full_page=True)
        assert page.goto(f"{lan}/wauri/").status == 200  # paired by the cookie
        assert page.evaluate("window.isSecureContext") is True
        page.click("#camera-start")
        page.wait_for_selector("body[data-camera=live]", timeout=20_000)
        page.wait_for_selector("#recognition-status:not([data-kind=info])", timeout=30_000)
        assert int(page.text_content("#frames-sent")) >= 1
        page.click("#camera-freeze")
        page.click("#best-button")
        page.wait_for_selector(".pit.suggested", timeout=20_000)
        page.screenshot(path=str(artifacts / "lan-wauri-camera.png"), full_page=True)
        assert not errors
    finally:
        context.close()
