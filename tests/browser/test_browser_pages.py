"""The pages in real headless Chromium: fake camera, uploads, manual entry, sessions.

Recognition is not claimed here: with the real app the page must show whatever the
server answers (today mostly "recognition for X is not available yet"). The overlay
drawing is exercised with the TEST SCAFFOLDING recogniser (truth JSON of the picture).
"""

from __future__ import annotations

import time
from importlib.util import find_spec

import cv2
import numpy as np
import pytest

pytestmark = pytest.mark.slow  # real Chromium: seconds per test
GAMES = ["caribo", "colomino", "wauri"]
#: Where each page shows its rules answer for a recognised board, and what it may say.
RULES_ANSWER = {"caribo": "moves-result", "colomino": "score-result", "wauri": "wauri-result"}
RULES_WORDS = {
    "caribo": ("The board follows the rules.", "Problems:"),
    "colomino": ("placed:", "Not a legal turn"),
    "wauri": ("Suggested move for", "No move to suggest"),
}
FRAMES = "Number(document.getElementById('frames-sent').textContent)"
ANSWERED = "document.getElementById('recognition-status').dataset.kind !== 'info'"


def wait_js(page, expression: str, timeout: float = 15_000) -> None:
    """Wait until ``expression`` is true, polling every 100 ms with ``page.evaluate``; on a
    timeout, fail with the page's message line.

    ``page.evaluate`` goes through the DevTools protocol, so it works under the app's
    Content-Security-Policy (``wait_for_function`` with a string needs ``eval``, which
    the policy forbids; its requestAnimationFrame polling also starves while the page
    redraws the camera canvas on every animation frame).
    """
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            message = page.text_content("#messages")
            pytest.fail(f"timed out waiting for {expression}; page message: {message!r}")
        page.wait_for_timeout(100)


@pytest.fixture
def open_page():
    """Open a page (closed after the test, so its camera stream ends) and collect its
    JavaScript errors and Content-Security-Policy violations (Chromium reports those on
    the console)."""
    opened = []

    def opener(context, url):
        page = context.new_page()
        opened.append(page)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on(
            "console",
            lambda msg: errors.append(msg.text)
            if "Content Security Policy" in msg.text
            else None,
        )
        page.goto(url)
        return page, errors

    yield opener
    for page in opened:
        page.close()


def wait_rules_answer(page, game: str) -> None:
    """Wait for the page's rules answer to a recognised board and check what it says."""
    box = f"document.getElementById('{RULES_ANSWER[game]}').textContent"
    wait_js(page, f"{box} !== '' && !{box}.endsWith('Thinking…')", timeout=20_000)
    answer = page.text_content(f"#{RULES_ANSWER[game]}")
    assert any(word in answer for word in RULES_WORDS[game]), answer


def canvas_is_a_picture(page) -> bool:
    """True when the view canvas shows a non-uniform picture (not blank/black)."""
    return page.evaluate(
        """() => {
        const c = document.getElementById('view');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let min = 255, max = 0;
        for (let i = 0; i < d.length; i += 4 * 997) {
          min = Math.min(min, d[i + 1]);
          max = Math.max(max, d[i + 1]);
        }
        return c.width > 300 && max - min > 40;
    }"""
    )


def expected_status(game: str, status: str, kind: str) -> None:
    if find_spec(f"vision.{game}_recognition") is None:
        assert status == f"recognition for {game} is not available yet"
        assert kind == "error"
    else:  # a recogniser exists: it answered (200) or found nothing (422)
        assert kind in ("ok", "warn"), status


@pytest.mark.parametrize("game", GAMES)
def test_camera_frames_are_sent_and_the_answer_shown(open_page, browsers, server, artifacts, game):
    page, errors = open_page(browsers(game), f"{server.url}/{game}/")
    page.click("#camera-start")
    wait_js(page, ANSWERED, timeout=30_000)
    assert page.evaluate(FRAMES) >= 1
    assert page.get_attribute("body", "data-camera") == "live"
    assert canvas_is_a_picture(page)
    status = page.text_content("#recognition-status")
    kind = page.get_attribute("#recognition-status", "data-kind")
    expected_status(game, status, kind)
    if page.get_attribute("body", "data-answer") == "board":  # the rules answer for it
        wait_rules_answer(page, game)
    page.screenshot(path=str(artifacts / f"{game}-camera.png"), full_page=True)
    # freeze: no more frames are sent (one may still be on its way)
    page.click("#camera-freeze")
    page.wait_for_timeout(200)
    frozen_at = page.evaluate(FRAMES)
    page.wait_for_timeout(700)
    assert page.evaluate(FRAMES) == frozen_at
    assert page.text_content("#camera-freeze") == "Resume"
    assert not errors


