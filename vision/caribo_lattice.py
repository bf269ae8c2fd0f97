"""CARIBO lattice: where the hexagon tiles' top faces lie in a photo.

Stage 2 of :mod:`vision.caribo_recognition`: from the Lab detection image and its paint
mask, the three line directions of the tile outlines fix the lattice's affine view up to
scale (a fourth strong direction on the figure itself, props beside it left out, means
"not CARIBO": :func:`figure_components`); scale and phase are searched around two seeds
(the deepest points of the paint) by outline contrast and by how little the figure's
outline cuts cells, and each candidate's homography of the top-face plane is regrown
cell by cell from its seed (a refit on evidence measured all over the figure,
:func:`figure_refit`, is written and tested but off: :data:`FIGURE_REFIT`).
Candidates far below their seed's best are not refined, and a refined candidate that
puts the same cells on the figure as an earlier one is dropped.
The candidates (best first) go to the tile reader, which reads every one and picks the
one whose reading explains most.

Speed (CPU, 800 px detection image, shared 2-core machine): median about 0.4 s per photo
without the figure-wide refit, which would add about 0.3 s (10 hard photos); the
sampling is ``cv2.remap`` (:func:`vision.hexlattice.sample_bilinear`). Known limits
(``benchmarks/caribo_lattice_drift.py``, dev seeds 5000 normal / 5001 hard, with the
figure-wide refit on; 4 and 6 with it off): 3 of 39 normal and 6 of 30 hard photos have no
candidate that puts every tile on its own cell - a wrong scale or line direction where
the paint mask misses tiles painted like a patterned table (gingham), and far tiles
drifting where they are not on the paint mask at all.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from engines.caribo.geometry import AXIAL_DIRECTIONS
from vision import hexlattice

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
DOMINATED_GAP = 0.5
"""Seed candidates scoring this much below the seed's best (the score of
:func:`_seed_candidates`: relative cut plus relative outline contrast) are dropped before
refinement. Measured on 60 dev photos (seeds 3000/3001): about one candidate in five is
dropped, and no photo loses its last candidate that puts every tile on its own cell
(at gap 0.4 one does)."""
DUPLICATE_TOLERANCE = 0.12
"""Two refined candidates whose cells on the paint coincide within this many pitches
(centres, and one cell step) are one lattice; only the first is returned."""

def find_lattice(lab_det: np.ndarray, paint: np.ndarray, scale: float):
    """Fit the top-face lattice: directions → scale and phase → per-tile homography."""
    edges = hexlattice.edge_strength(cv2.GaussianBlur(lab_det, (0, 0), 1.0))
    ridges = hexlattice.ridge_strength(lab_det[..., 0], 1.0)
    signal = ridges if LATTICE_SIGNAL == "ridge" else edges
    n_paint = int(paint.sum())
    if n_paint < 150:
        return None
    region = cv2.dilate(paint.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    # "not hexagonal" is judged on the figure, not on props or table patterns taken for
    # paint away from it
    figure = cv2.dilate(figure_components(paint).astype(np.uint8), np.ones((5, 5), np.uint8))
    dirs = hexlattice.line_directions(lab_det, region, test_mask=figure > 0)
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
    bbox = cv2.boundingRect(paint.astype(np.uint8))  # x, y, w, h of the paint
    paint = paint.astype(np.float32)  # sampled many times below: convert once
    per_seed = []
    for c0 in seeds:
        ranked = _seed_candidates(c0, A, signal, paint, boundary, max_pitch, bbox)
        if ranked:
            # candidates far below the seed's best are never the lattice read: not refined
            top = max(score for score, _, _ in ranked)
            per_seed.append([(H, pitch, c0) for score, pitch, H in ranked
                             if score >= top - DOMINATED_GAP])
    # interleave: every seed's best first, then the runners-up
    order = []
    for rank in range(LATTICE_ALTERNATIVES):
        for ranked in per_seed:
            if rank < len(ranked):
                order.append(ranked[rank])
    out = []
    kept = []  # (H, image centres of its cells on the paint) of the lattices returned
    for H, pitch, c0 in order[:LATTICE_ALTERNATIVES]:
        (Hr,) = _refine_lattice(H, pitch, signal, paint, c0,
                                _paint_window(bbox, pitch) if FIGURE_REFIT else None)
        cells = cells_on_mask(Hr, paint, pitch, near=_paint_window(bbox, pitch))
        centres = hexlattice.apply_homography(Hr, hexlattice.axial_to_world(cells))
        if any(same_lattice(Hk, ck, Hr, centres) for Hk, ck in kept):
            continue  # the reader would read the same cells again
        kept.append((Hr, centres))
        out.append((Hr, edges, ridges, pitch))
    return out


FIGURE_COMPONENT = 0.3
"""Connected paint regions at least this fraction of the largest one's area are the
figure (split where a tile is coloured like the table); smaller ones away from it are
props or table patterns. Measured (dev seeds 4000/4001, 60 CARIBO photos, 15 Colomino
(4010) and 15 Wauri (4011) hard photos): the fourth line direction of
:func:`vision.hexlattice.line_directions` relative to the third, on the whole paint →
on these regions: CARIBO hard at most 0.82 → 0.41 (4 of 30 photos were rejected as not
hexagonal, all by a prop's or the table's lines), normal at most 0.31 → 0.31; Colomino
at least 0.42 → 0.44, Wauri 15 → 14 photos above 0.5 (both: their pieces' own lines)."""


def figure_components(paint: np.ndarray) -> np.ndarray:
    """Boolean ``(H, W)`` mask of the connected regions (8-connected) of the boolean
    ``paint`` mask whose area is at least :data:`FIGURE_COMPONENT` times the largest."""
    mask = paint.astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 2:
        return mask > 0
    areas = stats[1:, cv2.CC_STAT_AREA]
    keep = np.zeros(n, bool)
    keep[1:] = areas >= FIGURE_COMPONENT * areas.max()
    return keep[labels]


def same_lattice(Ha: np.ndarray, centres_a: np.ndarray, Hb: np.ndarray,
                 centres_b: np.ndarray, tol: float = DUPLICATE_TOLERANCE) -> bool:
    """Whether two lattice homographies put the same cells on the figure.

    ``centres_a (Na, 2)``, ``centres_b (Nb, 2)`` are image centres (px) of each lattice's
    cells on the paint. The lattices are the same when each one's centres lie within
    ``tol`` pitch of a cell centre of the other and one cell step of either spans one
    cell step (± ``tol``) of the other: the same cells at the same scale, whatever the
    labelling of the axes.
    """
    if len(centres_a) == 0 or len(centres_b) == 0:
        return len(centres_a) == len(centres_b)
    for H1, c2 in ((Ha, centres_b), (Hb, centres_a)):
        world = hexlattice.apply_homography(np.linalg.inv(H1), c2)
        if not np.isfinite(world).all():
            return False
        ax = hexlattice.world_to_axial(world)
        resid = world - hexlattice.axial_to_world(hexlattice.round_axial(ax))
        if np.hypot(*resid.T).max() > tol:
            return False
    # the same centres could still be every other cell of a finer lattice: compare steps
    wa = hexlattice.apply_homography(np.linalg.inv(Ha), centres_a)
    steps = hexlattice.apply_homography(Ha, wa + [1.0, 0.0])
    wb = hexlattice.apply_homography(np.linalg.inv(Hb), steps) - hexlattice.apply_homography(
        np.linalg.inv(Hb), centres_a)
    return bool(np.all(np.abs(np.hypot(*wb.T) - 1.0) < tol))


def _paint_window(bbox, pitch: float):
    """``near`` window of :func:`cells_on_mask` holding every cell that can be half on
    the paint: the circle around the paint's bounding box ``(x, y, w, h)`` (px), widened
    by two pitches (a cell's interior samples lie within 0.35 pitch of its centre)."""
    x, y, w, h = bbox
    centre = np.array([x + 0.5 * w, y + 0.5 * h])
    return centre, 0.5 * math.hypot(w, h) + 2.0 * pitch + 2.0


def _seed_candidates(c0, A, signal, paint, boundary, max_pitch, bbox) -> list:
    """Lattices ``(score, pitch, H)`` seeded at ``c0``: best first, then the others.

    Scale and phase are searched on the cells around the seed (outline contrast); the
    local maxima over scale and the three vertex phases are then ranked by how little
    the figure's outline cuts through cells, compared with random phases. ``bbox``
    ``(x, y, w, h)`` is the paint's bounding box.
    """
    curve = []
    pitch = MIN_PITCH
    n = 8
    fr = (np.arange(n) + 0.5) / n - 0.5
    while pitch <= max_pitch:
        L = pitch * A
        a_right, a_lr = L @ np.array([1.0, 0.0]), L @ np.array([0.5, SQRT3_2])
        H0 = hexlattice.affine_lattice_homography(a_right, a_lr, c0)
        cells = cells_on_mask(H0, paint, pitch, min_frac=0.6, near=(c0, 1.8 * pitch))
        if len(cells) >= 1:
            offs = (fr[:, None, None] * a_right + fr[None, :, None] * a_lr).reshape(-1, 2)
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
        # the cut of a lattice at this scale in random phases: what "not aligned" means;
        # all nine lattices (six random phases, three vertex phases) sampled at once
        randoms = [_shifted(H0, rng.uniform(-0.5, 0.5, 2)) for _ in range(6)]
        phases = [_shifted(H0, shift) for shift in hexlattice.VERTEX_COSETS]
        cuts = _cut_scores(randoms + phases, paint, boundary, pitch_i, c0, radius)
        chance = np.mean(cuts[:6])
        window = _paint_window(bbox, pitch_i)
        for Hs, cut in zip(phases, cuts[6:], strict=True):
            score = -cut / max(chance, 1e-6) + OUTLINE_WEIGHT * vals[i] / max(max(vals), 1e-9)
            # a lattice so coarse that one or two cells hold the whole figure explains
            # nothing; prefer any finer candidate
            if len(cells_on_mask(Hs, paint, pitch_i, min_frac=0.5, near=window)) < 3:
                score -= 1.0
            scored.append((score, pitch_i, Hs))
    top = max(c[0] for c in scored)
    # a coarser lattice whose cells hold several tiles can fit the outline about as well
    # as the true one; among near-best candidates the finest wins
    best = min((c for c in scored if c[0] >= top - SCALE_TOLERANCE), key=lambda c: c[1])
    others = sorted((c for c in scored if c is not best), key=lambda c: -c[0])
    return [best] + others




def _refine_lattice(H: np.ndarray, pitch: float, signal: np.ndarray, paint: np.ndarray,
                    c0: np.ndarray, window=None) -> tuple[np.ndarray]:
    """Grow-and-refit the homography from the seed ``c0``; relabel to image up."""
    for search, radius in REFINE_SCHEDULE:
        cells = cells_on_mask(H, paint, pitch, near=(c0, radius * pitch))
        if len(cells) == 0:
            break
        Hn, _ = hexlattice.refine_homography(signal, H, cells, search * pitch, steps=7)
        if plausible_update(H, Hn, cells):
            H = Hn
    if window is not None:
        H = figure_refit(H, pitch, signal, paint, window)
    # relabel so that "right" is the shell vector nearest image +x
    shell = hexlattice.shell_vectors(np.array([
        hexlattice.apply_homography(H, np.array([[1.0, 0.0]]))[0]
        - hexlattice.apply_homography(H, np.array([[0.0, 0.0]]))[0],
        hexlattice.apply_homography(H, np.array([[0.5, SQRT3_2]]))[0]
        - hexlattice.apply_homography(H, np.array([[0.0, 0.0]]))[0],
    ]))
    return (_relabel(H, shell),)


FIGURE_REFIT = False
"""Whether the regrowth ends with :func:`figure_refit`. Off: measured by the lead on
four sets of unseen and held-out photos it won hard boards (+4 of about 140) and lost
normal ones (-1 of about 200; on the lead's set 545454 three normal boards went from
perfect to 1-11 tile errors, as the reader flips tiles when the lattice moves slightly),
for about 0.3 s more CPU per photo (+40 %)."""
FIGURE_SCHEDULE = ((0.3, 9), (0.15, 7), (0.07, 5))
"""(search half-width in pitches, shifts per axis) of the figure-wide refits that end
the regrowth: every cell on the paint measures its own offset and one robust homography
goes through all of them."""
FIGURE_MIN_CELLS = 8
"""Cells on the paint below which the figure-wide refit is not made."""
FIGURE_EXTRA = 1
"""Rings of cells around the paint that measure too (tiles painted like the table)."""
FIGURE_INLIER = 0.08
"""RANSAC inlier distance (pitches) of the figure-wide refit."""


def figure_refit(H: np.ndarray, pitch: float, signal: np.ndarray, paint: np.ndarray,
                 window) -> np.ndarray:
    """Refit ``H`` on measured evidence over the whole figure.

    The regrowth from the seed extrapolates the near cells' homography to the far ones,
    where a perspective error accumulates. Here every cell on the paint inside ``window``
    (``((cx, cy), radius)`` px) finds its own best position (the shift of its honeycomb
    outline with the most ``signal`` within ±search pitches), and one homography is
    fitted through all those correspondences with RANSAC (:data:`FIGURE_INLIER`), with
    shrinking searches (:data:`FIGURE_SCHEDULE`). A refit that is not a
    :func:`plausible_update` is not taken.
    """
    for search, steps in FIGURE_SCHEDULE:
        # a figure of a few tiles is wholly inside the regrowth's patch already; and a
        # lattice finer than the tiles must not be fitted to their spokes
        if len(cells_on_mask(H, paint, pitch, near=window)) < FIGURE_MIN_CELLS:
            return H
        cells = cells_on_mask(H, paint, pitch, extra=FIGURE_EXTRA, near=window)
        world = hexlattice.axial_to_world(cells)
        lin = np.linspace(-search * pitch, search * pitch, steps)
        shifts = np.stack(np.meshgrid(lin, lin), axis=-1).reshape(-1, 2)
        scores = hexlattice.outline_score(signal, H, world, shifts)
        best = np.argmax(scores, axis=1)
        # a cell without an outline of its own (no tile there) measures nothing
        outlined = scores[np.arange(len(cells)), best] > 0
        if outlined.sum() < FIGURE_MIN_CELLS:
            return H
        moved = hexlattice.apply_homography(H, world) + shifts[best]
        Hn, inl = cv2.findHomography(world[outlined], moved[outlined], cv2.RANSAC,
                                     max(1.0, FIGURE_INLIER * pitch),
                                     maxIters=hexlattice.RANSAC_ITERATIONS)
        if Hn is None or inl is None or inl.sum() < max(FIGURE_MIN_CELLS, 0.5 * outlined.sum()):
            continue
        if plausible_update(H, Hn, cells):
            H = Hn
    return H


def plausible_update(H: np.ndarray, Hn: np.ndarray, cells: np.ndarray) -> bool:
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


def _cut_scores(Hs, paint, boundary, pitch, c0, radius) -> list[float]:
    """How much the cells near ``c0`` of each lattice in ``Hs`` are cut by the figure's
    outline (one float per lattice).

    Sum over cells of min(covered, uncovered) area, per pixel of outline and pitch
    (dimensionless): about 0 when cell outlines follow the figure outline, larger for a
    wrong scale or phase; 1.0 for a lattice without cells there. The samples of all
    lattices are taken in one :func:`vision.hexlattice.sample_bilinear` call.
    """
    inn = np.concatenate([hexlattice.interior_offsets(), hexlattice.outline_offsets(6, 0.42),
                          hexlattice.outline_offsets(6, 0.3), np.zeros((1, 2))])
    near = (boundary[:, 0] - c0[0]) ** 2 + (boundary[:, 1] - c0[1]) ** 2 <= radius * radius
    perim = float(near.sum()) + 1.0
    points, counts = [], []
    for H in Hs:
        cells = cells_on_mask(H, paint, pitch, min_frac=0.0, near=(c0, radius))
        world = hexlattice.axial_to_world(cells)
        points.append(hexlattice.apply_homography(H, world[:, None] + inn[None]))
        counts.append(len(cells))
    f = hexlattice.sample_bilinear(paint, np.concatenate(points)).mean(axis=1)
    out, k = [], 0
    for n in counts:
        if n == 0:
            out.append(1.0)
            continue
        part = f[k: k + n]
        k += n
        cut_area = float(np.minimum(part, 1 - part).sum()) * 0.866 * pitch * pitch
        out.append(cut_area / perim)
    return out


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


def cells_on_mask(H: np.ndarray, mask: np.ndarray, pitch: float, extra: int = 0,
                   min_frac: float = 0.5, near=None) -> np.ndarray:
    """Axial cells whose interior is mostly on ``mask`` (plus ``extra`` rings)."""
    h, w = mask.shape
    Hinv = np.linalg.inv(H)
    x0, y0, x1, y1 = 0.0, 0.0, float(w), float(h)
    if near is not None:  # only the cells of the window's bounding box can qualify
        (cx, cy), rad = near
        x0, y0 = max(x0, cx - rad - 1.0), max(y0, cy - rad - 1.0)
        x1, y1 = min(x1, cx + rad + 1.0), min(y1, cy + rad + 1.0)
        if x1 <= x0 or y1 <= y0:
            return np.zeros((0, 2), np.int64)
    corners = np.array([[x0, y0], [x1, y0], [x0, y1], [x1, y1]], float)
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
    if min_frac <= 0.0:  # every cell qualifies: no need to measure its paint fraction
        sel = cells
    else:
        pts = hexlattice.apply_homography(
            H, world[:, None] + hexlattice.interior_offsets()[None])
        frac = hexlattice.sample_bilinear(np.asarray(mask, np.float32), pts).mean(axis=1)
        sel = cells[frac >= min_frac]
    if extra <= 0:
        return sel
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
