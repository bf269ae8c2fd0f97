"""Wauri recognition: seed-count likelihood, the 48-seed fit, move tracking, photos, CLI."""

from __future__ import annotations

import dataclasses
import json
import math
import random
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.wauri import Position, WauriState, explain
from vision import pit_layout as pl
from vision import seed_counting as sc
from vision import wauri_recognition as wr
from vision.recognize import NothingFound

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_images"


# --------------------------------------------------------------------------- helpers
def typical_visible(counts) -> tuple[int, ...]:
    """The visible peaks the counter expects for these true counts (rounded mean)."""
    mean, _ = sc.visible_mean_sigma(np.array(counts), np.array(wr.STORES))
    return tuple(int(round(m)) for m in mean)


def fake_reading(counts, flipped: bool = False) -> wr.BoardReading:
    """A BoardReading as if the counter saw the typical peaks of ``counts``."""
    vis = typical_visible(counts)
    if flipped:
        vis = tuple(wr.flip_counts(list(vis)))
    est = [sc.estimate(v, store=s) for v, s in zip(vis, wr.STORES, strict=True)]
    fit = pl.BoardFit(np.eye(3), 1.0, 14, False, 0.8)
    return wr.BoardReading(tuple(e[0] for e in est), tuple(e[1] for e in est), vis,
                           fit.centres_px(), fit, 0.8, tuple(np.zeros((0, 2)) for _ in vis))


def random_position(rng: random.Random, plies: int) -> WauriState:
    state = WauriState()
    for _ in range(plies):
        if state.is_over():
            break
        state.push(rng.choice(list(state.legal_moves())))
    return state


def play_turn(state: WauriState, rng: random.Random) -> list[int]:
    side = state.current_player()
    pits = []
    while not state.is_over() and state.current_player() == side:
        m = rng.choice(list(state.legal_moves()))
        state.push(m)
        pits.append(m.pit)
    return pits


# --------------------------------------------------------------------------- geometry
def test_cavity_model_order_and_symmetry():
    names = [c.name for c in pl.CAVITIES]
    assert names == [f"south{i}" for i in range(1, 7)] + [f"north{i}" for i in range(1, 7)] \
        + ["store_south", "store_north"]
    xy = pl.CENTRES_MM
    # south 1..6 run west→east below the centre line, north 1..6 east→west above it
    assert np.all(np.diff(xy[0:6, 0]) > 0) and np.all(xy[0:6, 1] < 0)
    assert np.all(np.diff(xy[6:12, 0]) < 0) and np.all(xy[6:12, 1] > 0)
    assert xy[12, 0] > xy[5, 0] and xy[13, 0] < xy[6 + 5, 0]  # stores on the owner's right
    # turning the board by 180° maps south's cavities onto north's (flip_counts)
    order = wr.flip_counts(list(range(14)))
    np.testing.assert_allclose(-xy, xy[order])


def test_rectify_round_trip():
    """A synthetic top view warped into a photo and rectified back looks the same."""
    hom = np.array([[1.4, 0.2, 700.0], [-0.1, -1.3, 400.0], [0.0001, 0.0002, 1.0]])
    view, to_mm = pl.rectify(np.zeros((800, 1400, 3), np.uint8), hom, 0.5, 100, 50)
    assert view.shape == (50, 100, 3)
    np.testing.assert_allclose(to_mm @ np.array([0, 0, 1.0]), [-100, 50, 1])
    fit = pl.BoardFit(hom, 1.0, 14, False, 0.9)
    assert fit.px_per_mm() > 1.0
    assert fit.outline_px().shape == (4, 2)


# --------------------------------------------------------------------------- counting
def test_loglik_prefers_the_typical_count():
    table = sc.loglik_table([0, 1, 3, 6], 30)
    assert table.shape == (4, 31)
    assert list(table.argmax(1)[:3]) == [0, 1, 3]
    # piles hide seeds: six visible peaks mean about six or more seeds, never fewer than 5
    assert table[3].argmax() >= 6


def test_stores_show_a_wider_layer_than_pits():
    table = sc.loglik_table([9, 5, 5], 40, [True, False, True])
    assert table[0].argmax() == 9  # a store's floor shows nine seeds side by side
    assert table[2].argmax() == 5
    # a pit showing five peaks may hold many more: its likelihood is nearly flat above 5
    assert table[1][12] > table[1][5] - 1.0
    assert table[1][12] > table[2][12] + 5.0
    assert table[1][2] < table[1][5] - 5.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=14, max_size=14), st.integers(0, 80))
def test_constrain_total_sums_and_is_optimal(visible, total):
    counts, penalty = sc.constrain_total(visible, total)
    assert sum(counts) == total and min(counts) >= 0
    assert penalty >= -1e-9
    if sum(sc.most_likely(visible, total)) == total:
        assert penalty == pytest.approx(0.0, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=14, max_size=14), st.integers(0, 80))