@pytest.mark.parametrize("game", GAMES)
def test_photo_upload_path(open_page, browsers, scaffold_server, artifacts, pictures, tmp_path,
                           game):  # fmt: skip
    """The photo input (a phone's camera app or a file): one upload, the picture shown
    with its overlay, the rules answer. The recogniser is the TEST SCAFFOLDING one (real
    recognition runs in the camera and sample-picture tests; this is the upload path)."""
    photo = tmp_path / f"{game}.jpg"
    cv2.imwrite(str(photo), pictures[game][0])
    page, errors = open_page(browsers(game), f"{scaffold_server.url}/{game}/")
    page.set_input_files("#photo-input", str(photo))
    wait_js(page, ANSWERED, timeout=30_000)
    assert page.evaluate(FRAMES) == 1
    assert page.get_attribute("body", "data-camera") == "photo"
    assert canvas_is_a_picture(page)
    if pictures[game][1] is not None:
        assert page.get_attribute("#recognition-status", "data-kind") == "ok"
        wait_rules_answer(page, game)
    page.screenshot(path=str(artifacts / f"{game}-upload.png"), full_page=True)
    assert not errors


def test_bad_upload_shows_the_servers_message(open_page, browsers, server, tmp_path):
    bogus = tmp_path / "notes.jpg"
    bogus.write_text("not a picture")
    page, _errors = open_page(browsers("wauri"), f"{server.url}/wauri/")
    page.set_input_files("#photo-input", str(bogus))
    wait_js(page, ANSWERED, timeout=15_000)
    assert "not a readable image" in page.text_content("#recognition-status")


def test_caribo_overlay_from_scaffold_truth(
    open_page, browsers, scaffold_server, pictures, artifacts
):
    """TEST SCAFFOLDING recogniser: the recognised tiles are outlined on the picture."""
    image, truth = pictures["caribo"]
    if truth is None:
        pytest.skip("no CARIBO picture with truth (sample_images empty, simulator missing)")
    page, errors = open_page(browsers("caribo"), f"{scaffold_server.url}/caribo/")
    page.click("#camera-start")
    wait_js(page, f"{FRAMES} >= 3", timeout=30_000)  # sampled again and again while live
    status = page.text_content("#recognition-status")
    assert page.get_attribute("#recognition-status", "data-kind") == "ok", status
    assert page.input_value("#board") == truth["state"]["notation"]
    tiles = truth["pieces"]
    assert page.locator("#board-view g.cell.tile").count() == len(tiles)
    # the page outlines each tile (confidence 1 -> green) near its true corners
    page.click("#camera-freeze")
    page.screenshot(path=str(artifacts / "caribo-overlay-scaffold.png"), full_page=True)
    height, width = image.shape[:2]
    hits = page.evaluate(
        """([tiles, w, h]) => {
        const c = document.getElementById('view');
        const sx = c.width / w, sy = c.height / h;
        const ctx = c.getContext('2d');
        let hits = 0;
        for (const t of tiles) {
          const [a, b] = [t.corners_px[0], t.corners_px[1]];
          const mx = (a[0] + b[0]) / 2 * sx, my = (a[1] + b[1]) / 2 * sy;
          const d = ctx.getImageData(Math.round(mx) - 6, Math.round(my) - 6, 13, 13).data;
          for (let i = 0; i < d.length; i += 4) {
            if (d[i] < 90 && d[i + 1] > 190 && d[i + 2] > 70 && d[i + 2] < 150) { hits++; break; }
          }
        }
        return hits;
    }""",
        [tiles, width, height],
    )
    assert hits >= 0.8 * len(tiles), f"{hits} of {len(tiles)} tiles outlined"
    # the rules answer for the recognised table: legal placements for the tiles not on
    # the table (or, when the whole set lies there, the check of the laid board)
    from engines.caribo.tiles import full_set

    on_board = {p["tile"][2:] if len(p["tile"]) == 4 else p["tile"] for p in tiles}
    hand = [t.identity_code for t in full_set() if t.identity_code not in on_board]
    if hand:
        page.fill("#hand", ",".join(hand))
        page.click("#moves-button")
    else:
        page.click("#check-button")
    wait_js(page, "document.getElementById('moves-result').textContent !== ''")
    cells = page.locator("#board-view g.placement").count()
    result = page.text_content("#moves-result")
    found = int(result.split()[0]) if result[:1].isdigit() else 0
    if not hand:
        assert result == "The board follows the rules." or result.startswith("Problems:")
    elif found:
        assert 0 < cells <= found and "legal placement" in result
    else:
        assert cells == 0 and "must pass" in result
    page.screenshot(path=str(artifacts / "caribo-overlay-placements.png"), full_page=True)
    assert not errors


