"""Colour helpers for reading paints under unknown light.

Colour spaces: *sRGB* values are 0..1 (or 0..255 where noted); *linear* RGB is the
sRGB transfer curve undone (0..1, proportional to light); *Lab* is CIE L*a*b* (D65,
L 0..100). Arrays carry the colour on the last axis in **RGB** order unless a name says
BGR (OpenCV images are BGR).

The light of a photo is modelled as a per-channel gain on linear RGB (von Kries); the
gain is estimated from the painted segments themselves (a grey-world over the paints,
whose expected mix is known from the tile set) and refined by clustering: the six paints
form six clusters, each labelled with the nearest reference paint.
"""

from __future__ import annotations

import numpy as np

LETTERS = "WSBRGY"

NOMINAL_PAINTS_SRGB = {
    # generic shop paints (sRGB 0..255); a calibration replaces them with measured ones
    "W": (235, 231, 218),
    "S": (40, 39, 39),
    "B": (30, 80, 168),
    "R": (198, 40, 38),
    "G": (38, 134, 66),
    "Y": (238, 198, 40),
}

_M_RGB2XYZ = np.array([
    [0.4124564, 0.3575761, 0.1804375],
    [0.2126729, 0.7151522, 0.0721750],
    [0.0193339, 0.1191920, 0.9503041],
])
_WHITE = np.array([0.95047, 1.0, 1.08883])


def srgb_to_linear(srgb: np.ndarray) -> np.ndarray:
    """sRGB 0..1 → linear RGB 0..1 (same shape)."""
    s = np.asarray(srgb, dtype=np.float64)
    return np.where(s <= 0.04045, s / 12.92, ((s + 0.055) / 1.055) ** 2.4)


def _lab_f(rgb: np.ndarray) -> np.ndarray:
    """CIE Lab's ``f(X/Xn), f(Y/Yn), f(Z/Zn)`` ``(..., 3)`` float64 of linear RGB
    ``(..., 3)`` (D65): the part :func:`linear_to_lab` and :func:`_lab_planes` share."""
    xyz = np.asarray(rgb, dtype=np.float64) @ _M_RGB2XYZ.T
    xyz /= _WHITE
    np.maximum(xyz, 0.0, out=xyz)
    # the cube root everywhere, the linear segment only where it applies (few pixels)
    f = np.cbrt(xyz)
    low = xyz <= _LAB_EPS
    if low.any():
        f[low] = (24389 / 27 * xyz[low] + 16) / 116
    return f


def linear_to_lab(rgb: np.ndarray) -> np.ndarray:
    """Linear RGB (``(..., 3)``, 0..1, may exceed 1) → CIE Lab (D65), same shape."""
    f = _lab_f(rgb)
    out = np.empty_like(f)
    f0, f1, f2 = f[..., 0], f[..., 1], f[..., 2]
    np.multiply(f1, 116, out=out[..., 0])
    out[..., 0] -= 16
    np.subtract(f0, f1, out=out[..., 1])
    out[..., 1] *= 500
    np.subtract(f1, f2, out=out[..., 2])
    out[..., 2] *= 200
    return out


_LAB_EPS = 216 / 24389
"""CIE ε: below it the Lab transfer function is linear."""


def bgr8_to_linear(bgr: np.ndarray) -> np.ndarray:
    """uint8/float BGR 0..255 (``(..., 3)``) → linear RGB 0..1 (``(..., 3)``, RGB order)."""
    a = np.asarray(bgr)
    if a.dtype == np.uint8:
        return _SRGB8_TO_LINEAR[a[..., ::-1]]
    a = np.asarray(a, dtype=np.float64)
    if a.size and a.min() >= 0.0 and a.max() <= 255.0:
        # whole numbers 0..255 (e.g. pixels gathered as floats): the table holds the
        # same values the transfer curve gives
        idx = a.astype(np.uint8)
        if np.array_equal(idx, a):
            return _SRGB8_TO_LINEAR[idx[..., ::-1]]
    return srgb_to_linear(a[..., ::-1] / 255.0)


_SRGB8_TO_LINEAR = srgb_to_linear(np.arange(256, dtype=np.float64) / 255.0)
_SRGB8_TO_LINEAR.setflags(write=False)
"""``(256,)`` :func:`srgb_to_linear` of every 8-bit value (``v / 255``)."""