def test_soft_total_lies_between_raw_and_total(visible, total):
    raw = sum(sc.most_likely(visible, 2 * total + 20))
    counts, _ = sc.constrain_total(visible, total, weight=0.6)
    assert min(raw, total) <= sum(counts) <= max(raw, total)
    hard, _ = sc.constrain_total(visible, total, weight=1e6)
    assert sum(hard) == total


def test_constrain_total_moves_missing_seeds_to_piles():
    truth = [0, 1, 2, 0, 0, 0, 0, 4, 1, 0, 7, 2, 15, 16]
    counts, _ = sc.constrain_total(typical_visible(truth), sum(truth), stores=wr.STORES)
    small = [i for i, c in enumerate(truth) if c <= 2]
    assert all(counts[i] == truth[i] for i in small)
    assert abs(counts[12] - 15) + abs(counts[13] - 16) <= 2


def test_seed_peaks_on_a_synthetic_pit():
    """Shaded discs on a smooth floor are counted one peak each, the bare floor none."""
    h, w, r = 120, 240, 8.0
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gray = np.full((h, w), 110.0, np.float32) + 0.05 * xx
    centres = [(40, 50), (57, 55), (48, 72), (170, 60)]
    for cx, cy in centres:
        d2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / r**2
        gray = np.where(d2 < 1, 90 + 80 * np.sqrt(np.clip(1 - d2, 0, 1)), gray)
    masks = [np.hypot(xx - 50, yy - 60) < 30, np.hypot(xx - 170, yy - 60) < 30,
             np.hypot(xx - 110, yy - 20) < 12]
    top = ~(masks[0] | masks[1] | masks[2])
    readings = sc.count_in_masks(gray, masks, top, r)
    assert [x.visible for x in readings] == [3, 1, 0]


# --------------------------------------------------------------------------- tracking
def test_candidates_agree_with_engine_explain():
    rng = random.Random(5)
    for _ in range(25):
        state = random_position(rng, rng.randrange(0, 30))
        if state.is_over():
            continue
        before = state.position()
        play_turn(state, rng)
        after = state.position()
        sequences = [turns for turns, pos, done in wr.candidates(before, two_turns=False)
                     if done and pos == after]
        assert sequences, "the played turn is among the candidates"
        want = explain(before, after, check_to_move=True)
        assert want is not None
        assert list(min(sequences, key=len)[0]) == want or len(sequences) > 1


@pytest.mark.parametrize("seed", range(12))
def test_track_recovers_random_turns(seed):
    rng = random.Random(seed)
    state = random_position(rng, rng.randrange(0, 40))
    if state.is_over():
        pytest.skip("game over")
    before = state.position()
    pits = play_turn(state, rng)
    best, ranked = wr.track(before, fake_reading(wr.state_counts(state.position())))
    assert best is not None and ranked[0] is best
    assert best.moves == pits
    assert best.position == state.position()
    assert not best.flipped


def test_track_turned_board_and_two_turns():
    state = WauriState()
    before = state.position()
    state.push(3)  # 4 seeds from pit 3: the last one lands in south's store, extra move
    state.push(1)
    state.push(6)  # north replies
    assert state.current_player() == "south"
    reading = fake_reading(wr.state_counts(state.position()), flipped=True)
    best, _ = wr.track(before, reading)
    assert best is not None and best.flipped
    assert [list(t) for t in best.turns] == [[3, 1], [6]]


def test_track_rejects_an_impossible_photo():
    before = Position.start()
    impossible = [0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 8, 8, 0, 0]
    best, ranked = wr.track(before, fake_reading(impossible))
    assert best is None and ranked


@pytest.mark.parametrize("rate", [0.5, 1.4])
def test_track_fits_the_photos_detection_rate(rate):
    """A dim or blurred photo showing about half the peaks everywhere (or a cluttered one
    showing more) is still explained by the turn played, at the rate it was read."""
    state = WauriState()
    before = state.position()
    state.push(4)  # 4 seeds from pit 4: pits 5, 6, the store and north's pit 1
    counts = wr.state_counts(state.position())
    mean, _ = sc.visible_mean_sigma(np.array(counts), np.array(wr.STORES))
    seen = tuple(int(round(m * rate)) for m in mean)
    reading = dataclasses.replace(fake_reading(counts), visible=seen)
    best, ranked = wr.track(before, reading)
    assert best is not None and best.moves == [4] and not best.flipped
    assert best.rate == pytest.approx(rate, rel=0.2)
    assert wr.margin(ranked) >= wr.MIN_MARGIN
    # at the nominal rate alone the same reading is not explained (the fit check fails)
    free = sc.loglik_table(seen, 48, wr.STORES)
    cost = free.max(1).sum() - free[np.arange(14), np.array(counts)].sum()
    assert cost > wr.MAX_FIT_COST or rate > 1


#: south to move, pit 6 holding one seed: pit 6 first (into the store, an extra move) and
#: then another pit leaves nearly the position that other pit alone leaves
PIT_SIX_POSITION = {"game": "wauri", "south": [8, 1, 2, 2, 2, 1], "north": [8, 1, 7, 7, 0, 0],
                    "stores": {"south": 5, "north": 4}, "to_move": "south"}