def test_caribo_manual_board_moves_and_puzzle(open_page, browsers, server, artifacts):
    page, errors = open_page(browsers("caribo"), f"{server.url}/caribo/")
    page.fill("#board", "S")
    page.fill("#hand", "WS")
    page.click("#moves-button")
    wait_js(page, "document.querySelectorAll('#placements li').length > 0")
    listed = page.locator("#placements li").count()
    assert page.text_content("#moves-result").startswith("24 legal placements")
    assert listed == 13 and page.text_content("#placements-all") == "Show all 24"
    assert page.locator("#board-view g.placement").count() == 6  # all six neighbours
    page.screenshot(path=str(artifacts / "caribo-placements.png"), full_page=True)
    page.locator("#placements li button").first.click()
    board = page.input_value("#board")
    assert "WS" in board and "S" in board and page.input_value("#hand") == ""
    # puzzle mode: a mismatched edge is drawn, a good solution is accepted
    page.click("#tab-puzzle")
    wait_js(page, "document.querySelectorAll('#figure-select option').length > 1")
    page.select_option("#figure-select", "pair")
    page.fill("#solution", "S,W")
    page.click("#check-solution")
    wait_js(page, "document.getElementById('puzzle-result').textContent !== ''")
    assert page.text_content("#puzzle-result") == "Not solved yet."
    assert page.locator("#solution-view line.mismatch").count() == 1
    page.screenshot(path=str(artifacts / "caribo-puzzle-mismatch.png"), full_page=True)
    page.fill("#solution", "S,34WS")
    page.click("#check-solution")
    wait_js(page, "document.getElementById('puzzle-result').dataset.valid === 'yes'")
    assert not errors


def test_wauri_suggestion_move_and_session(open_page, browsers, server, artifacts):
    page, errors = open_page(browsers("wauri"), f"{server.url}/wauri/")
    page.click("#best-button")
    page.wait_for_selector(".pit.suggested", timeout=15_000)
    assert "Suggested move for south: pit" in page.text_content("#wauri-result")
    page.screenshot(path=str(artifacts / "wauri-suggestion.png"), full_page=True)
    # a manual correction: the engine answers again for the corrected position
    page.check("#edit-mode")
    page.once("dialog", lambda dialog: dialog.accept("9"))
    with page.expect_response("**/api/wauri/best") as asked:
        page.click(".pit[data-side=north][data-pit='1']")
    assert asked.value.request.post_data_json["position"]["north"][0] == 9
    page.wait_for_selector(".pit.suggested", timeout=15_000)
    page.once("dialog", lambda dialog: dialog.accept("4"))
    with page.expect_response("**/api/wauri/best"):
        page.click(".pit[data-side=north][data-pit='1']")
    page.wait_for_selector(".pit.suggested", timeout=15_000)
    page.uncheck("#edit-mode")
    page.fill("#session-players", "Ana, Ben")
    page.click("#session-start")
    wait_js(page, "!document.getElementById('session-info').hidden")
    page.click(".pit[data-side=south][data-pit='3']")
    wait_js(page, "document.querySelectorAll('#session-history li').length === 2")
    assert page.text_content(".pit[data-side=south][data-pit='3']") == "0"
    assert page.text_content(".store.south") == "1"
    assert "Ana: 3" in page.text_content("#session-history")
    assert page.text_content("#move-history") == "Ana: 3"
    page.click("#session-undo")
    wait_js(page, "document.querySelector('#session-history li.undone') !== null")
    assert page.text_content(".pit[data-side=south][data-pit='3']") == "4"
    assert page.locator("#move-history li").count() == 0
    page.screenshot(path=str(artifacts / "wauri-session.png"), full_page=True)
    assert not errors


def test_colomino_correction_scoring_and_scoreboard(open_page, browsers, server, artifacts):
    page, errors = open_page(browsers("colomino"), f"{server.url}/colomino/")
    page.wait_for_selector("#board-view rect.rim")
    page.once("dialog", lambda dialog: dialog.accept("BRRG"))
    page.click("#board-view g.cell[data-row='8'][data-col='1']")
    page.wait_for_selector("#board-view g.cell[data-row='8'][data-col='1'][data-value='BRRG']")
    page.click("#score-button")
    wait_js(page, "document.getElementById('score-result').textContent.includes('placed')")
    assert page.text_content("#score-result").startswith("1 tile placed")
    assert page.locator("#board-view .outline.highlight").count() == 1
    page.fill("#session-players", "Ana, Ben")
    page.click("#session-start")
    wait_js(page, "!document.getElementById('session-info').hidden")
    page.once("dialog", lambda dialog: dialog.accept("BRRG"))
    page.click("#board-view g.cell[data-row='8'][data-col='1']")
    page.click("#confirm-turn")
    wait_js(page, "document.querySelectorAll('#session-history li').length === 2")
    rows = page.locator("#scoreboard tr")
    assert rows.count() == 3
    assert "to-move" in (rows.nth(2).get_attribute("class") or "")  # Ben's turn
    page.screenshot(path=str(artifacts / "colomino-scored.png"), full_page=True)
    assert not errors


def test_calibration_wizard_reports_an_unusable_photo(open_page, browsers, server, artifacts,
                                                      tmp_path):  # fmt: skip
    photo = tmp_path / "blank.jpg"
    cv2.imwrite(str(photo), np.full((240, 320, 3), 128, np.uint8))
    page, errors = open_page(browsers("caribo"), f"{server.url}/calibrate/")
    wait_js(page, "document.getElementById('calibration-current').dataset.calibrated === 'no'")
    page.set_input_files("#calibrate-photo", str(photo))
    wait_js(page, "document.getElementById('calibrate-status').dataset.kind === 'error'", 60_000)
    assert page.text_content("#calibrate-status")  # the server's reason, shown as it is
    page.screenshot(path=str(artifacts / "calibrate-error.png"), full_page=True)
    assert not errors


