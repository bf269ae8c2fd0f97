"""Colomino cell reading on synthetic boards: jokers told from the print by their tint.

No rendering: every input is built here (a beige print under an uneven coloured light,
a little noise, a few tiles), so the tests are fast and exact.
"""

from __future__ import annotations

import numpy as np
import pytest

from vision import colomino_recognition as cr

PRINT = np.array([0.60, 0.55, 0.45])  # a beige print, linear RGB
PLASTIC = {"R": (0.55, 0.03, 0.03), "Y": (0.8, 0.55, 0.02), "G": (0.03, 0.3, 0.06),
           "B": (0.02, 0.08, 0.5)}


def _board(n: int = 9, seed: int = 0):
    """``tri (n, n, 4, 3)``, ``centre (n, n, 3)`` and the light ``(n, n, 3)`` of a board
    with three tiles under a light changing in colour and brightness across it."""
    rng = np.random.default_rng(seed)
    r, c = np.mgrid[0:n, 0:n] / (n - 1)
    light = np.stack([1.0 + 0.3 * c, 1.0 + 0.1 * r, 1.0 - 0.2 * r], axis=-1)
    tri = np.repeat((PRINT * light)[:, :, None, :], 4, axis=2)
    tri = tri * (1.0 + 0.01 * rng.standard_normal(tri.shape))  # print texture, noise
    for (rr, cc), code in {(2, 3): "RYGB", (2, 4): "BYRG", (6, 6): "GGYR"}.items():
        for k, letter in enumerate(code):
            tri[rr, cc, k] = np.array(PLASTIC[letter]) * light[rr, cc]
    return tri, tri.mean(axis=2), light


def _jokers(tri, centre):
    local, loo = cr.print_field(tri, centre, cr.white_balance(tri, centre))
    tn = tri / local[:, :, None, :]
    sat = (tn.max(-1) - tn.min(-1)) / tn.max(-1)
    score = np.sort(sat, axis=-1)[..., -2:].mean(axis=-1)
    is_tile = score > cr.tile_threshold(score)
    return {(r, c) for _, r, c in cr.find_jokers(tn, centre, loo, is_tile)}


def _put(tri, centre, light, rc, colour):
    tri[rc] = np.asarray(colour) * light[rc]
    centre[rc] = tri[rc].mean(axis=0)


def test_a_joker_as_light_as_the_print_is_found_by_its_tint(monkeypatch):
    tri, centre, light = _board()
    # white plastic exactly as light as the beige print, beside a tile
    joker = (6, 7)
    _put(tri, centre, light, joker, np.full(3, PRINT.mean()))
    assert _jokers(tri, centre) == {joker}
    # lightness alone does not tell it: without the tint cue it is read as print
    monkeypatch.setattr(cr, "JOKER_TINT", 1e9)
    assert _jokers(tri, centre) == set()


@pytest.mark.parametrize("dim", [0.85, 1.0])
def test_tint_alone_takes_no_shadow_no_bleed_and_no_lone_cell(dim):
    tri, centre, light = _board()
    # a grey cell darker than the print around (a shadow on the print) is no joker
    _put(tri, centre, light, (6, 7), np.full(3, PRINT.mean() * 0.85))
    # colour bled from a blue neighbour tints one side of a print cell only
    tri[2, 5, 3] = tri[2, 5, 3] * np.array([0.7, 0.8, 1.6])
    centre[2, 5] = tri[2, 5].mean(axis=0)
    # a white cell far from every tile and the field's edge (placed tiles are connected)
    _put(tri, centre, light, (4, 7), np.full(3, PRINT.mean() * dim))
    assert _jokers(tri, centre) == set()


def test_a_lighter_cell_of_the_prints_own_tint_is_a_hot_spot_not_a_joker(monkeypatch):
    tri, centre, light = _board()
    # one print cell beside a tile lit up by a lamp: lighter, but of the print's tint
    spot = (6, 7)
    _put(tri, centre, light, spot, PRINT * 1.15)
    assert _jokers(tri, centre) == set()
    # lightness alone would take it (the rule before the tint was required)
    monkeypatch.setattr(cr, "JOKER_LIGHT_Z", 0.0)
    assert _jokers(tri, centre) == {spot}
    monkeypatch.undo()
    # white plastic as much lighter is a joker: its tint is not the print's
    _put(tri, centre, light, spot, np.full(3, PRINT.mean() * 1.15))
    assert _jokers(tri, centre) == {spot}
    # far lighter than the photo's plain cells scatter (JOKER_SURE_LIGHT): a joker even
    # of the print's tint
    _put(tri, centre, light, spot, PRINT * 1.4)
    assert _jokers(tri, centre) == {spot}
    monkeypatch.setattr(cr, "JOKER_SURE_LIGHT", 10.0)
    assert _jokers(tri, centre) == set()


def test_joker_tint_is_relative_to_the_photos_plain_cells():
    n = 9
    rng = np.random.default_rng(3)
    loo = np.broadcast_to(PRINT, (n, n, 3)).copy()
    centre = loo * (1.0 + 0.02 * rng.standard_normal((n, n, 3)))
    plain = np.ones((n, n), bool)
    # the same tint shift stands out among quiet plain cells ...
    centre[4, 4] = loo[4, 4] * np.array([0.9, 1.0, 1.1])
    assert cr.joker_tint(centre, loo, plain)[4, 4]
    assert cr.joker_tint(centre, loo, plain).sum() == 1
    # ... but not where the plain cells' own tint scatters as much (uneven mixed light)
    noisy = loo * (1.0 + 0.08 * rng.standard_normal((n, n, 3)))
    noisy[4, 4] = centre[4, 4]
    assert not cr.joker_tint(noisy, loo, plain)[4, 4]


