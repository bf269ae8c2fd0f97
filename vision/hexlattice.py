"""Pointy-top hexagonal lattices in photos: estimation, refinement, sampling points.

Conventions
-----------
*World* coordinates are on the plane of the tiles' top faces, in units of the lattice
pitch (one tile width across the flats plus the gap), x right and y down as in the CARIBO
notation. Axial cell ``(q, r)`` has its centre at world ``(q + r / 2, r * sqrt(3) / 2)``;
``q`` grows towards edge 2 (right), ``r`` towards edge 3 (lower right), so the axial
neighbour directions per edge index 0..5 are ``engines.caribo.geometry.AXIAL_DIRECTIONS``.

A *lattice homography* ``H`` (3 × 3, float64) maps homogeneous world points to image
pixels ``(x, y)`` of the photo it was fitted in. Because every top face lies 10 mm above
the table on one plane, a single homography describes all of them under any perspective;
the wooden sides and the table are simply not on that plane and are never sampled.

All functions are plain NumPy/OpenCV over arrays; images are ``(H, W)`` float32 unless
stated otherwise.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np
from scipy import ndimage

SQRT3 = math.sqrt(3.0)

# world = AXIAL_TO_WORLD @ (q, r)
AXIAL_TO_WORLD = np.array([[1.0, 0.5], [0.0, SQRT3 / 2.0]])
WORLD_TO_AXIAL = np.linalg.inv(AXIAL_TO_WORLD)
MAX_FOURTH_DIRECTION = 0.5
"""A fourth edge-direction peak at least this fraction of the third means "not a
hexagonal pattern". Measured (dev seeds 1000/1001 and ``sample_images``): CARIBO photos
0.00-0.43 except 3 of 60 hard ones already misread (0.63-0.99); Colomino 0.58-0.99,
Wauri 0.60-0.99."""


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def axial_to_world(cells: np.ndarray) -> np.ndarray:
    """``(N, 2)`` axial ``(q, r)`` → ``(N, 2)`` world centres (pitch units, y down)."""
    return np.asarray(cells, dtype=np.float64) @ AXIAL_TO_WORLD.T


def world_to_axial(points: np.ndarray) -> np.ndarray:
    """``(N, 2)`` world points → fractional axial coordinates ``(N, 2)``."""
    return np.asarray(points, dtype=np.float64) @ WORLD_TO_AXIAL.T


def round_axial(frac: np.ndarray) -> np.ndarray:
    """Nearest hex cell ``(N, 2)`` int of fractional axial coordinates (cube rounding)."""
    q, r = frac[:, 0], frac[:, 1]
    s = -q - r
    rq, rr, rs = np.round(q), np.round(r), np.round(s)
    dq, dr, ds = np.abs(rq - q), np.abs(rr - r), np.abs(rs - s)
    fix_q = (dq > dr) & (dq > ds)
    fix_r = ~fix_q & (dr > ds)
    rq = np.where(fix_q, -rr - rs, rq)
    rr = np.where(fix_r, -rq - rs, rr)
    return np.stack([rq, rr], axis=1).astype(np.int64)


def apply_homography(H: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map ``(..., 2)`` points through the 3 × 3 homography ``H``; returns ``(..., 2)``."""
    p = np.asarray(points, dtype=np.float64)
    x, y = p[..., 0], p[..., 1]
    out = np.empty(p.shape, np.float64)
    w = H[2, 0] * x + H[2, 1] * y + H[2, 2]
    out[..., 0] = (H[0, 0] * x + H[0, 1] * y + H[0, 2]) / w
    out[..., 1] = (H[1, 0] * x + H[1, 1] * y + H[1, 2]) / w
    return out


def hex_vertices(radius: float) -> np.ndarray:
    """``(6, 2)`` vertices of a pointy-top hexagon, clockwise from the top tip (y down)."""
    ang = np.radians(60.0 * np.arange(6))
    return np.stack([radius * np.sin(ang), -radius * np.cos(ang)], axis=1)


@lru_cache(maxsize=32)
def segment_sample_offsets(tile_width: float = 0.97) -> np.ndarray:
    """World offsets ``(6, M, 2)`` of sample points inside each segment's triangle.

    Segment ``k`` (0-based, SPEC segment ``k + 1``) is the triangle between the centre and
    vertices ``k`` and ``k + 1``. Points keep away from the spokes (paint boundaries drawn
    by hand), the centre and the painted rim: radial fraction 0.38-0.74 of the tile,
    angular fraction 0.25-0.75 within the triangle.
    """
    v = hex_vertices(tile_width / SQRT3)
    rad = np.array([0.38, 0.5, 0.62, 0.74])
    mix = np.array([0.27, 0.4, 0.5, 0.6, 0.73])
    out = []
    for k in range(6):
        a, b = v[k], v[(k + 1) % 6]
        pts = [s * (m * a + (1 - m) * b) for s in rad for m in mix]
        out.append(pts)
    return _frozen(np.array(out))