def _read_as(monkeypatch, seen):
    """A reading showing the peaks ``seen``, which recognize() is made to use; returns
    ``(best, ranked, answer)`` of tracking it from :data:`PIT_SIX_POSITION`."""
    prev = Position.from_json(PIT_SIX_POSITION)
    reading = dataclasses.replace(fake_reading([0] * 14), visible=seen)
    best, ranked = wr.track(prev, reading)
    monkeypatch.setattr(wr, "_tracked_reading", lambda image, previous: reading)
    return best, ranked, wr.recognize(np.zeros((8, 8, 3), np.uint8), previous=prev)


def test_unexplained_turn_names_the_close_alternative(monkeypatch):
    """A runner-up within MIN_MARGIN but more than 2 log-odds behind is still named."""
    # pit 4 played; a seed of pit 5 missed: pit 6 first (an extra move), then 5, then 4
    # would leave the same pits but one seed
    best, ranked, answer = _read_as(monkeypatch, (6, 1, 2, 0, 2, 2, 6, 1, 5, 5, 0, 0, 5, 4))
    assert best is not None and best.moves == [4]
    assert 2.0 < wr.margin(ranked) < wr.MIN_MARGIN
    assert answer["explained"] is False and answer["moves"] == [4]
    assert any("cannot tell" in w and "[6, 5, 4]" in w for w in answer["warnings"])


def test_one_seed_in_pit_six_tells_the_extra_move(monkeypatch):
    """Pit 6 read with its two seeds (not one): the turn is pit 4 alone, not pit 6 first
    as an extra move and then pit 4 (one seed less in pit 6, one more in the store).
    A pit of one or two seeds is read within one peak nearly always (session 18: 96.6 %
    and 92.1 % exact on 120 simulator photos), so this is explained (it was not, at the
    linear spread: 16 of 108 simulated turns were such pairs)."""
    best, ranked, answer = _read_as(monkeypatch, (6, 1, 2, 0, 3, 2, 6, 1, 5, 5, 0, 0, 5, 4))
    assert best is not None and best.moves == [4]
    assert wr.margin(ranked) >= wr.MIN_MARGIN
    assert answer["explained"] is True and answer["moves"] == [4]
    # the pits' spread: sharper while the seeds lie apart, the linear model's for piles
    mean, sigma = sc.visible_mean_sigma(np.arange(8), False)
    assert np.all(np.diff(sigma) > 0) and sigma[1] < 0.4 and sigma[3] < 0.45
    assert sigma[5:] == pytest.approx(sc.SIGMA_0 + sc.SIGMA_1 * mean[5:])


def test_previous_parse_errors_name_the_field():
    from engines.errors import FormatError

    with pytest.raises(FormatError, match="--previous"):
        wr._parse_previous("{not json")
    with pytest.raises(FormatError, match="south"):
        wr._parse_previous({"game": "wauri", "south": [1], "north": [4] * 6,
                            "stores": {"south": 0, "north": 0}, "to_move": "south"})


# --------------------------------------------------------------------------- photos
@pytest.fixture(scope="module")
def rendered():
    """Two simulator photos (960×720) of one position after a turn with an extra move;
    seed 1002 has south at the bottom, seed 1001 the board turned (south at the top)."""
    from vision.simulator.dataset import render_state

    state = WauriState()
    state.push(3)
    state.push(2)
    before = state.position()
    state.push(1)
    after = state.position()
    photos = {s: render_state("wauri", after.to_json(), s, "normal", 960, 720)
              for s in (1002, 1001)}
    return before, after, photos


def _decode(photo) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(photo.jpeg, np.uint8), cv2.IMREAD_COLOR)


def test_photo_board_geometry_and_counts(rendered):
    _before, after, photos = rendered
    photo = photos[1002]
    assert photo.truth["south_side"] == "bottom"
    reading = wr.read_board(_decode(photo))
    truth_px = {p["pit"]: np.array(p["center_px"]) for p in photo.truth["pieces"]}
    pitch = np.linalg.norm(truth_px["south1"] - truth_px["south2"])
    for name, c in zip(wr.NAMES, reading.centres_px, strict=True):
        assert np.linalg.norm(c - truth_px[name]) < 0.15 * pitch, name
    answer = wr.recognize(_decode(photo))
    got = wr.state_counts(Position.from_json({k: answer[k] for k in
                                              ("game", "south", "north", "stores",
                                               "to_move")}))
    want = wr.state_counts(after)
    assert abs(sum(got) - 48) <= 3
    # a single photo of piles of 4-6 seeds is read only roughly: the seeds seen are within
    # two of the truth in every cavity, the pits holding 0 or 1 seed exactly; tracking
    # below turns the reading into the exact position
    seen = reading.visible
    assert all(abs(a - b) <= 2 for a, b in zip(seen, want, strict=True)), seen
    assert all(a == b for a, b in zip(seen[:12], want[:12], strict=True) if b <= 1), seen
    assert [p["name"] for p in answer["pits"]] == list(wr.NAMES)
    assert 0.0 <= answer["confidence"] <= 1.0
    assert any("whose move" in w for w in answer["warnings"])