def test_clipped_fraction_counts_clipped_pixels_per_triangle_and_channel():
    n, C, M = 3, cr.CELL, cr.MARGIN_CELLS * cr.CELL
    canon = np.full((n * C + 2 * M, n * C + 2 * M, 3), 120, np.uint8)
    # cell (1, 2): its east half has the red channel (BGR index 2) at 255, blue at 252
    y0, x0 = M + C, M + 2 * C
    canon[y0:y0 + C, x0 + C // 2:x0 + C, 2] = 255
    canon[y0:y0 + C, x0 + C // 2:x0 + C, 0] = 252
    frac = cr.clipped_fraction(canon, n)
    assert frac.shape == (n, n, 4, 3)
    np.testing.assert_allclose(frac[1, 2, 1], [1.0, 0.0, 1.0])      # east: R and B, RGB
    np.testing.assert_allclose(frac[1, 2, 3], [0.0, 0.0, 0.0])      # west untouched
    assert 0.3 < frac[1, 2, 0, 0] < 0.7                              # north: half of it
    frac[1, 2] = 0
    assert not frac.any()                                           # no other cell


def test_a_clipped_triangle_at_the_rim_takes_the_rim_marking():
    n, K = 3, 4
    labels = np.zeros((n, n, 4), int)
    is_tile = np.zeros((n, n), bool)
    is_tile[0, 1] = True
    # the tile's north triangle reads green (2) fairly surely; the layout prints yellow (1)
    dist = np.full((n, n, 4, K), 1.0)
    dist[0, 1, 0] = [3.0, 2.5, 0.0, 3.0]
    labels[0, 1] = [2, 0, 0, 0]
    rim_dist = np.ones((4, n, K))
    rim_known = np.full((4, n), -1)
    rim_known[0, 1] = 1
    plain = cr.decode_edges(labels, dist, is_tile, rim_dist, rim_known)
    assert plain[0, 1, 0] == 2          # sure enough of itself against the marking
    # the same reading from a triangle whose red channel is clipped counts less
    weight = np.ones((n, n, 4))
    weight[0, 1, 0] = cr.CLIPPED_WEIGHT
    out = cr.decode_edges(labels, dist, is_tile, rim_dist, rim_known, weight=weight)
    assert out[0, 1, 0] == 1


def test_a_clipped_triangle_gives_way_to_its_unclipped_neighbour_across_the_edge():
    n, K = 3, 4
    is_tile = np.zeros((n, n), bool)
    is_tile[1, 0] = is_tile[1, 1] = True
    dist = np.full((n, n, 4, K), 2.0)
    dist[1, 0, 1] = [2.0, 0.9, 0.0, 2.0]   # east side of (1, 0): green, clipped
    dist[1, 1, 3] = [2.0, 0.0, 0.6, 2.0]   # west side of (1, 1): yellow, clean
    labels = np.argmin(dist, axis=-1)
    rim_dist = np.ones((4, n, K))
    joint = cr.decode_edges(labels, dist, is_tile, rim_dist)
    assert joint[1, 0, 1] == joint[1, 1, 3] == 2
    weight = np.ones((n, n, 4))
    weight[1, 0, 1] = cr.CLIPPED_WEIGHT
    out = cr.decode_edges(labels, dist, is_tile, rim_dist, weight=weight)
    assert out[1, 0, 1] == out[1, 1, 3] == 1


def test_clipped_yellows_between_yellow_and_green_stay_yellow():
    # Lab-like features: glare-clipped yellow triangles lie between the yellow and the
    # green cluster (the lost red channel turns them greenish), half of them seeded green
    rng = np.random.default_rng(5)

    def blob(centre, k):
        return np.asarray(centre, float) + rng.standard_normal((k, 3))

    yellow, clipped_yellow, green = blob((0, 20, 0), 20), blob((5, 20, 0), 16), blob(
        (10, 20, 0), 20)
    red, blue = blob((0, -20, 0), 20), blob((0, 0, 20), 20)
    feats = np.concatenate([red, yellow, clipped_yellow, green, blue])
    truth = np.repeat([0, 1, 1, 2, 3], [20, 20, 16, 20, 20])
    init = truth.copy()
    init[40:48] = 2
    clipped = np.zeros(len(feats))
    clipped[40:56] = 1.0   # the camera clipped them ...
    clipped[0:10] = 1.0    # ... and some reds (a warm lamp clips red plastic too)
    plain = cr.colour_posteriors(feats, init).argmax(axis=1)
    assert (plain[40:56] == 2).sum() >= 12       # without the clipping: read green
    got = cr.colour_posteriors(feats, init, clipped=clipped).argmax(axis=1)
    assert (got == truth).all()


def test_glare_free_features_ignore_the_lamps_glare():
    # a highlight adds the lamp's colour: after the print balance the same in every
    # channel, so the channel differences (over the light) stay as they were
    rng = np.random.default_rng(7)
    n = 3
    gain = np.array([1.8, 0.8, 0.4])
    light = 0.7 + 0.3 * rng.random((n, n))
    albedo = rng.random((n, n, 4, 3))
    local = (PRINT / PRINT.mean() * light[..., None]) * gain
    tri = albedo * light[..., None, None] * gain
    glare = 0.5 * rng.random((n, n, 4, 1))
    base = cr.glare_free_features(tri, gain, local)
    lit = cr.glare_free_features(tri + glare * gain, gain, local)
    assert np.allclose(base, lit)
    # and they are the albedo's differences, whatever the light
    want = np.stack([albedo[..., 0] - albedo[..., 1], albedo[..., 2] - albedo[..., 1]], -1)
    assert np.allclose(base, want)


def test_clipped_seeds_do_not_widen_a_colour_in_the_glare_free_mixture():
    # a hot spot: blues with red clipped (R − G seen too low), their B − G paled by the
    # glare, seeded red as the Lab mixture reads them; red-clipped reds beside them
    rng = np.random.default_rng(5)

    def blob(centre, k, sd=0.03):
        return np.asarray(centre, float) + sd * rng.standard_normal((k, 2))

    feats = np.concatenate([blob((0.7, 0.0), 20), blob((0.3, -0.7), 20),
                            blob((-0.4, -0.3), 20), blob((-0.1, 0.5), 20),
                            blob((0.3, 0.02), 10), blob((-0.2, 0.4), 10)])
    truth = np.repeat([0, 1, 2, 3, 0, 3], [20, 20, 20, 20, 10, 10])
    init = truth.copy()
    init[90:] = 0
    red_clipped = np.zeros(len(feats), bool)
    red_clipped[80:] = True
    got = cr.glare_free_posteriors(feats, init, red_clipped).argmax(axis=1)
    assert (got == truth).all()


def test_red_clipped_yellows_are_not_taken_for_green():
    # (R − G, B − G) clusters of the four plastics; glare-washed yellows lost red (the
    # camera clipped it), so their R − G reads as low as green's, and they are seeded
    # green (as the Lab mixture reads them)
    rng = np.random.default_rng(3)

    def blob(centre, k):
        return np.asarray(centre, float) + 0.03 * rng.standard_normal((k, 2))

    feats = np.concatenate([blob((0.7, 0.0), 20), blob((0.3, -0.7), 20),
                            blob((-0.4, -0.55), 12), blob((-0.4, -0.3), 20),
                            blob((-0.1, 0.5), 20)])
    truth = np.repeat([0, 1, 1, 2, 3], [20, 20, 12, 20, 20])
    init = truth.copy()
    init[40:46] = 2
    red_clipped = np.zeros(len(feats), bool)
    red_clipped[40:52] = True
    got = cr.glare_free_posteriors(feats, init, red_clipped).argmax(axis=1)
    assert (got == truth).all()
    # taken at face value (not censored) their R − G says green
    plain = cr.glare_free_posteriors(feats, init, np.zeros(len(feats), bool)).argmax(axis=1)
    assert (plain[40:52] == 2).all()
    # too few seeds of a colour: no mixture
    assert cr.glare_free_posteriors(feats[:60], init[:60], red_clipped[:60]) is None


def test_a_glare_washed_tile_is_a_tile_but_print_and_a_joker_are_not():
    tri, centre, light = _board()
    # a multi-colour tile beside (2, 4) under a lamp's highlight: the lamp's colour (the
    # print's, here) added on top until it is hardly coloured against the print
    washed, joker = (3, 4), (1, 3)
    _put(tri, centre, light, washed, [PLASTIC[k] for k in "RYGB"])
    tri[washed] += 4.0 * PRINT * light[washed]
    _put(tri, centre, light, joker, np.full(3, 0.75) * 1.3)
    centre[washed] = tri[washed].mean(axis=0)
    gain = cr.white_balance(tri, centre)
    local, _ = cr.print_field(tri, centre, gain)
    tn = tri / local[:, :, None, :]
    sat = (tn.max(-1) - tn.min(-1)) / tn.max(-1)
    score = np.sort(sat, axis=-1)[..., -2:].mean(axis=-1)
    thr = cr.tile_threshold(score)
    is_tile = score > thr
    assert not is_tile[washed] and score[washed] > cr.WASHED_SCORE * thr
    got = cr.washed_tiles(tri, gain, local, score, thr, is_tile)
    assert set(zip(*np.nonzero(got), strict=True)) == {washed}
    # away from every tile (placed tiles touch) it is not taken
    far = is_tile.copy()
    far[2, 3:5] = False
    assert not cr.washed_tiles(tri, gain, local, score, thr, far)[washed]


def _lit_board(spot_gain: float, n: int = 9, seed: int = 0):
    """``tri``, ``centre`` of a print board with tiles at (2, 3), (2, 4) and (6, 6), lit
    by a smooth light plus a lamp's hot spot (a Gaussian of ``spot_gain`` at cell (6, 7),
    1.2 cells wide), the light taken where each triangle lies."""
    rng = np.random.default_rng(seed)
    r, c = np.mgrid[0:n, 0:n].astype(float)
    off = np.array([(-0.25, 0.0), (0.0, 0.25), (0.25, 0.0), (0.0, -0.25)])  # N E S W
    tr = r[..., None] + off[:, 0]
    tc = c[..., None] + off[:, 1]
    light = (1.0 + 0.3 * tc / (n - 1)) * (1.0 + spot_gain * np.exp(
        -((tr - 6) ** 2 + (tc - 7) ** 2) / (2 * 1.2 ** 2)))          # (n, n, 4)
    tri = PRINT * light[..., None] * (1.0 + 0.01 * rng.standard_normal((n, n, 4, 3)))
    _place_tiles(tri, light, {(2, 3): "RYGB", (2, 4): "BYRG", (6, 6): "GGYR"})
    return tri, light


def _place_tiles(tri, light, tiles):
    """Lay ``tiles`` (``{(row, col): NESW code}``) on ``tri`` in place, each triangle the
    plastic's colour under ``light`` where it lies."""
    for (rr, cc), code in tiles.items():
        for k, letter in enumerate(code):
            tri[rr, cc, k] = np.array(PLASTIC[letter]) * light[rr, cc, k]


def _jokers_with_steps(tri, steps=True, shade=None):
    """The jokers :func:`find_jokers` finds on ``tri``; with ``steps`` False without the
    border steps (``tri`` not passed), i.e. by the tint rule alone; ``shade`` as in
    :func:`find_jokers`."""
    centre = tri.mean(axis=2)
    local, loo = cr.print_field(tri, centre, cr.white_balance(tri, centre))
    tn = tri / local[:, :, None, :]
    sat = (tn.max(-1) - tn.min(-1)) / tn.max(-1)
    score = np.sort(sat, axis=-1)[..., -2:].mean(axis=-1)
    is_tile = score > cr.tile_threshold(score)
    found = cr.find_jokers(tn, centre, loo, is_tile, tri=tri if steps else None,
                           shade=shade)
    return {(r, c) for _, r, c in found}


def test_a_joker_of_the_prints_tint_steps_up_at_its_border_a_hot_spot_does_not():
    # white plastic of nearly the print's tint, 12 % lighter, beside a tile: no tint
    # cue and not far lighter, but a step up against the print beside it
    tri, light = _lit_board(0.0)
    joker = (6, 7)
    tri[joker] = PRINT * 1.12 * light[joker][:, None]
    assert _jokers_with_steps(tri) == {joker}
    # without the step (the triangles not given) it is read as print
    centre = tri.mean(axis=2)
    local, loo = cr.print_field(tri, centre, cr.white_balance(tri, centre))
    tn = tri / local[:, :, None, :]
    sat = (tn.max(-1) - tn.min(-1)) / tn.max(-1)
    score = np.sort(sat, axis=-1)[..., -2:].mean(axis=-1)
    assert cr.find_jokers(tn, centre, loo, score > cr.tile_threshold(score)) == []
    # a lamp's hot spot lighting that print cell 30 % up brightens both sides of its
    # borders alike: no joker
    tri, _ = _lit_board(0.3)
    assert _jokers_with_steps(tri) == set()


def test_two_jokers_side_by_side_are_no_print_to_each_other():
    # two white slabs of the print's tint, 13 % lighter, side by side beside a tile:
    # each steps up against the plain print around it but is flat against the other,
    # and each is as light as the other (a lamp's hot spot lights its neighbours too):
    # the other joker is no plain print to test the step and the hot spot against
    tri, light = _lit_board(0.0)
    pair = {(6, 7), (5, 7)}
    for cell in pair:
        tri[cell] = PRINT * 1.13 * light[cell][:, None]
    plain = np.ones(tri.shape[:2], bool)
    plain[2, 3:5] = plain[6, 6] = False
    step = cr.edge_steps(tri, plain)
    assert abs(step[6, 7, 0]) < cr.JOKER_MIN_STEP < cr.JOKER_STEP < step[6, 7, 1]
    assert _jokers_with_steps(tri) == pair
    # one slab alone is found as before; a lamp's hot spot (two cells lit alike, no
    # step at their borders) is still none
    tri, light = _lit_board(0.0)
    tri[6, 7] = PRINT * 1.13 * light[6, 7][:, None]
    assert _jokers_with_steps(tri) == {(6, 7)}
    tri, _ = _lit_board(0.3)
    assert _jokers_with_steps(tri) == set()


def test_a_joker_half_way_by_its_step_and_by_its_tint_is_found():
    # white plastic 7 % lighter than the print (a step below JOKER_STEP) and 0.1 off its
    # tint (below JOKER_TINT), beside a tile: neither cue alone takes it, both do
    tri, light = _lit_board(0.0)
    cell = (6, 7)
    tint = np.exp(np.array([-0.05, 0.0, 0.05]))             # bluer than the print
    tri[cell] = PRINT * tint * 1.07 * light[cell][:, None]
    assert _jokers_with_steps(tri) == {cell}
    # the step alone (the print's tint) or the tint alone (flat against the print): none
    tri[cell] = PRINT * 1.07 * light[cell][:, None]
    assert _jokers_with_steps(tri) == set()
    tri[cell] = PRINT * tint * light[cell][:, None]
    assert _jokers_with_steps(tri) == set()


def test_edge_steps_follow_a_smooth_light_and_see_a_raised_slab():
    tri, light = _lit_board(0.3)
    plain = np.ones(tri.shape[:2], bool)
    plain[2, 3:5] = plain[6, 6] = False
    step = cr.edge_steps(tri, plain)
    assert np.isnan(step[0, :, 0]).all() and np.isnan(step[6, 5, 1])   # field edge, tile
    quiet = np.isfinite(step) & plain[..., None]
    assert np.abs(step[quiet]).max() < 0.8 * cr.JOKER_STEP  # (noise and curvature)
    tri[4, 4] = tri[4, 4] * 1.2
    assert (cr.edge_steps(tri, plain)[4, 4] > np.log(1.2) - 0.08).all()


def _scores(tri_n):
    sat = (tri_n.max(-1) - tri_n.min(-1)) / tri_n.max(-1)
    score = np.sort(sat, axis=-1)[..., -2:].mean(axis=-1)
    thr = cr.tile_threshold(score)
    return score, thr, score > thr


def test_a_glare_washed_one_colour_tile_is_a_tile_but_tinted_print_and_white_are_not():
    rng = np.random.default_rng(3)
    n = 9
    tri_n = 1.0 + 0.01 * rng.standard_normal((n, n, 4, 3))   # print over the local print
    for (r, c), code in {(2, 3): "RYGB", (2, 4): "BYRG", (6, 6): "GGYR"}.items():
        for k, letter in enumerate(code):
            tri_n[r, c, k] = np.array(PLASTIC[letter]) / PRINT
    washed_blue = np.array([0.70, 0.72, 0.95])               # blue paled by a highlight
    tri_n[3, 4] = washed_blue                               # beside the tile at (2, 4)
    tri_n[8, 1:4] = washed_blue                             # a lamp's tint on a patch of print
    tri_n[1, 3] = 1.3                                       # white, lighter: no tile
    score, thr, is_tile = _scores(tri_n)
    assert not is_tile[3, 4] and score[3, 4] >= cr.WASHED_SCORE * thr   # below the split
    got = cr.washed_solid_tiles(tri_n, score, thr, is_tile)
    assert set(zip(*np.nonzero(got), strict=True)) == {(3, 4)}
    # enclosed by tiles there is no plain cell to stand out from: not taken
    around = is_tile.copy()
    around[4, 4] = around[3, 3] = around[3, 5] = True
    assert not cr.washed_solid_tiles(tri_n, score, thr, around)[3, 4]
    # away from every tile and the edge (placed tiles touch): not taken
    alone = is_tile.copy()
    alone[2, 3:5] = False
    assert not cr.washed_solid_tiles(tri_n, score, thr, alone)[3, 4]


def test_a_tinted_cell_flat_against_the_print_beside_it_is_no_joker():
    # white-ish, as light as the print but of another tint (what the tint rule takes),
    # beside a tile and plain print: flat at its borders, so print under a tinted light
    tri, light = _lit_board(0.0)
    cell = (6, 7)
    tri[cell] = np.full(3, PRINT.mean()) * light[cell][:, None]
    assert _jokers_with_steps(tri, steps=False) == {cell}
    assert _jokers_with_steps(tri) == set()
    # the same tint standing up from the print at its borders is a joker
    tri[cell] = tri[cell] * 1.15
    assert _jokers_with_steps(tri) == {cell}


def test_a_tinted_white_cell_with_one_plain_neighbour_is_a_joker_even_when_flat():
    # on the base row between two tiles, one plain print cell north of it: white plastic
    # as light as the print (the tint rule takes it) is flat against that one print cell
    # (a tile's shadow on its far triangle flattens such a step; here it is 3 % lighter,
    # below the step rule's JOKER_STEP_RATIO); one flat side does not
    # veto the tint, two do (test above)
    tri, light = _lit_board(0.0)
    cell = (8, 4)
    _place_tiles(tri, light, {(8, 3): "RYGB", (8, 5): "BYRG"})
    tri[cell] = np.full(3, 0.55) * light[cell][:, None]     # white, 3 % over the print
    plain = np.ones(tri.shape[:2], bool)
    plain[2, 3:5] = plain[6, 6] = plain[8, 3] = plain[8, 5] = plain[cell] = False
    step = cr.edge_steps(tri, plain)[cell]
    assert np.isfinite(step).sum() == 1 and np.nanmax(step) < cr.JOKER_MIN_STEP
    assert _jokers_with_steps(tri) == {cell}
    # with a second plain side, flat too, it is print under a tinted light
    tri[8, 5] = PRINT * light[8, 5][:, None]
    assert _jokers_with_steps(tri) == set()


def test_a_joker_stays_a_joker_when_a_tiles_shadow_darkens_the_print_beyond_one_side():
    # a white slab 28 % lighter than the print, of its tint, beside a tile (west); east
    # of it plain print whose far (east) triangle lies in the cast shadow of a tile
    # beyond: extrapolated across the border, that print seems to rise to the joker's
    # level (step about 0). It steps up against the print on its other sides, so it is a
    # raised slab, not flat print.
    tri, light = _lit_board(0.0)
    joker = (4, 5)
    _place_tiles(tri, light, {(4, 4): "GGYR", (4, 7): "RRBB"})
    tri[4, 6, 1] *= 0.78                                   # the tile's shadow
    tri[joker] = PRINT * 1.28 * light[joker][:, None]
    plain = np.ones(tri.shape[:2], bool)
    plain[2, 3:5] = plain[6, 6] = plain[4, 4] = plain[4, 7] = plain[joker] = False
    step = cr.edge_steps(tri, plain)[joker]
    assert abs(step[1]) < cr.JOKER_MIN_STEP and step[0] > cr.JOKER_STEP
    assert _jokers_with_steps(tri) == {joker}


def test_border_shade_sees_a_shadow_along_one_side():
    from vision.colomino_field import CELL, MARGIN_CELLS

    n = 3
    canon = np.full(((n + 2 * MARGIN_CELLS) * CELL,) * 2 + (3,), 180, np.uint8)
    m = MARGIN_CELLS * CELL
    canon[m + CELL:m + CELL + CELL // 6, m + CELL:m + 2 * CELL] = 90   # north band of (1, 1)
    shade = cr.border_shade(canon, n)
    assert shade[1, 1] < 0.6 and np.allclose(np.delete(shade.ravel(), 4), 1.0)


def test_a_light_cell_enclosed_by_tiles_is_a_joker_only_without_their_shadow():
    tri, light = _lit_board(0.0)
    joker = (4, 5)
    _place_tiles(tri, light, {(3, 5): "RYGB", (5, 5): "BYRG", (4, 4): "GGYR", (4, 6): "YBBR"})
    tri[joker] = PRINT * 1.2 * light[joker][:, None]       # lighter, the print's tint

    def found(shade):
        return _jokers_with_steps(tri, shade=shade)
    flat = np.ones(tri.shape[:2])
    assert found(flat) == {joker}
    shaded = flat.copy()
    shaded[joker] = 0.7          # a tile's cast shadow along one side: an empty cell
    assert found(shaded) == set()
    assert found(None) == set()  # no other cue tells it from a hot spot


def test_a_tile_paled_just_below_the_split_is_a_tile_when_far_above_the_plain_cells():
    rng = np.random.default_rng(5)
    score = np.clip(0.03 + 0.008 * rng.standard_normal((9, 9)), 0, 1)   # plain print
    score[2, 3:5] = 0.9                                                   # two tiles
    score[3, 4] = 0.27                  # paled below a split of 0.3
    is_tile = score > 0.3
    got = cr.pale_tiles(score, is_tile)
    assert set(zip(*np.nonzero(got), strict=True)) == {(3, 4)}
    # where the plain cells themselves spread (a lamp's coloured light on the print) the
    # same score is not far enough above them
    noisy = np.clip(0.08 + 0.05 * rng.standard_normal((9, 9)), 0, 0.3)
    noisy[2, 3:5] = 0.9
    noisy[3, 4] = 0.27
    assert not cr.pale_tiles(noisy, noisy > 0.3).any()


def test_label_posteriors_add_the_evidence_of_both_sides_of_an_edge():
    n, K = 3, 4
    is_tile = np.zeros((n, n), bool)
    is_tile[1, 0] = is_tile[1, 1] = True                   # two tiles side by side
    dist = np.full((n, n, 4, K), 3.0)
    dist[..., 0] = 0.0                                      # every triangle sure of red
    labels = np.zeros((n, n, 4), int)
    # the shared edge (E of (1, 0), W of (1, 1)): one side says red, the other blue
    # equally sure: a coin flip between the two
    dist[1, 1, 3] = [3.0, 3.0, 3.0, 0.0]
    p = cr.label_posteriors(labels, dist, is_tile)
    assert p[1, 0, 1] == pytest.approx(0.5, abs=0.01) and p[1, 1, 3] == p[1, 0, 1]
    assert p[1, 0, 0] > 0.99 and (p[~is_tile] == 1.0).all()
    # where both sides agree the joint evidence is surer than either side alone
    dist[1, 1, 3] = [0.4, 3.0, 3.0, 3.0]
    dist[1, 0, 1] = [0.4, 3.0, 3.0, 3.0]
    alone = np.exp(-0.4 / cr.POSTERIOR_SCALE)
    assert cr.label_posteriors(labels, dist, is_tile)[1, 0, 1] > 1 / (1 + 3 * alone)
    # the layout's rim marking adds to a triangle at the field's edge
    rim = np.full((4, n), -1)
    rim[3, 1] = 0                                           # west side, row 1: red
    dist[1, 0, 3] = [0.3, 0.3, 3.0, 3.0]
    without = cr.label_posteriors(labels, dist, is_tile)[1, 0, 3]
    assert cr.label_posteriors(labels, dist, is_tile, rim)[1, 0, 3] > without + 0.3


def test_pattern_classes_are_the_same_for_every_turn_and_differ_otherwise():
    a = np.array([[0, 0, 1, 3], [1, 3, 0, 0], [3, 0, 0, 1], [0, 1, 3, 0]])   # RRGB turned
    assert len(set(cr.pattern_classes(a).tolist())) == 1
    assert cr.pattern_classes(np.array([0, 1, 0, 3])) != cr.pattern_classes(a[0])  # RGRB


def test_set_limit_redecodes_the_least_sure_of_a_pattern_read_three_times():
    n, K = 5, 4
    is_tile = np.zeros((n, n), bool)
    cells = [(1, 1), (1, 3), (3, 1)]                   # three tiles apart, read RRGG
    for r, c in cells:
        is_tile[r, c] = True
    is_tile[3, 2] = True                               # a neighbour east of (3, 1)
    labels = np.zeros((n, n, 4), int)
    for r, c in cells:
        labels[r, c] = [0, 0, 2, 2]                    # R R G G (N E S W)
    labels[3, 2] = [1, 1, 1, 0]                        # YYYR: its W side meets (3, 1)'s E
    total = np.full((n, n, 4, K), 5.0)
    total[np.arange(n)[:, None, None], np.arange(n)[None, :, None], np.arange(4), labels] = 0.0
    # (3, 1): its east side nearly as well read blue (a glare-lit blue read red)
    total[3, 1, 1, 3] = 0.3
    total[3, 2, 3, 3] = 0.3
    conf = np.where(is_tile, 1.0, 1.0)
    conf[1, 1], conf[1, 3], conf[3, 1] = 0.999, 0.995, 0.4
    out, changed = cr.set_limit(labels, total, is_tile, conf)
    assert out[3, 1].tolist() == [0, 3, 2, 2]          # RBGG: the next best, allowed
    assert out[3, 2, 3] == 3                           # the neighbour matches across
    assert changed[3, 1] and changed[3, 2] and changed.sum() == 2
    assert (out[1, 1] == labels[1, 1]).all() and (out[1, 3] == labels[1, 3]).all()
    # twice is what the set holds: nothing to redecode; nor when all three are sure
    conf2 = conf.copy()
    conf2[3, 1] = 0.995
    assert not cr.set_limit(labels, total, is_tile, conf2)[1].any()
    two = is_tile.copy()
    two[1, 3] = False
    assert not cr.set_limit(labels, total, two, conf)[1].any()


def _three_rrgg_tiles(n, K):
    """Three tiles apart on an ``n`` x ``n`` board, each read RRGG (N E S W) by edge
    evidence (``total``, cost per triangle and colour of ``K``) that allows nothing else:
    the board's tile mask, its labels and its costs."""
    is_tile = np.zeros((n, n), bool)
    labels = np.zeros((n, n, 4), int)
    for r, c in [(1, 1), (1, 3), (3, 1)]:
        is_tile[r, c] = True
        labels[r, c] = [0, 0, 2, 2]
    total = np.full((n, n, 4, K), 5.0)
    total[np.arange(n)[:, None, None], np.arange(n)[None, :, None], np.arange(4), labels] = 0.0
    return is_tile, labels, total


def test_set_limit_redecodes_the_tile_giving_up_least_evidence_not_the_least_sure():
    # three tiles read RRGG, all stated below CONF_SET_SURE. The least sure one (0.5, a
    # tile just above the split) is read RRGG by evidence that allows nothing else; one
    # stated surer (0.9) has its east side nearly as well read blue (a glare-lit blue
    # read red). Least sure first would redecode the right tile; the evidence says the
    # surer one gives way (session 12, dev 12201 #12 and #30)
    n, K = 5, 4
    is_tile, labels, total = _three_rrgg_tiles(n, K)
    total[1, 3, 1, 3] = 0.3
    conf = np.ones((n, n))
    conf[1, 1], conf[1, 3], conf[3, 1] = 0.95, 0.9, 0.5
    out, changed = cr.set_limit(labels, total, is_tile, conf)
    assert changed.tolist() == (np.arange(n * n).reshape(n, n) == 1 * n + 3).tolist()
    assert out[1, 3].tolist() == [0, 3, 2, 2]                  # RBGG
    assert out[3, 1].tolist() == [0, 0, 2, 2]                  # the least sure kept


def test_set_limit_weighs_a_tile_read_whole_by_its_joint_colourings():
    # three tiles read RRGG; the least sure one's north and east triangles are both
    # nearly as well read blue. Edge by edge the cheapest allowed change is one edge;
    # its whole-tile reading (a glare-lit tile: both blues share its light and glare)
    # says the two go together: BBGG
    n, K = 5, 4
    is_tile, labels, total = _three_rrgg_tiles(n, K)
    total[3, 1, 0, 3] = total[3, 1, 1, 3] = 0.2
    conf = np.ones((n, n))
    conf[3, 1] = 0.4
    alone = cr.set_limit(labels, total, is_tile, conf)[0][3, 1].tolist()
    assert sorted(alone) == [0, 2, 2, 3]                       # one edge changed
    joint = np.full((n, n, K ** 4), np.nan)
    joint[3, 1] = 1e-4
    joint[3, 1, ((3 * K + 3) * K + 2) * K + 2] = 0.5           # BBGG
    joint[3, 1, ((0 * K + 0) * K + 2) * K + 2] = 0.5           # RRGG (held twice)
    whole = cr.set_limit(labels, total, is_tile, conf, own=total, joint=joint)[0]
    assert whole[3, 1].tolist() == [3, 3, 2, 2]


def test_cell_confidences_are_unsure_near_the_tile_split_and_on_a_misfitted_grid():
    n = 4
    colour_p = np.ones((n, n, 4))
    z = np.full((n, n), -20.0)                      # plain print, far below the split
    is_tile = np.zeros((n, n), bool)
    is_tile[0, :] = True
    z[0, :] = 20.0
    colour_p[0, 1, 2] = 0.6                         # one triangle's colour unsure
    z[0, 2] = 0.5                                   # just above the split
    z[3, 3] = -0.5                                  # just below it
    none = np.zeros((n, n), bool)
    joker = none.copy()
    joker[1, 0] = True
    conf = cr.cell_confidences(colour_p, z, is_tile, none, none, joker, none, 0)
    assert conf[0, 0] > 0.99 and conf[2, 2] > 0.99          # a sure tile, sure print
    assert conf[0, 1] == pytest.approx(0.6, abs=0.01)        # as sure as its colours
    assert conf[0, 2] < 0.7 and conf[3, 3] < 0.7              # either side of the split
    assert conf[1, 0] == cr.CONF_JOKER
    washed = none.copy()
    washed[0, 0] = True
    assert cr.cell_confidences(colour_p, z, is_tile, washed, none, joker, none, 0)[
        0, 0] <= cr.CONF_WASHED
    # rim markings read against the layout: the grid is likely off, nothing is sure
    off = cr.cell_confidences(colour_p, z, is_tile, none, none, joker, none, 8)
    assert off.max() <= 0.1 and off.min() >= 0.05
    assert cr.cell_confidences(colour_p, z, is_tile, none, none, joker, none, 1)[
        0, 0] == conf[0, 0]


def test_a_glare_lit_tile_is_read_whole_its_triangles_sharing_light_and_glare():
    # prototypes (balanced green, blue over the print level) of R, Y, G, B
    proto = np.array([[0.05, 0.05], [0.55, 0.03], [0.30, 0.07], [0.10, 0.50]])
    truth = [2, 1, 2, 0]                                   # G Y G R
    a, glare = 0.8, np.array([0.45, 0.40])                 # dimmer light, strong glare
    gb = (a * proto[truth] + glare)[None]                  # (1, 4, 2)
    # each triangle alone, judged against the unlit prototypes, looks like yellow or
    # blue (the glare lifts them all); its own reading is the prior: unsure, wrong
    prior = np.full((1, 4, 4), 0.25)
    prior[0, :, 1] = 0.4
    prior /= prior.sum(-1, keepdims=True)
    post = cr.cell_glare_posteriors(gb, proto, prior, sigma=0.02)
    assert post[0].argmax(axis=-1).tolist() == truth
    # a one-colour tile fits any colour: the triangles' own reading decides
    one = (a * proto[[3, 3, 3, 3]] + glare)[None]
    prior_b = np.full((1, 4, 4), 0.1)
    prior_b[0, :, 3] = 0.7
    assert (cr.cell_glare_posteriors(one, proto, prior_b).argmax(-1) == 3).all()


def _glare_lit_row(cells):
    """``(tri (1, C, 4, 3), local (1, C, 3), gain (3,))`` of a row of ``C`` tile cells
    (``cells``: colour indices R, Y, G, B per triangle, NESW) at print level 0.5: each
    triangle's balanced green and blue from the colour prototypes (red 0.3 of the level),
    cell 4 lit by glare (0.8 of its colours plus a light's green and blue)."""
    proto = np.array([[0.05, 0.05], [0.55, 0.03], [0.30, 0.07], [0.10, 0.50]])
    gb = np.array([[proto[k] for k in cell] for cell in cells])       # (cells, 4, 2)
    gb[4] = 0.8 * gb[4] + [0.45, 0.40]                                # glare on the tile
    level = 0.5
    tri = np.zeros((1, len(cells), 4, 3))
    tri[0, :, :, 1:] = gb * level
    tri[0, :, :, 0] = 0.3 * level
    return tri, np.full((1, len(cells), 3), level), np.ones(3)


def test_glare_lit_tiles_are_read_whole_but_a_one_colour_cell_is_kept_as_read():
    # a board of tile triangles: one unclipped tile of each colour gives the prototypes
    # (yellow only with red clipped, as under a warm lamp: its green and blue still
    # tell), then a glare-lit GYGR tile misread YYGY and a printed yellow field
    cells = [[0] * 4, [1] * 4, [2] * 4, [3] * 4, [2, 1, 2, 0], [1] * 4]
    n_cells = len(cells)
    tri, local, gain = _glare_lit_row(cells)
    clip = np.zeros((1, n_cells, 4, 3))
    clip[0, [1, 4, 5], :, 0] = 1.0                                    # red clipped
    read = [[0] * 4, [1] * 4, [2] * 4, [3] * 4, [1, 1, 2, 1], [1] * 4]
    post = np.full((n_cells * 4, 4), 0.1)
    post[np.arange(n_cells * 4), np.ravel(read)] = 0.7
    post[16:20] = np.where(post[16:20] > 0.5, 0.4, 0.2)              # the glare: unsure
    on = np.ones((1, n_cells, 4), bool)
    fit = np.ones(n_cells * 4, bool)
    out = cr._cells_under_glare(post, tri, gain, local, clip, on, fit).argmax(-1)
    assert out.reshape(n_cells, 4)[4].tolist() == [2, 1, 2, 0]       # read whole: right
    assert out.reshape(n_cells, 4)[5].tolist() == [1] * 4             # kept as read
    # the joint posterior of every tile's colourings, for the set limit: handed back for
    # each tile (read whole or not), the answer itself unchanged
    stash: dict = {}
    again = cr._cells_under_glare(post, tri, gain, local, clip, on, fit, stash)
    joint = cr.joint_colourings(stash, (1, n_cells))
    assert np.array_equal(again.argmax(-1), out) and np.isfinite(joint).all()
    assert np.allclose(joint.sum(-1), 1.0)
    assert joint[0, 4].argmax() == ((2 * 4 + 1) * 4 + 2) * 4 + 0     # GYGR


def test_prototypes_from_differences_within_tiles_do_not_take_each_colours_glare():
    # the colours' balanced green and blue, red at 0; tiles with yellow in them sit in a
    # lamp's glare (a warm lamp clips red elsewhere), blue ones in the shade: each
    # colour's own median would carry its tiles' glare, differences within a tile do not
    proto = np.array([[0.0, 0.0], [0.9, -0.03], [0.45, 0.02], [0.05, 0.6]])
    rng = np.random.default_rng(3)
    lab = np.array([[0, 1, 0, 1]] * 10 + [[0, 2, 0, 3]] * 10 + [[1, 2, 1, 3]] * 10)
    glare = np.where((lab == 1).any(axis=1), 0.8, 0.1)[:, None] * np.array([1.0, 0.9])
    light = rng.uniform(0.9, 1.1, (len(lab), 1, 1))
    gb = light * proto[lab] + glare[:, None, :] + 0.01 * rng.standard_normal((30, 4, 2))
    ok = np.ones(lab.shape, bool)
    got = cr.tile_prototypes(gb, lab, ok, 4)
    assert got is not None
    assert np.abs((got - got[0]) - proto).max() < 0.06
    # each colour's median is pulled by its tiles' glare: yellow's lies far off
    medians = np.array([np.median(gb[lab == k], axis=0) for k in range(4)])
    assert np.abs((medians - medians[0]) - proto).max() > 0.2
    # a colour never seen beside another in enough tiles: no prototypes
    assert cr.tile_prototypes(gb[:10], lab[:10], ok[:10], 4) is None
    # red beside yellow and green beside blue only: the two pairs are not linked up
    apart = np.array([[0, 1, 0, 1]] * 5 + [[2, 3, 2, 3]] * 5)
    assert cr.tile_prototypes(proto[apart], apart, np.ones(apart.shape, bool), 4) is None


def test_tiles_not_linked_to_the_base_line_are_dropped_unless_near_or_sure():
    n = 9
    occ = np.zeros((n, n), bool)
    occ[6:, 4] = True                       # a column of tiles up from the base line
    printed = np.zeros((n, n), bool)
    printed[4, 4] = True                    # an uncovered printed field in the gap
    occ[0, 0:3] = True                      # a lamp's hot spot on the far rim, read as tiles
    occ[2, 4] = True                        # a tile 3 empty cells above the column: kept
    sure = np.zeros((n, n), bool)
    out = cr.unlinked_cells(occ, printed, sure)
    assert out[0, 0:3].all() and out.sum() == 3
    # a group with a surely read tile is kept (real tiles beyond a shadow band)
    sure[0, 1] = True
    assert not cr.unlinked_cells(occ, printed, sure).any()
    # nothing reaches the base line: the base row was misread, nothing is dropped
    occ_nb = occ.copy()
    occ_nb[-1] = False
    assert not cr.unlinked_cells(occ_nb, printed, np.zeros((n, n), bool)).any()
    # more cells unlinked than linked: nothing is dropped either
    occ_big = occ.copy()
    occ_big[0, :] = True
    assert not cr.unlinked_cells(occ_big, printed, np.zeros((n, n), bool)).any()


def test_a_tile_with_one_red_clipped_triangle_is_read_whole():
    # as above, but only the glare-lit tile's yellow triangle has its red clipped: its
    # three unclipped triangles fix the tile's light and glare, and so the yellow's colour
    cells = [[0] * 4, [1] * 4, [2] * 4, [3] * 4, [2, 1, 3, 0]]
    n_cells = len(cells)
    tri, local, gain = _glare_lit_row(cells)
    clip = np.zeros((1, n_cells, 4, 3))
    clip[0, 1, :, 0] = 1.0                                            # yellows: red clipped
    clip[0, 4, 1, 0] = 1.0                                            # the tile's yellow
    post = np.full((n_cells * 4, 4), 0.1)
    post[np.arange(n_cells * 4), np.ravel(cells)] = 0.7
    post[17] = [0.2, 0.3, 0.4, 0.1]                                   # yellow misread green
    on = np.ones((1, n_cells, 4), bool)
    fit = np.ones(n_cells * 4, bool)
    out = cr._cells_under_glare(post, tri, gain, local, clip, on, fit).argmax(-1)
    assert out.reshape(n_cells, 4)[4].tolist() == [2, 1, 3, 0]
    # an unclipped triangle of that tile misread by its own reading (a cool lamp's glare
    # turns a green's direction towards blue) is read whole too, its reading the prior
    post[16] = [0.1, 0.1, 0.35, 0.45]                                 # green misread blue
    again = cr._cells_under_glare(post, tri, gain, local, clip, on, fit)
    assert again.reshape(n_cells, 4, 4)[4].argmax(-1).tolist() == [2, 1, 3, 0]
    assert again[16, 2] > 0.9
    # a tile without red clipped keeps its reading
    assert np.array_equal(again[12:16], post[12:16])


def test_a_washed_tile_of_alternating_colours_is_no_joker_a_glare_gradient_is():
    tri, centre, light = _board()
    # a YGYG tile beside (2, 4) under a lamp's highlight (the print's colour added on top)
    # until its triangles differ by less than JOKER_SPREAD; a joker beside (6, 6) with a
    # glare gradient across it (north lightest, south darkest)
    washed, joker = (3, 4), (6, 7)
    _put(tri, centre, light, washed, [PLASTIC[k] for k in "YGYG"])
    tri[washed] += 6.0 * PRINT * light[washed]
    centre[washed] = tri[washed].mean(axis=0)
    _put(tri, centre, light, joker, np.full(3, 0.75) * 1.3)
    tri[joker] += np.array([0.6, 0.3, 0.0, 0.3])[:, None] * PRINT * light[joker]
    centre[joker] = tri[joker].mean(axis=0)
    chrom = tri / tri.sum(-1, keepdims=True)
    spread = (chrom.max(axis=2) - chrom.min(axis=2)).max(-1)
    pairs = cr.opposite_pairs(chrom)
    assert spread[washed] < cr.JOKER_SPREAD < pairs[washed]
    assert pairs[joker] < 0.2 * cr.JOKER_SPREAD < spread[joker]
    assert _jokers(tri, centre) == {joker}


#: Lab hue angles (deg) and chroma weights of the coloured tile triangles then the rim
#: markings of dev photo 14201 hard #11 (orange yellow plastic, a true yellow ink).
_HUES_14201_11 = [
    16, 23, 52, 146, 151, 152, 151, 150, -71, 149, 53, 11, 11, 152, 149, 10, 15,
    160, -68, 55, 44, -64, 8, 8, -76, 151, 154, -73, 151, 148, 10, 149, -72, -71,
    -70, 159, 36, -65, 52, -69, -69, 53, 48, -69, 139, 55, 15, 53, 14, 145, 57, 144,
    -82, 152, 154, 152, -79, 48, -74, 153, 138, 14, 151, 14, 18, 57, 53, 17, 145,
    152, 150, 64, -67, -67, 6, 9, 49, 153, -70, -70, 57, 149, 149, 59, 63, 54, 10,
    149, 61, 154, -71, 47, -70, 165, -69, 3, -71, 44, -72, 154, -66, -70, -70, 53,
    161, 2, -72, -70, 10, 54, 55, 10, 141, 3, -70, 53, -78, 149, 55, 54, 92, 93, 92,
    91, -75, -67, 10, 150, 47, -68, 57, 55, 54, 10, 150, 148, 18, 22, 23, 20, 48,
    -67, 11, 8, -71, -71, -70, -71, -71, 147, 8, 53, 20, 162, -71, 154, 153, 153,
    152, 153, 55, -75, 150, 149, 47, 11, 9, -70, -74, -71, -71, -72, 18, 22, 23, 22,
    148, 58, 58, -72, 153, 153, 152, 152, 92, 20, -70, 154, 91, -71, 153, 22, -71,
    93, 23, 150, 22, 91, 151, -71, 151, 25, -70, 93, 25, 150, 93, -70, -70, 149, 92,
    24, -71, 92, 23, 149, 92, -70, 150, 23, 153, -71, 22, 91, 22, 150, 92, -71, 150,
    24, -70, 93,
]
_WEIGHTS_14201_11 = [
    20, 29, 27, 24, 30, 29, 28, 30, 34, 23, 30, 30, 24, 27, 26, 28, 31, 20, 37, 31,
    27, 36, 33, 31, 35, 28, 26, 38, 29, 25, 26, 23, 41, 43, 44, 24, 18, 34, 27, 37,
    42, 29, 25, 42, 24, 29, 29, 31, 21, 27, 29, 27, 29, 29, 27, 28, 29, 21, 39, 29,
    17, 24, 26, 25, 30, 33, 29, 30, 26, 29, 27, 28, 40, 42, 29, 32, 22, 23, 41, 43,
    30, 28, 28, 30, 29, 31, 29, 24, 28, 24, 40, 24, 35, 21, 40, 29, 35, 23, 40, 27,
    33, 43, 40, 28, 20, 27, 41, 44, 31, 33, 33, 30, 26, 28, 41, 30, 28, 29, 30, 33,
    44, 48, 47, 45, 36, 41, 29, 25, 25, 35, 31, 33, 30, 28, 27, 30, 30, 37, 41, 34,
    25, 38, 30, 31, 47, 49, 51, 48, 34, 25, 31, 33, 19, 22, 40, 26, 31, 35, 36, 32,
    26, 37, 30, 32, 27, 33, 31, 42, 37, 46, 50, 45, 29, 37, 42, 38, 27, 35, 33, 39,
    34, 35, 37, 35, 45, 41, 47, 29, 43, 47, 30, 41, 48, 48, 43, 39, 45, 52, 40, 52,
    41, 44, 55, 56, 46, 45, 57, 55, 54, 47, 57, 46, 53, 56, 45, 44, 56, 55, 45, 46,
    33, 49, 44, 50, 45, 40, 54, 53, 43, 46, 55, 59,
]


def test_hue_centres_split_an_orange_yellow_from_red_by_the_balanced_start():
    # the yellow plastic is orange (about 53 deg in Lab, red about 12), the rim's yellow
    # ink a true yellow (92 deg): from the nominal hues the oranges join red and the
    # yellow centre sits on the ink (the photo's yellows were read red, 22 cells); the
    # balanced start splits red from orange and leaves the smaller spread
    deg = np.array(_HUES_14201_11, float)
    w = np.array(_WEIGHTS_14201_11, float)
    lab = np.zeros((len(deg), 3))
    lab[:, 1] = np.cos(np.radians(deg))
    lab[:, 2] = np.sin(np.radians(deg))
    orange = (deg > 40) & (deg < 70)
    red = (deg > 0) & (deg < 30)
    nominal = cr._hue_centres(lab[:0, 1:], w[:0])    # no hues: the nominal colours' own
    cent_nominal, _ = cr._kmeans_hues(np.radians(deg), w, nominal)
    assert (cr.classify_hues(lab, cent_nominal)[0][orange] == 0).mean() > 0.9
    got = cr.classify_hues(lab, cr._hue_centres(lab[:, 1:], w))[0]
    assert (got[orange] == 1).all() and (got[red] == 0).all()


def test_a_solid_cell_on_a_printed_field_is_the_print_whatever_colour_it_reads():
    # a tile on a printed field shows the printed colour on an edge (SPEC): a cell read
    # one colour there is the print, also when read in another colour (a yellow field
    # under a warm lamp read RRRR, dev 14200 #27); tiles of the print's colour and
    # solid cells off the printed fields stay tiles
    n = 5
    labels = np.zeros((n, n, 4), int)
    printed = np.full((n, n), -1)
    printed[1, 1] = printed[2, 2] = printed[3, 3] = 1            # yellow fields
    labels[2, 2] = [1, 0, 2, 3]                                  # YRGB on a yellow field
    labels[3, 3] = [1, 1, 1, 1]                                  # read YYYY
    is_tile = np.ones((n, n), bool)
    is_tile[4, 4] = False
    got = cr.solid_on_print(labels, printed, is_tile)
    assert set(zip(*np.nonzero(got), strict=True)) == {(1, 1), (3, 3)}   # RRRR, YYYY


def test_a_red_clipped_triangles_own_reading_gives_way_to_its_tile_read_whole(monkeypatch):
    # a glare-lit GYBB tile with red clipped all round (session 14: a warm lamp's glare
    # over a bluish print is yellow after the print's balance, so each blue's own
    # reading, which takes the glare as grey, says red at near certainty); read whole,
    # its light and glare fitted, the blues are blue: the own reading counts a fifth
    cells = [[0] * 4, [1] * 4, [2] * 4, [3] * 4, [2, 1, 3, 3]]
    n_cells = len(cells)
    tri, local, gain = _glare_lit_row(cells)
    clip = np.zeros((1, n_cells, 4, 3))
    clip[0, 1, :, 0] = 1.0                                            # yellows: red clipped
    clip[0, 4, :, 0] = 1.0                                            # the glare-lit tile
    post = np.full((n_cells * 4, 4), 0.1)
    post[np.arange(n_cells * 4), np.ravel(cells)] = 0.7
    post[18:20] = [1.0, 1e-5, 1e-5, 1e-5]                             # blues read red
    on = np.ones((1, n_cells, 4), bool)
    fit = np.ones(n_cells * 4, bool)
    out = cr._cells_under_glare(post, tri, gain, local, clip, on, fit).argmax(-1)
    assert out.reshape(n_cells, 4)[4].tolist() == [2, 1, 3, 3]
    # at its full weight the own reading outvotes the tile's fit (the former rule)
    monkeypatch.setattr(cr, "CELL_CLIPPED_PRIOR", 1.0)
    before = cr._cells_under_glare(post, tri, gain, local, clip, on, fit).argmax(-1)
    assert before.reshape(n_cells, 4)[4].tolist() == [2, 1, 0, 0]


def _canonical_with_tiles(n: int, shift, codes: dict, seed: int = 0):
    """A canonical view (uint8 BGR, :data:`CELL` px a cell plus the rim) of beige print
    with grid lines and tiles whose four triangles are drawn moved by ``shift`` (dx, dy)
    px from their cells, as a raised slab seen at a slant (or ``shift(r, c)``, a tile's
    own)."""
    from vision.colomino_field import CELL, MARGIN_CELLS

    M = MARGIN_CELLS * CELL
    size = 2 * M + n * CELL
    img = np.zeros((size, size, 3), np.float64)
    img[:] = (190, 205, 215)          # BGR beige
    img[M::CELL, :] = img[:, M::CELL] = (120, 130, 140)
    bgr = {"R": (40, 30, 200), "Y": (20, 190, 240), "G": (60, 140, 30), "B": (180, 80, 25)}
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    for (r, c), code in codes.items():
        sh = shift(r, c) if callable(shift) else shift
        u = xx - (M + (c + 0.5) * CELL) - sh[0]
        v = yy - (M + (r + 0.5) * CELL) - sh[1]
        inside = (np.abs(u) < CELL / 2) & (np.abs(v) < CELL / 2)
        for mask, letter in zip((v < -np.abs(u), u > np.abs(v), v > np.abs(u),
                                 u < -np.abs(v)), code, strict=True):
            img[inside & mask] = bgr[letter]
    img += np.random.default_rng(seed).normal(0, 2, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("shift", [(2.0, -1.0), (-1.5, 2.5), (0.0, 0.0)])
def test_tile_offset_finds_where_the_tiles_triangles_lie(shift):
    n = 6
    codes = {(1, 1): "RYGB", (1, 2): "BGYR", (3, 4): "YRBG", (4, 2): "GGRB"}
    canon = _canonical_with_tiles(n, shift, codes)
    tiles = np.zeros((n, n), bool)
    for rc in codes:
        tiles[rc] = True
    dx, dy = cr.tile_offset(canon, n, tiles)
    assert abs(dx - shift[0]) < 0.6 and abs(dy - shift[1]) < 0.6
    assert cr.tile_offset(canon, n, np.zeros((n, n), bool)) == (0.0, 0.0)


def test_tiles_lying_off_their_cells_are_read_where_they_lie(monkeypatch):
    """Raised tiles seen at a slant lie shifted from their printed cells (here 3 px
    right and 2 up of a 24-px cell): read on the cells' own masks their triangles mix
    with their neighbours and the print, read at :func:`tile_offset` they do not."""
    n = 9
    rng = np.random.default_rng(3)
    codes = {(r, c): "".join(rng.choice(list("RYGB"), 4))
             for r in range(3, 8) for c in range(2, 7) if rng.random() < 0.6}
    canon = _canonical_with_tiles(n, (3.0, -2.0), codes)
    monkeypatch.setattr(cr, "locate_field", lambda image: (np.eye(3), n, 1.0, canon))

    def wrong() -> int:
        rows = cr.recognize(canon)["rows"]
        got = {(r, c): rows[r][c] for r in range(n) for c in range(n) if rows[r][c] != "."}
        return sum(got.get(k) != v for k, v in codes.items()) + len(set(got) - set(codes))

    assert wrong() == 0
    monkeypatch.setattr(cr, "TILE_SHIFT_MAX", 0)
    assert wrong() > 5


def test_tile_plane_follows_a_shift_changing_across_the_board():
    """The slant changes across the board, and so does the tiles' shift: each tile's
    own offset from a plane through the tiles' own best offsets."""
    n = 9
    rng = np.random.default_rng(5)
    codes = {(r, c): "".join(rng.choice(list("RYGB"), 4))
             for r in range(1, 8) for c in range(1, 8) if rng.random() < 0.5}

    def shift(r: int, c: int) -> tuple[float, float]:
        return 0.5 * c - 2.0, -1.0

    canon = _canonical_with_tiles(n, shift, codes)
    tiles = np.zeros((n, n), bool)
    for rc in codes:
        tiles[rc] = True
    dx, dy = cr.tile_offset(canon, n, tiles)
    offs = cr.tile_plane(canon, n, tiles, dx, dy)
    want = np.array([shift(r, c) for r, c in np.argwhere(tiles)])
    assert np.abs(offs - want).max() < 0.9      # pixel-sharp drawing: ~0.5 px plateaus
    cols = np.argwhere(tiles)[:, 1]
    assert abs(np.polyfit(cols, offs[:, 0], 1)[0] - 0.5) < 0.1     # dx grows with col
    assert abs(np.polyfit(cols, offs[:, 1], 1)[0]) < 0.1           # dy does not
