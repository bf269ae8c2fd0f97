"""CARIBO recognition: a photo of hexagon tiles → the figure notation (SPEC JSON).

Pipeline (all at a reduced *detection* resolution except the colour samples):

1. **Table model** — k-means colours of the image border (the table); every pixel's
   distance from the nearest table colour (Lab, :func:`_table_distance`); pixels far
   from all of them are *paint*.
2. **Lattice** — the tile outlines and paint boundaries share three line directions
   (:func:`vision.hexlattice.line_directions`; a fourth strong one means "not CARIBO"),
   which fix the lattice's affine view up to scale; scale and phase are searched around
   two seeds by outline contrast and by how little the figure's outline cuts cells;
   each candidate's homography of the top-face plane is regrown cell by cell
   (the faces are 10 mm above the table, so the table and wooden sides are not on it).
3. **Cells** — every lattice cell near the paint is measured (paint fraction, outline
   edge/ridge contrast, segment spread, distance to paints and to the table colours,
   best tile-pattern fit); a logistic model fitted on simulator photos gives its
   occupancy log-odds, a second stage lets occupied neighbours support a doubtful cell.
4. **Colours** — six segment colours per tile sampled inside the triangles (away from
   spokes, rim and sides) at full resolution; the light is searched along the
   black-body curve and the paint clusters re-centred on the photo
   (:mod:`vision.colour`), or a calibration's measured paints are used.
5. **Decoding** — log-likelihood of all 216 tile rotations per cell, a soft bonus for
   matching neighbours, then one global assignment of the 36 physical tiles
   (``scipy.optimize.linear_sum_assignment``) so no tile appears twice. Every lattice
   candidate is read; the one with the highest expected right-minus-wrong tiles wins,
   its homography is refitted on the outlines of the tiles read and the photo re-read,
   up to three rounds while the reading explains more (cells far from the seed, where
   the regrown lattice drifts under strong perspective), and tile confidences are
   calibrated by its lead over differing readings.

Measured limits (``boardcam evaluate``, fresh simulator seeds, see the README): most
failures at hard difficulty are lattices of the wrong scale or drifting away from the
seed under strong perspective (``benchmarks/caribo_recognition_diagnose.py`` attributes
each failure to a stage); at normal difficulty, tiles coloured like the table are still
missed or empty holes taken for tiles. Recognition takes about 150-250× the JPEG decode
time.
"""

from __future__ import annotations

import json
import math

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from engines.caribo import Tile, board_from_axial, format_board, from_axial, parse_board, to_axial
from engines.caribo.geometry import AXIAL_DIRECTIONS
from engines.caribo.tiles import ALL_ROTATIONS, ALL_TILES, COLOURS
from vision import colour, hexlattice
from vision.recognize import NothingFound

DETECT_SIDE = 800
MIN_PITCH = 18.0
LATTICE_SIGNAL = "ridge"
OUTLINE_WEIGHT = 1.0
SCALE_TOLERANCE = 0.15
MAX_SCALE_CANDIDATES = 12
LATTICE_ALTERNATIVES = 10
SEEDS = 2
REFINE_SCHEDULE = ((0.15, 2.5), (0.12, 4.0), (0.1, 6.0), (0.08, 10.0), (0.06, 99.0),
                   (0.05, 99.0))
"""(search half-width, window radius) in pitches: the homography is refitted on a
growing patch of cells around the seed, so perspective is followed step by step."""
SQRT3_2 = math.sqrt(3.0) / 2.0
"""Longer image side (px) at which the lattice is found."""

LETTER_INDEX = {c: i for i, c in enumerate(colour.LETTERS)}
# (216, 6) paint index of every segment of every tile rotation
ROT_SEGS = np.array([[LETTER_INDEX[c] for c in t.segments] for t in ALL_ROTATIONS])
ROT_ID = np.repeat(np.arange(36), 6)
# 1 for each distinct tile rotation (a one-colour tile has a single rotation)
DISTINCT_ROTATION = np.array([0.0 if (i < 36 and i % 6) else 1.0 for i in range(216)])
UNSURE = 0.9
"""Tiles below this confidence get a warning and are highlighted in the overlay."""
QUALITY_MARGIN = 0.0
"""A later lattice candidate replaces an earlier one only when its quality (expected
right minus wrong tiles) is higher by more than this. Measured on 60 dev photos: 0 and
0.5 read the same number of boards perfectly; 0 also picks the true lattice of a lone
tile over a half-scale one (4 quarter-tiles, quality 0.75 vs 1.0)."""
DEBUG = None


