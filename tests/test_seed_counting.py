"""Seed counting on synthetic top views: dark beans, lit bowl walls (vision.seed_counting)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import seed_counting as sc

R = 8.0  # seed radius (px)


def _grid():
    h, w = 160, 560
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    return yy, xx


def _disc(gray, xx, yy, cx, cy, inside, edge):
    """A shaded sphere: ``inside`` at the centre, ``edge`` at the rim."""
    d2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / R**2
    shade = edge + (inside - edge) * np.sqrt(np.clip(1 - d2, 0, 1))
    return np.where(d2 < 1, shade, gray)


BEANS = [[(44, 72), (72, 72), (58, 96)], [(200, 80)], [], [(466, 74), (496, 86)]]


def _dark_beans():
    """Four pits (radius 32 px) holding 3, 1, 0 and 2 dark beans (not touching) on a
    lighter floor, one light bean elsewhere, blurred as a lens does."""
    yy, xx = _grid()
    gray = np.full(xx.shape, 140.0, np.float32)
    pits = [(58, 80), (200, 80), (340, 80), (480, 80)]
    for pts in BEANS:
        for cx, cy in pts:
            gray = _disc(gray, xx, yy, cx, cy, 60.0, 70.0)
    gray = _disc(gray, xx, yy, 340, 60, 230.0, 150.0)  # the light bean sets the threshold
    gray = cv2.GaussianBlur(gray, (0, 0), 2.5)
    masks = [np.hypot(xx - x, yy - y) < 34 for x, y in pits]
    return gray, masks, ~np.any(masks, axis=0)


def test_dark_beans_on_a_light_floor_count_once_each(monkeypatch):
    """Dark beans count one each, found at their centres: the filter's bright ring around
    a dark bean is no seed.

    Without the side-lobe rule (DOMINANCE infinite) the rings gave bright peaks around
    every dark bean and hid the beans themselves. (Touching dark beans are still a
    limit: their rings add up between them.)
    """
    gray, masks, top = _dark_beans()
    got = sc.count_in_masks(gray, masks, top, R)
    assert [r.visible for r in got] == [3, 1, 1, 2]
    for r, pts in zip(got, [*BEANS[:2], [(340, 60)], BEANS[3]], strict=True):
        found = sorted(map(tuple, np.round(r.peaks).astype(int).tolist()))
        assert len(found) == len(pts)
        for (x, y), (px, py) in zip(sorted(pts), found, strict=True):
            assert abs(x - px) <= 2 and abs(y - py) <= 2, (pts, found)
    monkeypatch.setattr(sc, "DOMINANCE", 1e30)
    old = [r.visible for r in sc.count_in_masks(gray, masks, top, R)]
    assert old[0] != 3 and old[1] != 1, old


def _bowls(lit_wall: bool):
    """Twelve identical pits (radius 24 px), a bright crescent on each one's lit wall."""
    h, w = 120, 12 * 70
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gray = np.full((h, w), 120.0, np.float32)
    centres = [(35 + 70 * i, 60) for i in range(12)]
    for cx, cy in centres:
        d = np.hypot(xx - cx, yy - cy)
        gray = np.where(d < 24, 100.0, gray)
        if lit_wall:  # a lit patch against the wall, the same in every pit
            spot = np.hypot(xx - (cx + 14), yy - (cy - 10))
            gray = np.where(spot < 6, 100.0 + 60 * np.clip(1 - spot / 6, 0, 1) ** 0.5, gray)
    return xx, yy, gray, centres