def test_calibration_wizard_stores_shows_and_forgets(open_page, browsers, server, monkeypatch,
                                                     tmp_path):  # fmt: skip
    """The wizard's success path (the command stubbed to write a calibration, as for a
    photo of all 36 tiles): stored, shown, forgotten."""
    import json
    from pathlib import Path

    from companion_web import rules

    paints = {"W": [0.8, 0.7, 0.4], "S": [0.04, 0.03, 0.03], "B": [0.04, 0.13, 0.27],
              "R": [0.48, 0.04, 0.03], "G": [0.02, 0.19, 0.06], "Y": [0.79, 0.3, 0.01]}
    calibration = {"format": "boardcam-paint-calibration", "version": 1, "game": "caribo",
                   "paints": paints, "samples": dict.fromkeys(paints, 36), "source": "x.jpg"}

    def fake_calibrate(argv, *, cwd, timeout):
        Path(argv[argv.index("-o") + 1]).write_text(json.dumps(calibration), encoding="utf-8")
        return 0, json.dumps(calibration) + "\n", ""

    monkeypatch.setattr(rules, "run_command", fake_calibrate)
    photo = tmp_path / "set.jpg"
    cv2.imwrite(str(photo), np.full((240, 320, 3), 128, np.uint8))
    page, errors = open_page(browsers("caribo"), f"{server.url}/calibrate/")
    wait_js(page, "document.getElementById('calibration-current').dataset.calibrated === 'no'")
    page.set_input_files("#calibrate-photo", str(photo))
    wait_js(page, "document.getElementById('calibration-current').dataset.calibrated === 'yes'")
    assert page.text_content("#calibrate-status") == "Calibrated: the six paints were measured."
    assert page.text_content("#calibration-current") == "Calibrated (216 segments measured)."
    page.click("#calibration-forget")
    wait_js(page, "document.getElementById('calibration-current').dataset.calibrated === 'no'")
    assert page.is_hidden("#calibration-forget")
    assert not errors


def test_sample_picture_without_a_camera(open_page, browsers, server, artifacts):
    """Out of the box, no camera: pick a sample picture; the server's answer (real
    recognition) and the rules answer are shown. (Wauri: its recogniser is the quickest;
    the camera test reads CARIBO and Colomino for real.)"""
    page, errors = open_page(browsers("wauri"), f"{server.url}/wauri/")
    options = page.locator("#sample-select option")
    if options.count() < 2:
        pytest.skip("sample_images/ has no Wauri pictures yet")
    name = options.nth(1).get_attribute("value")
    page.select_option("#sample-select", name)
    wait_js(page, ANSWERED, timeout=30_000)
    assert page.get_attribute("body", "data-camera") == "photo"
    assert canvas_is_a_picture(page)
    status = page.text_content("#recognition-status")
    expected_status("wauri", status, page.get_attribute("#recognition-status", "data-kind"))
    if page.get_attribute("body", "data-answer") == "board":
        wait_rules_answer(page, "wauri")
    page.screenshot(path=str(artifacts / "wauri-sample.png"), full_page=True)
    assert not errors


def test_js_notation_and_segments_mirror_the_engine(open_page, browsers, server):
    """The page's CARIBO notation code (parse, format, growing the grid when a tile is
    placed outside it, segment colours) gives exactly the engine's answers."""
    import random

    from engines.caribo.notation import format_board, parse_board
    from engines.caribo.puzzles import library
    from engines.caribo.tiles import Tile, full_set

    rng = random.Random(7)
    cases = []
    for entry in library().values():
        board = parse_board(entry.solution)
        for _ in range(4):
            row, col = rng.choice(list(board.tiles))
            free = [cell for cell in board.neighbour_cells(row, col) if cell not in board]
            unused = [t for t in full_set() if not board.contains_tile(t)]
            if not free or not unused:  # a 36-tile figure has no tile left
                continue
            cell = rng.choice(free)
            tile = rng.choice(unused).rotated(rng.randrange(6))
            after = board.copy()
            after.place(*cell, tile, check=False)
            cases.append({"text": format_board(board), "row": cell[0], "col": cell[1],
                          "tile": tile.code, "after": format_board(after)})  # fmt: skip
    assert any(c["row"] < 0 or c["col"] < 0 for c in cases)  # the grid grows up/left too
    page, errors = open_page(browsers("caribo"), f"{server.url}/caribo/")
    answers = page.evaluate(
        """(cases) => cases.map((k) => {
            const grid = HexBoard.parse(k.text);
            const same = HexBoard.format(grid);
            grid.cells.set(`${k.row},${k.col}`, k.tile);
            return [same, HexBoard.format(grid)];
        })""",
        cases,
    )
    for case, (same, after) in zip(cases, answers, strict=True):
        assert same == case["text"]
        assert after == case["after"], case
    codes = sorted({t.code for base in full_set() for t in base.rotations()})
    segments = page.evaluate("(codes) => codes.map((c) => HexBoard.segments(c).join(''))", codes)
    assert segments == ["".join(Tile.parse(c).segments) for c in codes]
    assert not errors