@lru_cache(maxsize=32)
def outline_offsets(n_per_edge: int = 6, scale: float = 0.5) -> np.ndarray:
    """``(6 * n, 2)`` world offsets on the honeycomb outline of a cell (the tile gaps).

    ``scale`` 0.5 places points on the boundary between two neighbouring cells
    (circumradius ``1 / sqrt(3)`` in pitch units).
    """
    v = hex_vertices(2 * scale / SQRT3)
    t = (np.arange(n_per_edge) + 0.5) / n_per_edge
    pts = [v[k] * (1 - s) + v[(k + 1) % 6] * s for k in range(6) for s in t]
    return _frozen(np.array(pts))


@lru_cache(maxsize=32)
def interior_offsets() -> np.ndarray:
    """``(N, 2)`` world offsets well inside a tile (between centre and outline)."""
    return _frozen(np.concatenate([outline_offsets(4, 0.3), outline_offsets(3, 0.15)], axis=0))


def sample_bilinear(image: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``image`` (``(H, W)`` or ``(H, W, C)``) at ``(..., 2)`` points.

    ``points`` are ``(x, y)`` pixel positions; points outside the image take the value of
    the nearest border pixel. Sampling is OpenCV's ``remap`` (positions resolved to 1/32
    px), several times faster than gathering the four neighbours in NumPy.
    """
    p = np.asarray(points)
    lead = p.shape[:-1]
    n = p.size // 2
    tail = image.shape[2:]
    if n == 0:
        return np.zeros((*lead, *tail), np.float32)
    buf, rows, cols = _remap_map(n)
    buf[:n] = p.reshape(-1, 2)  # float32, padded rows at 0
    return _remap(image, buf, rows, cols, n).reshape(*lead, *tail)


def _remap_map(n: int) -> tuple[np.ndarray, int, int]:
    """An ``(rows * cols, 2)`` float32 sampling map for ``n > 0`` points (the padding
    after ``n`` zero) and its shape for ``cv2.remap``."""
    cols = min(n, _REMAP_COLS)
    rows = -(-n // cols)
    buf = np.empty((rows * cols, 2), np.float32)
    buf[n:] = 0.0
    return buf, rows, cols


def _remap(image: np.ndarray, buf: np.ndarray, rows: int, cols: int, n: int) -> np.ndarray:
    """Bilinear samples ``(n, C...)`` of ``image`` at the first ``n`` points of the map
    ``buf`` made by :func:`_remap_map`."""
    out = cv2.remap(image, buf.reshape(rows, cols, 2), None, cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(rows * cols, *image.shape[2:])[:n]


_REMAP_COLS = 4096
"""Row length of the sampling map handed to ``cv2.remap`` (its limit is 32767)."""


def edge_strength(lab: np.ndarray) -> np.ndarray:
    """Colour gradient magnitude ``(H, W)`` float32 of an ``(H, W, 3)`` Lab image."""
    g = np.zeros(lab.shape[:2], np.float32)
    for ch in range(3):
        gx = cv2.Sobel(lab[..., ch], cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(lab[..., ch], cv2.CV_32F, 0, 1, ksize=3)
        g += gx * gx + gy * gy
    return np.sqrt(g)


def lattice_peaks(signal: np.ndarray, mask: np.ndarray, min_dist: float, max_dist: float,
                  count: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Normalised autocorrelation peaks of ``signal`` inside ``mask``.

    Returns ``(vectors (K, 2) float (dx, dy) px, heights (K,))`` of local maxima at
    distances ``min_dist..max_dist``, one of each ± pair (``dy > 0`` or ``dy == 0, dx > 0``),
    strongest first.
    """
    m = mask.astype(np.float32)
    s = signal.astype(np.float32) * m
    if m.sum() < 1:
        return np.zeros((0, 2)), np.zeros(0)
    s = (s - s.sum() / m.sum()) * m
    h, w = s.shape
    fh, fw = cv2.getOptimalDFTSize(2 * h), cv2.getOptimalDFTSize(2 * w)
    fs = np.fft.rfft2(s, (fh, fw))
    fm = np.fft.rfft2(m, (fh, fw))
    ac = np.fft.irfft2(fs * np.conj(fs), (fh, fw))
    am = np.fft.irfft2(fm * np.conj(fm), (fh, fw))
    ac = np.fft.fftshift(ac)
    am = np.fft.fftshift(am)
    cy, cx = fh // 2, fw // 2
    r = int(math.ceil(max_dist)) + 2
    ac = ac[cy - r: cy + r + 1, cx - r: cx + r + 1]
    am = am[cy - r: cy + r + 1, cx - r: cx + r + 1]
    norm = ac / np.maximum(am, 0.25 * am.max()) * (am.max() / max(ac[r, r], 1e-9))
    yy, xx = np.mgrid[-r: r + 1, -r: r + 1]
    dist = np.hypot(xx, yy)
    valid = (dist >= min_dist) & (dist <= max_dist) & ((yy > 0) | ((yy == 0) & (xx > 0)))
    local = norm == ndimage.maximum_filter(norm, size=max(3, int(min_dist * 0.4) | 1))
    idx = np.flatnonzero((local & valid).ravel())
    if idx.size == 0:
        return np.zeros((0, 2)), np.zeros(0)
    heights = norm.ravel()[idx]
    order = np.argsort(-heights)[:count]
    idx = idx[order]
    vec = np.stack([xx.ravel()[idx], yy.ravel()[idx]], axis=1).astype(np.float64)
    # sub-pixel refinement by a parabola fit on each axis
    for i, j in enumerate(idx):
        y0, x0 = divmod(int(j), norm.shape[1])
        if 0 < x0 < norm.shape[1] - 1:
            a, b, c = norm[y0, x0 - 1], norm[y0, x0], norm[y0, x0 + 1]
            den = a - 2 * b + c
            if den < 0:
                vec[i, 0] += 0.5 * (a - c) / den
        if 0 < y0 < norm.shape[0] - 1:
            a, b, c = norm[y0 - 1, x0], norm[y0, x0], norm[y0 + 1, x0]
            den = a - 2 * b + c
            if den < 0:
                vec[i, 1] += 0.5 * (a - c) / den
    return vec, norm.ravel()[idx]


