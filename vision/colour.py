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


def linear_to_lab(rgb: np.ndarray) -> np.ndarray:
    """Linear RGB (``(..., 3)``, 0..1, may exceed 1) → CIE Lab (D65), same shape."""
    xyz = np.asarray(rgb, dtype=np.float64) @ _M_RGB2XYZ.T / _WHITE
    xyz = np.maximum(xyz, 0.0)
    eps = 216 / 24389
    f = np.where(xyz > eps, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    L = 116 * f[..., 1] - 16
    a = 500 * (f[..., 0] - f[..., 1])
    b = 200 * (f[..., 1] - f[..., 2])
    return np.stack([L, a, b], axis=-1)


def bgr8_to_linear(bgr: np.ndarray) -> np.ndarray:
    """uint8/float BGR 0..255 (``(..., 3)``) → linear RGB 0..1 (``(..., 3)``, RGB order)."""
    return srgb_to_linear(np.asarray(bgr, dtype=np.float64)[..., ::-1] / 255.0)


def nominal_paints_linear() -> np.ndarray:
    """``(6, 3)`` linear RGB of the nominal paints in :data:`LETTERS` order."""
    return srgb_to_linear(np.array([NOMINAL_PAINTS_SRGB[c] for c in LETTERS]) / 255.0)


def _weighted_dist2(lab: np.ndarray, centres: np.ndarray, l_weight: float = 0.5) -> np.ndarray:
    """Squared Lab distance ``(..., K)`` with lightness down-weighted (shading)."""
    d = lab[..., None, :] - centres
    d[..., 0] *= l_weight
    return (d * d).sum(axis=-1)


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


def classify_paints(obs: np.ndarray, refs: np.ndarray, *, fixed_light: bool = False,
                    iterations: int = 4, sigma: float = 7.0):
    """Label segment colours with paints and return per-paint log-likelihoods.

    ``obs (N, 3)`` linear RGB of segments; ``refs (6, 3)`` linear RGB of the paints in
    :data:`LETTERS` order (nominal or calibrated). The light gain is estimated (grey-world
    start, then least squares on the labelled segments; with ``fixed_light`` the exposure
    alone), then the paint clusters are re-centred on the photo's own segments (shrunk
    towards the references) and every segment is scored against every cluster.

    Returns ``(loglik (N, 6), gain (3,), centres_lab (6, 3))``; loglik is a Gaussian
    log-density in Lab (lightness weighted ½), normalised per segment (log-softmax).
    """
    obs = np.maximum(np.asarray(obs, dtype=np.float64), 1e-5)
    if len(obs) == 0:
        return np.zeros((0, 6)), np.ones(3), linear_to_lab(refs)
    ref_lab = linear_to_lab(refs)
    if fixed_light:
        gain = np.full(3, float(np.median(obs.sum(1)) / max(np.median(refs.sum(1)), 1e-6)))
    else:
        gain = estimate_gain(obs, refs, None)
    labels = None
    for _ in range(iterations):
        lab = linear_to_lab(obs / gain)
        labels = np.argmin(_weighted_dist2(lab, ref_lab), axis=1)
        w = np.where(labels == 1, 0.2, 1.0)  # black carries little light information
        new_gain = estimate_gain(obs, refs, labels, w)
        if fixed_light:
            new_gain = np.full(3, float(new_gain.mean()))
        gain = new_gain
    lab = linear_to_lab(obs / gain)
    centres = ref_lab.copy()
    for _ in range(3):
        labels = np.argmin(_weighted_dist2(lab, centres), axis=1)
        for k in range(6):
            sel = lab[labels == k]
            n = len(sel)
            if n:
                centres[k] = (sel.sum(axis=0) + 4.0 * ref_lab[k]) / (n + 4.0)
    d2 = _weighted_dist2(lab, centres)
    ll = -0.5 * d2 / (sigma * sigma)
    ll -= ll.max(axis=1, keepdims=True)
    ll -= np.log(np.exp(ll).sum(axis=1, keepdims=True))
    return ll, gain, centres


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