def test_pages_run_under_the_real_content_security_policy(open_page, browsers, server):
    """The policy is on in these browsers (an injected inline script is refused and
    reported), and every page loads without a violation."""
    for path in ("/", "/caribo/", "/colomino/", "/wauri/", "/calibrate/"):
        page, errors = open_page(browsers("caribo"), f"{server.url}{path}")
        assert "script-src 'self'" in page.evaluate(
            "fetch(location.href).then((r) => r.headers.get('content-security-policy'))"
        )
        assert not errors, (path, errors)
    page.evaluate(
        """() => { const s = document.createElement('script');
                   s.textContent = 'window.inlineRan = true'; document.body.append(s); }"""
    )
    page.wait_for_timeout(100)
    assert page.evaluate("window.inlineRan === undefined")
    assert any("Content Security Policy" in e for e in errors), errors


def test_every_kind_of_error_shows_the_servers_message(open_page, browsers, server,
                                                       monkeypatch):  # fmt: skip
    """503 (a missing engine), 422 (a rules question over its time limit) and 500 (an
    engine crash): the page shows each one's message."""
    from companion_web import rules

    page, errors = open_page(browsers("wauri"), f"{server.url}/wauri/")
    monkeypatch.setattr(rules, "available", lambda game: False)
    page.click("#best-button")
    wait_js(page, "!document.getElementById('messages').hidden")
    assert page.text_content("#messages") == "rules for wauri are not available yet"
    monkeypatch.undo()
    monkeypatch.setitem(server.app.config, "RULES_TIMEOUT", 0.02)
    page.click("#best-button")
    wait_js(page, "document.getElementById('messages').textContent.includes('limit')")
    assert "no answer within the server's limit of 0.02 s" in page.text_content("#messages")
    monkeypatch.undo()
    monkeypatch.setattr(rules, "run_command", lambda argv, *, cwd, timeout: (70, "", "Boom\n"))
    page.click("#best-button")
    wait_js(page, "document.getElementById('messages').textContent.includes('Boom')")
    assert page.text_content("#messages") == "the wauri rules engine failed (Boom)"
    monkeypatch.undo()
    page.click("#best-button")  # and the message goes once the server answers again
    page.wait_for_selector(".pit.suggested", timeout=15_000)
    assert page.is_hidden("#messages")
    assert not errors


def test_colomino_end_options_and_winner_announcement(open_page, browsers, server, artifacts):
    """Side walls and "the others play once more", set on the page: a correction lays a
    column up to row 1, Ana's tile in the corner of the goal row is an open court (the
    west edge closes it), Ben's turn is the last one, and the winner is announced."""
    from web_scaffolding import colomino_column

    column, top = colomino_column()
    page, errors = open_page(browsers("colomino"), f"{server.url}/colomino/")
    page.wait_for_selector("#board-view rect.rim")
    page.check("#side-walls")
    page.select_option("#final-round", "others")
    page.fill("#session-players", "Ana, Ben")
    page.click("#session-start")
    wait_js(page, "!document.getElementById('session-info').hidden")
    assert "Side edges close courts" in page.text_content("#session-rules")

    def lay(row, col, code):
        page.once("dialog", lambda dialog: dialog.accept(code))
        page.click(f"#board-view g.cell[data-row='{row}'][data-col='{col}']")
        page.wait_for_selector(f"#board-view g.cell[data-row='{row}'][data-col='{col}']"
                               f"[data-value='{code}']")  # fmt: skip

    for row in range(8, 0, -1):
        lay(row, 0, column["rows"][row][0])
    page.click("#session-correct")
    wait_js(page, "document.querySelectorAll('#session-history li').length === 2")
    assert "correction" in page.text_content("#session-history")
    lay(top["row"], top["col"], top["tile"])
    page.click("#score-button")
    wait_js(page, "document.getElementById('score-result').textContent.includes('placed')")
    assert page.text_content("#score-result") == (
        "1 tile placed: 1 yellow, 0 blue chips = 1 point."
    )
    assert page.locator("#board-view circle.chip.open").count() == 1
    page.click("#confirm-turn")
    wait_js(page, "document.querySelectorAll('#session-history li').length === 3")
    assert page.text_content("#announcement") == (
        "A tile reached the goal row: final round, 1 turn left (Ben next)."
    )
    page.click("#pass-turn")
    wait_js(page, "document.getElementById('announcement').dataset.over === 'yes'")
    assert page.text_content("#announcement") == (
        "Game over (the final round is played): Ana wins with 1 point."
    )
    assert page.text_content("#session-summary") == "Game over — winner: Ana"
    assert "winner" in (page.locator("#scoreboard tr").nth(1).get_attribute("class") or "")
    page.screenshot(path=str(artifacts / "colomino-game-over.png"), full_page=True)
    page.click("#pass-turn")  # nothing more after the end: the server's message is shown
    wait_js(page, "!document.getElementById('messages').hidden")
    assert page.text_content("#messages") == "the game is over"
    assert not errors


