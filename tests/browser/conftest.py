"""Browser-test harness: real headless Chromium (Debian's) driven by Playwright.

Chromium gets a fake camera fed from a .y4m file made from a sample picture of the game
(``--use-file-for-fake-video-capture``), a fresh profile per game, and the app runs
under waitress on a free port in a background thread. Screenshots go to
``test-artifacts/web/``. When no ``chromium`` executable is installed the tests are
skipped with that reason (CI installs it, see ``.ci/run``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from web_scaffolding import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    LiveServer,
    fit_frame,
    sample_picture,
    truth_recognizer,
    write_y4m,
)

from companion_web import create_app

ARTIFACTS = ROOT / "test-artifacts" / "web"
def pytest_collection_modifyitems(items):
    if CHROMIUM:
        return
    skip = pytest.mark.skip(reason="no chromium executable on PATH (apt-get install chromium)")
    for item in items:
        if "browser" in item.nodeid:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def pictures(tmp_path_factory):
    """game -> (BGR picture, truth or None); rendered pictures are cached in test-artifacts."""
    cache = ROOT / "test-artifacts" / "render-cache"
    return {
        game: fit_frame(*sample_picture(game, cache), size=(960, 540))
        for game in ("caribo", "colomino", "wauri")
    }


def _server(tmp_path_factory, name, **config):
    app = create_app(
        {"TESTING": True, "INSTANCE_PATH": str(tmp_path_factory.mktemp(name)), **config}
    )
    server = LiveServer(app).start()
    return server


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The real app (real recognisers, whatever is installed)."""
    live = _server(tmp_path_factory, "real", CAPTURE_INTERVAL_MS=250)
    yield live
    live.stop()


@pytest.fixture(scope="session")
def scaffold_server(tmp_path_factory, pictures):
    """TEST SCAFFOLDING: the app with a fake recogniser returning the pictures' truth."""
    truths = {game: truth for game, (_img, truth) in pictures.items() if truth}
    live = _server(
        tmp_path_factory, "scaffold", CAPTURE_INTERVAL_MS=250, RECOGNIZER=truth_recognizer(truths)
    )
    yield live
    live.stop()


@pytest.fixture(scope="session")
def playwright_instance():
    if not CHROMIUM:
        pytest.skip("no chromium executable on PATH")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browsers(playwright_instance, pictures, tmp_path_factory, server, scaffold_server):
    """game -> a Chromium context whose fake camera shows that game's picture.

    Depends on the servers so that the browsers close before the servers stop. The
    app's real Content-Security-Policy stays on (no ``bypass_csp``): the tests poll with
    ``page.evaluate`` (DevTools protocol, not the page's eval) and fail on any CSP
    violation the page reports (see ``open_page`` in the tests).
    """
    opened = {}

    def get(game):
        if game not in opened:
            folder = tmp_path_factory.mktemp(f"chromium-{game}")
            y4m = write_y4m(folder / f"{game}.y4m", pictures[game][0], frames=4)
            context = playwright_instance.chromium.launch_persistent_context(
                str(folder / "profile"),
                executable_path=CHROMIUM,
                headless=True,
                args=[*CHROMIUM_ARGS, f"--use-file-for-fake-video-capture={y4m}"],
                viewport={"width": 1280, "height": 900},
            )
            opened[game] = context
        return opened[game]

    yield get
    for context in opened.values():
        context.close()