def nominal_paints_linear() -> np.ndarray:
    """``(6, 3)`` linear RGB of the nominal paints in :data:`LETTERS` order."""
    return srgb_to_linear(np.array([NOMINAL_PAINTS_SRGB[c] for c in LETTERS]) / 255.0)


CHROMA_WEIGHT = 0.5
"""Weight of a colour's chroma difference *along* a saturated paint's hue direction (more
or less saturated) against the difference across it (another hue): saturation follows the
light's colour, exposure and camera, the hue much less."""


def _hue_axes(centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per centre of ``centres (K, 3)`` (Lab) its hue direction ``u (K, 2)`` (unit a, b)
    and the share ``(K,)`` of the squared chroma difference along it that
    :func:`_weighted_dist2` takes off (``1 - s²``, ``s`` :data:`CHROMA_WEIGHT` for a
    saturated centre, chroma ≥ 30, up to 1 for a grey one)."""
    cab = centres[:, 1:]
    cn = np.hypot(cab[:, 0], cab[:, 1])
    u = cab / np.maximum(cn, 1e-6)[:, None]
    s = 1.0 - (1.0 - CHROMA_WEIGHT) * np.minimum(cn / 30.0, 1.0)
    return u, 1.0 - s * s


def _weighted_dist2(lab: np.ndarray, centres: np.ndarray, l_weight: float = 0.5) -> np.ndarray:
    """Squared Lab distance ``(..., K)`` to ``centres (K, 3)`` with lightness down-weighted
    (shading) and, for saturated centres (chroma ≥ 30), the chroma difference along the
    centre's hue direction weighted :data:`CHROMA_WEIGHT` (a yellow seen under a warm
    lamp is a less saturated yellow, not a green); near-grey centres stay isotropic."""
    # per component, without the (..., K, 3) difference array: the same operations on
    # the same numbers as the vector form, so the same results bit for bit
    lab = np.asarray(lab)
    u, fac = _hue_axes(centres)
    d0 = lab[..., 0, None] - centres[:, 0]
    d0 *= l_weight
    d1 = lab[..., 1, None] - centres[:, 1]
    d2 = lab[..., 2, None] - centres[:, 2]
    radial = d1 * u[:, 0]
    radial += d2 * u[:, 1]
    radial *= radial
    radial *= fac
    d0 *= d0
    d1 *= d1
    d2 *= d2
    d0 += d1
    d0 += d2
    d0 -= radial
    return d0


def _lab_planes(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`linear_to_lab` of ``rgb (..., 3)`` as three contiguous ``(...)`` planes
    ``L, a, b`` (the same numbers)."""
    f = _lab_f(rgb)
    f0, f1, f2 = f[..., 0], f[..., 1], f[..., 2]
    L = np.multiply(f1, 116)
    L -= 16
    a = np.subtract(f0, f1)
    a *= 500
    b = np.subtract(f1, f2)
    b *= 200
    return L, a, b


def _nearest_centre(lab: tuple, centres: np.ndarray, l_weight: float = 0.5):
    """``(argmin, min)`` over the ``K`` centres of :func:`_weighted_dist2` of the Lab
    planes ``lab = (L, a, b)`` (each ``(...)``, as :func:`_lab_planes` gives them) to
    ``centres (K, 3)``: ``(...)`` intp and float64, bit for bit ``np.argmin`` (the first
    of equal distances) and the distance there, centre by centre on whole planes instead
    of a ``(..., K)`` array (about 1.4x faster in the light fit; non-finite input takes
    the ``(..., K)`` array, where ``np.argmin`` picks a NaN)."""
    L, a, b = lab
    if not (np.isfinite(L).all() and np.isfinite(a).all() and np.isfinite(b).all()):
        d2 = _weighted_dist2(np.stack([L, a, b], axis=-1), centres, l_weight)
        idx = np.argmin(d2, axis=-1)
        return idx, np.take_along_axis(d2, idx[..., None], axis=-1)[..., 0]
    u, fac = _hue_axes(centres)
    best = idx = None
    d1, d2, radial, t = (np.empty_like(L) for _ in range(4))
    for k in range(len(centres)):
        # _weighted_dist2's operations on each element, in its order
        d0 = np.subtract(L, centres[k, 0])
        d0 *= l_weight
        np.subtract(a, centres[k, 1], out=d1)
        np.subtract(b, centres[k, 2], out=d2)
        np.multiply(d1, u[k, 0], out=radial)
        np.multiply(d2, u[k, 1], out=t)
        radial += t
        radial *= radial
        radial *= fac[k]
        d0 *= d0
        d1 *= d1
        d2 *= d2
        d0 += d1
        d0 += d2
        d0 -= radial
        if best is None:
            best, idx = d0, np.zeros(L.shape, np.intp)
        else:
            closer = d0 < best
            np.copyto(best, d0, where=closer)
            np.copyto(idx, k, where=closer)
    return idx, best


