"""Simulated photos: the truth agrees with the picture, and everything follows the seed."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.simulator.caribo_render import render_caribo
from vision.simulator.colomino_render import render_colomino
from vision.simulator.dataset import photo_seed, random_photo, render_state
from vision.simulator.states import (
    random_caribo_state,
    random_colomino_state,
    random_wauri_state,
)
from vision.simulator.wauri_render import render_wauri

W, H = 640, 480
SEED_SOLUTION = "0,0,34WS,56SW,0 - e0,12WB,34BW,0,0 - 12BR,B,23SB,61BS,34GS"


def decode(photo) -> np.ndarray:
    """The JPEG as a recogniser would read it (RGB float)."""
    bgr = cv2.imdecode(np.frombuffer(photo.jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert bgr.shape[:2] == (photo.truth["image_size"][1], photo.truth["image_size"][0])
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB).astype(np.float32)


def sample(img, pt, r=1):
    x, y = int(round(pt[0])), int(round(pt[1]))
    patch = img[max(0, y - r): y + r + 1, max(0, x - r): x + r + 1]
    return np.median(patch.reshape(-1, 3), axis=0)


def cluster_agreement(samples: np.ndarray, labels: list[str]) -> float:
    """Share of samples nearer (in chromaticity + brightness) to the mean of their own
    label than to any other label's mean."""
    feats = samples / (samples.sum(axis=1, keepdims=True) + 1.0)
    feats = np.column_stack([feats * 3, samples.mean(axis=1, keepdims=True) / 255.0])
    names = sorted(set(labels))
    lab = np.array(labels)
    means = {n: feats[lab == n].mean(axis=0) for n in names}
    ok = 0
    for f, n in zip(feats, labels, strict=True):
        best = min(names, key=lambda m: float(np.sum((f - means[m]) ** 2)))
        ok += best == n
    return ok / len(labels)


# ----------------------------------------------------------------------------- CARIBO
@pytest.mark.parametrize("seed,difficulty", [(1, "easy"), (2, "easy"), (5, "normal")])
def test_caribo_segment_colours_match_truth(seed, difficulty):
    state, _ = random_caribo_state(seed + 50, "normal")
    photo = render_caribo(state, seed, difficulty, W, H)
    img = decode(photo)
    samples, labels, shifted = [], [], []
    for piece in photo.truth["pieces"]:
        segs = piece["segments"]
        for k, pt in enumerate(piece["segment_centers_px"]):
            samples.append(sample(img, pt))
            labels.append(segs[k])
            shifted.append(segs[(k + 1) % 6])  # numbering off by one segment
    samples = np.array(samples)
    assert len(set(labels)) >= 3
    good = cluster_agreement(samples, labels)
    assert good >= 0.9, good
    # the same test with the segment numbering rotated must do clearly worse
    assert cluster_agreement(samples, shifted) < good - 0.1


def test_caribo_truth_lists_every_tile_inside_the_photo():
    photo = render_caribo({"game": "caribo", "notation": SEED_SOLUTION}, 3, "hard", W, H)
    t = photo.truth
    assert t["game"] == "caribo" and t["state"] == {"game": "caribo", "notation": SEED_SOLUTION}
    assert sorted((p["row"], p["col"]) for p in t["pieces"]) == sorted(
        [(0, 2), (0, 3), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2), (2, 3), (2, 4)])
    codes = {(p["row"], p["col"]): p["tile"] for p in t["pieces"]}
    assert codes[(0, 2)] == "34WS" and codes[(2, 1)] == "B"
    for p in t["pieces"]:
        for x, y in p["corners_px"] + [p["center_px"]]:
            assert 0 <= x < W and 0 <= y < H
    for key in ("camera", "conditions", "paint_set", "difficulty", "seed"):
        assert key in t


def test_caribo_tiles_sit_where_the_truth_says():
    """Tile tops are brighter/more colourful than the gaps' surroundings: the pixels at
    the truth centres differ from the table far away from any tile."""
    photo = render_caribo(SEED_SOLUTION, 11, "easy", W, H)
    img = decode(photo)
    hexes = [np.array(p["corners_px"], np.float32) for p in photo.truth["pieces"]]
    mask = np.zeros((H, W), np.uint8)
    cv2.fillPoly(mask, [np.round(h).astype(np.int32) for h in hexes], 255)
    # the painted tops differ from the table: compare the edge strength inside the hexes'
    # outlines with the image in general
    grey = cv2.cvtColor(img.astype(np.uint8), cv2.COLOR_RGB2GRAY)
    edges = cv2.Canny(grey, 40, 120)
    outline = cv2.dilate(mask, np.ones((5, 5), np.uint8)) - cv2.erode(mask, np.ones((5, 5),
                                                                                    np.uint8))
    far = cv2.dilate(mask, np.ones((61, 61), np.uint8)) == 0
    assert edges[outline > 0].mean() > 3 * max(edges[far].mean(), 1.0)