def canvas_pixel(page, x: float, y: float) -> list[int]:
    """The RGB of the view canvas at picture pixel (x, y)."""
    return page.evaluate(
        """([x, y]) => Array.from(document.getElementById('view').getContext('2d')
               .getImageData(Math.round(x), Math.round(y), 1, 1).data).slice(0, 3)""",
        [x, y],
    )


def test_caribo_hand_shown_to_the_camera(open_page, browsers, scaffold_server, pictures,
                                         tmp_path):  # fmt: skip
    """TEST SCAFFOLDING recogniser: the picture after "Read the hand" gives the hand (tile
    identities), the board stays, and the legal placements for it are asked."""
    image, truth = pictures["caribo"]
    if truth is None:
        pytest.skip("no CARIBO picture with truth")
    photo = tmp_path / "hand.jpg"
    cv2.imwrite(str(photo), image)
    page, errors = open_page(browsers("caribo"), f"{scaffold_server.url}/caribo/")
    page.click("#hand-from-picture")
    assert page.get_attribute("#hand-from-picture", "aria-pressed") == "true"
    page.set_input_files("#photo-input", str(photo))
    wait_js(page, "document.getElementById('hand').value !== ''")
    codes = [p["tile"] for p in truth["pieces"]]
    identities = list(dict.fromkeys(c if len(c) == 1 else c[2:] for c in codes))
    assert page.input_value("#hand").split(",") == identities
    assert page.input_value("#board") == ""  # the picture was the hand, not the table
    assert page.get_attribute("#hand-from-picture", "aria-pressed") == "false"
    wait_js(page, "document.getElementById('moves-result').textContent !== ''")
    assert "legal placement" in page.text_content("#moves-result")
    assert not errors


def test_caribo_puzzle_checked_from_the_photo_with_the_mismatch_on_the_picture(
    open_page, browsers, scaffold_server, pictures, tmp_path, monkeypatch, artifacts
):
    """A photo of a solution with one tile turned (TEST SCAFFOLDING: the truth with one
    tile rotated): in puzzle mode the page checks it at once and draws each mismatched
    edge on the picture, at the edge between the two tiles."""
    from web_scaffolding import truth_answer

    from engines.caribo.notation import parse_board
    from engines.caribo.puzzles import check_solution
    from engines.caribo.tiles import Tile

    image, truth = pictures["caribo"]
    if truth is None:
        pytest.skip("no CARIBO picture with truth")
    rows = [row.split(",") for row in truth["state"]["notation"].split(" - ")]
    r, c = next((r, c) for r, row in enumerate(rows) for c, code in enumerate(row)
                if len(code.removeprefix("e")) == 4)  # fmt: skip
    code = rows[r][c].removeprefix("e")
    turned = Tile.parse(code).rotated(1).code
    rows[r][c] = rows[r][c].replace(code, turned)
    notation = " - ".join(",".join(row) for row in rows)
    answer = truth_answer(truth)
    answer["notation"] = notation
    answer["tiles"] = [dict(t, tile=turned) if (t["row"], t["col"]) == (r, c) else t
                       for t in answer["tiles"]]  # fmt: skip
    problems = check_solution(parse_board(notation))
    details = [p.to_json() for p in problems if p.kind == "mismatch"]
    assert details
    monkeypatch.setitem(scaffold_server.app.config, "RECOGNIZER", lambda *a, **k: answer)
    photo = tmp_path / "solution.jpg"
    cv2.imwrite(str(photo), image)
    page, errors = open_page(browsers("caribo"), f"{scaffold_server.url}/caribo/")
    page.click("#tab-puzzle")
    wait_js(page, "document.querySelectorAll('#figure-select option').length > 1")
    page.set_input_files("#photo-input", str(photo))
    wait_js(page, "document.getElementById('puzzle-result').textContent === 'Not solved yet.'")
    assert page.input_value("#solution") == notation
    assert page.locator("#solution-view line.mismatch").count() == len(details)
    centre = {(t["row"], t["col"]): t["center_px"] for t in answer["tiles"]}
    page.wait_for_timeout(100)
    for d in details:
        (a, b) = (centre[tuple(c)] for c in d["cells"])
        middle = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        assert canvas_pixel(page, *middle) == [255, 48, 48], d
    page.screenshot(path=str(artifacts / "caribo-puzzle-photo-mismatch.png"), full_page=True)
    assert not errors


