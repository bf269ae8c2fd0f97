"""The colour kernels (vision/colour.py) equal plain reference implementations bit for bit.

The references are the straightforward vector forms the kernels were first written in;
the kernels compute the same operations on the same numbers in a faster order of work, so
every answer of the CARIBO reader stays the same.
"""

from __future__ import annotations

import numpy as np
import pytest

from vision import colour


def ref_linear_to_lab(rgb):
    xyz = np.asarray(rgb, dtype=np.float64) @ colour._M_RGB2XYZ.T / colour._WHITE
    xyz = np.maximum(xyz, 0.0)
    eps = 216 / 24389
    f = np.where(xyz > eps, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    L = 116 * f[..., 1] - 16
    a = 500 * (f[..., 0] - f[..., 1])
    b = 200 * (f[..., 1] - f[..., 2])
    return np.stack([L, a, b], axis=-1)


def ref_weighted_dist2(lab, centres, l_weight=0.5):
    d = lab[..., None, :] - centres
    d[..., 0] *= l_weight
    cab = centres[:, 1:]
    cn = np.hypot(cab[:, 0], cab[:, 1])
    u = cab / np.maximum(cn, 1e-6)[:, None]
    radial = (d[..., 1:] * u).sum(axis=-1)
    s = 1.0 - (1.0 - colour.CHROMA_WEIGHT) * np.minimum(cn / 30.0, 1.0)
    return (d * d).sum(axis=-1) - radial * radial * (1.0 - s * s)


def ref_fit_lights(obs, refs, ref_lab, chroma, starts, exposure_hint, iterations):
    def clamp(e):
        if exposure_hint is None:
            return e
        return np.clip(e, 0.5 * exposure_hint, 2.0 * exposure_hint)

    ref_sum = np.median((refs[None] * chroma[:, None]).sum(axis=2), axis=1)
    expo = clamp(float(np.median(obs.sum(1))) / np.maximum(ref_sum, 1e-6))
    if exposure_hint is not None and starts:
        expo = np.concatenate([expo, *(np.full(len(chroma), exposure_hint * f)
                                       for f in starts)])
        chroma = np.tile(chroma, (1 + len(starts), 1))
    for _ in range(iterations):
        gain = chroma * expo[:, None]
        d2 = ref_weighted_dist2(ref_linear_to_lab(obs[None] / gain[:, None]), ref_lab)
        labels = np.argmin(d2, axis=2)
        target = refs[labels] * chroma[:, None]
        w = np.where(labels == 1, 0.2, 1.0)[..., None]
        expo = clamp((w * obs[None] * target).sum(axis=(1, 2))
                     / np.maximum((w * target * target).sum(axis=(1, 2)), 1e-12))
    gains = chroma * expo[:, None]
    d2 = ref_weighted_dist2(ref_linear_to_lab(obs[None] / gains[:, None]), ref_lab)
    cost = np.minimum(np.sqrt(d2.min(axis=2)), 25.0).sum(axis=1)
    return gains, cost


def _obs(rng, n, light=(1.0, 1.0, 1.0), expo=0.6):
    """``n`` segment colours: nominal paints under a light, with noise and some outliers."""
    refs = colour.nominal_paints_linear()
    labels = rng.integers(0, 6, n)
    obs = refs[labels] * np.asarray(light) * expo * rng.uniform(0.8, 1.2, (n, 3))
    obs[: n // 10] = rng.uniform(0, 1, (n // 10, 3))  # outliers
    return np.maximum(obs, 1e-5)


@pytest.mark.parametrize("shape", [(3,), (50, 3), (7, 40, 3), (2, 3, 5, 3)])
def test_linear_to_lab_equals_reference(shape):
    rng = np.random.default_rng(len(shape))
    rgb = rng.uniform(-0.05, 1.3, shape)
    rgb.reshape(-1)[:: 7] *= 1e-3  # below the linear segment's threshold
    np.testing.assert_array_equal(colour.linear_to_lab(rgb), ref_linear_to_lab(rgb))


def test_linear_to_lab_known_values():
    lab = colour.linear_to_lab(np.array([[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]))
    np.testing.assert_allclose(lab[0], [100.0, 0.0, 0.0], atol=1e-3)
    np.testing.assert_allclose(lab[1], [0.0, 0.0, 0.0], atol=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_weighted_dist2_equals_reference(seed):
    rng = np.random.default_rng(seed)
    centres = np.concatenate([colour.linear_to_lab(colour.nominal_paints_linear()),
                              rng.uniform(-60, 60, (3, 3)), [[50.0, 0.0, 0.0]]])
    for shape in [(3,), (30, 3), (16, 25, 3)]:
        lab = rng.uniform(-80, 100, shape)
        for lw in (0.5, 1.0):
            np.testing.assert_array_equal(colour._weighted_dist2(lab, centres, lw),
                                          ref_weighted_dist2(lab, centres, lw))


@pytest.mark.parametrize("seed", range(4))
def test_nearest_centre_equals_argmin_of_weighted_dist2(seed):
    """Per-plane nearest centre = np.argmin / value of _weighted_dist2, ties (repeated
    centres, colours on a centre) to the first, non-finite colours included."""
    rng = np.random.default_rng(seed)
    centres = np.concatenate([colour.linear_to_lab(colour.nominal_paints_linear()),
                              rng.uniform(-60, 60, (2, 3)), [[50.0, 0.0, 0.0]]])
    centres = np.concatenate([centres, centres[[1, 4]]])  # exact ties
    rgb = rng.uniform(-0.05, 1.3, (7, 60, 3))
    rgb.reshape(-1)[::11] *= 1e-3
    planes = colour._lab_planes(rgb)
    lab = colour.linear_to_lab(rgb)
    for i in range(3):
        np.testing.assert_array_equal(planes[i], lab[..., i])
        assert planes[i].flags.c_contiguous
    lab[0, :8] = centres[:8]  # colours exactly on a centre (distance 0, ties)
    for lw in (0.5, 1.0):
        for x in (lab, lab[3], lab[2, 5]):
            d2 = ref_weighted_dist2(x, centres, lw)
            want = np.argmin(d2, axis=-1)
            got, best = colour._nearest_centre(tuple(np.ascontiguousarray(x[..., i])
                                                     for i in range(3)), centres, lw)
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(best, np.take_along_axis(
                d2, np.asarray(want)[..., None], axis=-1)[..., 0])
    bad = lab.copy()
    bad[1, 2, 0], bad[4, 7, 2] = np.nan, np.inf
    with np.errstate(invalid="ignore"):  # inf - inf
        d2 = ref_weighted_dist2(bad, centres)
        got, best = colour._nearest_centre(tuple(bad[..., i] for i in range(3)), centres)
    np.testing.assert_array_equal(got, np.argmin(d2, axis=-1))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("hint", [None, 0.6])
@pytest.mark.parametrize("iterations", [0, 1, 3])
def test_fit_lights_equals_reference(seed, hint, iterations):
    rng = np.random.default_rng(seed)
    light = colour.planckian_gain(rng.uniform(2500, 8000))
    obs = _obs(rng, int(rng.integers(6, 200)), light, rng.uniform(0.3, 1.0))
    refs = colour.nominal_paints_linear()
    ref_lab = colour.linear_to_lab(refs)
    # repeated lights (measured once each, the results given to every copy) too
    for chroma in (colour._KELVIN_CHROMA, np.ones((1, 3)),
                   np.repeat(colour._KELVIN_CHROMA[::5], 3, axis=0)):
        for starts in ((), colour.EXTRA_STARTS):
            got = colour._fit_lights(obs, refs, ref_lab, chroma, starts, hint, iterations)
            want = ref_fit_lights(obs, refs, ref_lab, chroma, starts, hint, iterations)
            np.testing.assert_array_equal(got[0], want[0])
            np.testing.assert_array_equal(got[1], want[1])


def test_fit_lights_converged_lights_are_kept():
    """Many lights converge before the last iteration (their rows are not measured again);
    the result still equals measuring every light every iteration."""
    rng = np.random.default_rng(11)
    obs = _obs(rng, 120, colour.planckian_gain(3000), 0.5)
    refs = colour.nominal_paints_linear()
    ref_lab = colour.linear_to_lab(refs)
    got = colour._fit_lights(obs, refs, ref_lab, colour._KELVIN_CHROMA, (0.5, 2.0), 0.5, 6)
    want = ref_fit_lights(obs, refs, ref_lab, colour._KELVIN_CHROMA, (0.5, 2.0), 0.5, 6)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_classify_paints_reads_a_warm_light():
    rng = np.random.default_rng(3)
    refs = colour.nominal_paints_linear()
    labels = np.repeat(np.arange(6), 12)
    obs = refs[labels] * colour.planckian_gain(3200) * 0.7 * rng.uniform(0.95, 1.05, (72, 3))
    one, more = colour.classify_paints_both(obs, refs, exposure_hint=0.7)
    for ll, _gain, _centres in (one, more):
        assert (np.argmax(ll, axis=1) == labels).mean() >= 0.95


def ref_corrected_cost(obs, refs, ref_lab, gains):
    """Each light's robust cost after its own per-channel correction (estimate_gain on
    its labels, black weighted 0.2, within ±15 %), the plain way."""
    d2 = ref_weighted_dist2(ref_linear_to_lab(obs[None] / gains[:, None]), ref_lab)
    labels = np.argmin(d2, axis=2)
    fixed = np.array([np.clip(colour.estimate_gain(obs, refs, lab, np.where(lab == 1, 0.2, 1.0)),
                              g * 0.85, g * 1.15) for lab, g in zip(labels, gains, strict=True)])
    d2 = ref_weighted_dist2(ref_linear_to_lab(obs[None] / fixed[:, None]), ref_lab)
    return np.minimum(np.sqrt(d2.min(axis=2)), 25.0).sum(axis=1)


@pytest.mark.parametrize("seed", range(4))
def test_fit_lights_corrected_cost(seed):
    rng = np.random.default_rng(seed)
    obs = _obs(rng, int(rng.integers(6, 150)), colour.planckian_gain(rng.uniform(2500, 8000)),
               rng.uniform(0.3, 1.0))
    refs = colour.nominal_paints_linear()
    ref_lab = colour.linear_to_lab(refs)
    plain = colour._fit_lights(obs, refs, ref_lab, colour._KELVIN_CHROMA, colour.EXTRA_STARTS,
                               0.6, 3)
    gains, cost, corrected = colour._fit_lights(obs, refs, ref_lab, colour._KELVIN_CHROMA,
                                                colour.EXTRA_STARTS, 0.6, 3, corrected=True)
    np.testing.assert_array_equal(gains, plain[0])
    np.testing.assert_array_equal(cost, plain[1])
    np.testing.assert_allclose(corrected, ref_corrected_cost(obs, refs, ref_lab, gains),
                               rtol=1e-12)


# segment medians (sRGB bytes, RGB) of a 34WY and a 34RY tile under a 3275 K lamp (dev
# photo 13108 normal, 2-tile figure): orange-looking yellows with red clipped, a white
# pair, a red pair
WARM_LAMP_SEGMENTS = np.array([
    [255, 126, 33], [254, 124, 28], [238, 163, 121], [239, 164, 122], [254, 125, 24],
    [253, 124, 34], [254, 135, 33], [254, 133, 26], [228, 72, 38], [230, 72, 35],
    [255, 133, 32], [254, 135, 34]])


def test_corrected_light_reads_a_lamp_off_the_locus():
    """Under a warm lamp off the black-body locus both black-body fits favour a
    2000-2200 K light reading every segment slate or blue; the light chosen after each
    light's free per-channel correction (the one the paints are then read under) reads
    the yellow, white and red segments right."""
    obs = colour.bgr8_to_linear(WARM_LAMP_SEGMENTS[:, ::-1].astype(np.uint8))
    refs = colour.nominal_paints_linear()
    one, more, free = colour.classify_paints_both(obs, refs, exposure_hint=0.92,
                                                  corrected=True)

    def read(fitted):
        return "".join(colour.LETTERS[i] for i in fitted[0].argmax(axis=1))

    assert read(one) != "YYWWYYYYRRYY" and read(more) != "YYWWYYYYRRYY"
    assert read(free) == "YYWWYYYYRRYY"
    assert len(colour.classify_paints_both(obs, refs, exposure_hint=0.92)) == 2


def ref_bgr8_to_linear(bgr):
    return colour.srgb_to_linear(np.asarray(bgr, dtype=np.float64)[..., ::-1] / 255.0)


@pytest.mark.parametrize("n", [1, 9, 17, 1000])
def test_bgr8_to_linear_equals_transfer_curve(n):
    """8-bit values (uint8, or whole numbers as floats/ints) read from the table equal
    the transfer curve; other values take the curve itself."""
    rng = np.random.default_rng(n)
    a = rng.integers(0, 256, (n, 3)).astype(np.uint8)
    a[0] = (0, 255, 10)
    for x in (a, a.astype(np.float64), a.astype(np.float32), a.astype(np.int64),
              a.astype(np.float64) + 0.25, a.astype(np.float64) * 1.5,
              a.reshape(-1, 1, 3).astype(np.float64)):
        got, want = colour.bgr8_to_linear(x), ref_bgr8_to_linear(x)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    assert colour.bgr8_to_linear(np.zeros((0, 3))).shape == (0, 3)