# ----------------------------------------------------------------------------- helpers
def _detection_image(image: np.ndarray) -> tuple[np.ndarray, float]:
    h, w = image.shape[:2]
    s = min(1.0, DETECT_SIDE / max(h, w))
    if s < 1.0:
        small = cv2.resize(image, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    else:
        small = image
    return small, s


def _paint_mask(lab: np.ndarray) -> np.ndarray:
    """Boolean ``(H, W)``: pixels unlike the table colours seen along the image border."""
    return _table_distance(lab) > PAINT_DISTANCE


PAINT_DISTANCE = 16.0
"""Distance (ΔE, lightness weighted 0.6) from every table colour above which a pixel is
*paint*."""


def _table_distance(lab: np.ndarray) -> np.ndarray:
    """Distance ``(H, W)`` float32 (ΔE, lightness weighted 0.6, median-filtered 5 px) of
    every pixel of the ``(H, W, 3)`` Lab image from the nearest of six k-means colours of
    the image border (the table)."""
    h, w = lab.shape[:2]
    b = max(4, int(0.04 * min(h, w)))
    ring = np.concatenate([
        lab[:b].reshape(-1, 3), lab[-b:].reshape(-1, 3),
        lab[:, :b].reshape(-1, 3), lab[:, -b:].reshape(-1, 3),
    ])
    rng = np.random.default_rng(0)
    sample = ring[rng.choice(len(ring), size=min(len(ring), 4000), replace=False)]
    k = 6
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    cv2.setRNGSeed(0)  # k-means++ draws from OpenCV's global RNG: keep answers repeatable
    _, _, centres = cv2.kmeans(sample.astype(np.float32), k, None, crit, 2,
                               cv2.KMEANS_PP_CENTERS)
    flat = lab.reshape(-1, 3)
    d = np.full(len(flat), np.inf, np.float32)
    for c in centres:
        diff = flat - c
        diff[:, 0] *= 0.6
        d = np.minimum(d, (diff * diff).sum(axis=1))
    d = np.sqrt(d).reshape(h, w)
    return cv2.medianBlur(d.astype(np.float32), 5)


def _find_lattice(lab_det: np.ndarray, paint: np.ndarray, scale: float):
    """Fit the top-face lattice: directions → scale and phase → per-tile homography."""
    edges = hexlattice.edge_strength(cv2.GaussianBlur(lab_det, (0, 0), 1.0))
    ridges = hexlattice.ridge_strength(lab_det[..., 0], 1.0)
    signal = ridges if LATTICE_SIGNAL == "ridge" else edges
    region = cv2.dilate(paint.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    n_paint = int(paint.sum())
    if n_paint < 150:
        return None
    dirs = hexlattice.line_directions(lab_det, region)
    if dirs is None:
        return None
    A = hexlattice.affine_from_directions(dirs)
    if A is None:
        return None
    dist = cv2.distanceTransform(paint.astype(np.uint8), cv2.DIST_L2, 5)
    h, w = paint.shape
    max_pitch = min(0.5 * min(h, w), 2.0 * math.sqrt(n_paint))
    edge_px = paint.astype(np.uint8) - cv2.erode(paint.astype(np.uint8), np.ones((3, 3)))
    by, bx = np.nonzero(edge_px)
    boundary = np.stack([bx, by], axis=1).astype(np.float64)  # (K, 2) outline pixels x, y
    # seeds: the deepest point of the paint, then the deepest point away from it
    seeds = []
    d = dist.copy()
    for _ in range(SEEDS):
        y0, x0 = np.unravel_index(int(np.argmax(d)), d.shape)
        if d[y0, x0] <= 1.0:
            break
        seeds.append(np.array([float(x0), float(y0)]))
        cv2.circle(d, (int(x0), int(y0)), int(max(4 * dist[y0, x0], 10)), 0.0, -1)
    per_seed = []
    for c0 in seeds:
        ranked = _seed_candidates(c0, A, signal, paint, boundary, max_pitch)
        if ranked:
            per_seed.append([(H, pitch, c0) for _, pitch, H in ranked])
    # interleave: every seed's best first, then the runners-up
    order = []
    for rank in range(LATTICE_ALTERNATIVES):
        for ranked in per_seed:
            if rank < len(ranked):
                order.append(ranked[rank])
    out = []
    for H, pitch, c0 in order[:LATTICE_ALTERNATIVES]:
        out.append(_refine_lattice(H, pitch, signal, paint, c0) + (edges, ridges, pitch))
    return out


def _seed_candidates(c0, A, signal, paint, boundary, max_pitch) -> list:
    """Lattices ``(score, pitch, H)`` seeded at ``c0``: best first, then the others.

    Scale and phase are searched on the cells around the seed (outline contrast); the
    local maxima over scale and the three vertex phases are then ranked by how little
    the figure's outline cuts through cells, compared with random phases.
    """
    curve = []
    pitch = MIN_PITCH
    n = 8
    fr = (np.arange(n) + 0.5) / n - 0.5
    while pitch <= max_pitch:
        L = pitch * A
        a_right, a_lr = L @ np.array([1.0, 0.0]), L @ np.array([0.5, SQRT3_2])
        H0 = hexlattice.affine_lattice_homography(a_right, a_lr, c0)
        cells = _cells_on_mask(H0, paint, pitch, min_frac=0.6, near=(c0, 1.8 * pitch))
        if len(cells) >= 1:
            offs = np.array([a * a_right + b * a_lr for a in fr for b in fr])
            sc = hexlattice.outline_score(signal, H0, hexlattice.axial_to_world(cells), offs)
            mean = sc.mean(axis=0)
            k = int(np.argmax(mean))
            curve.append((float(mean[k]), pitch, c0 + offs[k], a_right, a_lr))
        pitch *= 1.06
    if not curve:
        return []
    # local maxima of the outline score over scale are the candidates; the figure's
    # outline (tile outlines, never cut through a tile) decides scale and vertex phase
    vals = [c[0] for c in curve]
    peaks = [i for i in range(len(curve))
             if vals[i] >= max(vals[max(0, i - 1): i + 2])]
    peaks = sorted(peaks, key=lambda i: -vals[i])[:MAX_SCALE_CANDIDATES]
    best = None
    rng = np.random.default_rng(7)
    scored = []
    for i in peaks:
        _, pitch_i, origin, a_right, a_lr = curve[i]
        H0 = hexlattice.affine_lattice_homography(a_right, a_lr, origin)
        radius = 3.5 * pitch_i
        # the cut of a lattice at this scale in random phases: what "not aligned" means
        chance = np.mean([
            _cut_score(_shifted(H0, rng.uniform(-0.5, 0.5, 2)), paint, boundary, pitch_i, c0,
                       radius) for _ in range(6)])
        for shift in hexlattice.VERTEX_COSETS:
            Hs = _shifted(H0, shift)
            cut = _cut_score(Hs, paint, boundary, pitch_i, c0, radius)
            score = -cut / max(chance, 1e-6) + OUTLINE_WEIGHT * vals[i] / max(max(vals), 1e-9)
            # a lattice so coarse that one or two cells hold the whole figure explains
            # nothing; prefer any finer candidate
            if len(_cells_on_mask(Hs, paint, pitch_i, min_frac=0.5)) < 3:
                score -= 1.0
            scored.append((score, pitch_i, Hs))
    top = max(c[0] for c in scored)
    # a coarser lattice whose cells hold several tiles can fit the outline about as well
    # as the true one; among near-best candidates the finest wins
    best = min((c for c in scored if c[0] >= top - SCALE_TOLERANCE), key=lambda c: c[1])
    others = sorted((c for c in scored if c is not best), key=lambda c: -c[0])
    return [best] + others




def _refine_lattice(H: np.ndarray, pitch: float, signal: np.ndarray, paint: np.ndarray,
                    c0: np.ndarray) -> tuple[np.ndarray]:
    """Grow-and-refit the homography from the seed ``c0``; relabel to image up."""
    for search, radius in REFINE_SCHEDULE:
        cells = _cells_on_mask(H, paint, pitch, near=(c0, radius * pitch))
        if len(cells) == 0:
            break
        Hn, _ = hexlattice.refine_homography(signal, H, cells, search * pitch, steps=7)
        if _plausible_update(H, Hn, cells):
            H = Hn
    # relabel so that "right" is the shell vector nearest image +x
    shell = hexlattice.shell_vectors(np.array([
        hexlattice.apply_homography(H, np.array([[1.0, 0.0]]))[0]
        - hexlattice.apply_homography(H, np.array([[0.0, 0.0]]))[0],
        hexlattice.apply_homography(H, np.array([[0.5, SQRT3_2]]))[0]
        - hexlattice.apply_homography(H, np.array([[0.0, 0.0]]))[0],
    ]))
    return (_relabel(H, shell),)


OCCUPANCY_WEIGHTS = (-4.581, -1.248, 26.5084, -0.2872, 0.0363, -0.2175, 0.0405, -0.0114,
                     0.2326, 0.1531, -1.7992, -0.1067, 0.4744, 0.1425, 0.0016, -2.8904,
                     -0.9617, 2.7034, -5.2528)
"""Logistic weights of :func:`_occupancy_features` (then the bias), fitted on 9000
lattice cells of 120 simulator photos (dev seeds 2000-2003, normal and hard; cells of
the lattice that puts every true tile on its own cell, labelled by the truth). Cells of
half-scale lattices look like tiles to any per-cell model (each quarter of a tile is a
uniform, outlined patch), so the scale is left to the lattice search."""


def _occupancy_features(base: np.ndarray) -> np.ndarray:
    """``(N, 18)`` occupancy features from the ``(N, 10)`` cell measurements.

    ``base`` columns: paint fraction, outline edge and ridge contrast (per px of pitch),
    median and max segment spread (ΔE), median distance to the nearest paint (ΔE), best
    tile-pattern log-likelihood, median / max / min over the six segments of the distance
    to the nearest table colour (ΔE, clipped at 60). Appended: products of outline
    contrast with paint fraction, spread and table distance, of paint fraction with
    spread, of table distance with spread, squared outline contrast, log spreads — a
    tile is told by a crisp outline *and* paint-like interior, an empty hole inside the
    figure by its outline alone.
    """
    pf = base[:, 0]
    o = np.clip(base[:, 1], -1.0, 3.0)
    sp = np.minimum(base[:, 3], 20.0)
    td = np.minimum(base[:, 7], 40.0)
    return np.column_stack([
        base, o * pf, o * sp, o * td, pf * sp, td * sp, o * o,
        np.log1p(np.maximum(base[:, 4], 0.0)), np.log1p(np.maximum(base[:, 3], 0.0)),
    ])


def _occupancy_logit(base: np.ndarray) -> np.ndarray:
    """Log-odds ``(N,)`` that a lattice cell holds a tile, from the ``(N, 10)`` cell
    measurements described in :func:`_occupancy_features`."""
    w = np.asarray(OCCUPANCY_WEIGHTS)
    return _occupancy_features(base) @ w[:-1] + w[-1]


NEIGHBOUR_WEIGHTS = (0.7024, 2.1488, -0.0197, -0.2476, 0.7091, -0.0451, -5.0948)
"""Second-stage logistic weights of :func:`_neighbour_logit` (then the bias), fitted on the
cells of the right lattices of the same 120 dev photos as :data:`OCCUPANCY_WEIGHTS`;
on 60 other dev photos (seeds 2004/2005), taking the larger of the two log-odds cut
wrongly classified cells from 38 to 30 (photos with any: 20 to 15 of 37)."""


def _neighbour_logit(cells: np.ndarray, logit: np.ndarray) -> np.ndarray:
    """Occupancy log-odds ``(N,)`` revised by the six lattice neighbours of each cell.

    ``cells (N, 2)`` axial, ``logit (N,)`` per-cell log-odds (:func:`_occupancy_logit`).
    A CARIBO figure is connected: a doubtful cell between occupied ones is more likely a
    tile than the same cell alone on the table. Features: the cell's own (clipped)
    log-odds, the number of neighbours above 0, the largest and third-largest neighbour
    log-odds, and two products of the own log-odds with the neighbour count.
    """
    z = np.clip(logit, -8.0, 8.0)
    index = {(int(q), int(r)): i for i, (q, r) in enumerate(cells)}
    nb = np.full((len(cells), 6), -8.0)
    for i, (q, r) in enumerate(cells):
        for k, (dq, dr) in enumerate(AXIAL_DIRECTIONS):
            j = index.get((int(q) + dq, int(r) + dr))
            if j is not None:
                nb[i, k] = z[j]
    n_occ = (nb > 0).sum(axis=1)
    srt = np.sort(nb, axis=1)
    x = np.column_stack([z, n_occ, srt[:, -1], srt[:, -3], z * n_occ / 6, (n_occ >= 2) * z])
    w = np.asarray(NEIGHBOUR_WEIGHTS)
    return x @ w[:-1] + w[-1]


def _exposure_hint(small: np.ndarray, refs: np.ndarray) -> float:
    """Exposure suggested by the photo: its highlights (98th percentile of linear
    luminance) taken as white paint. Auto-exposure puts the scene's brightest surfaces
    near the top of the range whatever the tiles are."""
    lum = colour.bgr8_to_linear(small[::4, ::4].reshape(-1, 3)) @ np.array([0.2126, 0.7152,
                                                                         0.0722])
    white = float(refs[0] @ np.array([0.2126, 0.7152, 0.0722]))
    return float(np.percentile(lum, 98)) / max(white, 1e-6)


def _plausible_update(H: np.ndarray, Hn: np.ndarray, cells: np.ndarray) -> bool:
    """Whether a refitted homography stays close to the old one over ``cells``.

    Refits move each cell by a fraction of a pitch; a refit that moves cells by more
    than half a pitch or changes the local pitch by more than 25 % is an outlier fit.
    """
    if not np.isfinite(Hn).all():
        return False
    world = hexlattice.axial_to_world(cells)
    a = hexlattice.apply_homography(H, world)
    b = hexlattice.apply_homography(Hn, world)
    ea = hexlattice.apply_homography(H, world + [1.0, 0.0]) - a
    eb = hexlattice.apply_homography(Hn, world + [1.0, 0.0]) - b
    pitch = np.hypot(*ea.T)
    if not np.all(np.hypot(*(a - b).T) < 0.5 * pitch):
        return False
    ratio = np.hypot(*eb.T) / np.maximum(pitch, 1e-9)
    return bool(np.all((ratio > 0.75) & (ratio < 1.25)))


def _shifted(H: np.ndarray, world_shift) -> np.ndarray:
    """``H`` with its world origin moved by ``world_shift`` (pitch units)."""
    T = np.eye(3)
    T[:2, 2] = world_shift
    return H @ T


def _cut_score(H, paint, boundary, pitch, c0, radius) -> float:
    """How much the lattice cells near ``c0`` are cut by the figure's outline.

    Sum over cells of min(covered, uncovered) area, per pixel of outline and pitch
    (dimensionless): about 0 when cell outlines follow the figure outline, larger for a
    wrong scale or phase.
    """
    cells = _cells_on_mask(H, paint, pitch, min_frac=0.0, near=(c0, radius))
    if len(cells) == 0:
        return 1.0
    world = hexlattice.axial_to_world(cells)
    inn = np.concatenate([hexlattice.interior_offsets(), hexlattice.outline_offsets(6, 0.42),
                          hexlattice.outline_offsets(6, 0.3), np.zeros((1, 2))])
    f = hexlattice.sample_bilinear(paint.astype(np.float32),
                                   hexlattice.apply_homography(H, world[:, None] + inn[None]))
    f = f.mean(axis=1)
    cut_area = float(np.minimum(f, 1 - f).sum()) * 0.866 * pitch * pitch
    near = (boundary[:, 0] - c0[0]) ** 2 + (boundary[:, 1] - c0[1]) ** 2 <= radius * radius
    perim = float(near.sum()) + 1.0
    return cut_area / perim


def _relabel(H: np.ndarray, shell: np.ndarray) -> np.ndarray:
    """Compose ``H`` with the lattice rotation that makes world +x point along shell[0]."""
    o = hexlattice.apply_homography(H, np.zeros((1, 2)))[0]
    best_k, best_err = 0, np.inf
    for k in range(6):
        a = math.radians(60 * k)
        R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        v = hexlattice.apply_homography(H, (R @ np.array([1.0, 0.0]))[None])[0] - o
        err = np.hypot(*(v - shell[0]))
        if err < best_err:
            best_k, best_err = k, err
    a = math.radians(60 * best_k)
    R3 = np.eye(3)
    R3[:2, :2] = [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]
    return H @ R3


def _cells_on_mask(H: np.ndarray, mask: np.ndarray, pitch: float, extra: int = 0,
                   min_frac: float = 0.5, near=None) -> np.ndarray:
    """Axial cells whose interior is mostly on ``mask`` (plus ``extra`` rings)."""
    h, w = mask.shape
    Hinv = np.linalg.inv(H)
    corners = np.array([[0, 0], [w, 0], [0, h], [w, h]], float)
    ax = hexlattice.world_to_axial(hexlattice.apply_homography(Hinv, corners))
    lo = np.floor(ax.min(axis=0)) - 1
    hi = np.ceil(ax.max(axis=0)) + 1
    if not np.isfinite(ax).all() or np.any(hi - lo > 400):
        return np.zeros((0, 2), np.int64)
    qq, rr = np.mgrid[lo[0]: hi[0] + 1, lo[1]: hi[1] + 1]
    cells = np.stack([qq.ravel(), rr.ravel()], axis=1).astype(np.int64)
    world = hexlattice.axial_to_world(cells)
    centres = hexlattice.apply_homography(H, world)
    inside = (centres[:, 0] >= 0) & (centres[:, 0] < w) & (centres[:, 1] >= 0) & (
        centres[:, 1] < h)
    if near is not None:
        inside &= np.hypot(*(centres - near[0]).T) <= near[1]
    cells, world = cells[inside], world[inside]
    pts = hexlattice.apply_homography(H, world[:, None] + hexlattice.interior_offsets()[None])
    frac = hexlattice.sample_bilinear(mask.astype(np.float32), pts).mean(axis=1)
    keep = frac >= min_frac
    sel = cells[keep]
    have = {tuple(int(x) for x in c) for c in sel}
    for _ in range(extra):
        ring = set()
        for q, r in have:
            for dq, dr in AXIAL_DIRECTIONS:
                if (q + dq, r + dr) not in have:
                    ring.add((q + dq, r + dr))
        if ring:
            sel = np.concatenate([sel.reshape(-1, 2), np.array(sorted(ring), np.int64)])
            have |= ring
    return sel


def _sample_segments(image: np.ndarray, H: np.ndarray, cells: np.ndarray):
    """Median linear RGB ``(N, 6, 3)`` and spread ``(N, 6)`` of each segment."""
    offs = hexlattice.segment_sample_offsets()  # (6, M, 2)
    world = hexlattice.axial_to_world(cells)
    pts = hexlattice.apply_homography(H, world[:, None, None] + offs[None])  # (N,6,M,2)
    h, w = image.shape[:2]
    x = np.clip(np.round(pts[..., 0]).astype(np.int64), 0, w - 1)
    y = np.clip(np.round(pts[..., 1]).astype(np.int64), 0, h - 1)
    bgr = image[y, x].astype(np.float64)  # (N,6,M,3)
    lin = colour.bgr8_to_linear(bgr)
    med = np.median(lin, axis=2)
    lab = colour.linear_to_lab(lin)
    spread = np.median(np.abs(lab - np.median(lab, axis=2, keepdims=True)).sum(-1), axis=2)
    inside = ((pts[..., 0] >= 0) & (pts[..., 0] < w) & (pts[..., 1] >= 0)
              & (pts[..., 1] < h)).all(axis=(1, 2))
    return med, spread, inside


def _decode(seg_ll: np.ndarray, cells: np.ndarray, prior_bonus: float = 1.0):
    """Global tile assignment. ``seg_ll (N, 6, 6)`` → (rotation index (N,), conf (N,))."""
    n = len(cells)
    # (N, 216): sum over segments of the log-likelihood of that rotation's colours
    rot_ll = seg_ll[:, np.arange(6)[None, :], ROT_SEGS].sum(axis=2)
    # soft neighbour-matching prior (a laid figure usually matches; never forced)
    index = {tuple(c): i for i, c in enumerate(cells)}
    marg = np.exp(seg_ll)  # (N, 6, 6) segment colour posteriors
    for i, (q, r) in enumerate(cells):
        for e, (dq, dr) in enumerate(AXIAL_DIRECTIONS):
            j = index.get((q + dq, r + dr))
            if j is None:
                continue
            other = marg[j, (e + 3) % 6]  # colour posterior of the facing segment
            rot_ll[i] += prior_bonus * np.log(0.5 * other[ROT_SEGS[:, e]] + 0.5 / 6 + 1e-9)
    # best rotation per identity, then a global assignment of identities to cells
    per_id = rot_ll.reshape(n, 36, 6)
    best_pos = per_id.argmax(axis=2)
    id_ll = per_id.max(axis=2)
    if n <= 36:
        rows, cols = linear_sum_assignment(-id_ll)
    else:  # more cells than tiles: keep the 36 best-explained
        rows, cols = linear_sum_assignment(-id_ll)
    choice = np.full(n, -1)
    choice[rows] = cols * 6 + best_pos[rows, cols]
    # confidence: posterior of the chosen rotation among all rotations of the cell
    post = rot_ll - rot_ll.max(axis=1, keepdims=True)
    post = np.exp(post) * DISTINCT_ROTATION
    post /= post.sum(axis=1, keepdims=True)
    conf = np.array([post[i, choice[i]] if choice[i] >= 0 else 0.0 for i in range(n)])
    return choice, conf, rot_ll


def _parse_previous(previous):
    if previous is None:
        return None
    if isinstance(previous, dict):
        text = previous.get("notation")
    else:
        text = str(previous).strip()
        if text.startswith("{"):
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                from engines.errors import FormatError

                raise FormatError(f"--previous: invalid JSON ({exc.msg})") from None
            text = data.get("notation") if isinstance(data, dict) else None
    if not isinstance(text, str):
        from engines.errors import FormatError

        raise FormatError("--previous: expected CARIBO notation or a JSON answer with 'notation'")
    return parse_board(text)


# ----------------------------------------------------------------------------- main
def recognize(image: np.ndarray, *, previous=None, calibration=None) -> dict:
    """Read a CARIBO photo (``(H, W, 3)`` uint8 BGR) into the SPEC answer dict.

    ``previous``: the last confirmed state (notation text, JSON text or dict) — the
    answer then also carries ``added`` and ``explained``. ``calibration``: a
    :class:`calibration.PaintCalibration` (measured paints) or None for nominal paints.
    Raises :class:`vision.recognize.NothingFound` when no tiles are visible.
    """
    prev_board = _parse_previous(previous)
    answer, _ = recognize_with_colours(image, calibration=calibration)
    if prev_board is not None:
        answer.update(_explain(prev_board, parse_board(answer["notation"])))
    return answer


def recognize_with_colours(image: np.ndarray, *, calibration=None) -> tuple[dict, np.ndarray]:
    """Like :func:`recognize` (without tracking), plus the measured segment colours.

    Returns ``(answer, colours)``; ``colours (N, 6, 3)`` is the median linear RGB of
    segments 1..6 of ``answer["tiles"][i]`` (used to fit a paint calibration).
    """
    if image is None or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("image: expected an (H, W, 3) BGR array")
    small, scale = _detection_image(image)
    lab_det = cv2.cvtColor(small.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    tdist = _table_distance(lab_det)
    paint = tdist > PAINT_DISTANCE
    found = _find_lattice(lab_det, paint, scale)
    if not found:
        raise NothingFound("no CARIBO tiles found")
    best = None
    readings = []
    for lattice in found:
        try:
            answer, seg_rgb, quality = _read_tiles(image, small, scale, lab_det, tdist, lattice,
                                                   calibration)
        except NothingFound:
            continue
        readings.append((answer["notation"], quality))
        # candidates come best-first; a later one must explain clearly more
        if best is None or quality > best[2] + QUALITY_MARGIN:
            best = (answer, seg_rgb, quality, lattice)
    if best is None:
        raise NothingFound("no CARIBO tiles found")
    for _ in range(TILE_REFIT_ROUNDS):
        refit = _refit_on_tiles(image, small, scale, lab_det, tdist, best, calibration)
        if refit is best:
            break
        best = refit
    answer, seg_rgb, quality, _ = best
    runner_up = max((q for n, q in readings if n != answer["notation"]), default=-5.0)
    _calibrate_confidences(answer, quality, runner_up)
    return answer, seg_rgb


TILE_REFIT_ROUNDS = 3
"""Refits of the chosen lattice's homography on the outlines of the tiles read on it;
each round re-reads the tiles and is kept only when the reading explains more, so the
cells far from the seed, which a refit moves onto their tiles, are read in the next."""


def _refit_on_tiles(image, small, scale, lab_det, tdist, best, calibration):
    """One more homography refit on the occupied cells only (the whole figure, where the
    regrowth from the seed used cells near the paint), then a re-read; the better of
    the two readings ``(answer, colours, quality, lattice)`` is returned."""
    answer, _, quality, lattice = best
    H_det, edges, ridges, pitch = lattice
    if len(answer["tiles"]) < 6:
        return best
    px = np.array([t["center_px"] for t in answer["tiles"]], float) * scale
    cells = hexlattice.round_axial(hexlattice.world_to_axial(
        hexlattice.apply_homography(np.linalg.inv(H_det), px)))
    signal = ridges if LATTICE_SIGNAL == "ridge" else edges
    Hn = H_det
    for search in (0.12, 0.06):
        Hr, _ = hexlattice.refine_homography(signal, Hn, cells, search * pitch, steps=7)
        if _plausible_update(Hn, Hr, cells):
            Hn = Hr
    if Hn is H_det:
        return best
    try:
        again = _read_tiles(image, small, scale, lab_det, tdist, (Hn, edges, ridges, pitch),
                            calibration)
    except NothingFound:
        return best
    return (*again, (Hn, edges, ridges, pitch)) if again[2] > quality else best


CONFIDENCE_WEIGHTS = (0.2466, 1.932, 3.5292, 1.7964, -7.8605)
"""Platt weights of :func:`_calibrate_confidences` (then the bias): fitted on the tiles
of 120 dev photos (seeds 2000-2003), checked on 60 others (2004/2005): log-loss of the
tile confidences 0.92 → 0.29; tiles stated ≥ 0.99 were right 92.7 % before, 100 % after
(138 tiles), stated 0.9-0.99 57 % before, 98 % after."""


def _calibrate_confidences(answer: dict, quality: float, runner_up: float) -> None:
    """Replace the tile confidences of ``answer`` (in place) by calibrated ones.

    A tile's raw confidence (colour posterior × occupancy) ignores whether the lattice
    itself is right; on a wrong lattice every tile is confidently wrong. The calibrated
    probability is a logistic function of the raw log-odds, the lead of the chosen
    lattice's quality over the best differing reading per tile (clipped to -1..2), the
    quality per tile and the log of the number of tiles. Warnings and the board's
    confidence (the product) are recomputed.
    """
    tiles = answer["tiles"]
    n = max(len(tiles), 1)
    w = np.asarray(CONFIDENCE_WEIGHTS)
    lead = float(np.clip((quality - runner_up) / n, -1.0, 2.0))
    warnings = []
    for t in tiles:
        c = min(max(float(t["confidence"]), 1e-4), 1 - 1e-4)
        x = np.array([math.log(c / (1 - c)), lead, quality / n, math.log(n)])
        p = 1.0 / (1.0 + math.exp(-float(x @ w[:-1] + w[-1])))
        t["confidence"] = round(p, 4)
        if p < UNSURE:
            warnings.append(f"unsure of tile {t['tile']} at row {t['row']}, col {t['col']} "
                            f"(p={p:.2f})")
    answer["confidence"] = round(float(np.prod([t["confidence"] for t in tiles])), 4)
    answer["warnings"] = warnings


def _read_tiles(image, small, scale, lab_det, tdist, lattice, calibration):
    """Read the tiles on one fitted lattice: ``(answer, segment colours, quality)``.

    Quality is the expected number of right tiles minus the expected wrong ones
    (sum of ``2 p - 1`` over tiles); a misplaced lattice straddles paint boundaries and
    scores low.
    """
    H_det, edges, ridges, pitch = lattice
    paint = tdist > PAINT_DISTANCE
    S = np.diag([1 / scale, 1 / scale, 1.0])
    H = S @ H_det
    cand = _cells_on_mask(H_det, paint, pitch, extra=2, min_frac=0.5)
    if len(cand) == 0:
        raise NothingFound("no CARIBO tiles found")
    world = hexlattice.axial_to_world(cand)
    pts = hexlattice.apply_homography(H_det, world[:, None] + hexlattice.interior_offsets()[None])
    paint_frac = hexlattice.sample_bilinear(paint.astype(np.float32), pts).mean(axis=1)
    outline = hexlattice.outline_score(edges, H_det, world, np.zeros((1, 2)))[:, 0]
    ridge = hexlattice.outline_score(ridges, H_det, world, np.zeros((1, 2)))[:, 0]
    med, spread, inside = _sample_segments(image, H, cand)
    refs = calibration.paints_linear() if calibration is not None else (
        colour.nominal_paints_linear())
    core = (paint_frac >= 0.6) & inside
    if not core.any():
        core = inside.copy()
    _, gain, centres = colour.classify_paints(
        med[core].reshape(-1, 3), refs, fixed_light=calibration is not None,
        exposure_hint=_exposure_hint(small, refs))
    dist = colour.paint_distances(med.reshape(-1, 3), gain, centres).reshape(len(cand), 6, 6)
    seg_ll = colour.loglik_from_distances(dist.reshape(-1, 6)).reshape(len(cand), 6, 6)
    fit = np.median(dist.min(axis=2), axis=1)
    rot_fit = seg_ll[:, np.arange(6)[None, :], ROT_SEGS].sum(axis=2).max(axis=1)
    seg_pts = hexlattice.apply_homography(
        H_det, world[:, None, None] + hexlattice.segment_sample_offsets()[None])
    seg_table = np.median(np.minimum(hexlattice.sample_bilinear(tdist, seg_pts), 60.0), axis=2)
    feats = np.stack([paint_frac, outline / pitch, ridge / pitch,
                      np.median(spread, axis=1), spread.max(axis=1), fit, rot_fit,
                      np.median(seg_table, axis=1), seg_table.max(axis=1),
                      seg_table.min(axis=1)], axis=1)
    own_logit = _occupancy_logit(feats)
    # neighbours only ever add support: a lone tile stays as sure as its own evidence
    occ_logit = np.maximum(own_logit, _neighbour_logit(cand, own_logit))
    # a cell whose colours are the table's and no paint's holds no tile, whatever its
    # outline (a lattice slightly off puts a tile's edge into its neighbour cells)
    tablelike = (feats[:, 7] < 0.5 * PAINT_DISTANCE) & (fit > 20.0)
    occupied = (occ_logit > 0) & inside & ~tablelike
    p_occ = 1.0 / (1.0 + np.exp(-occ_logit[occupied]))
    if DEBUG is not None:
        DEBUG.update(cand=cand, paint_frac=paint_frac, outline=outline, spread=spread,
                     H=H, occupied=occupied, seg_ll=seg_ll, feats=feats, med=med,
                     inside=inside)
    cells = cand[occupied]
    if len(cells) == 0:
        raise NothingFound("no CARIBO tiles found")
    seg_ll = seg_ll[occupied]
    choice, conf, _ = _decode(seg_ll, cells)
    conf = conf * p_occ  # right tile = a tile is there and its colours were read right
    keep = choice >= 0
    cells, choice, conf = cells[keep], choice[keep], conf[keep]
    tiles = {(int(q), int(r)): ALL_ROTATIONS[int(c)] for (q, r), c in zip(cells, choice,
                                                                          strict=True)}
    board = board_from_axial(tiles)
    grid = _axial_to_grid(list(tiles), board.first_row_shifted)
    centres_px = hexlattice.apply_homography(H, hexlattice.axial_to_world(cells))
    seg_rgb = med[occupied][keep]
    out_tiles = []
    warnings = []
    for (q, r), c, p, xy in zip(cells, choice, conf, centres_px, strict=True):
        row, col = grid[(int(q), int(r))]
        code = ALL_ROTATIONS[int(c)].code
        out_tiles.append({"row": row, "col": col, "tile": code,
                          "center_px": [round(float(xy[0]), 1), round(float(xy[1]), 1)],
                          "confidence": round(float(p), 4)})
        if p < UNSURE:
            warnings.append(f"unsure of tile {code} at row {row}, col {col} (p={p:.2f})")
    order = sorted(range(len(out_tiles)), key=lambda i: (out_tiles[i]["row"],
                                                         out_tiles[i]["col"]))
    out_tiles = [out_tiles[i] for i in order]
    seg_rgb = seg_rgb[order] if len(order) else seg_rgb
    overall = float(np.prod(conf)) if len(conf) else 0.0
    answer = {
        "game": "caribo",
        "notation": format_board(board),
        "tiles": out_tiles,
        "confidence": round(overall, 4),
        "warnings": warnings,
    }
    return answer, seg_rgb, float(np.sum(2 * conf - 1))


def _axial_to_grid(cells, fs: bool) -> dict[tuple[int, int], tuple[int, int]]:
    """Axial cell → (row, col) in the grid :func:`board_from_axial` chose."""
    min_r = min(r for _, r in cells)
    conv = {(q, r): from_axial(q, r - min_r, fs) for q, r in cells}
    min_c = min(c for _, c in conv.values())
    return {cell: (rc[0], rc[1] - min_c) for cell, rc in conv.items()}


def _explain(prev, board) -> dict:
    """Compare with the previous board: which tiles were added.

    The previous figure is matched to the new one in the 60° turn and shift where most
    of its tiles reappear unchanged. ``explained`` is true when every previous tile is
    still there and exactly one tile was added by a legal placement (the seed's rule).
    ``added`` lists the new tiles in the returned notation's grid.
    """
    from engines.caribo import rotate_axial

    now = {to_axial(r, c, board.first_row_shifted): t for (r, c), t in board.tiles.items()}
    before = {to_axial(r, c, prev.first_row_shifted): t for (r, c), t in prev.tiles.items()}
    best = None
    for k in range(6):
        rot = {rotate_axial(q, r, k): t.rotated(k) for (q, r), t in before.items()}
        for (pq, pr), pt in rot.items():
            for (nq, nr), nt in now.items():
                if nt != pt:
                    continue
                dq, dr = nq - pq, nr - pr
                moved = {(q + dq, r + dr): t for (q, r), t in rot.items()}
                same = sum(1 for c, t in moved.items() if now.get(c) == t)
                if best is None or same > best[0]:
                    best = (same, moved)
    if best is None:
        grid = _axial_to_grid(list(now), board.first_row_shifted) if now else {}
        added = [{"row": grid[c][0], "col": grid[c][1], "tile": t.code}
                 for c, t in sorted(now.items(), key=lambda ct: grid[ct[0]])]
        return {"added": added, "explained": not before and len(added) == 1}
    same, moved = best
    grid = _axial_to_grid(list(now), board.first_row_shifted)
    added_cells = sorted((c for c in now if c not in moved), key=lambda c: grid[c])
    added = [{"row": grid[c][0], "col": grid[c][1], "tile": now[c].code} for c in added_cells]
    explained = (same == len(moved) and len(added_cells) == 1
                 and _legal_addition(moved, added_cells[0], now[added_cells[0]]))
    return {"added": added, "explained": bool(explained)}


def _legal_addition(before: dict, cell, tile: Tile) -> bool:
    """Whether placing ``tile`` at axial ``cell`` next to the axial tiles ``before`` is a
    legal CARIBO placement."""
    from engines.caribo import Board, Placement

    fs = board_from_axial({**before, cell: tile}).first_row_shifted
    grid = _axial_to_grid(list(before) + [cell], fs)
    try:
        board = Board({grid[c]: t for c, t in before.items()}, first_row_shifted=fs)
        r, c = grid[cell]
        return board.is_legal(Placement(r, c, tile))
    except (ValueError, TypeError):
        return False


# ----------------------------------------------------------------------------- overlay
def write_overlay(image: np.ndarray, answer: dict, path: str) -> None:
    """Draw the recognised tiles on a copy of ``image`` and write it to ``path`` (PNG).

    Every tile is outlined and labelled with its code; tiles with confidence below
    :data:`UNSURE` are outlined in red, the others in green.
    """
    out = image.copy()
    tiles = answer.get("tiles", [])
    if len(tiles) >= 2:
        cs = np.array([t["center_px"] for t in tiles], float)
        d = np.sqrt(((cs[:, None] - cs[None]) ** 2).sum(-1))
        d[d == 0] = np.inf
        pitch = float(np.median(d.min(axis=1)))
    else:
        pitch = 0.08 * max(image.shape[:2])
    rad = pitch / math.sqrt(3.0) * 0.95
    for t in tiles:
        cx, cy = t["center_px"]
        verts = hexlattice.hex_vertices(rad) + np.array([cx, cy])
        colour_ = (0, 200, 0) if t["confidence"] >= UNSURE else (0, 0, 255)
        thick = max(1, int(pitch / 30))
        cv2.polylines(out, [np.round(verts).astype(np.int32)], True, colour_, thick,
                      cv2.LINE_AA)
        fs = max(0.35, pitch / 90)
        cv2.putText(out, t["tile"], (int(cx - pitch * 0.3), int(cy + pitch * 0.08)),
                    cv2.FONT_HERSHEY_SIMPLEX, fs, (0, 0, 0), thick + 2, cv2.LINE_AA)
        cv2.putText(out, t["tile"], (int(cx - pitch * 0.3), int(cy + pitch * 0.08)),
                    cv2.FONT_HERSHEY_SIMPLEX, fs, (255, 255, 255), thick, cv2.LINE_AA)
    if not cv2.imwrite(str(path), out):
        raise OSError(f"--overlay: cannot write {path}")


__all__ = ["recognize", "write_overlay", "ALL_TILES", "COLOURS"]