def test_wauri_suggested_pit_ringed_on_the_picture(open_page, browsers, scaffold_server,
                                                   pictures, tmp_path, artifacts):  # fmt: skip
    """TEST SCAFFOLDING recogniser: the counts from the photo, the suggested pit ringed
    on the picture itself."""
    image, truth = pictures["wauri"]
    if truth is None:
        pytest.skip("no Wauri picture with truth")
    photo = tmp_path / "wauri.jpg"
    cv2.imwrite(str(photo), image)
    page, errors = open_page(browsers("wauri"), f"{scaffold_server.url}/wauri/")
    page.set_input_files("#photo-input", str(photo))
    wait_js(page, "document.getElementById('recognition-status').dataset.kind === 'ok'")
    state = truth["state"]
    for side in ("south", "north"):
        for pit in range(1, 7):
            shown = page.text_content(f".pit[data-side={side}][data-pit='{pit}']")
            assert shown == str(state[side][pit - 1])
    page.click("#best-button")
    page.wait_for_selector(".pit.suggested", timeout=15_000)
    pit = page.get_attribute(".pit.suggested", "data-pit")
    mover = page.get_attribute(".pit.suggested", "data-side")
    centre = next(p["center_px"] for p in truth["pieces"] if p["pit"] == f"{mover}{pit}")
    page.wait_for_timeout(100)
    assert canvas_pixel(page, centre[0] + 34, centre[1]) == [53, 224, 107]
    page.screenshot(path=str(artifacts / "wauri-suggestion-overlay.png"), full_page=True)
    assert not errors


@pytest.mark.parametrize("game", GAMES)
def test_phone_viewport(open_page, browsers, scaffold_server, pictures, tmp_path, artifacts,
                        game):  # fmt: skip
    """390×844 (a phone): nothing wider than the screen, the picture with its overlay
    fits the width, the rules panel follows below it."""
    photo = tmp_path / f"{game}.jpg"
    cv2.imwrite(str(photo), pictures[game][0])
    page, errors = open_page(browsers(game), f"{scaffold_server.url}/{game}/")
    page.set_viewport_size({"width": 390, "height": 844})
    page.set_input_files("#photo-input", str(photo))
    wait_js(page, ANSWERED, timeout=30_000)
    wait_rules_answer(page, game)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    view = page.locator("#view").bounding_box()
    rules_panel = page.locator("#rules-panel").bounding_box()
    assert view["x"] >= 0 and view["x"] + view["width"] <= 390
    assert rules_panel["y"] >= view["y"] + view["height"]  # one column on a phone
    page.screenshot(path=str(artifacts / f"phone-{game}.png"), full_page=True)
    assert not errors


def test_caribo_legal_placements_highlighted_on_the_picture(
    open_page, browsers, scaffold_server, pictures, tmp_path, monkeypatch, artifacts
):
    """TEST SCAFFOLDING: the picture read as only its top rows of tiles (the truth cut
    after row 3), the hand the tiles of the rows below: the legal placements include
    tiles' true cells, and each is outlined on the picture where that tile really lies."""
    from web_scaffolding import truth_answer

    image, truth = pictures["caribo"]
    if truth is None:
        pytest.skip("no CARIBO picture with truth")
    keep = 4
    answer = truth_answer(truth)
    answer["notation"] = " - ".join(truth["state"]["notation"].split(" - ")[:keep])
    answer["tiles"] = [t for t in answer["tiles"] if t["row"] < keep]
    rest = [p for p in truth["pieces"] if p["row"] >= keep]
    hand = [p["tile"] if len(p["tile"]) == 1 else p["tile"][2:] for p in rest]
    monkeypatch.setitem(scaffold_server.app.config, "RECOGNIZER", lambda *a, **k: answer)
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), image)
    page, errors = open_page(browsers("caribo"), f"{scaffold_server.url}/caribo/")
    page.fill("#hand", ",".join(hand))
    page.set_input_files("#photo-input", str(photo))
    wait_js(page, "document.querySelectorAll('#placements li').length > 0")
    assert page.input_value("#board") == answer["notation"]
    total = int(page.text_content("#moves-result").split()[0])
    if total > 12:  # a long list shows 12 and "Show all"
        assert page.locator("#placements li").count() == 13
        page.click("#placements-all")
        assert page.locator("#placements li").count() == total
    placed = page.evaluate(
        "Array.from(document.querySelectorAll('#board-view g.placement'))"
        ".map((g) => [Number(g.dataset.row), Number(g.dataset.col)])"
    )
    true_cells = {(p["row"], p["col"]): p for p in rest}
    shown = [true_cells[tuple(cell)] for cell in placed if tuple(cell) in true_cells]
    assert shown, (placed, sorted(true_cells))
    page.wait_for_timeout(100)
    hits = page.evaluate(
        """(tiles) => {
        const ctx = document.getElementById('view').getContext('2d');
        return tiles.map((t) => {
          const [a, b] = [t.corners_px[0], t.corners_px[1]];
          const d = ctx.getImageData(Math.round((a[0] + b[0]) / 2) - 6,
                                     Math.round((a[1] + b[1]) / 2) - 6, 13, 13).data;
          for (let i = 0; i < d.length; i += 4) {
            if (d[i] > 220 && d[i + 1] < 90 && d[i + 2] > 170) return true;
          }
          return false;
        });
    }""",
        shown,
    )
    assert all(hits), hits
    page.screenshot(path=str(artifacts / "caribo-overlay-hand-placements.png"), full_page=True)
    assert not errors