@pytest.mark.parametrize("seed", [1002, 1001])
def test_photo_tracking(rendered, seed):
    before, after, photos = rendered
    answer = wr.recognize(_decode(photos[seed]), previous=json.dumps(before.to_json()))
    assert answer["explained"] is True
    assert answer["moves"] == [1]
    assert Position.from_json({k: answer[k] for k in ("game", "south", "north", "stores",
                                                      "to_move")}) == after
    assert set(answer["observed"]) >= {"south", "north", "stores"}
    turned = any("180" in w for w in answer["warnings"])
    assert turned == (photos[seed].truth["south_side"] == "top")


def test_no_board_in_a_plain_table_photo():
    rng = np.random.default_rng(3)
    noise = cv2.GaussianBlur(rng.integers(0, 255, (540, 960, 3), dtype=np.uint8), (0, 0), 6)
    table = np.clip(noise.astype(np.int16) + np.array([40, 90, 150]) - 128, 0, 255)
    with pytest.raises(NothingFound):
        wr.recognize(table.astype(np.uint8))


# --------------------------------------------------------------------------- CLI
def _sample(name: str) -> Path:
    path = SAMPLES / name
    if not path.is_file():
        pytest.skip(f"{name} not in sample_images/")
    return path


def test_cli_recognize_sample_with_overlay(cli, tmp_path):
    photo = _sample("wauri_hard_108.jpg")
    overlay = tmp_path / "overlay.png"
    res = cli("recognize", "--game", "wauri", str(photo), "--overlay", str(overlay))
    assert res.code == 0, res.err
    answer = res.json()
    assert answer["game"] == "wauri" and len(answer["south"]) == 6 and len(answer["north"])
    assert set(answer["stores"]) == {"south", "north"} and answer["to_move"] == "south"
    assert len(answer["pits"]) == 14 and "confidence" in answer
    img = cv2.imread(str(overlay))
    assert img is not None and img.shape == cv2.imread(str(photo)).shape


def test_cli_previous_adds_moves(cli, tmp_path, rendered):
    before, after, photos = rendered
    photo = tmp_path / "after.jpg"
    photo.write_bytes(photos[1002].jpeg)
    prev = tmp_path / "before.json"
    prev.write_text(json.dumps(before.to_json()))
    res = cli("recognize", "--game", "wauri", str(photo), "--previous", f"@{prev}")
    assert res.code == 0, res.err
    answer = res.json()
    assert answer["moves"] == [1] and answer["explained"] is True
    assert answer["to_move"] == after.to_move


def test_cli_bad_inputs(cli, tmp_path):
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not a jpeg at all")
    res = cli("recognize", "--game", "wauri", str(bad))
    assert res.code == 2 and res.err.count("\n") == 1 and "Traceback" not in res.err
    plain = tmp_path / "table.png"
    rng = np.random.default_rng(4)
    cv2.imwrite(str(plain), cv2.GaussianBlur(rng.integers(0, 255, (300, 400, 3),
                                                          dtype=np.uint8), (0, 0), 5))
    res = cli("recognize", "--game", "wauri", str(plain))
    assert res.code == 1 and "no board" in res.json()["error"]
    for other in ("colomino_easy_102.jpg", "caribo_easy_107.jpg"):
        res = cli("recognize", "--game", "wauri", str(_sample(other)))
        assert res.code == 1, other
    photo = _sample("wauri_hard_108.jpg")
    res = cli("recognize", "--game", "wauri", str(photo), "--previous", '{"game": "wauri"')
    assert res.code == 2 and "--previous" in res.err and res.err.count("\n") == 1


# --------------------------------------------------------------------------- board finder
def _spots(points, rng, scale_index=2, ring=(120.0, 150.0, 160.0)) -> pl.PitSpots:
    pts = np.asarray(points, float)
    n = len(pts)
    return pl.PitSpots(pts, np.ones(n), np.full(n, scale_index),
                       np.full(n, pl.LAT_RADII[scale_index]),
                       np.tile(np.array(ring), (n, 1)) + rng.normal(0, 2, (n, 3)))


def test_reduce_basis_gives_the_short_orthogonal_cell():
    u = np.array([[20.0, 0.0]])
    v = np.array([[21.0, 20.0]])  # the diagonal neighbour spans the same lattice
    ru, rv = pl._reduce_basis(u, v)
    assert abs(float(ru[0] @ rv[0])) < 0.1 * np.linalg.norm(ru) * np.linalg.norm(rv)
    assert {round(float(np.linalg.norm(ru))), round(float(np.linalg.norm(rv)))} == {20}