# ----------------------------------------------------------------------------- Colomino
@pytest.mark.parametrize("seed,difficulty", [(1, "easy"), (4, "normal")])
def test_colomino_cells_match_truth(seed, difficulty):
    state, _ = random_colomino_state(seed + 10, "normal")
    photo = render_colomino(state, seed, difficulty, W, H)
    img = decode(photo)
    t = photo.truth
    assert t["state"]["rows"] == state["rows"]
    samples, labels = [], []
    empty = []
    for p in t["pieces"]:
        if p["cell"] not in (".", "*"):
            for k, pt in enumerate(p["triangle_centers_px"]):
                samples.append(sample(img, pt))
                labels.append(p["cell"][k])
        elif p["cell"] == "." and p["printed"] is None:
            empty.append(sample(img, p["center_px"]))
    assert len(samples) >= 8
    assert cluster_agreement(np.array(samples), labels) >= 0.9
    # empty cells show the plain board print: far less colourful than the tile triangles
    sat = lambda c: float(np.max(c) - np.min(c))  # noqa: E731
    assert np.median([sat(c) for c in empty]) < 0.6 * np.median([sat(c) for c in samples])


def test_colomino_truth_stays_in_spec_coordinates():
    state, _ = random_colomino_state(3, "easy")
    a = render_colomino(state, 21, "normal", W, H).truth
    b = render_colomino(state, 22, "normal", W, H).truth
    assert a["state"]["rows"] == b["state"]["rows"] == state["rows"]
    assert len(a["board_corners_px"]) == 4 and a["south_side"] in ("top", "bottom", "left",
                                                                     "right")
    # corners go NW, NE, SE, SW: row 0 cells lie nearer the NW-NE edge than the SW-SE edge
    nw, ne, se, sw = (np.array(c) for c in a["board_corners_px"])
    north_mid, south_mid = (nw + ne) / 2, (sw + se) / 2
    first = [p for p in a["pieces"] if p["row"] == 0]
    last = [p for p in a["pieces"] if p["row"] == state["size"] - 1]
    d = lambda p, q: float(np.linalg.norm(np.array(p["center_px"]) - q))  # noqa: E731
    assert all(d(p, north_mid) < d(p, south_mid) for p in first)
    assert all(d(p, south_mid) < d(p, north_mid) for p in last)


# ----------------------------------------------------------------------------- Wauri
def test_wauri_pits_and_seeds_match_truth():
    state, _ = random_wauri_state(7, "normal")
    photo = render_wauri(state, 5, "easy", W, H)
    t = photo.truth
    img = decode(photo)
    assert t["state"] == state
    counts = {p["pit"]: p["count"] for p in t["pieces"]}
    assert [counts[f"south{i}"] for i in range(1, 7)] == state["south"]
    assert [counts[f"north{i}"] for i in range(1, 7)] == state["north"]
    assert counts["store_south"] == state["stores"]["south"]
    assert sum(counts.values()) == 48
    centres = {p["pit"]: np.array(p["center_px"]) for p in t["pieces"]}
    pitch = np.linalg.norm(centres["south1"] - centres["south2"])
    for p in t["pieces"]:
        assert len(p["seeds_px"]) == p["count"]
        for s in p["seeds_px"]:  # every seed lies in its own pit
            limit = 0.55 * pitch if p["index"] else 1.3 * pitch
            assert np.linalg.norm(np.array(s) - centres[p["pit"]]) < limit
    # south's row is the one nearer the side the truth names
    s_mid = np.mean([centres[f"south{i}"] for i in range(1, 7)], axis=0)
    n_mid = np.mean([centres[f"north{i}"] for i in range(1, 7)], axis=0)
    d = s_mid - n_mid
    side = t["south_side"]
    expect = {"bottom": d[1] > 0, "top": d[1] < 0, "right": d[0] > 0, "left": d[0] < 0}
    assert expect[side]
    # south sows counter-clockwise: pits 1..6, store, north 1..6 go round the board
    order = [centres[f"south{i}"] for i in range(1, 7)] + [centres["store_south"]] + [
        centres[f"north{i}"] for i in range(1, 7)] + [centres["store_north"]]
    area = sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(order, order[1:] + order[:1],
                                                          strict=True))
    assert area < 0  # counter-clockwise seen from above = negative in y-down image coords
    # pits show: an empty pit's centre is darker than the board top between the rows
    empty = [p for p in t["pieces"] if p["count"] == 0 and p["index"]]
    for p in empty:
        other = "north" if p["owner"] == "south" else "south"
        mid = (centres[p["pit"]] + centres[f"{other}{7 - p['index']}"]) / 2
        assert sample(img, centres[p["pit"]], 2).mean() < sample(img, mid, 2).mean()