def estimate_gain(obs: np.ndarray, refs: np.ndarray, labels: np.ndarray | None,
                  weights: np.ndarray | None = None) -> np.ndarray:
    """Per-channel light gain ``(3,)`` so that ``obs ≈ gain * refs[labels]`` (linear RGB).

    ``obs (N, 3)``; ``labels (N,)`` paint indices or None for the grey-world start
    (the mean of all observations against the mean of the references).
    """
    if labels is None:
        return obs.mean(axis=0) / np.maximum(refs.mean(axis=0), 1e-6)
    target = refs[labels]
    w = np.ones(len(obs)) if weights is None else weights
    num = (w[:, None] * obs * target).sum(axis=0)
    den = (w[:, None] * target * target).sum(axis=0)
    return num / np.maximum(den, 1e-9)


def planckian_gain(kelvin: float) -> np.ndarray:
    """Linear-RGB gain ``(3,)`` (green = 1) of a black-body light at ``kelvin`` relative to
    D65, from the Kang et al. (2002) cubic fit of the Planckian locus (1667-25000 K)."""
    t = float(np.clip(kelvin, 1667.0, 25000.0))
    if t <= 4000:
        x = -0.2661239e9 / t**3 - 0.2343589e6 / t**2 + 0.8776956e3 / t + 0.179910
    else:
        x = -3.0258469e9 / t**3 + 2.1070379e6 / t**2 + 0.2226347e3 / t + 0.240390
    if t <= 2222:
        y = -1.1063814 * x**3 - 1.34811020 * x**2 + 2.18555832 * x - 0.20219683
    elif t <= 4000:
        y = -0.9549476 * x**3 - 1.37418593 * x**2 + 2.09137015 * x - 0.16748867
    else:
        y = 3.0817580 * x**3 - 5.87338670 * x**2 + 3.75112997 * x - 0.37001483
    xyz = np.array([x / y, 1.0, (1 - x - y) / y])
    rgb = np.linalg.solve(_M_RGB2XYZ, xyz)
    d65 = np.linalg.solve(_M_RGB2XYZ, _WHITE)
    g = rgb / d65
    return g / g[1]


KELVIN_GRID = np.geomspace(2000.0, 9000.0, 16)
_KELVIN_CHROMA = np.array([planckian_gain(k) for k in KELVIN_GRID])
"""``(16, 3)`` :func:`planckian_gain` of every light of :data:`KELVIN_GRID` (computed
once: the same for every photo)."""


EXTRA_STARTS = (0.5, 2.0)
"""Further starting exposures (× the photo's exposure hint) of the alternating
light-and-label fit, besides the median brightness ratio; each start ends in its own
self-consistent exposure (dev seed 8100 #49, six tiles under a 2870 K lamp: from the
median start the warm dark-grey black paint reads as blue under a 2200 K light)."""