@pytest.mark.parametrize("seed", range(4))
def test_lattice_fits_finds_the_pits_among_table_spots(seed):
    rng = np.random.default_rng(seed)
    # a board seen in perspective, turned by a random angle
    ang = rng.uniform(0, np.pi)
    s = rng.uniform(0.25, 0.4)  # px per mm at LAT_SIZE
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]]) * s
    hom = np.eye(3)
    hom[:2, :2] = rot @ np.diag([1.0, -1.0])
    hom[:2, 2] = (240, 135)
    hom[2, :2] = rng.uniform(-4e-4, 4e-4, 2)
    pits = cv2.perspectiveTransform(pl.PITS_MM[None], hom)[0]
    pits += rng.normal(0, 0.4, pits.shape)
    board = _spots(np.delete(pits, rng.integers(0, 12), axis=0), rng)  # one pit missed
    # a table pattern: a coarser, differently coloured grid of dark spots, plus noise
    grid = np.array([(x, y) for x in range(0, 480, 29) for y in range(0, 270, 29)], float)
    table = _spots(grid + rng.normal(0, 1, grid.shape), rng, 2, (60.0, 170.0, 170.0))
    noise = _spots(rng.uniform(0, (480, 270), (40, 2)), rng, int(rng.integers(0, 5)))
    spots = pl.PitSpots(*(np.concatenate([getattr(b, f) for b in (board, table, noise)])
                          for f in ("pts", "score", "scale", "rad", "ring")))
    pitch = np.linalg.norm(pits[1] - pits[0])

    def error(hom):  # the same 12 places? (a lattice's own orientation is arbitrary)
        got = cv2.perspectiveTransform(pl.PITS_MM[None], hom)[0]
        return np.linalg.norm(got[:, None] - pits[None], axis=2).min(1).max() / pitch

    # the regular table grid is a lattice too: it is proposed as well, and the cavity
    # contrast of the photo decides (find_boards); the board must be among the proposals
    fits = pl.lattice_fits(spots)
    matching = [(n, hom) for n, hom in fits if error(hom) < 0.15]
    assert matching, [error(h) for _n, h in fits]
    n, found = matching[0]
    assert n >= 11
    oriented = pl._orient(np.diag([1.0, 1.0, 1.0]) @ found)
    south = cv2.perspectiveTransform(pl.PITS_MM[None, :6], oriented)[0]
    north = cv2.perspectiveTransform(pl.PITS_MM[None, 6:], oriented)[0]
    assert south[:, 1].mean() > north[:, 1].mean()  # south's row nearer the image bottom


def test_cavity_contrast_tells_the_board_from_the_table(rendered):
    _before, _after, photos = rendered
    for seed in (1001, 1002):
        img = _decode(photos[seed])
        fit = pl.find_board(img)
        assert fit is not None and fit.contrast > 0.9
        # the same board model moved off the board, onto the table
        away = np.array([[1.0, 0, 0], [0, 1.0, 2.2 * pl.BOARD_HALF_Y], [0, 0, 1.0]])
        assert pl.cavity_contrast(img, fit.homography @ away) < 0.8


def test_margin_and_fit_cost():
    before = Position.start()
    state = WauriState()
    state.push(3)
    after = state.position()
    reading = fake_reading(wr.state_counts(after))
    best, ranked = wr.track(before, reading)
    assert best is not None and best.moves[0] == 3
    assert wr.fit_cost(reading, best, 48) < 1.0
    assert wr.margin(ranked) >= wr.MIN_MARGIN
    # two candidates leaving different positions with the same likelihood: no margin
    twin = wr.Candidate(((1,),), before, best.loglik, False, True)
    assert wr.margin([best, twin]) == 0.0
    # one misread cavity is tolerated, three are a misread photo: not explained
    off = list(wr.state_counts(after))
    off[12] += 20
    assert wr.track(before, fake_reading(off))[0] is not None
    # two pits read with 12 peaks each: a pit's floor shows at most about five seeds
    vis = list(fake_reading(off).visible)
    vis[0] = vis[7] = 12
    misread = dataclasses.replace(fake_reading(off), visible=tuple(vis))
    assert wr.track(before, misread)[0] is None


@pytest.mark.parametrize("seed", [1001, 1002])
def test_no_board_in_the_table_beside_the_board(rendered, seed):
    """The part of a photo beside the board (the same table, light and camera) is no
    board: a busy table pattern must not pass for pits."""
    _before, _after, photos = rendered
    img = _decode(photos[seed])
    corners = np.array(photos[seed].truth["board_corners_px"])
    x0, y0 = corners.min(0).astype(int)
    x1, y1 = corners.max(0).astype(int) + 1
    bands = [img[:, :max(x0, 0)], img[:, x1:], img[:max(y0, 0)], img[y1:]]
    band = np.ascontiguousarray(max(bands, key=lambda b: b.size))
    assert min(band.shape[:2]) >= 150
    with pytest.raises(NothingFound):
        wr.recognize(band)