def test_colomino_announcements_for_blue_chips_shared_and_draw(open_page, browsers, server):
    """The page's wording for each way a Colomino game is decided (the summaries as the
    server derives them, served to the page by Playwright instead of a played game)."""
    import json

    from companion_web.games import summary

    def moves(*scores):
        events = [{"kind": "start", "player": None, "state": {"rows": [["."] * 9] * 9},
                   "answer": {}}]  # fmt: skip
        for player, (points, blue) in enumerate(scores):
            answer = {"points": points, "blue": blue, "yellow": points - 2 * blue,
                      "placements": [{"row": 8, "col": player, "tile": "RRRR"}]}  # fmt: skip
            events.append({"kind": "move", "player": player, "answer": answer,
                           "state": {"rows": [["."] * 9] * 9}})  # fmt: skip
        events += [{"kind": "pass", "player": p, "answer": {}, "state": {"rows": [["."] * 9] * 9}}
                   for p in range(len(scores))]  # fmt: skip
        return events

    players = ["Ana", "Ben", "Cem"]
    cases = {
        "blue": (moves((5, 2), (5, 1), (1, 0)), "Game over (a full round passed without a tile "
                 "placed): Ana wins — 5 points like Ben, but more blue chips (2 to 1)."),
        "shared": (moves((4, 1), (4, 1), (0, 0)), "Game over (a full round passed without a "
                   "tile placed): Ana and Ben share the win with 4 points and 1 blue chip each."),
        "draw": (moves((3, 1), (3, 1), (3, 1)), "Game over (a full round passed without a tile "
                 "placed): a draw — everybody has 3 points and 1 blue chip."),
    }  # fmt: skip
    sessions = {
        key: {"id": key, "game": "colomino", "mode": "game", "players": players,
              "settings": {"size": 9, "final_round": "all", "side_walls": False},
              "created_at": "2026-01-01T00:00:00", "updated_at": "2026-01-01T00:00:00",
              "state": {"game": "colomino", "size": 9, "rows": [["."] * 9 for _ in range(9)]},
              "events": [], "summary": summary("colomino", players, {}, events)}
        for key, (events, _text) in cases.items()
    }  # fmt: skip
    page, errors = open_page(browsers("colomino"), "about:blank")
    listing = {"sessions": [{k: v for k, v in s.items() if k not in ("state", "events",
               "summary")} for s in sessions.values()]}  # fmt: skip
    page.route("**/api/sessions?game=colomino",
               lambda route: route.fulfill(json=listing))  # fmt: skip
    page.route("**/api/sessions/*",
               lambda route: route.fulfill(json=sessions[route.request.url.rsplit("/", 1)[1]]))
    page.goto(f"{server.url}/colomino/")
    wait_js(page, "document.querySelectorAll('#session-list option').length === 4")
    for key, (_events, text) in cases.items():
        page.select_option("#session-list", key)
        page.wait_for_selector("#announcement[data-over=yes]")
        wait_js(page, f"document.getElementById('announcement').textContent === {json.dumps(text)}")
    assert not errors


def test_caribo_game_tracking_turns_tiles_left_and_winner(open_page, browsers, server,
                                                          artifacts):  # fmt: skip
    page, errors = open_page(browsers("caribo"), f"{server.url}/caribo/")
    page.fill("#session-players", "Ana, Ben")
    page.click("#session-start")
    wait_js(page, "!document.getElementById('session-info').hidden")
    assert page.text_content("#session-summary") == "Ana to move"
    page.fill("#board", "S")
    page.click("#confirm-move")
    wait_js(page, "document.getElementById('session-summary').textContent === 'Ben to move'")
    left = page.locator("#tiles-left tr")
    assert left.nth(1).text_content() == "Ana17" and left.nth(2).text_content() == "Ben18"
    page.fill("#hand", "WS")
    page.click("#moves-button")
    wait_js(page, "document.querySelectorAll('#placements li').length > 0")
    page.locator("#placements li button").first.click()
    page.click("#confirm-move")
    wait_js(page, "document.getElementById('session-summary').textContent === 'Ana to move'")
    assert left.nth(2).text_content() == "Ben17"
    # a move that breaks the rules is refused with the engine's reason
    page.fill("#board", "S,W,B")
    page.click("#confirm-move")
    wait_js(page, "!document.getElementById('messages').hidden")
    assert page.text_content("#messages").startswith("the board breaks the placement rules (")
    page.click("#messages")  # tap to close
    assert page.is_hidden("#messages")
    for _ in range(2):
        page.click("#pass-button")
        page.wait_for_timeout(50)
    wait_js(page, "document.body.dataset.sessionOver === 'yes'")
    assert page.text_content("#session-summary") == "Game over — winner: Ana and Ben"
    page.screenshot(path=str(artifacts / "caribo-session-over.png"), full_page=True)
    assert not errors


def test_phone_start_page(open_page, browsers, server, artifacts):
    page, errors = open_page(browsers("wauri"), "about:blank")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server.url}/")
    assert page.locator("ul.games li").count() == 3
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(artifacts / "phone-index.png"), full_page=True)
    assert not errors