def _value_at(vectors: np.ndarray, heights: np.ndarray, v: np.ndarray, tol: float) -> float:
    """Height of the peak (±) nearest to ``v`` within ``tol`` px, else 0."""
    if len(vectors) == 0:
        return 0.0
    d1 = np.hypot(*(vectors - v).T)
    d2 = np.hypot(*(vectors + v).T)
    d = np.minimum(d1, d2)
    i = int(np.argmin(d))
    return float(heights[i]) if d[i] <= tol else 0.0


def choose_hex_basis(vectors: np.ndarray, heights: np.ndarray) -> np.ndarray | None:
    """Pick two autocorrelation peaks spanning a hexagonal lattice, or None.

    A hexagonal lattice (under any affine view) has a first shell ``±p, ±q, ±(p - q)``
    (with the right signs); candidate pairs are scored by the three peak heights, and
    among good pairs (≥ 75 % of the best score) the one with the smallest cell wins, so
    a super-lattice is never preferred over the true one. Returns ``(2, 2)`` rows p, q.
    """
    best = []
    n = len(vectors)
    for i in range(n):
        for j in range(i + 1, n):
            p, q = vectors[i], vectors[j]
            area = abs(p[0] * q[1] - p[1] * q[0])
            lp, lq = np.hypot(*p), np.hypot(*q)
            if area < 0.35 * lp * lq:  # nearly parallel
                continue
            if max(lp, lq) > 2.2 * min(lp, lq):
                continue
            for third in (p - q, p + q):
                lt = np.hypot(*third)
                if lt > 1.6 * max(lp, lq) or lt < 0.45 * min(lp, lq):
                    continue
                tol = 0.12 * min(lp, lq) + 1.0
                h3 = _value_at(vectors, heights, third, tol)
                if h3 <= 0:
                    continue
                score = heights[i] + heights[j] + h3
                best.append((score, area, np.array([p, q])))
    if not best:
        return None
    top = max(b[0] for b in best)
    good = [b for b in best if b[0] >= 0.75 * top]
    good.sort(key=lambda b: (round(b[1] / 5.0), -b[0]))
    return good[0][2]


def shell_vectors(basis: np.ndarray) -> np.ndarray:
    """The six first-shell vectors ``(6, 2)`` of the lattice spanned by ``basis``.

    Ordered clockwise on screen (y down) starting from the one pointing most to the right:
    index 0 = towards edge 2 (right), 1 = edge 3 (lower right), ... 5 = edge 1.
    """
    p, q = basis
    cands = [p, q, p - q, -p, -q, q - p, p + q, -(p + q)]
    # keep the six shortest that form the first shell
    cands = sorted(cands, key=lambda v: float(np.hypot(*v)))[:6]
    cands = np.array(cands)
    ang = np.arctan2(cands[:, 1], cands[:, 0])
    order = np.argsort(ang)
    cands = cands[order]
    ang = ang[order]
    start = int(np.argmin(np.abs(ang)))
    return np.roll(cands, -start, axis=0)