def test_reading_table_turns_the_cover_with_the_board():
    reading = fake_reading([4, 0, 1, 2, 6, 3, 0, 5, 1, 1, 2, 3, 10, 10])
    cover = tuple(float(x) for x in np.linspace(0.0, 0.9, 12)) + (np.nan, np.nan)
    reading = dataclasses.replace(reading, cover=cover, cover_scale=0.45)
    flipped = reading.table(40, 1.2, flipped=True)
    want = sc.loglik_table(wr.flip_counts(list(reading.visible)), 40, wr.STORES, 1.2,
                           wr.flip_counts(list(cover)), 0.45)
    assert np.array_equal(flipped, want)
    # without a cover scale the cover is ignored
    plain = dataclasses.replace(reading, cover_scale=None).table(40)
    assert np.array_equal(plain, sc.loglik_table(list(reading.visible), 40, wr.STORES))
    assert not np.array_equal(plain, reading.table(40))


def test_best_counts_splits_the_stores_by_their_peaks(monkeypatch):
    """Two stores showing 13 and 12 peaks beside pits whose 11 seeds all show hold 37
    seeds between them; a photo's stores show about the same share of their seeds, so the
    answer is 19 / 18, not the count model's 20 / 17 (session 13, held-out 13320 #18:
    true 19 / 18). Without the proportional split the model's answer comes back."""
    visible = (2, 1, 0, 3, 1, 0, 0, 2, 1, 0, 1, 0, 13, 12)
    reading = dataclasses.replace(fake_reading([0] * 14), visible=visible)
    counts, warnings = wr.best_counts(reading)
    assert counts == [*visible[:12], 19, 18] and warnings == []
    monkeypatch.setattr(sc, "STORE_SPLIT", False)
    assert wr.best_counts(reading)[0] == [*visible[:12], 20, 17]


def test_pile_warning_names_the_guessed_piles():
    reading = fake_reading([4, 0, 1, 2, 9, 3, 0, 5, 1, 1, 2, 3, 10, 7])
    counts = [4, 0, 1, 2, 9, 3, 0, 5, 1, 1, 2, 3, 10, 7]
    conf = wr.count_confidences(reading.visible, counts)
    (warning,) = wr.pile_warnings(reading, counts, conf, 48)
    # pit 5 of south shows about five peaks for nine seeds: named; sure counts are not
    assert "south5" in warning and "48" in warning
    assert "south1" not in warning and "north2" not in warning
    assert wr.pile_warnings(reading, list(reading.visible), conf, 48) == []


def test_bowl_check_measures_cover_on_a_photo(rendered, monkeypatch):
    _before, after, photos = rendered
    image = _decode(photos[1002])
    monkeypatch.setattr(wr, "BOWL_CHECK", False)
    plain = wr.read_board(image)
    assert plain.cover is None and plain.cover_scale is None
    monkeypatch.setattr(wr, "BOWL_CHECK", True)
    checked = wr.read_board(image)
    cover = np.array(checked.cover)
    truth = np.array(wr.state_counts(after))
    pits = ~np.array(wr.STORES)
    assert np.isnan(cover[~pits]).all()
    # the empty pits are the reference; every seeded pit reads more covered than they do
    assert (truth[pits] == 0).any()
    empty = cover[pits][truth[pits] == 0]
    assert empty.max() < cover[pits][truth[pits] > 0].min()
    # peaks are only ever dropped, never added
    assert all(c <= p for c, p in zip(checked.visible, plain.visible, strict=True))


# --------------------------------------------------------------------------- rim spill
def _board_view(pile_pit: int, side: int):
    """A (H, W, 3) BGR top view at 1 px/mm: wood, darker bowls, and a pile's top (two
    grey seeds) just beyond the rim of cavity ``pile_pit`` on ``side`` (-1: view up,
    +1: view down). Returns the view and its to_mm matrix (as pit_layout.rectify)."""
    hx, hy = pl.BOARD_HALF_X, pl.BOARD_HALF_Y
    w, h = int(round(2 * hx)), int(round(2 * hy))
    to_mm = np.array([[1.0, 0, -hx], [0, -1.0, hy], [0, 0, 1]])
    view = np.zeros((h, w, 3), np.uint8)
    view[:] = (70, 110, 160)  # wood, BGR
    for c in pl.CAVITIES:
        x, y = c.x + hx, hy - c.y
        if c.half:
            cv2.line(view, (int(x), int(y - c.half)), (int(x), int(y + c.half)),
                     (40, 70, 110), int(2 * c.r))
        cv2.circle(view, (int(x), int(y)), int(pl.PIT_R), (40, 70, 110), -1)
    c = pl.CAVITIES[pile_pit]
    x, y = c.x + hx, hy - c.y + side * (pl.PIT_R + 4)
    for dx in (-8, 8):
        cv2.circle(view, (int(x + dx), int(y)), 8, (150, 150, 150), -1)
    return view, to_mm