def classify_paints(obs: np.ndarray, refs: np.ndarray, *, fixed_light: bool = False,
                    iterations: int = 3, sigma: float = 7.0,
                    exposure_hint: float | None = None, starts: tuple | None = None):
    """Label segment colours with paints and return per-paint log-likelihoods.

    ``obs (N, 3)`` linear RGB of segments; ``refs (6, 3)`` linear RGB of the paints in
    :data:`LETTERS` order (nominal or calibrated). The light is a black-body colour
    (searched along the Planckian locus, 2000-9000 K; with ``fixed_light`` the
    calibration's light is kept) times an exposure (fitted alternately with the labels
    from the median brightness ratio and, with a hint, from :data:`EXTRA_STARTS`); the
    one explaining the segments best (robust sum of distances to the nearest paint)
    wins, then a small free per-channel correction (±15 %) is fitted on the labelled
    segments, and the paint clusters are re-centred on the photo's own segments (shrunk
    towards the references).

    ``exposure_hint``: the exposure suggested by the whole photo (e.g. its highlights
    against white paint); the fitted exposure stays within a factor 2 of it, which
    keeps a photo of only dark tiles from being read as white tiles in dim light.
    ``starts``: further starting exposures (× the hint) of the alternating fit
    (default :data:`EXTRA_STARTS`; ``()``: the median brightness ratio only).

    Returns ``(loglik (N, 6), gain (3,), centres_lab (6, 3))``; loglik is a Gaussian
    log-density in Lab (lightness weighted ½), normalised per segment (log-softmax).
    """
    obs = np.maximum(np.asarray(obs, dtype=np.float64), 1e-5)
    ref_lab = linear_to_lab(refs)
    if len(obs) == 0:
        return np.zeros((0, 6)), np.ones(3), ref_lab
    # every candidate light at once: (K, 3) chromatic gains, (K,) exposures
    chroma = (np.ones((1, 3)) if fixed_light
              else _KELVIN_CHROMA)
    starts = EXTRA_STARTS if starts is None else tuple(starts)
    gains, cost = _fit_lights(obs, refs, ref_lab, chroma, starts, exposure_hint, iterations)
    return _label_paints(obs, refs, ref_lab, gains[int(np.argmin(cost))], sigma)


def classify_paints_both(obs: np.ndarray, refs: np.ndarray, *, iterations: int = 3,
                         sigma: float = 7.0, exposure_hint: float | None = None,
                         corrected: bool = False):
    """:func:`classify_paints` with ``starts=()`` and with the default starts at once
    (the same results, the one-start fit computed once): ``(one, more)``, each
    ``(loglik, gain, centres_lab)``; ``more`` is ``one`` itself when the light is the
    same.

    ``corrected``: also the light whose robust cost after its free per-channel correction
    (the one :func:`_label_paints` reads it under) is least, over all starts:
    ``(one, more, free)``, ``free`` being ``one`` or ``more`` itself when it is the same
    light. Lights off the black-body locus (a lamp's pixels warmer than a black body of
    its colour temperature, clipped reds) can favour a far too warm light on the locus
    whose correction then cannot reach the lamp (dev 13108 normal 2t: every segment of a
    34WY/34RY pair read slate or blue under 2000 K); compared after their corrections the
    lamp's own light wins. It is one more candidate, not the choice: the reader judges
    the readings under the lights (:func:`vision.caribo_recognition._read_tiles`)."""
    obs = np.maximum(np.asarray(obs, dtype=np.float64), 1e-5)
    ref_lab = linear_to_lab(refs)
    if len(obs) == 0 or exposure_hint is None or not EXTRA_STARTS:
        one = classify_paints(obs, refs, iterations=iterations, sigma=sigma,
                              exposure_hint=exposure_hint, starts=())
        return (one, one, one) if corrected else (one, one)

    chroma = _KELVIN_CHROMA
    fit = _fit_lights(obs, refs, ref_lab, chroma, EXTRA_STARTS, exposure_hint, iterations,
                      corrected=corrected)
    gains, cost = fit[0], fit[1]
    k = len(chroma)  # the first k rows are the one-start fit's
    i_one, i_more = int(np.argmin(cost[:k])), int(np.argmin(cost))
    one = _label_paints(obs, refs, ref_lab, gains[i_one], sigma)
    more = one if i_more == i_one else _label_paints(obs, refs, ref_lab, gains[i_more], sigma)
    if not corrected:
        return one, more
    i_free = int(np.argmin(fit[2]))
    same = [r for i, r in ((i_one, one), (i_more, more))
            if np.array_equal(gains[i], gains[i_free])]
    free = same[0] if same else _label_paints(obs, refs, ref_lab, gains[i_free], sigma)
    return one, more, free


