"""Colomino recognition pieces on synthetic data: local print light, tile/plain split,
table colours around a candidate, rim-marking evidence and the 9×9 / 12×12 size check.

No rendering: every input is built here, so the tests are fast and exact.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import colomino_field as cf
from vision import colomino_recognition as cr
from vision import square_grid as sg

PRINT = np.array([0.60, 0.55, 0.45])  # a beige print, linear RGB


def _board_cells(n: int = 9):
    """Triangle and centre colours ``(n, n, 4, 3)``, ``(n, n, 3)`` of a board under a
    light that changes colour and brightness across it, with a few tiles and a joker."""
    r, c = np.mgrid[0:n, 0:n] / (n - 1)
    light = np.stack([1.0 + 0.6 * c, 1.0 + 0.1 * r, 1.0 - 0.4 * r], axis=-1)  # (n, n, 3)
    cells = np.broadcast_to(PRINT, (n, n, 3)) * light
    tri = np.repeat(cells[:, :, None, :], 4, axis=2).copy()
    centre = cells.copy()
    plastic = {"R": (0.55, 0.03, 0.03), "Y": (0.8, 0.55, 0.02), "G": (0.03, 0.3, 0.06),
               "B": (0.02, 0.08, 0.5)}
    tiles = {(2, 3): "RYGB", (2, 4): "BYRG", (6, 6): "GGYR"}
    for (rr, cc), code in tiles.items():
        for k, letter in enumerate(code):
            tri[rr, cc, k] = np.array(plastic[letter]) * light[rr, cc]
        centre[rr, cc] = tri[rr, cc].mean(axis=0)
    joker = (2, 2)  # beside a tile (placed tiles are connected)
    white = np.array([0.80, 0.80, 0.78]) * light[joker]
    tri[joker] = white
    centre[joker] = white
    return tri, centre, cells, tiles, joker


def test_print_field_follows_a_coloured_light():
    tri, centre, cells, tiles, joker = _board_cells()
    gain = cr.white_balance(tri, centre)
    local, loo = cr.print_field(tri, centre, gain)
    plain = np.ones(cells.shape[:2], bool)
    for rc in (*tiles, joker):
        plain[rc] = False
    rel = local[plain] / cells[plain]
    # a weighted mean lags a steep gradient (60 % across the board) at the board's edge
    assert np.abs(rel - 1).max() < 0.08
    assert np.median(np.abs(rel - 1)) < 0.03
    # one global balance leaves parts of the print as tinted as pale plastic (above the
    # lowest tile threshold); against the local print every print cell stays plain
    def tint(x):
        return (x.max(-1) - x.min(-1)) / x.max(-1)

    assert tint(cells[plain] / gain).max() > 0.3
    assert tint(cells[plain] / local[plain]).max() < 0.12
    # the joker is judged against the print around it, not against itself
    assert centre[joker].mean() / loo[joker].mean() > 1.2


def test_cells_are_split_into_tiles_and_plain_against_the_local_print():
    tri, centre, _, tiles, joker = _board_cells()
    local, loo = cr.print_field(tri, centre, cr.white_balance(tri, centre))
    tn = tri / local[:, :, None, :]
    sat = (tn.max(-1) - tn.min(-1)) / tn.max(-1)
    score = np.sort(sat, axis=-1)[..., -2:].mean(axis=-1)
    is_tile = score > cr.tile_threshold(score)
    found = set(zip(*np.nonzero(is_tile), strict=True))
    # every tile is found and no print cell is taken for one; the white joker on the
    # beige print looks tinted (bluish) against it, but it is white: the joker
    assert found - {joker} == set(tiles)
    assert [(r, c) for _, r, c in cr.find_jokers(tn, centre, loo, is_tile)] == [joker]


def _split(tri, centre):
    local, loo = cr.print_field(tri, centre, cr.white_balance(tri, centre))
    tn = tri / local[:, :, None, :]
    sat = (tn.max(-1) - tn.min(-1)) / tn.max(-1)
    score = np.sort(sat, axis=-1)[..., -2:].mean(axis=-1)
    return tn, loo, score > cr.tile_threshold(score)


def test_a_white_joker_is_told_from_one_colour_tiles_and_lighter_print():
    tri, centre, cells, tiles, joker = _board_cells()
    r, c = np.mgrid[0:9, 0:9] / 8
    light = np.stack([1.0 + 0.6 * c, 1.0 + 0.1 * r, 1.0 - 0.4 * r], axis=-1)
    # one-colour tiles (as uniform as a joker, coloured against the print) beside tiles
    for rc, colour in (((2, 5), (0.03, 0.3, 0.06)), ((6, 5), (0.8, 0.55, 0.02))):
        tri[rc] = np.array(colour) * light[rc]
        centre[rc] = tri[rc].mean(axis=0)
    # a joker hardly lighter than the print (12 %) but white, beside a tile
    faint = (6, 7)
    tri[faint] = np.array([0.6, 0.6, 0.585]) * light[faint]
    centre[faint] = tri[faint].mean(axis=0)
    # print cells 5 % lighter (a lamp's hot spot), one beside a tile, one alone
    for rc in ((3, 3), (0, 7)):
        tri[rc] *= 1.05
        centre[rc] *= 1.05
    tn, loo, is_tile = _split(tri, centre)
    found = {(r, c) for _, r, c in cr.find_jokers(tn, centre, loo, is_tile)}
    assert found == {joker, faint}
    # a lighter white cell far from every tile is no joker (placed tiles are connected)
    tri[4, 7] = np.array([0.8, 0.8, 0.78]) * light[4, 7]
    centre[4, 7] = tri[4, 7].mean(axis=0)
    tn, loo, is_tile = _split(tri, centre)
    found = {(r, c) for _, r, c in cr.find_jokers(tn, centre, loo, is_tile)}
    assert found == {joker, faint}


def test_tile_threshold_stays_within_its_bounds():
    rng = np.random.default_rng(1)
    empty_board = rng.uniform(0.0, 0.06, 81)
    assert cr.tile_threshold(empty_board) >= 0.18  # noise is not split into tiles
    mixed = np.concatenate([empty_board, rng.uniform(0.7, 0.95, 30)])
    t = cr.tile_threshold(mixed)
    assert 0.18 <= t <= 0.3


def test_a_colour_common_around_the_candidate_is_the_tables():
    h, w = 120, 160
    blue = np.zeros((h, w), bool)
    blue[::6, :] = True                       # a blue-striped cloth everywhere
    red = np.zeros((h, w), bool)
    red[40:80, 60:100:7] = True               # red only on the board
    quad = np.array([[50, 30], [110, 30], [110, 90], [50, 90]], float)
    assert cf._table_classes([blue, red], quad, [False, False]) == [True, False]
    assert cf._table_classes([blue, red], quad, [False, True]) == [True, True]


# ------------------------------------------------------------------ rim markings, size

CELL_PX = 30
LETTER_BGR = [(40, 40, 210), (30, 200, 240), (60, 150, 40), (190, 80, 30)]


def _board_image(n: int, origin: int = 70, size: int = 560) -> np.ndarray:
    """A front-on board: print, thin dark grid lines, a coloured marking beside every
    outer cell (0.12..0.55 cell outside the field), on a grey table."""
    img = np.full((size, size, 3), (90, 100, 95), np.uint8)
    end = origin + n * CELL_PX
    cv2.rectangle(img, (origin - 25, origin - 25), (end + 25, end + 25), (205, 210, 212), -1)
    for k in range(n + 1):
        x = origin + k * CELL_PX
        cv2.line(img, (x, origin), (x, end), (70, 70, 75), 1)
        cv2.line(img, (origin, x), (end, x), (70, 70, 75), 1)
    d0, d1 = int(0.12 * CELL_PX), int(0.55 * CELL_PX)
    for i in range(n):
        a, b = origin + i * CELL_PX + 3, origin + (i + 1) * CELL_PX - 3
        for side in range(4):
            col = LETTER_BGR[(i + side) % 4]
            if side == 0:
                cv2.rectangle(img, (a, origin - d1), (b, origin - d0), col, -1)
            elif side == 1:
                cv2.rectangle(img, (end + d0, a), (end + d1, b), col, -1)
            elif side == 2:
                cv2.rectangle(img, (a, end + d0), (b, end + d1), col, -1)
            else:
                cv2.rectangle(img, (origin - d1, a), (origin - d0, b), col, -1)
    return img


def _to_unit(x0: float, y0: float, side: float) -> np.ndarray:
    src = np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]],
                   np.float32)
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    return cv2.getPerspectiveTransform(src, unit).astype(np.float64)


def _canonical(img: np.ndarray, n: int, x0: float, y0: float) -> np.ndarray:
    M = cr.MARGIN_CELLS * cr.CELL
    H = cv2.getPerspectiveTransform(
        np.array([[x0, y0], [x0 + n * CELL_PX, y0], [x0 + n * CELL_PX, y0 + n * CELL_PX],
                  [x0, y0 + n * CELL_PX]], np.float32),
        np.array([[M, M], [M + n * cr.CELL, M], [M + n * cr.CELL, M + n * cr.CELL],
                  [M, M + n * cr.CELL]], np.float32))
    size = n * cr.CELL + 2 * M
    return cv2.warpPerspective(img, H, (size, size))


def test_rim_evidence_marks_the_true_field():
    img = _board_image(12)
    full = cf.rim_evidence(_canonical(img, 12, 70, 70), 12)
    block = cf.rim_evidence(_canonical(img, 9, 70 + CELL_PX, 70 + 2 * CELL_PX), 9)
    assert full > 0.8
    assert block < 0.3


@pytest.mark.parametrize(("n", "found", "offset"), [
    (12, 9, (1, 2)),    # a 9×9 block of a 12×12 board grows to the board
    (12, 9, (3, 0)),
    (9, 12, (-2, -1)),  # a 12×12 field laid past a 9×9 board's rim shrinks to it
    (9, 9, (0, 0)),     # a right answer stays
    (12, 12, (0, 0)),
])
def test_settle_size_finds_the_board_around_a_block(n, found, offset):
    origin = 70 if n == 12 else 140
    img = _board_image(n, origin)
    Hu = _to_unit(origin + offset[0] * CELL_PX, origin + offset[1] * CELL_PX,
                  found * CELL_PX)
    got_n, Hc, canon = cf._settle_size(img, found, Hu, (9, 12))
    assert got_n == n
    M = cr.MARGIN_CELLS * cr.CELL
    corners = np.array([[[origin, origin], [origin + n * CELL_PX, origin + n * CELL_PX]]],
                       np.float64)
    got = cv2.perspectiveTransform(corners, Hc)[0]
    assert np.allclose(got, [[M, M], [M + n * cr.CELL, M + n * cr.CELL]], atol=0.5)
    assert canon.shape == (n * cr.CELL + 2 * M, n * cr.CELL + 2 * M, 3)


def test_a_wauri_table_with_a_grid_like_look_is_no_colomino_board():
    """A simulator photo of a Wauri game (dev seed) in which a weak square grid was once
    fitted (line score 0.37, confidence 0.05): with neither a clear grid nor rim
    markings it is no board."""
    from vision.image_io import decode_photo
    from vision.recognize import NothingFound
    from vision.simulator.dataset import render_state

    state = {"game": "wauri", "south": [4, 1, 1, 3, 3, 6], "north": [5, 2, 3, 1, 2, 2],
             "stores": {"south": 8, "north": 7}, "to_move": "north"}
    photo = render_state("wauri", state, 194689650535929, "normal", 1280, 720,
                         source="random-game:ply28")
    with pytest.raises(NothingFound):
        cr.recognize(decode_photo(photo.jpeg))


def test_colour_mixture_follows_a_glare_tail_that_hue_alone_misreads():
    """Yellow plastic washed out by a lamp's glare drifts in Lab towards the light's
    colour (here past green's hue); the photo's own mixture of four full-covariance
    clusters keeps the tail with yellow, where nearest-hue labelling does not."""
    rng = np.random.default_rng(3)

    def blob(c, n, s=3.0):
        return np.array(c) + rng.normal(0, s, (n, 3))

    t = np.linspace(0, 1, 24)[:, None]
    tail = (np.array((70, 0, 65)) * (1 - t) + np.array((86, -12, -4)) * t
            + rng.normal(0, 1.5, (24, 3)))
    lab = np.concatenate([blob((45, 60, 40), 40), blob((70, 0, 65), 40), tail,
                          blob((50, -45, 25), 40), blob((35, 20, -60), 40)])
    truth = np.array([0] * 40 + [1] * 64 + [2] * 40 + [3] * 40)
    cent = cr._hue_centres(lab[:, 1:], np.hypot(lab[:, 1], lab[:, 2]))
    by_hue, _ = cr.classify_hues(lab, cent)
    assert (by_hue != truth).sum() >= 5
    post = cr.colour_posteriors(lab * cr.GMM_WEIGHTS, by_hue)
    assert post.shape == (len(lab), 4) and np.allclose(post.sum(axis=1), 1)
    assert (post.argmax(axis=1) == truth).all()
    # a colour missing from the photo: no mixture, the hue labels stand
    assert cr.colour_posteriors(lab[truth != 3] * cr.GMM_WEIGHTS, by_hue[truth != 3]) is None


def test_batched_line_scores_equal_one_by_one_scores():
    """Grid hypotheses are scored in batches (size check, line fit); each score must
    equal :func:`vision.square_grid.line_score` of that grid alone — whole-pixel
    placements and arbitrary ones reaching past the view (a printed grid covering part
    of the view, noise, and a dark band that is no grid line)."""
    from vision import square_grid as sg

    rng = np.random.default_rng(7)
    S, pitch = 408, 24
    gray = 180.0 + rng.normal(0, 4, (S, S))
    for k in range(48, 300, pitch):
        gray[40:330, k] -= 50
        gray[k, 60:320] -= 45
    gray[:, 150:158] -= 30
    integrals = sg.ridge_integrals(np.clip(gray, 0, 255).astype(np.uint8))
    for n in (9, 12):
        j = np.arange(n + 1)
        starts = np.arange(pitch, S - (n + 1) * pitch + 1, pitch)
        x0s, y0s = (a.ravel() for a in np.meshgrid(starts, starts))
        xs, ys = x0s[:, None] + j * pitch, y0s[:, None] + j * pitch
        p = rng.uniform(8, S / n, 200)
        xs = np.vstack([xs, rng.uniform(-40, S, (200, 1)) + j * p[:, None]])
        ys = np.vstack([ys, rng.uniform(-40, S, (200, 1)) + j * (p * 1.03)[:, None]])
        batch = sg.line_scores(integrals, xs, ys)
        one = [sg.line_score(integrals, x, y) for x, y in zip(xs, ys, strict=True)]
        assert np.array_equal(batch, one)
        assert batch.max() > 0.4 and batch.min() < 0.0   # the scores do differ


def _evidence(labels: np.ndarray, sure: float = 4.0) -> np.ndarray:
    """Evidence distances ``(..., 4)``: 0 for the given colour, ``sure`` for the rest."""
    d = np.full((*labels.shape, 4), sure)
    np.put_along_axis(d, labels[..., None], 0.0, axis=-1)
    return d


def test_decode_edges_settles_a_doubtful_triangle_by_its_neighbour_and_the_rim():
    n = 3
    truth = np.array([[[0, 1, 2, 3], [2, 0, 1, 1], [3, 3, 3, 3]],
                      [[2, 1, 0, 2], [1, 2, 3, 1], [3, 0, 1, 2]],
                      [[0, 0, 0, 0], [3, 2, 1, 0], [1, 1, 1, 2]]])
    # make the board legal: every shared edge one colour
    for r in range(n):
        for c in range(n - 1):
            truth[r, c + 1, 3] = truth[r, c, 1]
    for r in range(n - 1):
        for c in range(n):
            truth[r + 1, c, 0] = truth[r, c, 2]
    rim_known = np.stack([truth[0, :, 0], truth[:, -1, 1], truth[-1, :, 2], truth[:, 0, 3]])
    is_tile = np.ones((n, n), bool)
    dist = _evidence(truth)
    read = truth.copy()
    # (1, 1) east misread with a 7 : 1 doubt; its neighbour (1, 2) west is sure
    read[1, 1, 1] = (truth[1, 1, 1] + 1) % 4
    dist[1, 1, 1] = _evidence(read[1, 1, 1])
    dist[1, 1, 1, truth[1, 1, 1]] = 2.0
    # (0, 0) north, on the rim, misread just as doubtfully
    read[0, 0, 0] = (truth[0, 0, 0] + 2) % 4
    dist[0, 0, 0] = _evidence(read[0, 0, 0])
    dist[0, 0, 0, truth[0, 0, 0]] = 1.5
    rim_dist = _evidence(rim_known)
    out = cr.decode_edges(read, dist, is_tile, rim_dist, rim_known, None)
    assert np.array_equal(out, truth)
    # without a known layout the read rim marking does the same, also where only that
    # marking is unknown (read otherwise than the layout has it)
    out = cr.decode_edges(read, dist, is_tile, rim_dist, None, None)
    assert np.array_equal(out, truth)
    partly = rim_known.copy()
    partly[0, 0] = -1
    out = cr.decode_edges(read, dist, is_tile, rim_dist, partly, None)
    assert np.array_equal(out, truth)
    # a mismatch both sides are sure of is a real one on the board and kept
    read2 = truth.copy()
    read2[1, 1, 1] = (truth[1, 1, 1] + 1) % 4
    dist2 = _evidence(read2)
    out = cr.decode_edges(read2, dist2, is_tile, rim_dist, rim_known, None)
    assert np.array_equal(out, read2)


def test_ridge_maps_equal_the_shifted_minimum():
    rng = np.random.default_rng(3)
    for shape in ((40, 40), (37, 52)):
        g = rng.integers(0, 256, shape).astype(np.uint8)
        f = g.astype(np.float32)
        want_x = np.clip(np.minimum(np.roll(f, 2, 1), np.roll(f, -2, 1)) - f, 0, 30)
        want_y = np.clip(np.minimum(np.roll(f, 2, 0), np.roll(f, -2, 0)) - f, 0, 30)
        rx, ry = sg.ridge_maps(g)
        assert np.array_equal(rx, want_x) and np.array_equal(ry, want_y)


def test_a_lamps_hot_spot_on_the_print_is_no_joker():
    tri, centre, _, _, joker = _board_cells()
    # a hot spot: one print cell 25 % lighter, its neighbours 12 % (beside a tile)
    spot = (3, 4)
    for rc, k in ((spot, 1.25), ((3, 5), 1.12), ((4, 4), 1.12)):
        tri[rc] *= k
        centre[rc] *= k
    tn, loo, is_tile = _split(tri, centre)
    found = {(r, c) for _, r, c in cr.find_jokers(tn, centre, loo, is_tile)}
    assert found == {joker}


def test_joker_probability_weighs_the_joker_evidence():
    tri, centre, _, tiles, joker = _board_cells()
    # a white cell as light as the print beside a tile, only tinted (white plastic on a
    # beige print): the cascade leaves it, the odds do not
    faint = (6, 7)
    r, c = np.mgrid[0:9, 0:9] / 8
    light = np.stack([1.0 + 0.6 * c, 1.0 + 0.1 * r, 1.0 - 0.4 * r], axis=-1)
    tri[faint] = np.array([0.52, 0.54, 0.53]) * light[faint]
    centre[faint] = tri[faint].mean(axis=0)
    tn, loo, is_tile = _split(tri, centre)
    shade = np.full(is_tile.shape, 0.85)
    p = cr.joker_probability(tn, centre, loo, is_tile, tri, shade)
    assert p.shape == is_tile.shape and np.all((p >= 0) & (p <= 1))
    assert p[joker] > 0.5                       # lighter, tinted, stepping up: a joker
    assert 0.05 < p[faint] < p[joker]           # tinted only: a doubt, not a finding
    assert (faint[0], faint[1]) not in {(r, c) for _, r, c in
                                        cr.find_jokers(tn, centre, loo, is_tile, tri=tri)}
    for rc in tiles:
        assert p[rc] == 0.0                     # tiles are no jokers
    assert p[4, 4] == 0.0                       # nowhere near a tile or the edge
    plain_beside = (3, 3)                       # plain print beside a tile
    assert p[plain_beside] < 0.02
    # too few plain cells to compare with: no evidence either way
    none = cr.joker_probability(tn, centre, loo, np.ones_like(is_tile), tri, shade)
    assert not none.any()


# --------------------------------------------------- fast paths equal their definitions
def test_white_patch_gains_take_each_channels_order_statistic():
    rng = np.random.default_rng(5)
    for shape in ((1, 1), (7, 5), (40, 60)):
        img = rng.integers(0, 256, (*shape, 3)).astype(np.uint8)
        img[..., 1] //= 3  # a colour cast
        for pct in (0.0, 50.0, 97.0, 100.0):
            px = img.reshape(-1, 3)[::3]
            k = min(len(px) - 1, int(len(px) * pct / 100.0))
            ref = np.sort(px, axis=0)[k].astype(np.float64)
            want = np.clip(240.0 / np.maximum(ref, 1.0), 0.5, 3.0)
            assert np.array_equal(cf.white_patch_gains(img, pct), want)


def test_hue_classes_follow_the_hsv_rule():
    rng = np.random.default_rng(6)
    img = rng.integers(0, 256, (64, 80, 3)).astype(np.uint8)
    gains = np.array([1.2, 1.0, 0.8])
    hsv = cv2.cvtColor(cf._apply_gains(img, gains), cv2.COLOR_BGR2HSV)
    h = hsv[..., 0].astype(np.int32) * 2
    sat = (hsv[..., 1] > 75) & (hsv[..., 2] > 40)
    want = [sat & ((h < 20) | (h >= 330)), sat & (h >= 35) & (h < 75),
            sat & (h >= 85) & (h < 175), sat & (h >= 185) & (h < 265)]
    got = cf._colour_classes_small(img, gains)
    assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))
    assert all(w.any() for w in want)


def _ruler_fit_by_loop(labels: np.ndarray, n: int):
    """The rim ruler fit written out run by run (reference for the vectorised one)."""
    idx = np.nonzero(labels >= 0)[0]
    if len(idx) < n:
        return None
    e0, e1 = float(idx[0]), float(idx[-1] + 1)
    p0 = (e1 - e0) / n
    change = np.nonzero(np.diff(labels) != 0)[0] + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [len(labels)]])
    ks, cs, seen = [], [], np.zeros(n, int)
    for st, en in zip(starts, ends, strict=True):
        if labels[st] < 0 or not (0.45 * p0 <= en - st <= 1.25 * p0):
            continue
        centre = (st + en) / 2.0
        k = int(np.floor((centre - e0) / p0))
        if 0 <= k < n:
            ks.append(k + 0.5)
            cs.append(centre)
            seen[k] += 1
    if len(ks) < max(3, n // 2):
        return None
    ks_a, cs_a = np.array(ks), np.array(cs)
    pk, ak = np.polyfit(ks_a, cs_a, 1)
    resid = np.abs(cs_a - (ak + pk * ks_a))
    return float(ak), float(pk), float(np.mean(seen == 1)) - float(np.mean(resid)) / max(pk, 1e-6)


def test_ruler_fit_equals_the_run_by_run_definition():
    rng = np.random.default_rng(7)
    fitted = 0
    for i in range(300):
        n = (9, 12)[i % 2]
        pitch, start = rng.uniform(12, 24), rng.uniform(0, 30)
        labels = np.full(256, -1)
        for k in range(n):
            a = int(start + k * pitch + rng.normal(0, 1))
            b = int(start + (k + 1) * pitch + rng.normal(0, 1))
            labels[max(0, a):max(0, min(256, b))] = rng.integers(0, 4)
        noisy = rng.random(256) < rng.uniform(0, 0.15)
        labels[noisy] = rng.integers(-1, 4, int(noisy.sum()))
        want = _ruler_fit_by_loop(labels, n)
        assert cf._ruler_fit(labels, n) == want
        fitted += want is not None
    assert fitted > 100


def test_top_line_runs_score_every_run_on_the_profile():
    rng = np.random.default_rng(8)
    L, n = 200, 9
    prof = rng.random(L) + 0.2
    prof[np.rint(13 + 19.5 * np.arange(n + 1)).astype(int)] += 3.0  # a grid's lines
    runs = sg._top_line_runs(prof, n, 10.0, 21.0, k=4)
    base = float(np.median(prof)) + 1e-6
    best = -np.inf
    for a in range(L):
        for p in np.arange(10.0, 21.0, 0.5):
            if a + n * p > L - 1:
                continue
            j = np.arange(n + 1)
            vals = prof[np.clip(np.rint(a + p * j).astype(int), 0, L - 1)]
            mids = prof[np.clip(np.rint(a + p * (j[:-1] + 0.5)).astype(int), 0, L - 1)]
            best = max(best, ((vals.sum() - vals.min()) / n - mids.mean()) / base)
    assert runs[0][:2] == (13.0, 19.5)
    assert runs[0][2] == pytest.approx(best, rel=1e-12)


def test_fit_grid_on_shared_ridges_equals_a_fresh_fit():
    img = _board_image(12)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    ridges = sg.line_ridges(gray)
    fits = sg.fit_grid(gray)
    assert fits and fits[0].n == 12
    assert sg.fit_grid(gray, ridges=ridges) == fits
    xs = ys = 70 + np.arange(13) * float(CELL_PX)
    assert sg.grid_line_score(gray, xs, ys, ridges=ridges) == sg.grid_line_score(gray, xs, ys)


def test_a_fit_whose_print_has_a_black_channel_is_no_board(monkeypatch):
    """A saturated red patch fitted as a 12×12 board (a fresh simulator photo did this)
    made the print's balance gain 0 in blue and the answer full of NaN confidences.
    Such a fit is no Colomino print under any lamp: "no board found", never NaN."""
    from vision.recognize import NothingFound

    n = 12
    red = np.array([0.5, 0.02, 0.0])  # linear RGB, no blue at all
    tri = np.broadcast_to(red, (n, n, 4, 3)).copy()
    centre = np.broadcast_to(red, (n, n, 3)).copy()
    rim = np.broadcast_to(red, (4, n, 3)).copy()
    tri[::3, ::2] = centre[::3, ::2] = (0.4, 0.05, 0.0)  # some cells apart, as in the photo
    gain = cr.white_balance(tri, centre)
    assert gain.min() < cr.MIN_PRINT_CHANNEL
    # a real print under a warm lamp keeps every channel well above the limit
    warm = PRINT * np.array([1.0, 0.7, 0.25])
    assert cr.white_balance(np.broadcast_to(warm, (n, n, 4, 3)),
                            np.broadcast_to(warm, (n, n, 3))).min() > 2 * cr.MIN_PRINT_CHANNEL
    canon = np.zeros((64, 64, 3), np.uint8)
    monkeypatch.setattr(cr, "locate_field", lambda image, *a, **k: (np.eye(3), n, 1.0, canon))
    monkeypatch.setattr(cr, "read_canonical", lambda c, size: (tri, centre, rim))
    with pytest.raises(NothingFound):
        cr.recognize(np.zeros((200, 200, 3), np.uint8))


def _direction_classes(rng, scale=1.0, n=20):
    """Glare-free features (R − G, B − G) of ``n`` triangles per colour (R, Y, G, B, as
    :data:`COLOURS`) at this photo's directions, times ``scale``, with small noise."""
    centres = {"R": (0.9, 0.05), "Y": (-0.05, -1.0), "G": (-0.4, -0.3), "B": (-0.1, 0.5)}
    feats, labels = [], []
    for k, col in enumerate(cr.COLOURS):
        feats.append(np.array(centres[col]) * scale + rng.normal(0, 0.02, (n, 2)))
        labels += [k] * n
    return np.concatenate(feats), np.array(labels)


def test_a_faint_glare_lit_colour_is_read_by_its_direction():
    """Session 13 (dev 13200 #20, 13201 #24): a hot spot shrinks a blue's channel
    differences to a quarter (B − G 0.13), nearer the green and red classes than the
    blues' own; its direction still points at blue. A colour fainter than the noise
    says little."""
    rng = np.random.default_rng(5)
    feats, labels = _direction_classes(rng)
    probe = np.array([[-0.046, 0.128],      # a glare-lit blue (dev 13200 #20)
                      [0.03, 0.30],         # another (dev 13201 #24)
                      [-0.03, -0.26],       # a glare-lit yellow
                      [0.004, 0.004]])      # no colour left
    x = np.concatenate([feats, probe])
    init = np.concatenate([labels, [2, 0, 2, 0]])   # the Lab reading's wrong seeds
    ok = np.ones(len(x), bool)
    post = cr.glare_direction_posteriors(x, init, ok, ok, noise=0.03)
    B, Y = cr.COLOURS.index("B"), cr.COLOURS.index("Y")
    assert post[-4, B] > 0.99 and post[-3, B] > 0.99
    assert post[-2, Y] > 0.9
    assert post[-1].max() < 0.5
    # a colour with too few seeds unclipped is fitted on its green-and-blue-unclipped
    # ones; none at all: no reading
    free = ok & (init != Y)
    post2 = cr.glare_direction_posteriors(x, init, free, ok, gb_free=ok, noise=0.03)
    assert post2 is not None and post2[-4, B] > 0.99
    assert cr.glare_direction_posteriors(x, init, free, ok, gb_free=free) is None


def test_direction_noise_is_the_plain_cells_robust_spread():
    rng = np.random.default_rng(1)
    plain = rng.normal(0, 0.1, (400, 2))
    assert 0.08 < cr.direction_noise(plain) < 0.12
    assert cr.direction_noise(np.zeros((400, 2))) == cr.DIRECTION_NOISE