def test_pile_spill_finds_the_pile_over_the_far_rim():
    """A pile's top beyond the far rim (away from the camera: up in the photo) is seen
    in that pit only; the stores are not measured; seen from the other side (the photo
    turned upside down) the same pile lies on the near rim and shows nothing."""
    view, to_mm = _board_view(8, -1)  # north3, its top lies toward the view's top
    upright = np.eye(3)  # view px == photo px: up in the photo is up in the view
    spill = wr.pile_spill(view, to_mm, upright)
    assert np.isnan(spill[12]) and np.isnan(spill[13])
    assert spill[8] >= sc.SPILL_SEEN
    assert all(s < sc.SPILL_SEEN for k, s in enumerate(spill[:12]) if k != 8)
    upside_down = np.array([[1.0, 0, 0], [0, -1.0, view.shape[0]], [0, 0, 1]])
    assert max(wr.pile_spill(view, to_mm, upside_down)[:12]) < sc.SPILL_SEEN
    # the pile on the other side of south3, photographed upside down, is far again
    view, to_mm = _board_view(2, 1)
    assert wr.pile_spill(view, to_mm, upside_down)[2] >= sc.SPILL_SEEN


def test_recognize_reports_confidences_given_the_total(monkeypatch):
    """Without --previous each cavity's confidence is its count's probability given every
    cavity's reading and the 48 seeds (seed_counting.count_marginals), not its own reading
    alone: two pits showing five peaks that may hide the three seeds the total misses are
    both unsure, a pit showing one peak stays sure, and the pile is named as a guess."""
    counts = [0, 5, 1, 0, 2, 8, 0, 3, 0, 1, 0, 2, 13, 13]
    reading = fake_reading(counts)
    assert reading.visible[1] == reading.visible[5] == 5
    monkeypatch.setattr(wr, "read_board", lambda image: reading)
    answer = wr.recognize(np.zeros((8, 8, 3), np.uint8))
    got = wr.counts_of(answer)
    conf = [p["confidence"] for p in answer["pits"]]
    marg = sc.count_marginals(reading.visible, 48, wr.TOTAL_WEIGHT, wr.STORES)
    marg = marg ** wr.COUNT_SHARPEN  # calibrated: the raw marginals are under-confident
    marg /= marg.sum(1, keepdims=True)
    assert conf == [round(float(marg[k, c]), 3) for k, c in enumerate(got)]
    flat = wr.count_confidences(reading.visible, got)
    assert sum(got) == 48 and max(got[1], got[5]) > 5
    assert conf[1] < 0.7 and conf[5] < 0.7 and conf[2] > 0.8
    assert conf != [round(c, 3) for c in flat]
    assert any("piles hide seeds" in w for w in answer["warnings"])


def test_count_confidences_are_sharpened_marginals(monkeypatch):
    """COUNT_SHARPEN > 1 raises a likely count's confidence and lowers an unlikely one's
    (session 9: the marginals given the total were under-confident in every band below
    0.95), keeps the order of the counts and rows summing to one; 1 gives the marginals."""
    visible = [0, 5, 1, 0, 2, 5, 0, 3, 0, 1, 0, 2, 13, 13]
    counts, _ = sc.constrain_total(visible, 48, wr.TOTAL_WEIGHT, wr.STORES)
    monkeypatch.setattr(wr, "COUNT_SHARPEN", 1.0)
    raw = wr.count_confidences(visible, counts, total=48)
    marg = sc.count_marginals(visible, 48, wr.TOTAL_WEIGHT, wr.STORES)
    assert raw == [float(marg[k, c]) for k, c in enumerate(counts)]
    monkeypatch.setattr(wr, "COUNT_SHARPEN", 1.3)
    sharp = wr.count_confidences(visible, counts, total=48)
    assert sharp[2] > raw[2] > 0.5  # the pit showing one peak: surer
    assert all(0.0 <= c <= 1.0 for c in sharp)
    assert sharp[1] < 0.7 and sharp[5] < 0.7  # the piles stay guesses


def _look_down_camera(tilt_deg: float, f: float = 1500.0, size=(1080, 1920)):
    """A pinhole camera 600 mm above the board, tilted ``tilt_deg`` from straight down
    toward north, principal point at the photo's centre. Returns the board mm -> photo px
    homography of the board top and the true projection of a raised point."""
    c = np.array([30.0, -600.0 * np.tan(np.radians(tilt_deg)), 600.0])
    z = -c / np.linalg.norm(c)
    x = np.cross(z, [0.0, 1.0, 0.0])
    x /= np.linalg.norm(x)
    r = np.array([x, np.cross(z, x), z])
    t = -r @ c
    k = np.array([[f, 0, (size[1] - 1) / 2], [0, f, (size[0] - 1) / 2], [0, 0, 1]])

    def project(px, py, pz):
        p = k @ (r @ np.array([px, py, pz]) + t)
        return p[:2] / p[2]

    return k @ np.column_stack([r[:, 0], r[:, 1], t]), project