def _fit_lights(obs, refs, ref_lab, chroma, starts, exposure_hint, iterations,
                corrected=False):
    """Alternating light-and-label fit of :func:`classify_paints` for every light of
    ``chroma (K, 3)`` from the median brightness ratio and, with a hint, from each of
    ``starts`` (× the hint): ``gains (K (1 + len(starts)), 3)`` and their robust costs,
    the one-start rows first. The exposures stay within a factor 2 of the hint. With
    ``corrected`` also each light's robust cost after its free per-channel correction
    (:func:`_corrected_nearest`)."""

    def clamp(e: np.ndarray) -> np.ndarray:
        if exposure_hint is None:
            return e
        return np.clip(e, 0.5 * exposure_hint, 2.0 * exposure_hint)

    # exposure: start from the median brightness ratio, then refine on the labels. The
    # alternating fit can settle on a wrong exposure (dark paints labelled white pull it
    # further down), so each light is also fitted from the ends of the hint's range
    # (EXTRA_STARTS); every start converges to its own self-consistent exposure and the
    # (light, exposure) with the least robust cost wins
    ref_sum = np.median((refs[None] * chroma[:, None]).sum(axis=2), axis=1)
    expo = clamp(float(np.median(obs.sum(1))) / np.maximum(ref_sum, 1e-6))
    if exposure_hint is not None and starts:
        expo = np.concatenate([expo, *(np.full(len(chroma), exposure_hint * f)
                                       for f in starts)])
        chroma = np.tile(chroma, (1 + len(starts), 1))
    # a light whose exposure did not change (bit for bit) keeps its labels, so it has
    # converged: only the lights still moving are measured again (the same numbers as
    # measuring all of them every iteration)
    labels = np.empty((len(chroma), len(obs)), np.intp)
    nearest = np.empty((len(chroma), len(obs)))

    def measure(rows: np.ndarray) -> None:
        gain = chroma[rows] * expo[rows, None]
        # lights of the same colour whose starts reached the same exposure (about a
        # quarter of the rows measured) are one light: each distinct gain once
        gain, inv = np.unique(gain, axis=0, return_inverse=True)
        # argmin and min of _weighted_dist2(linear_to_lab(obs / gain), ref_lab)  (K, N, 6)
        idx, best = _nearest_centre(_lab_planes(obs[None] / gain[:, None]), ref_lab)
        inv = inv.reshape(-1)
        labels[rows] = idx[inv]
        nearest[rows] = best[inv]

    moving = np.arange(len(chroma))
    for _ in range(iterations):
        measure(moving)
        ch = chroma[moving]
        lab_idx = labels[moving]
        target = refs[lab_idx] * ch[:, None]
        w = np.where(lab_idx == 1, 0.2, 1.0)[..., None]
        new = clamp((w * obs[None] * target).sum(axis=(1, 2))
                    / np.maximum((w * target * target).sum(axis=(1, 2)), 1e-12))
        changed = new != expo[moving]
        expo[moving] = new
        moving = moving[changed]
    if len(moving):
        measure(moving)
    gains = chroma * expo[:, None]
    cost = np.minimum(np.sqrt(nearest), 25.0).sum(axis=1)
    if corrected:
        return gains, cost, np.minimum(
            np.sqrt(_corrected_nearest(obs, refs, ref_lab, gains, labels)), 25.0).sum(axis=1)
    return gains, cost


FREE_CORRECTION = 0.15
"""Largest relative per-channel correction of a fitted black-body light
(:func:`_label_paints`; :func:`_corrected_nearest`)."""


def _corrected_nearest(obs, refs, ref_lab, gains, labels):
    """``(K, N)`` squared weighted distance of each segment of ``obs (N, 3)`` to its
    nearest reference paint under each light of ``gains (K, 3)`` after the free
    per-channel correction that :func:`_label_paints` applies, fitted on the light's
    labels ``labels (K, N)`` (black weighted 0.2, as :func:`estimate_gain`) and kept
    within ±:data:`FREE_CORRECTION` of the light."""
    target = refs[labels]  # (K, N, 3)
    w = np.where(labels == 1, 0.2, 1.0)[..., None]
    free = ((w * obs[None] * target).sum(axis=1)
            / np.maximum((w * target * target).sum(axis=1), 1e-9))
    free = np.clip(free, gains * (1.0 - FREE_CORRECTION), gains * (1.0 + FREE_CORRECTION))
    uniq, inv = np.unique(free, axis=0, return_inverse=True)
    _, best = _nearest_centre(_lab_planes(obs[None] / uniq[:, None]), ref_lab)
    return best[inv.reshape(-1)]