def affine_lattice_homography(a_right: np.ndarray, a_lower_right: np.ndarray,
                              origin: np.ndarray) -> np.ndarray:
    """The homography (affine) with centre(q, r) = origin + q·a_right + r·a_lower_right."""
    A = np.array([[a_right[0], a_lower_right[0], origin[0]],
                  [a_right[1], a_lower_right[1], origin[1]],
                  [0.0, 0.0, 1.0]])
    W2A = np.eye(3)
    W2A[:2, :2] = WORLD_TO_AXIAL
    return A @ W2A


def outline_score(edges: np.ndarray, H: np.ndarray, centres_world: np.ndarray,
                  shifts_px: np.ndarray) -> np.ndarray:
    """Outline-vs-interior edge contrast ``(N, S)`` of cells shifted by image offsets.

    ``centres_world (N, 2)``; ``shifts_px (S, 2)`` image translations tried for each cell.
    The score is the mean edge strength on the honeycomb outline minus that in the
    interior, sampled in ``edges`` (``(H, W)``, same pixel frame as ``H``).
    """
    return outline_scores(edges, [(H, centres_world, shifts_px)])[0]


def outline_scores(edges: np.ndarray, jobs) -> list[np.ndarray]:
    """:func:`outline_score` of several ``(H, centres_world (N, 2), shifts_px (S, 2))``
    jobs, sampled in one ``cv2.remap``; one ``(N, S)`` array per job, equal to the job's
    own :func:`outline_score`."""
    shapes = [(len(c), len(s)) for _, c, s in jobs]
    if not shapes:
        return []
    both = _outline_and_interior()[0]  # (M + I, 2)
    per, m = len(both), len(outline_offsets(8))
    rows_total = sum(n * s for n, s in shapes)
    if rows_total == 0:
        return [np.zeros((n, s), np.float32) for n, s in shapes]
    # the x and y sampling maps (float32, as sample_bilinear makes them), laid out as the
    # outline points of every (job, shift, cell) row, then their interior points: each
    # block is a job's cell points plus one shift per map row (contiguous adds of a
    # scalar), and the outline and interior samples come out as contiguous rows
    total = rows_total * per
    cols = min(total, _REMAP_COLS)
    rows = -(-total // cols)
    mx, my, dst = (np.empty(rows * cols, np.float32) for _ in range(3))
    mx[total:] = 0.0
    my[total:] = 0.0
    out_at, in_at = 0, rows_total * m
    for (H, centres_world, shifts_px), (n, s) in zip(jobs, shapes, strict=True):
        if n * s == 0:
            continue
        c = np.asarray(centres_world, dtype=np.float64)
        # apply_homography's operations on each point, x and y kept apart
        x = c[:, 0, None] + both[:, 0]
        y = c[:, 1, None] + both[:, 1]
        w = H[2, 0] * x + H[2, 1] * y + H[2, 2]
        px = ((H[0, 0] * x + H[0, 1] * y + H[0, 2]) / w).astype(np.float32)
        py = ((H[1, 0] * x + H[1, 1] * y + H[1, 2]) / w).astype(np.float32)
        sh = np.asarray(shifts_px, np.float32).reshape(s, 2)
        for lo, hi, at in ((0, m, out_at), (m, per, in_at)):
            k = n * (hi - lo)
            for mp, p, d in ((mx, px, 0), (my, py, 1)):
                np.add(p[:, lo:hi].reshape(1, k), sh[:, d, None],
                       out=mp[at: at + s * k].reshape(s, k))
        out_at += n * s * m
        in_at += n * s * (per - m)
    if edges.dtype == np.float32 and edges.ndim == 2:
        samples = dst.reshape(rows, cols)
        cv2.remap(edges, mx.reshape(rows, cols), my.reshape(rows, cols), cv2.INTER_LINEAR,
                  dst=samples, borderMode=cv2.BORDER_REPLICATE)
        samples = samples.reshape(-1)
    else:
        samples = cv2.remap(edges, mx.reshape(rows, cols), my.reshape(rows, cols),
                            cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(-1)
    so = samples[: rows_total * m].reshape(rows_total, m)
    si = samples[rows_total * m: total].reshape(rows_total, per - m)
    # a robust outline mean: the tile gap is visible on most but not all edges
    q = m // 4
    so.partition(q, axis=-1)  # in place: the remap's own output
    score = so[:, q:].mean(axis=-1) - si.mean(axis=-1)
    res, start = [], 0
    for n, s in shapes:  # rows (shift, cell) -> (cell, shift)
        res.append(np.ascontiguousarray(score[start: start + n * s].reshape(s, n).T))
        start += n * s
    return res


@lru_cache(maxsize=1)
def _outline_and_interior() -> np.ndarray:
    """``(1, M + I, 2)``: :func:`outline_offsets` (8 per edge) then
    :func:`interior_offsets`, as :func:`outline_scores` samples them."""
    return _frozen(np.concatenate([outline_offsets(8), interior_offsets()])[None])


RANSAC_ITERATIONS = 500
"""Iteration cap of the robust homography refit (OpenCV's default is 2000). 500 random
4-cell samples find an all-inlier sample with 99.5 % probability while at least a third
of the cells moved consistently; a refit with fewer inliers is an outlier fit anyway
(:func:`vision.caribo_lattice.plausible_update` rejects most).
Session 14, tried and dropped: 200 (a refit with fewer inliers than about two fifths
less likely found): recognize CPU 0.95x (38 dev photos, 0.883x together with the exact
sampling savings of that session against 0.930x without), but dev 14001 hard #26 perfect
→ 36 tile errors (#23 39 → 28; 14000 normal 16 of 20 perfect, 15 errors, unchanged; dev
hard 14 → 13 of 18, 60 → 85 errors): the regrowth's answer hangs on which consensus a
few refits find, so any change of the search reshuffles some photos."""


def refine_homography(edges: np.ndarray, H: np.ndarray, cells: np.ndarray,
                      search: float, steps: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """Shift every cell to its best outline position, then refit the homography.

    ``cells (N, 2)`` axial; ``search`` is the half-width of the square of tried shifts in
    pixels. Returns ``(H_new, per-cell best scores (N,))``. Needs ≥ 4 cells to refit;
    otherwise only a common translation is applied.
    """
    shifts = shift_grid(search, steps)
    scores = outline_score(edges, H, axial_to_world(cells), shifts)
    return refit_on_scores(H, cells, shifts, scores, search)


def shift_grid(search: float, steps: int) -> np.ndarray:
    """``(steps², 2)`` image shifts (px) of a square grid of half-width ``search``."""
    lin = np.linspace(-search, search, steps)
    return np.stack(np.meshgrid(lin, lin), axis=-1).reshape(-1, 2)


def refit_on_scores(H: np.ndarray, cells: np.ndarray, shifts: np.ndarray,
                    scores: np.ndarray, search: float) -> tuple[np.ndarray, np.ndarray]:
    """The refit of :func:`refine_homography` from its outline ``scores (N, S)`` of
    ``cells (N, 2)`` shifted by ``shifts (S, 2)`` px (half-width ``search`` px)."""
    world = axial_to_world(cells)
    best = np.argmax(scores, axis=1)
    moved = apply_homography(H, world) + shifts[best]
    best_scores = scores[np.arange(len(cells)), best]
    if len(cells) >= 6:
        Hn, inl = cv2.findHomography(world, moved, cv2.RANSAC, max(1.0, search * 0.6),
                                     maxIters=RANSAC_ITERATIONS)
        if Hn is not None and np.isfinite(Hn).all():
            return Hn, best_scores
    if len(cells) >= 3:
        A, _ = cv2.estimateAffine2D(world, moved)
        if A is not None:
            Hn = np.vstack([A, [0, 0, 1]])
            return Hn, best_scores
    shift = np.median(shifts[best], axis=0)
    T = np.eye(3)
    T[:2, 2] = shift
    return T @ H, best_scores


def separated_peak_heights(hist: np.ndarray, min_sep: float) -> list[float]:
    """Heights of the local maxima of the circular ``hist``, strongest first, keeping
    only maxima more than ``min_sep`` bins from every stronger kept one."""
    n = len(hist)
    idx = np.arange(n)
    loc = idx[(hist >= np.roll(hist, 1)) & (hist >= np.roll(hist, -1))]
    loc = loc[np.argsort(-hist[loc], kind="stable")]
    kept: list[int] = []
    for i in loc:
        if all(min(abs(i - k), n - abs(i - k)) > min_sep for k in kept):
            kept.append(int(i))
    return [float(hist[i]) for i in kept]


def structure_tensor(lab: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The colour structure tensor ``(jxx, jyy, jxy)``, each ``(H, W)`` float32, of the
    ``(H, W, 3)`` Lab image: 3 × 3 Sobel gradients of the three channels, their products
    summed over the channels."""
    jxx = np.zeros(lab.shape[:2], np.float32)
    jyy = np.zeros_like(jxx)
    jxy = np.zeros_like(jxx)
    for ch in range(3):
        gx = cv2.Sobel(lab[..., ch], cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(lab[..., ch], cv2.CV_32F, 0, 1, ksize=3)
        jxx += gx * gx
        jyy += gy * gy
        jxy += gx * gy
    return jxx, jyy, jxy


def tensor_orientation(a: np.ndarray, b: np.ndarray, c: np.ndarray,
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Gradient orientation (radians, modulo π; the line direction is it + π/2) and
    strength of :func:`structure_tensor` entries ``jxx = a``, ``jyy = b``, ``jxy = c``
    (arrays of one shape)."""
    return 0.5 * np.arctan2(2 * c, a - b), np.sqrt((a - b) ** 2 + 4 * c * c)


def direction_histogram(tensor: tuple[np.ndarray, np.ndarray, np.ndarray],
                        mask: np.ndarray, bins: int = 180) -> np.ndarray | None:
    """The smoothed histogram ``(bins,)`` of edge-line directions (degrees modulo 180,
    gradient orientation + 90°) inside ``mask`` (``(H, W)``, made boolean), weighted by
    the root of the :func:`structure_tensor` strength and smoothed circularly (Gaussian,
    σ 2 bins); None without edges there."""
    jxx, jyy, jxy = tensor
    m = mask.astype(bool)
    theta, strength = tensor_orientation(jxx[m], jyy[m], jxy[m])  # gradient orientation
    if strength.size == 0 or strength.sum() <= 0:
        return None
    # line direction = gradient orientation + 90°
    ang = (np.degrees(theta) + 90.0) % 180.0
    hist, _ = np.histogram(ang, bins=bins, range=(0, 180), weights=np.sqrt(strength))
    k = np.exp(-0.5 * (np.arange(-6, 7) / 2.0) ** 2)
    ext = np.concatenate([hist[-6:], hist, hist[:6]])
    return np.convolve(ext, k / k.sum(), mode="same")[6:-6]


def line_directions(lab: np.ndarray, mask: np.ndarray, bins: int = 180,
                    max_fourth: float | None = MAX_FOURTH_DIRECTION,
                    test_mask: np.ndarray | None = None,
                    tensor: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
                    ) -> np.ndarray | None:
    """The three dominant edge-line directions ``(3, 2)`` (unit vectors) inside ``mask``.

    Colour gradients of the ``(H, W, 3)`` Lab image are pooled per pixel (structure
    tensor over the channels); their orientations, weighted by strength, are histogrammed
    modulo 180°. A hexagonal pattern under any affine view shows three peaks (tile
    outlines and paint spokes share the same three directions). Returns None when three
    separated peaks are not found, or (``max_fourth``) when a fourth separated direction
    peak reaches ``max_fourth`` times the third: the pattern is then not hexagonal. The
    fourth-direction test is measured inside ``test_mask`` (boolean ``(H, W)``; default
    ``mask``), e.g. the figure without the props next to it. ``tensor``: the image's
    :func:`structure_tensor` when the caller has it already (several masks of one image).
    """
    if tensor is None:
        tensor = structure_tensor(lab)
    smooth = direction_histogram(tensor, mask, bins)
    if smooth is None:
        return None
    peaks = []
    order = np.argsort(-smooth)
    for i in order:
        deg = (i + 0.5) * 180.0 / bins
        if all(min(abs(deg - p), 180 - abs(deg - p)) > 25 for p in peaks):
            if smooth[i] == smooth[max(0, i - 1)] or smooth[i] >= smooth[i - 1]:
                peaks.append(deg)
        if len(peaks) == 3:
            break
    if len(peaks) < 3:
        return None
    if smooth[int(peaks[2] / 180 * bins) % bins] < 0.15 * smooth.max():
        return None
    if max_fourth is not None:
        test = smooth if test_mask is None else direction_histogram(tensor, test_mask, bins)
        v = [] if test is None else separated_peak_heights(test, 25.0 * bins / 180.0)
        # a hexagonal pattern has exactly three line directions; a square grid split into
        # triangles (Colomino) shows four, a photo of other things a spread of them
        if len(v) >= 4 and v[3] > max_fourth * v[2]:
            return None
    rad = np.radians(peaks)
    return np.stack([np.cos(rad), np.sin(rad)], axis=1)


HORIZON_GATE = 12.0  # degrees: a line element belongs to the family within this of its direction
HORIZON_TUKEY = 6.0  # degrees: line elements pointing further from the vanishing point weigh 0
HORIZON_MIN_PIXELS = 200  # line elements each family needs


def _vanishing_point(pts: np.ndarray, normals: np.ndarray, weights: np.ndarray,
                     rounds: int = 4) -> np.ndarray:
    """The vanishing point ``(3,)`` (homogeneous, unit norm) of line elements through
    ``pts (n, 2)`` with unit ``normals (n, 2)``: least squares on the lines, re-weighted
    by the angle between each element and the direction to the point (Tukey's biweight,
    :data:`HORIZON_TUKEY`), so stray elements (a tile's side, a corner) drop out."""
    lines = np.concatenate([normals, -(normals * pts).sum(1, keepdims=True)], axis=1)
    w = weights.astype(np.float64)
    v = np.array([0.0, 0.0, 1.0])
    c = math.sin(math.radians(HORIZON_TUKEY))
    for _ in range(rounds):
        M = (lines * w[:, None]).T @ lines
        v = np.linalg.eigh(M)[1][:, 0]
        # sine of the angle between each element and the direction towards v
        to_v = v[None, :2] - v[2] * pts
        dist = np.hypot(*to_v.T)
        sin = np.abs(lines @ v) / np.maximum(dist, 1e-12)
        tukey = np.where(sin < c, (1 - (sin / c) ** 2) ** 2, 0.0)
        if tukey.sum() < 10:
            break
        w = weights * tukey / np.maximum(dist, 1e-6) ** 2
    return v / np.linalg.norm(v)


def horizon_line(tensor: tuple[np.ndarray, np.ndarray, np.ndarray], mask: np.ndarray,
                 dirs: np.ndarray) -> np.ndarray | None:
    """The image of the table's line at infinity, ``(3,)`` homogeneous (``l · (x, y, 1) =
    0``, image px), from the vanishing points of the figure's three line families.

    ``tensor``: the image's :func:`structure_tensor`; ``mask`` ``(H, W)``: the figure
    (made boolean); ``dirs`` ``(3, 2)``: the three line directions
    (:func:`line_directions`). Every strong edge pixel (the stronger half) whose line
    direction lies within :data:`HORIZON_GATE` of a family's is a line element of that
    family; each family's elements meet at its vanishing point
    (:func:`_vanishing_point`), and the three points lie on the horizon (the line
    through them in the least-squares sense). In an affine view the points lie far out
    and the horizon is far from the figure. None with too few elements
    (:data:`HORIZON_MIN_PIXELS`) in a family.
    """
    jxx, jyy, jxy = (cv2.GaussianBlur(t, (0, 0), 1.5) for t in tensor)
    ys, xs = np.nonzero(np.asarray(mask, bool))
    if len(xs) < 3 * HORIZON_MIN_PIXELS:
        return None
    theta, strength = tensor_orientation(jxx[ys, xs], jyy[ys, xs], jxy[ys, xs])
    strong = strength >= np.median(strength)
    xs, ys, strength = xs[strong], ys[strong], strength[strong]
    theta = theta[strong] + 0.5 * math.pi  # line direction
    # normalised coordinates (conditioning): centred on the elements, unit ~ half the extent
    cx, cy = float(xs.mean()), float(ys.mean())
    f = max(float(np.ptp(xs)), float(np.ptp(ys)), 1.0) / 2.0
    pts = np.stack([(xs - cx) / f, (ys - cy) / f], axis=1)
    normals = np.stack([-np.sin(theta), np.cos(theta)], axis=1)
    vps = []
    for d in np.asarray(dirs, float):
        phi = math.atan2(d[1], d[0])
        dev = (theta - phi + 0.5 * math.pi) % math.pi - 0.5 * math.pi
        sel = np.abs(dev) < math.radians(HORIZON_GATE)
        if sel.sum() < HORIZON_MIN_PIXELS:
            return None
        vps.append(_vanishing_point(pts[sel], normals[sel], np.sqrt(strength[sel])))
    h = np.linalg.svd(np.stack(vps))[2][-1]
    T = np.array([[1 / f, 0.0, -cx / f], [0.0, 1 / f, -cy / f], [0.0, 0.0, 1.0]])
    out = T.T @ h
    return out / np.linalg.norm(out)


def affine_rectifier(horizon: np.ndarray, centre) -> np.ndarray | None:
    """The homography ``(3, 3)`` image px → image px that sends ``horizon`` (see
    :func:`horizon_line`) to the line at infinity, so the table's parallel lines become
    parallel (an affine view of the table), with ``centre`` (x, y) fixed and the area
    around it kept. A point ``p`` keeps the weight ``w = horizon · p`` relative to the
    centre's (1 there, 0 on the horizon): its neighbourhood is magnified about ``1 / w``
    per axis. None when the centre lies on the horizon."""
    h = np.asarray(horizon, float)
    p0 = np.array([centre[0], centre[1], 1.0])
    w0 = float(h @ p0)
    if abs(w0) < 1e-12:
        return None
    h = h / w0  # the centre keeps its weight 1
    P = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], h])
    J = np.eye(2) - np.outer(p0[:2], h[:2])  # d(p / w)/dp at the centre (w = 1)
    s = 1.0 / math.sqrt(max(abs(np.linalg.det(J)), 1e-12))
    S = np.array([[s, 0.0, (1 - s) * p0[0]], [0.0, s, (1 - s) * p0[1]], [0.0, 0.0, 1.0]])
    return S @ P


def affine_from_directions(dirs: np.ndarray) -> np.ndarray | None:
    """A 2 × 2 linear map (world → image, unit pitch scale 1) whose three world edge
    directions ``(0, 1)``, ``(√3/2, 1/2)``, ``(-√3/2, 1/2)`` land on ``dirs``.

    The map is fixed up to scale by the three directions; the assignment of directions
    is chosen so the map keeps orientation (a camera never mirrors). Scale: the image
    length of world ``(0, 1)`` is 1.
    """
    wv = np.array([0.0, 1.0])
    wa = np.array([SQRT3 / 2, 0.5])
    wb = np.array([-SQRT3 / 2, 0.5])
    W = np.stack([wa, wb], axis=1)
    for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        uv, ua, ub = dirs[perm[0]], dirs[perm[1]], dirs[perm[2]]
        M = np.stack([ua, ub], axis=1)
        if abs(np.linalg.det(M)) < 1e-6:
            continue
        lam = np.linalg.solve(M, uv)  # uv = la*ua + lb*ub
        A = np.stack([lam[0] * ua, lam[1] * ub], axis=1) @ np.linalg.inv(W)
        if np.linalg.det(A) > 1e-9:
            return A / np.hypot(*(A @ wv))
    return None


def ridge_strength(gray: np.ndarray, sigma: float = 1.0) -> np.ndarray:
    """Thin-line (ridge or valley) strength ``(H, W)`` float32 of a grey image.

    The largest absolute Hessian eigenvalue at scale ``sigma`` px: high on narrow lines
    such as the gaps between tiles, zero in the middle of a plain step edge (a boundary
    between two paints).
    """
    g = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), sigma)
    dxx = cv2.Sobel(g, cv2.CV_32F, 2, 0, ksize=3)
    dyy = cv2.Sobel(g, cv2.CV_32F, 0, 2, ksize=3)
    dxy = cv2.Sobel(g, cv2.CV_32F, 1, 1, ksize=3)
    tr = 0.5 * (dxx + dyy)
    disc = np.sqrt(0.25 * (dxx - dyy) ** 2 + dxy * dxy)
    return np.maximum(np.abs(tr + disc), np.abs(tr - disc))