def test_wauri_dense_piles_stack_up():
    from vision.simulator.wauri_render import SEED_R, cavities, drop_seeds

    cav = cavities()[0]
    seeds = drop_seeds(cav, 20, np.random.default_rng(0))
    assert len(seeds) == 20
    d = np.linalg.norm(seeds[:, None, :3] - seeds[None, :, :3], axis=2)
    np.fill_diagonal(d, 99)
    assert d.min() > 2 * SEED_R * 0.85  # seeds touch but do not interpenetrate
    assert seeds[:, 2].max() > seeds[:, 2].min() + SEED_R  # a second layer formed


# ----------------------------------------------------------------------------- determinism
@pytest.mark.parametrize("game", ["caribo", "colomino", "wauri"])
def test_same_seed_same_bytes(game):
    a = random_photo(game, 1234, "normal", 320, 240)
    b = random_photo(game, 1234, "normal", 320, 240)
    c = random_photo(game, 1235, "normal", 320, 240)
    assert a.jpeg == b.jpeg and a.truth == b.truth
    assert c.jpeg != a.jpeg


def test_photo_seeds_are_stable():
    assert photo_seed(7, 0) == photo_seed(7, 0)
    assert len({photo_seed(7, i) for i in range(100)}) == 100


def test_random_states_are_legal():
    from engines.caribo import parse_board
    from engines.colomino import parse_state

    for s in range(6):
        st, src = random_caribo_state(s, "hard")
        board = parse_board(st["notation"])
        assert len(board.tiles) >= 1 and board.mismatches() == [], src
        cst, _ = random_colomino_state(s, "normal")
        assert parse_state(cst).size in (9, 12)
        w, _ = random_wauri_state(s, "hard")
        assert sum(w["south"]) + sum(w["north"]) + sum(w["stores"].values()) == 48


def test_render_state_rejects_bad_input():
    from engines.errors import FormatError

    with pytest.raises(FormatError):
        render_state("caribo", "0,0,34XS", 1, "easy", W, H)
    with pytest.raises(FormatError):
        render_state("colomino", {"game": "colomino", "size": 7, "rows": []}, 1, "easy", W, H)
    with pytest.raises(FormatError):
        render_state("wauri", {"game": "wauri"}, 1, "easy", W, H)
    with pytest.raises(ValueError):
        render_state("caribo", SEED_SOLUTION, 1, "extreme", W, H)


def test_hand_placed_tiles_do_not_overlap():
    from vision.simulator.caribo_render import (
        HEX_VERTS,
        _penetration,
        lay_tiles,
        parse_caribo_state,
    )

    _, cells, fs = parse_caribo_state(random_caribo_state(4, "hard")[0])
    for seed in range(3):
        placed = lay_tiles(cells, fs, np.random.default_rng(seed), 30.0, messiness=1.0)
        polys = [t.local_to_world(HEX_VERTS, 0)[:, :2] for t in placed]
        for i in range(len(polys)):
            for j in range(i + 1, len(polys)):
                assert _penetration(polys[i], polys[j])[0] < 0.01
        # still a lattice: neighbours stay within a few mm of the nominal pitch
        for t in placed:
            near = min(np.hypot(t.x - u.x, t.y - u.y) for u in placed if u is not t)
            assert 40.0 < near < 45.0


def test_props_stay_off_the_game():
    from vision.simulator.camera import Camera
    from vision.simulator.photo import rng_for
    from vision.simulator.props import draw_props, sample_props
    from vision.simulator.scene import Canvas, sample_conditions

    cond = sample_conditions(rng_for(1, "caribo", "conditions"), "hard")
    canvas = Canvas(Camera(320, 240, 65, 700, 20, 0))
    canvas.render_table(cond.table, np.random.default_rng(0), keep_radius=150)
    rng = np.random.default_rng(3)
    props = [p for _ in range(5) for p in sample_props(rng, "hard")]
    assert {p["kind"] for p in props} >= {"paper", "pen", "coaster", "coin"}
    outlines = draw_props(canvas, props, cond, rng, (10.0, -5.0), 150.0)
    for ring in outlines:
        assert np.min(np.hypot(ring[:, 0] - 10.0, ring[:, 1] + 5.0)) > 150.0