def _paint_centres(lab: np.ndarray, labels: np.ndarray, ref_lab: np.ndarray,
                   start: np.ndarray, prior: float = 4.0) -> np.ndarray:
    """Paint cluster centres ``(6, 3)`` Lab: each paint's mean of ``lab (N, 3)`` over the
    samples ``labels (N,)`` gives it, shrunk towards its reference ``ref_lab`` by
    ``prior`` pseudo samples; a paint with no sample keeps its ``start`` centre."""
    centres = start.copy()
    for k in range(6):
        sel = lab[labels == k]
        if len(sel):
            centres[k] = (sel.sum(axis=0) + prior * ref_lab[k]) / (len(sel) + prior)
    return centres


def _label_paints(obs, refs, ref_lab, gain, sigma):
    """The rest of :func:`classify_paints` for the chosen light ``gain``: the free
    per-channel correction, the re-centred paint clusters and the log-likelihoods."""
    labels = np.argmin(_weighted_dist2(linear_to_lab(obs / gain), ref_lab), axis=1)
    free = estimate_gain(obs, refs, labels, np.where(labels == 1, 0.2, 1.0))
    gain = np.clip(free, gain * (1.0 - FREE_CORRECTION), gain * (1.0 + FREE_CORRECTION))
    lab = linear_to_lab(obs / gain)
    centres = ref_lab
    for _ in range(3):
        labels = np.argmin(_weighted_dist2(lab, centres), axis=1)
        centres = _paint_centres(lab, labels, ref_lab, centres)
    d2 = _weighted_dist2(lab, centres)
    ll = -0.5 * d2 / (sigma * sigma)
    ll -= ll.max(axis=1, keepdims=True)
    ll -= np.log(np.exp(ll).sum(axis=1, keepdims=True))
    return ll, gain, centres


def light_from_labels(obs: np.ndarray, refs: np.ndarray, labels: np.ndarray,
                      prior: float = 4.0) -> tuple[np.ndarray, np.ndarray]:
    """The light and paint clusters implied by known paint labels.

    ``obs (N, 3)`` linear RGB of segments, ``labels (N,)`` their paint indices (e.g. the
    segments of the tiles a set-constrained decoding assigned), ``refs (6, 3)`` linear RGB
    of the paints. The per-channel gain is the least-squares von Kries fit
    (:func:`estimate_gain`, black segments weighted 0.2), the cluster centres are each
    paint's mean Lab under that gain, shrunk towards the reference by ``prior`` pseudo
    segments. Returns ``(gain (3,), centres_lab (6, 3))`` as :func:`classify_paints` does.
    """
    obs = np.maximum(np.asarray(obs, dtype=np.float64), 1e-5)
    labels = np.asarray(labels, int)
    ref_lab = linear_to_lab(refs)
    gain = estimate_gain(obs, refs, labels, np.where(labels == 1, 0.2, 1.0))
    gain = np.maximum(gain, 1e-6)
    lab = linear_to_lab(obs / gain)
    return gain, _paint_centres(lab, labels, ref_lab, ref_lab, prior)


def paint_distances(obs: np.ndarray, gain: np.ndarray, centres_lab: np.ndarray) -> np.ndarray:
    """Weighted Lab distance ``(N, 6)`` of linear-RGB colours ``obs (N, 3)`` to each paint
    cluster, after dividing out the light ``gain`` (as from :func:`classify_paints`)."""
    lab = linear_to_lab(np.maximum(np.asarray(obs, dtype=np.float64), 1e-5) / gain)
    return np.sqrt(_weighted_dist2(lab, centres_lab))


def loglik_from_distances(dist: np.ndarray, sigma: float = 7.0) -> np.ndarray:
    """Per-row log-softmax ``(N, 6)`` of Gaussian log-densities of the distances."""
    ll = -0.5 * (dist / sigma) ** 2
    ll -= ll.max(axis=1, keepdims=True)
    return ll - np.log(np.exp(ll).sum(axis=1, keepdims=True))
