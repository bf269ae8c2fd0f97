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