@pytest.mark.parametrize("tilt", [3.0, 30.0])
def test_board_camera_raises_points_as_the_camera_does(tilt):
    """Session 14: a point raised above the board shifts away from the camera's nadir,
    which in a steep view lies inside the photo: board_camera, from the homography
    alone, shifts it as the true camera does (steep and oblique), where "up in the
    photo" (the spill's former direction) is off by tens of degrees in the steep view."""
    hom, true = _look_down_camera(tilt)
    est = wr.board_camera(hom, (1080, 1920))
    worst_old = 0.0
    for x, y in ((-150.0, 30.0), (150.0, -30.0), (240.0, 0.0)):
        assert np.allclose(est(x, y, 0.0), true(x, y, 0.0), atol=0.5)
        assert np.allclose(est(x, y, 10.0), true(x, y, 10.0), atol=0.5)
        d = true(x, y, 10.0) - true(x, y, 0.0)
        worst_old = max(worst_old, abs(np.degrees(np.arctan2(d[0], -d[1]))))
    if tilt < 10:
        assert worst_old > 40


def test_pile_spill_looks_away_from_a_steep_camera():
    """Session 14: in a steep view a pile rises toward the camera and shows beyond the
    rim on the side away from the camera's nadir (here west of south1, the board's west
    end, the camera above its middle); the spill measured along board_camera's shift
    sees it, "up in the photo" (north, the former direction) did not."""
    view, to_mm = _board_view(0, 0)  # two grey seeds in south1's middle
    c = pl.CAVITIES[0]
    x, y = c.x + pl.BOARD_HALF_X - (pl.PIT_R + 4), pl.BOARD_HALF_Y - c.y
    for dy in (-8, 8):
        cv2.circle(view, (int(x), int(y + dy)), 8, (150, 150, 150), -1)
    hom, _ = _look_down_camera(3.0)
    spill = wr.pile_spill(view, to_mm, hom @ to_mm, (1080, 1920))
    assert spill[0] >= sc.SPILL_SEEN
    assert all(s < sc.SPILL_SEEN for s in spill[1:12])
    assert wr.pile_spill(view, to_mm, hom @ to_mm)[0] < sc.SPILL_SEEN


@pytest.mark.parametrize("tilt", [3.0, 30.0])
def test_pit_parallax_is_the_cameras_shift_of_a_raised_point(tilt):
    """Session 15: the parallax the bare-band evidence uses (mm a point 1 mm above the
    board top shows shifted in the top view) is the true camera's, steep or oblique:
    about the pit's distance from the nadir over the camera's height; NaN for the
    stores."""
    hom, true = _look_down_camera(tilt)
    to_mm = np.array([[1.0, 0, -pl.BOARD_HALF_X], [0, -1.0, pl.BOARD_HALF_Y], [0, 0, 1]])
    par = wr.pit_parallax(to_mm, hom @ to_mm, (1080, 1920))
    to_board = np.linalg.inv(hom)
    for k, c in enumerate(pl.CAVITIES):
        if c.half:
            assert math.isnan(par[k])
            continue
        pts = np.array([[true(c.x, c.y, 0.0)], [true(c.x, c.y, wr.LIFT_MM)]])
        a, b = cv2.perspectiveTransform(pts, to_board).reshape(-1, 2)
        assert abs(par[k] - float(np.hypot(*(b - a))) / wr.LIFT_MM) < 0.02
    mean = float(np.nanmean(par))
    assert (mean < 0.4) if tilt < 10 else (mean > 0.5)
    assert wr.pit_parallax(to_mm, hom @ to_mm, None) is None


#: benchmarks/wauri_tracking.py seed 828284, game 8, turn 7 (session 18): a board seen
#: from straight above on a wooden floor, its pits full of seeds, that the screened search
#: did not find ("no board found"); polishing every candidate in full finds it exactly.
FULL_PITS_BEFORE = {"game": "wauri", "south": [7, 0, 6, 0, 3, 8], "north": [0, 6, 5, 5, 1, 1],
                    "stores": {"south": 3, "north": 3}, "to_move": "north"}
FULL_PITS_AFTER = {"game": "wauri", "south": [8, 1, 6, 0, 3, 8], "north": [0, 6, 5, 0, 2, 2],
                   "stores": {"south": 3, "north": 4}, "to_move": "south"}


def test_tracking_looks_again_for_a_board_full_of_seeds(cli, tmp_path):
    photo = tmp_path / "full.jpg"
    assert cli("render", "--game", "wauri", json.dumps(FULL_PITS_AFTER), str(photo),
               "--seed", "828284807").code == 0
    res = cli("recognize", "--game", "wauri", str(photo), "--previous",
              json.dumps(FULL_PITS_BEFORE))
    assert res.code == 0, res.err
    out = res.json()
    assert out["explained"] is True and out["moves"] == [4]
    assert {k: out[k] for k in ("south", "north", "stores")} == {
        k: FULL_PITS_AFTER[k] for k in ("south", "north", "stores")}
    # the first, screened search alone finds no board in it
    with pytest.raises(NothingFound):
        wr.read_boards(cv2.imread(str(photo)), wr.MIN_CONTRAST_TRACKING, wr.ALTERNATIVE_FITS)