def test_a_wall_lit_more_in_one_pit_is_not_a_seed(monkeypatch):
    """The light falls off across a board: one pit's wall lit 1.5 times more than the
    median pit's passes the ratio test; its excess over the common response must reach
    EXCESS times the seed threshold too (8 pits hold one seed each, at different spots)."""
    h, w = 120, 12 * 70
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gray = np.full((h, w), 120.0, np.float32)
    centres = [(35 + 70 * i, 60) for i in range(12)]
    for i, (cx, cy) in enumerate(centres):
        gray = np.where(np.hypot(xx - cx, yy - cy) < 24, 100.0, gray)
        spot = np.hypot(xx - (cx + 14), yy - (cy - 10))
        amp = 45.0 if i == 5 else 30.0
        gray = np.where(spot < 6, 100.0 + amp * np.clip(1 - spot / 6, 0, 1) ** 0.5, gray)
    seeds = {0: (30, 64), 1: (100, 52), 2: (168, 66), 3: (238, 58), 6: (450, 62),
             7: (520, 54), 8: (592, 66), 9: (660, 60)}
    for x, y in seeds.values():
        gray = _disc(gray, xx, yy, x, y, 200.0, 110.0)
    masks = [np.hypot(xx - x, yy - y) < 21 for x, y in centres]
    top = ~np.any([np.hypot(xx - x, yy - y) < 30 for x, y in centres], axis=0)

    def read():
        return [r.visible for r in sc.count_in_masks(gray, masks, top, R,
                                                     pit_centres=np.array(centres),
                                                     pit_half=24)]

    want = [int(k in seeds) for k in range(12)]
    assert read() == want
    monkeypatch.setattr(sc, "EXCESS", 0.0)
    assert read() == [w + (k == 5) for k, w in enumerate(want)]


@pytest.mark.parametrize("with_centres", [True, False])
def test_lit_wall_every_pit_shows_is_not_a_seed(with_centres):
    xx, yy, gray, centres = _bowls(lit_wall=True)
    seeds = {0: [(30, 64)], 3: [(240, 55), (230, 68)], 7: [(525, 62)]}
    for pts in seeds.values():
        for cx, cy in pts:
            gray = _disc(gray, xx, yy, cx, cy, 200.0, 110.0)
    masks = [np.hypot(xx - x, yy - y) < 21 for x, y in centres]
    top = ~np.any([np.hypot(xx - x, yy - y) < 30 for x, y in centres], axis=0)
    if with_centres:
        got = sc.count_in_masks(gray, masks, top, R, pit_centres=np.array(centres),
                                pit_half=24)
    else:
        got = sc.count_in_masks(gray, masks, top, R)
    want = [len(seeds.get(k, [])) for k in range(12)]
    visible = [r.visible for r in got]
    if with_centres:
        assert visible == want
    else:  # the lit patch reads as a seed in every pit without the common response
        assert all(v == w + 1 for v, w in zip(visible, want, strict=True)), visible


def test_common_response_is_the_median_patch():
    resp = np.zeros((20, 60), np.float32)
    centres = np.array([[10, 10], [30, 10], [50, 10]])
    resp[8, 12] = resp[8, 32] = 5.0  # two of three pits show it: in the median
    resp[12, 51] = 9.0  # one pit only: not in the median
    med = sc.common_response(resp, centres, 4)
    assert med.shape == (9, 9)
    assert med[2, 6] == 5.0 and med[6, 5] == 0.0


def test_store_points_map_onto_the_pit_wall_of_the_same_direction():
    """A peak on a store's wall is compared with the pits' response at the same wall
    direction and depth (offset from the store's axis scaled to the pit radius)."""
    resp = np.zeros((60, 200), np.float32)
    centres = np.array([[20, 30], [60, 30], [100, 30]])
    for cx, cy in centres:  # every pit: a bowl feature 10 px right of its centre
        resp[cy, cx + 10] = 4.0
    peaks = np.zeros_like(resp, bool)
    store = ((160.0, 15.0), (160.0, 45.0), 20.0)  # vertical axis, radius 20 px
    resp[40, 180] = 3.0  # 20 px right of the axis: the pits' +10 px at radius 10
    peaks[40, 180] = True
    resp[40, 142] = 3.0  # on the left wall: no common feature there
    peaks[40, 142] = True
    out = sc.drop_common(peaks, resp, centres, 10, 4.0, stores=[store])
    assert not out[40, 180] and out[40, 142]