@lru_cache(maxsize=32)
def spoke_offsets(n: int = 5) -> np.ndarray:
    """``(6 * n, 2)`` world offsets along the six spokes (centre → vertices), 0.25-0.85 R."""
    v = hex_vertices(1.0 / SQRT3)
    t = np.linspace(0.25, 0.85, n)
    return _frozen(np.array([vk * s for vk in v for s in t]))


VERTEX_COSETS = np.array([[0.0, 0.0], [0.0, -1.0 / SQRT3], [0.5, -0.5 / SQRT3]])
"""World shifts between a cell centre and the two kinds of honeycomb vertex: the three
phases an outline search alone cannot tell apart (all lie on the same line pattern)."""


def gap_phase(ridges: np.ndarray, mask: np.ndarray, H: np.ndarray,
              cells: np.ndarray) -> np.ndarray:
    """Which of :data:`VERTEX_COSETS` puts the cell outlines on the tile outlines.

    Two cues: the outline of the figure (``mask``, boolean ``(H, W)``) follows tile
    outlines, so true cells are either wholly on or wholly off the mask, while cells of
    a vertex phase are cut by its boundary; and tile gaps are thin lines (``ridges``)
    while spokes are paint steps. Returns the world shift ``(2,)`` for the origin.
    """
    world = axial_to_world(cells)
    # cells of the window and their neighbours
    ring = np.concatenate([cells] + [cells + np.array(d) for d in
                                     ((1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1))])
    ring = np.unique(ring, axis=0)
    wring = axial_to_world(ring)
    inn = np.concatenate([interior_offsets(), outline_offsets(6, 0.42), np.zeros((1, 2))])
    out = outline_offsets(8)
    sp = spoke_offsets()
    m = mask.astype(np.float32)
    scores = []
    for shift in VERTEX_COSETS:
        f = sample_bilinear(m, apply_homography(H, wring[:, None] + shift + inn[None]))
        f = f.mean(axis=1)
        touched = f > 0.02
        cut = float(np.minimum(f, 1 - f)[touched].mean()) if touched.any() else 0.5
        po = apply_homography(H, world[:, None] + shift + out[None])
        ps = apply_homography(H, world[:, None] + shift + sp[None])
        r_o = sample_bilinear(ridges, po).mean()
        r_s = sample_bilinear(ridges, ps).mean()
        ridge = (r_o - r_s) / max(r_o + r_s, 1e-6)
        scores.append(ridge - 4.0 * cut)
    return VERTEX_COSETS[int(np.argmax(scores))]