def test_merge_saddles_joins_peaks_on_one_blob_only():
    """Two maxima less than a radius apart with no dip between them (a glossy bean's
    highlight and its lit side) are one seed; two with a dark gap between them (touching
    beans) stay two; far apart peaks are never compared."""
    yy, xx = np.mgrid[0:60, 0:200].astype(np.float32)
    one = np.exp(-((xx - 30) ** 2 + (yy - 30) ** 2) / (2 * 6.0**2))  # one broad blob
    two = sum(np.exp(-((xx - cx) ** 2 + (yy - 30) ** 2) / (2 * 2.5**2)) for cx in (96, 105))
    far = sum(np.exp(-((xx - cx) ** 2 + (yy - 30) ** 2) / (2 * 3.0**2)) for cx in (150, 190))
    resp = (one + two + far).astype(np.float32)
    peaks = np.zeros(resp.shape, bool)
    peaks[30, [27, 34, 96, 105, 150, 190]] = True  # 27/34: both on the broad blob
    merged = sc.merge_saddles(peaks, resp, R)
    assert merged[30, 34] != merged[30, 27]  # one of the pair on one blob is dropped
    assert merged[30, 96] and merged[30, 105]  # a dip between them: two seeds
    assert merged[30, 150] and merged[30, 190]


def _merge_saddles_pairwise(peaks, resp, seed_r_px):
    """merge_saddles written pair by pair (the definition in its docstring)."""
    ys, xs = np.nonzero(peaks)
    pts = np.stack([xs, ys], 1).astype(np.float64)
    val = resp[ys, xs]
    out = peaks.copy()
    h, w = resp.shape
    t = np.linspace(0.0, 1.0, 9)[1:-1]
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            if np.hypot(*(pts[i] - pts[j])) > sc.MERGE_REACH * seed_r_px:
                continue
            seg = pts[i][None, :] + t[:, None] * (pts[j] - pts[i])[None, :]
            sx = np.clip(np.round(seg[:, 0]).astype(np.int64), 0, w - 1)
            sy = np.clip(np.round(seg[:, 1]).astype(np.int64), 0, h - 1)
            if resp[sy, sx].min() >= sc.SADDLE * min(val[i], val[j]):
                k = i if val[i] < val[j] else j
                out[ys[k], xs[k]] = False
    return out


def _drop_common_peak_by_peak(peaks, resp, centres, half, seed_r_px, excess):
    """drop_common (pits only) written peak by peak."""
    med = sc.common_response(resp, centres, half)
    k = int(round(sc.COMMON_WINDOW * seed_r_px)) * 2 + 1
    med = cv2.dilate(med, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    out = peaks.copy()
    for y, x in zip(*np.nonzero(peaks), strict=True):
        for cx, cy in centres:
            dx, dy = x - cx, y - cy
            if np.hypot(dx, dy) <= half:
                v = resp[y, x]
                m = med[dy + half, dx + half]
                if m >= sc.COMMON_FRACTION * v or v - m < excess:
                    out[y, x] = False
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_vectorised_peak_filters_equal_their_definitions(seed):
    """merge_saddles and drop_common (vectorised over pairs and peaks) remove exactly the
    peaks the pairwise / peak-by-peak definitions remove, on a random seed-like view."""
    rng = np.random.default_rng(seed)
    gray = cv2.GaussianBlur(rng.normal(0, 1, (120, 400)).astype(np.float32), (0, 0), 2.5)
    resp = sc.blob_response(gray * 60 + 100, R)
    peaks = sc.local_maxima(resp, 0.6 * R)  # dense peaks: many close pairs
    merged = sc.merge_saddles(peaks, resp, R)
    assert np.array_equal(merged, _merge_saddles_pairwise(peaks, resp, R))
    assert 0 < merged.sum() < peaks.sum()
    centres = np.array([[60 + 56 * i, 40 + 40 * (i % 2)] for i in range(6)], np.int64)
    half = 18
    excess = float(np.percentile(resp[peaks], 30))
    dropped = sc.drop_common(peaks, resp, centres, half, R, excess=excess)
    assert np.array_equal(dropped, _drop_common_peak_by_peak(peaks, resp, centres, half, R,
                                                             excess))
    assert 0 < dropped.sum() < peaks.sum()
