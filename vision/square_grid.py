"""Finding and fitting a printed square n×n grid (a board's playing field) in a photo.

Coordinates: image points are ``(x, y)`` pixels of the full-resolution photo; a
*rectified* view is a square image in which the candidate board is seen from above.
Homographies are ``(3, 3)`` float64 arrays mapping homogeneous image points to the
rectified view (OpenCV convention, ``cv2.warpPerspective``).

Pipeline pieces (all plain functions over arrays):

* :func:`quad_candidates` — convex quadrilaterals in a reduced-resolution photo that
  could be a board's outline (edge contours, saturated-colour clusters, flat regions);
* :func:`fit_grid_profiles` — the n+1 equally spaced lines of a grid in a roughly
  rectified view, from the projection profiles of the image gradient;
* :func:`refine_grid` — per-intersection line positions → a homography fitted
  robustly and deterministically (:func:`robust_homography`), absorbing the error of
  the first guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np


def order_quad(pts: np.ndarray) -> np.ndarray:
    """Order four points ``(4, 2)`` clockwise in image coordinates, starting top-left."""
    p = np.asarray(pts, dtype=np.float64).reshape(4, 2)
    c = p.mean(axis=0)
    ang = np.arctan2(p[:, 1] - c[1], p[:, 0] - c[0])
    p = p[np.argsort(ang)]  # clockwise on screen (y down)
    start = int(np.argmin(p.sum(axis=1)))
    return np.roll(p, -start, axis=0)


def square_homography(quad: np.ndarray, side: float, margin: float) -> np.ndarray:
    """Homography mapping ``quad`` (4 image points, clockwise) onto the square
    ``[margin, margin + side]²`` of a rectified view."""
    dst = np.array([[margin, margin], [margin + side, margin],
                    [margin + side, margin + side], [margin, margin + side]], np.float32)
    return cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst)


def _contour_quads(mask: np.ndarray, min_area: float) -> list[np.ndarray]:
    quads = []
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    for c in contours:
        if cv2.contourArea(c) < min_area:
            continue
        hull = cv2.convexHull(c)
        if cv2.contourArea(hull) < min_area:
            continue
        peri = cv2.arcLength(hull, True)
        for eps in (0.02, 0.04):
            ap = cv2.approxPolyDP(hull, eps * peri, True)
            if len(ap) == 4:
                quads.append(ap.reshape(4, 2).astype(np.float64))
                break
        else:
            box = cv2.boxPoints(cv2.minAreaRect(hull))
            quads.append(np.asarray(box, np.float64))
    return quads


def quad_candidates(small_bgr: np.ndarray, *, min_frac: float = 0.01,
                    max_frac: float = 0.9) -> list[np.ndarray]:
    """Candidate board outlines in a reduced photo ``(h, w, 3)`` uint8 BGR.

    Sources: closed contours of the Canny edges of lightness; clusters of saturated
    colour (rim markings, tiles, printed fields) closed over about a cell; regions of
    low texture. Returns quads ``(4, 2)`` in the reduced image's pixels, clockwise from
    top-left, area between ``min_frac`` and ``max_frac`` of the image, deduplicated.
    """
    h, w = small_bgr.shape[:2]
    area = float(h * w)
    min_area, max_area = min_frac * area, max_frac * area
    gray = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2GRAY)
    blur = cv2.GaussianBlur(gray, (5, 5), 0)
    quads: list[np.ndarray] = []
    k3 = np.ones((3, 3), np.uint8)
    for lo, hi in ((30, 90), (60, 160)):
        edges = cv2.dilate(cv2.Canny(blur, lo, hi), k3)
        quads += _contour_quads(edges, min_area)
    hsv = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2HSV)
    sat = ((hsv[..., 1] > 110) & (hsv[..., 2] > 50)).astype(np.uint8) * 255
    ksize = max(3, int(round(min(h, w) / 40)) | 1)
    kern = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (ksize, ksize))
    closed = cv2.morphologyEx(sat, cv2.MORPH_CLOSE, kern)
    closed = cv2.morphologyEx(closed, cv2.MORPH_OPEN, k3)
    quads += _contour_quads(closed, min_area)
    # flat regions: low local gradient energy (board print between its markings)
    gx = cv2.Sobel(blur, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(blur, cv2.CV_32F, 0, 1, ksize=3)
    energy = cv2.blur(np.abs(gx) + np.abs(gy), (ksize, ksize))
    flat = (energy < np.percentile(energy, 35)).astype(np.uint8) * 255
    flat = cv2.morphologyEx(flat, cv2.MORPH_CLOSE, kern)
    quads += _contour_quads(flat, min_area)
    out: list[np.ndarray] = []
    for q in quads:
        a = abs(cv2.contourArea(q.astype(np.float32)))
        if not (min_area <= a <= max_area):
            continue
        q = order_quad(q)
        sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
        if sides.min() < 0.3 * sides.max():
            continue
        if any(np.abs(q - o).max() < 0.02 * max(h, w) for o in out):
            continue
        out.append(q)
    return out


@dataclass(frozen=True)
class GridFit:
    """An n×n grid in a rectified view: lines ``x0 + k·px`` and ``y0 + k·py`` (pixels);
    ``score`` is the fraction of the grid's line segments that show as dark lines."""

    n: int
    x0: float
    px: float
    y0: float
    py: float
    score: float


def ridge_maps(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Thin-dark-line responses of a grey view ``(H, W)`` uint8: how much darker each pixel
    is than both neighbours 2 px left/right (first map) and up/down (second map), clipped
    to 0..30 grey levels (float32). Step edges (rim markings, tile borders) give none.
    The view wraps around at its border (the neighbours of the first columns are the
    last ones)."""
    g = np.asarray(gray)
    if g.dtype != np.uint8:  # any other type: the same in float32
        return _ridge_maps_float(g)
    # min(g[i - 2], g[i + 2]) - g[i] in uint8: saturating at 0 is the clip below 0
    mx = np.empty_like(g)
    np.minimum(g[:, :-4], g[:, 4:], out=mx[:, 2:-2])
    np.minimum(g[:, -4:-2], g[:, :2], out=mx[:, -2:])
    np.minimum(g[:, -2:], g[:, 2:4], out=mx[:, :2])
    my = np.empty_like(g)
    np.minimum(g[:-4], g[4:], out=my[2:-2])
    np.minimum(g[-4:-2], g[:2], out=my[-2:])
    np.minimum(g[-2:], g[2:4], out=my[:2])
    rx = np.minimum(cv2.subtract(mx, g), 30).astype(np.float32)
    ry = np.minimum(cv2.subtract(my, g), 30).astype(np.float32)
    return rx, ry


def _ridge_maps_float(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ridge_maps` of a view of any number type, in float32."""
    g = gray.astype(np.float32)

    def darker(axis: int) -> np.ndarray:
        # min(g[i - 2], g[i + 2]) - g[i] along the axis, wrapping around the border
        gt = g if axis == 1 else g.T
        m = np.empty_like(gt)
        np.minimum(gt[:, :-4], gt[:, 4:], out=m[:, 2:-2])
        np.minimum(gt[:, -4:-2], gt[:, :2], out=m[:, -2:])
        np.minimum(gt[:, -2:], gt[:, 2:4], out=m[:, :2])
        np.subtract(m, gt, out=m)
        np.clip(m, 0, 30, out=m)
        return m if axis == 1 else np.ascontiguousarray(m.T)

    return darker(1), darker(0)


@lru_cache(maxsize=32)
def _line_run_indices(L: int, n: int, pmin: float, pmax: float):
    """Index arrays of every run of n+1 lines ``a + j·p`` on a profile of length ``L``
    (``a`` = 0..L-1, ``p`` = pmin..pmax step ½) that stays on the profile: ``(A (L, 1),
    P (1, m), inside (k,), lines (k, n+1), mids (k, n))`` — the flat indices into the
    ``(L, m)`` table of the runs not reaching past the profile, and their line and
    mid-cell positions. Cached: the views scored have few sizes."""
    A = np.arange(L, dtype=np.float64)[:, None]
    P = np.arange(pmin, pmax, 0.5)[None, :]
    j = np.arange(n + 1)
    inside = np.flatnonzero(~((A + n * P) > L - 1))
    a_in = np.broadcast_to(A, (L, P.shape[1])).ravel()[inside][:, None]
    p_in = np.broadcast_to(P, (L, P.shape[1])).ravel()[inside][:, None]
    lines = np.clip(np.rint(a_in + p_in * j).astype(np.int64), 0, L - 1)
    mids = np.clip(np.rint(a_in + p_in * (j[:-1] + 0.5)).astype(np.int64), 0, L - 1)
    for arr in (A, P, inside, lines, mids):
        arr.setflags(write=False)
    return A, P, inside, lines, mids


def _top_line_runs(prof: np.ndarray, n: int, pmin: float, pmax: float, k: int = 6):
    """The ``k`` best runs of n+1 equally spaced lines ``a + j·p`` on a 1-D profile."""
    L = len(prof)
    base = float(np.median(prof)) + 1e-6
    A, P, inside, lines, mids = _line_run_indices(L, n, float(pmin), float(pmax))
    if P.size == 0:
        return []
    vals = prof[lines]
    on = (vals.sum(axis=-1) - vals.min(axis=-1)) / n  # mean without the weakest line
    off = prof[mids].mean(axis=-1)
    score = np.full((L, P.shape[1]), -np.inf)          # runs past the profile: none
    score.flat[inside] = (on - off) / base
    out: list[tuple[float, float, float]] = []
    for _ in range(k):
        a_i, p_i = np.unravel_index(int(np.argmax(score)), score.shape)
        a, p, sc = float(A[a_i, 0]), float(P[0, p_i]), float(score[a_i, p_i])
        if not np.isfinite(sc):
            break
        out.append((a, p, sc))
        # suppress the neighbours of this run (same lines, shifted a little)
        score[(np.abs(A - a) < 0.3 * p) & (np.abs(P - p) < 0.1 * p)] = -np.inf
    return out


def line_ridges(gray: np.ndarray, maps=None):
    """Everything :func:`fit_grid` and :func:`grid_line_score` read from a grey view
    ``(S, S)``: ``(rx, ry, cx, cy)`` — the :func:`ridge_maps` smoothed (Gaussian, σ 1 px,
    float32) and their :func:`ridge_integrals`. Pass it as ``ridges`` to score one view
    several ways without recomputing it. ``maps``: the view's :func:`ridge_maps`, if
    already at hand."""
    return _cumulative_ridges(gray, maps)


def _cumulative_ridges(gray: np.ndarray, maps=None):
    rx, ry = ridge_maps(gray) if maps is None else maps
    rx = cv2.GaussianBlur(rx, (0, 0), 1.0)
    ry = cv2.GaussianBlur(ry, (0, 0), 1.0)
    return rx, ry, *_cumulative(rx, ry)


def _cumulative(rx: np.ndarray, ry: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``rx`` summed down the columns and ``ry`` along the rows, each with a leading
    zero: ``(cx (S+1, S), cy (S, S+1))`` float32 (written in place, no extra copy)."""
    S = rx.shape[0]
    cx = np.zeros((S + 1, rx.shape[1]), np.float32)
    cy = np.zeros((ry.shape[0], S + 1), np.float32)
    # down the columns row by row: the same float32 additions in the same order as
    # np.cumsum(rx, axis=0) (bit for bit), each a contiguous vector add - numpy's
    # accumulate along the first axis is 1.5-3x slower on these views (256-456 px)
    add = np.add
    for i in range(S):
        add(cx[i], rx[i], out=cx[i + 1])
    np.cumsum(ry, axis=1, out=cy[:, 1:])
    return cx, cy


def _line_score(cx: np.ndarray, cy: np.ndarray, xs_f: np.ndarray, ys_f: np.ndarray) -> float:
    """2-D score of a grid with vertical lines at ``xs_f`` and horizontal lines at
    ``ys_f`` (n+1 each, pixels): the share of cell sides that show as thin dark lines
    (clearly above the cell interiors) minus the share of the lines' one-cell
    extensions beyond the field that do too (a grid ends at its border)."""
    S = cx.shape[1]
    last = S - 1
    n = len(xs_f) - 1

    def ints(v):
        return np.minimum(np.maximum(np.rint(v).astype(np.int64), 0), last)

    xs, ys = ints(xs_f), ints(ys_f)
    mx, my = ints((xs_f[1:] + xs_f[:-1]) / 2), ints((ys_f[1:] + ys_f[:-1]) / 2)
    pxx = max(float(xs_f[-1] - xs_f[0]) / n, 1.0)
    pyy = max(float(ys_f[-1] - ys_f[0]) / n, 1.0)
    dy = np.maximum(np.diff(ys), 1)[:, None]
    dx = np.maximum(np.diff(xs), 1)[None, :]
    cxy = cx[ys]
    seg_v = (cxy[1:][:, xs] - cxy[:-1][:, xs]) / dy
    off_v = (cxy[1:][:, mx] - cxy[:-1][:, mx]) / dy
    seg_h = (cy[ys][:, xs[1:]] - cy[ys][:, xs[:-1]]) / dx
    off_h = (cy[my][:, xs[1:]] - cy[my][:, xs[:-1]]) / dx
    off = np.concatenate([off_v.ravel(), off_h.ravel()])
    ref = 2.0 * (float(np.partition(off, len(off) // 2)[len(off) // 2]) + 0.5)
    frac = 0.5 * (float((seg_v > ref).mean()) + float((seg_h > ref).mean()))
    out_n = out_hit = 0
    ay, ax = float(ys_f[0]), float(xs_f[0])
    for y_a, y_b in ((ay - pyy, ay), (float(ys_f[-1]), float(ys_f[-1]) + pyy)):
        lo, hi = max(0, int(round(y_a))), min(S, int(round(y_b)))
        if hi - lo >= 0.5 * pyy:
            out_hit += int(((cx[hi, xs] - cx[lo, xs]) / (hi - lo) > ref).sum())
            out_n += n + 1
    for x_a, x_b in ((ax - pxx, ax), (float(xs_f[-1]), float(xs_f[-1]) + pxx)):
        lo, hi = max(0, int(round(x_a))), min(S, int(round(x_b)))
        if hi - lo >= 0.5 * pxx:
            out_hit += int(((cy[ys, hi] - cy[ys, lo]) / (hi - lo) > ref).sum())
            out_n += n + 1
    if out_n:
        frac -= out_hit / out_n
    return frac


def grid_line_score(gray: np.ndarray, xs: np.ndarray, ys: np.ndarray,
                    ridges=None) -> float:
    """Score a grid hypothesis (line positions ``xs``, ``ys`` in a rectified grey view
    ``(S, S)``) by its thin dark lines; see :func:`fit_grid`. ``ridges``: the view's
    :func:`line_ridges`, if already at hand."""
    _, _, cx, cy = _cumulative_ridges(gray) if ridges is None else ridges
    return _line_score(cx, cy, np.asarray(xs, float), np.asarray(ys, float))


def ridge_integrals(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative thin-dark-line responses of a grey view ``(S, S)``, to score many grid
    hypotheses on one view with :func:`line_score`: ``(cx (S+1, S), cy (S, S+1))``,
    the vertical-line map summed down the columns and the horizontal one along rows."""
    _, _, cx, cy = _cumulative_ridges(gray)
    return cx, cy


def line_score(integrals: tuple[np.ndarray, np.ndarray], xs, ys) -> float:
    """:func:`grid_line_score` of lines ``xs``, ``ys`` (pixels) from precomputed
    :func:`ridge_integrals`."""
    cx, cy = integrals
    return _line_score(cx, cy, np.asarray(xs, float), np.asarray(ys, float))


def fit_grid(gray: np.ndarray, sizes=(9, 12), min_fill: float = 0.5,
             ridges=None) -> list[GridFit]:
    """Fit n×n square grids of thin dark lines to a rectified grey view ``(S, S)``.

    Candidate runs of n+1 lines come from the column/row sums of :func:`ridge_maps`;
    every pair (vertical run, horizontal run) with equal spacing is then scored in 2-D
    (:func:`grid_line_score`): the share of the grid's cell sides seen as lines, minus
    the share of the lines' extensions beyond the field seen as lines — lines printed
    outside the field (rim markings) do not form segments across it. Best first.
    ``ridges``: the view's :func:`line_ridges`, if already at hand.
    """
    S = gray.shape[0]
    rx, ry, cx, cy = _cumulative_ridges(gray) if ridges is None else ridges
    prof_x = rx.sum(axis=0).astype(np.float64)
    prof_y = ry.sum(axis=1).astype(np.float64)
    fits: list[GridFit] = []
    for n in sizes:
        runs_x = _top_line_runs(prof_x, n, min_fill * S / n, 0.98 * S / n, k=4)
        runs_y = _top_line_runs(prof_y, n, min_fill * S / n, 0.98 * S / n, k=4)
        j = np.arange(n + 1, dtype=np.float64)
        pairs = [(ax, pxx, ay, pyy) for ax, pxx, _ in runs_x for ay, pyy, _ in runs_y
                 if abs(pxx - pyy) <= 0.08 * max(pxx, pyy)]
        if not pairs:
            continue
        g = np.array(pairs, np.float64)
        fracs = line_scores((cx, cy), g[:, :1] + j * g[:, 1:2], g[:, 2:3] + j * g[:, 3:4])
        fits += [GridFit(n, float(ax), float(pxx), float(ay), float(pyy), float(frac))
                 for (ax, pxx, ay, pyy), frac in zip(pairs, fracs, strict=True)]
    fits.sort(key=lambda f: -f.score)
    return fits


def refine_grid(gray: np.ndarray, n: int, cell: float, margin: float,
                search: float = 0.2, maps=None, method: int | None = None,
                subpixel: bool = False) -> np.ndarray | None:
    """Measure every grid intersection near its expected place in a rectified view.

    ``gray (S, S)`` shows the field ``[margin, margin + n·cell]²``. For every vertical
    line k and every band of rows one cell high around horizontal line l, the column of
    strongest thin-dark-line response (:func:`ridge_maps`) within ``±search·cell`` is
    taken (likewise for horizontal lines); their crossings become point pairs. Returns
    the ``(3, 3)`` homography (rectified view → ideal view) fitted robustly, or None
    when fewer than 12 crossings were seen clearly (or too few agree). ``maps``: the
    view's :func:`ridge_maps`, if already at hand. ``method``: None for
    :func:`robust_homography` (deterministic: the same crossings give the same fit in
    any order), or a ``cv2.findHomography`` method (``cv2.USAC_DEFAULT``,
    ``cv2.RANSAC``: one random draw, inliers within 0.06 cell) for comparison.
    ``subpixel``: each crossing's line positions are placed between pixels by the
    parabola through the strongest response and its two neighbours (:func:`_subpixel`),
    and a line whose strongest response lies at the edge of its search is left out (its
    peak may lie beyond); else the whole pixel of the strongest response.
    """
    rx, ry = ridge_maps(gray) if maps is None else maps
    S = gray.shape[0]
    r = max(2, int(round(search * cell)))
    offs = np.arange(-r, r + 1)
    ideal = margin + np.arange(n + 1) * cell
    lo = np.clip(np.rint(ideal - cell / 2).astype(int), 0, S)
    hi = np.clip(np.rint(ideal + cell / 2).astype(int), 0, S)
    # (bands l, S): column profile around row line l; (bands k, S): row profile around
    # column line k. A uint8 view's maps hold whole grey levels (float32, sums far below
    # 2**24), so every order of summing gives the same, exact band sums.
    band_x = np.stack([rx[a:b].sum(axis=0) for a, b in zip(lo, hi, strict=True)])
    band_y = np.stack([ry[:, a:b].sum(axis=1) for a, b in zip(lo, hi, strict=True)])
    idx = np.clip(np.rint(ideal[:, None] + offs[None, :]).astype(int), 0, S - 1)  # (lines, w)
    vx = band_x[:, idx]                   # (band l, line k, w)
    vy = band_y[:, idx]                   # (band k, line l, w)
    jx = np.argmax(vx, axis=2)
    jy = np.argmax(vy, axis=2)
    kk = np.arange(n + 1)
    xs = idx[kk[None, :], jx]             # xs[l, k]: vertical line k near row line l
    ys = idx[kk[None, :], jy]             # ys[k, l]: horizontal line l near column line k
    # the median of the 2r + 1 (odd) responses is the middle one: by a partition, the
    # same value as np.median (a fifth of its time)
    wx = vx.max(axis=2) / (np.partition(vx, r, axis=2)[..., r] + 1e-3)
    wy = vy.max(axis=2) / (np.partition(vy, r, axis=2)[..., r] + 1e-3)
    good = (wx > 1.5) & (wy.T > 1.5)      # [l, k]
    if subpixel:
        last = len(offs) - 1
        good &= (jx > 0) & (jx < last) & ((jy > 0) & (jy < last)).T
        xs = xs + _subpixel(vx, jx)
        ys = ys + _subpixel(vy, jy)
    ll, kk2 = np.nonzero(good)
    if len(ll) < 12:
        return None
    src = np.stack([xs[ll, kk2], ys[kk2, ll]], axis=1).astype(np.float32)
    dst = np.stack([ideal[kk2], ideal[ll]], axis=1).astype(np.float32)
    return _fit_crossings(src, dst, cell, method, search=search)


def _subpixel(v: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Offsets ``(a, b)`` (pixels, within ±½) of the vertex of the parabola through
    ``v[a, b, j - 1]``, ``v[a, b, j]``, ``v[a, b, j + 1]`` (``v (a, b, w)`` responses
    along a search, ``j (a, b)`` the index of the strongest); 0 where ``j`` lies at the
    search's edge or the three do not bend down."""
    last = v.shape[2] - 1
    jc = np.clip(j, 1, last - 1)[..., None]
    lo = np.take_along_axis(v, jc - 1, axis=2)[..., 0].astype(np.float64)
    mid = np.take_along_axis(v, jc, axis=2)[..., 0].astype(np.float64)
    hi = np.take_along_axis(v, jc + 1, axis=2)[..., 0].astype(np.float64)
    bend = lo - 2.0 * mid + hi
    ok = (bend < 0) & (j > 0) & (j < last)
    off = 0.5 * (lo - hi) / np.where(ok, bend, -1.0)
    return np.where(ok, np.clip(off, -0.5, 0.5), 0.0)


def _fit_crossings(src: np.ndarray, dst: np.ndarray, cell: float, method,
                   search: float = 0.5) -> np.ndarray | None:
    """Homography ``(3, 3)`` taking the crossings measured in a view, ``src (N, 2)``, to
    their ideal places ``dst (N, 2)`` (pixels; a cell is ``cell`` px). ``method`` None:
    :func:`robust_homography` (deterministic, independent of the points' order); else a
    ``cv2.findHomography`` method with inliers within 0.06 cell. ``search``: how far
    (cells) the crossings were searched; below :data:`ROBUST_LOCAL` the robust fit only
    polishes the view as it is (every crossing lies that close to its place)."""
    if method is None:
        return robust_homography(src, dst, cell, local=search < ROBUST_LOCAL)
    Hm, _ = cv2.findHomography(src, dst, method, 0.06 * cell)
    return Hm


class _WeightedDLT:
    """Weighted direct linear transform for the point pairs ``src → dst`` (``(N, 2)``
    float64), normalised (Hartley) by one similarity taken from ``dst``; the rows of the
    linear system are built once, each call weighs them anew."""

    def __init__(self, src: np.ndarray, dst: np.ndarray):
        c = dst.mean(axis=0)
        s = np.sqrt(2.0) / max(float(np.mean(np.linalg.norm(dst - c, axis=1))), 1e-9)
        x, y = ((src - c) * s).T
        u, v = ((dst - c) * s).T
        one, zero = np.ones_like(x), np.zeros_like(x)
        self.rows_u = np.stack([x, y, one, zero, zero, zero, -u * x, -u * y, -u], axis=1)
        self.rows_v = np.stack([zero, zero, zero, x, y, one, -v * x, -v * y, -v], axis=1)
        self.T = np.array([[s, 0.0, -s * c[0]], [0.0, s, -s * c[1]], [0.0, 0.0, 1.0]])

    def __call__(self, w: np.ndarray) -> np.ndarray | None:
        """The homography ``(3, 3)`` minimising the algebraic error weighted by ``w (N,)``
        (≥ 0); None when degenerate."""
        ru, rv = self.rows_u, self.rows_v
        ata = (ru * w[:, None]).T @ ru + (rv * w[:, None]).T @ rv
        vals, vecs = np.linalg.eigh(ata)
        if vals[1] <= 1e-12 * max(vals[-1], 1e-300):
            return None
        Hn = vecs[:, 0].reshape(3, 3)
        H = np.linalg.solve(self.T, Hn @ self.T)
        return H / H[2, 2] if abs(H[2, 2]) > 1e-12 else None


def _residuals(H: np.ndarray, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Distances ``(N,)`` between ``H`` applied to ``src`` and ``dst`` (``(N, 2)``)."""
    p = src @ H[:, :2].T + H[:, 2]
    z = np.where(np.abs(p[:, 2]) > 1e-12, p[:, 2], 1e-12)
    return np.hypot(p[:, 0] / z - dst[:, 0], p[:, 1] / z - dst[:, 1])


#: Robust crossing fit (:func:`robust_homography`): a crossing within this many cells of a
#: hypothesis supports it fully (truncated quadratic cost); the Tukey scales (cells) of
#: the reweighted polish; the least support (sum of weights) a fit needs; hypotheses are
#: rectangles of crossings at least this many cells apart each way.
ROBUST_INLIER = 0.08
ROBUST_SCALES = (0.15, 0.1)
ROBUST_MIN_SUPPORT = 8.0
ROBUST_SPAN = 2
#: Crossings searched closer than this (cells) around their places: only the polish.
ROBUST_LOCAL = 0.3


def _quad_homographies(quads: np.ndarray, rects: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Homographies ``(K, 3, 3)`` taking each quad ``quads (K, 4, 2)`` (corners in the
    order (u0, v0), (u1, v0), (u1, v1), (u0, v1) of its rectangle) onto its axis-aligned
    rectangle ``rects (K, 4)`` = ``(u0, v0, u1, v1)``, in closed form (unit square → quad,
    Heckbert, inverted by its adjugate); and which of them are proper ``(K,)`` bool."""
    x0, y0 = quads[:, 0, 0], quads[:, 0, 1]
    x1, y1 = quads[:, 1, 0], quads[:, 1, 1]
    x2, y2 = quads[:, 2, 0], quads[:, 2, 1]
    x3, y3 = quads[:, 3, 0], quads[:, 3, 1]
    dx1, dx2, dx3 = x1 - x2, x3 - x2, x0 - x1 + x2 - x3
    dy1, dy2, dy3 = y1 - y2, y3 - y2, y0 - y1 + y2 - y3
    den = dx1 * dy2 - dx2 * dy1
    ok = np.abs(den) > 1e-9
    den = np.where(ok, den, 1.0)
    g = (dx3 * dy2 - dx2 * dy3) / den
    h = (dx1 * dy3 - dx3 * dy1) / den
    M = np.empty((len(quads), 3, 3))
    M[:, 0] = np.stack([x1 - x0 + g * x1, x3 - x0 + h * x3, x0], axis=1)
    M[:, 1] = np.stack([y1 - y0 + g * y1, y3 - y0 + h * y3, y0], axis=1)
    M[:, 2] = np.stack([g, h, np.ones_like(g)], axis=1)
    # inverse up to scale: the adjugate (no exception for a degenerate quad)
    inv = np.empty_like(M)
    inv[:, 0, 0] = M[:, 1, 1] * M[:, 2, 2] - M[:, 1, 2] * M[:, 2, 1]
    inv[:, 0, 1] = M[:, 0, 2] * M[:, 2, 1] - M[:, 0, 1] * M[:, 2, 2]
    inv[:, 0, 2] = M[:, 0, 1] * M[:, 1, 2] - M[:, 0, 2] * M[:, 1, 1]
    inv[:, 1, 0] = M[:, 1, 2] * M[:, 2, 0] - M[:, 1, 0] * M[:, 2, 2]
    inv[:, 1, 1] = M[:, 0, 0] * M[:, 2, 2] - M[:, 0, 2] * M[:, 2, 0]
    inv[:, 1, 2] = M[:, 0, 2] * M[:, 1, 0] - M[:, 0, 0] * M[:, 1, 2]
    inv[:, 2, 0] = M[:, 1, 0] * M[:, 2, 1] - M[:, 1, 1] * M[:, 2, 0]
    inv[:, 2, 1] = M[:, 0, 1] * M[:, 2, 0] - M[:, 0, 0] * M[:, 2, 1]
    inv[:, 2, 2] = M[:, 0, 0] * M[:, 1, 1] - M[:, 0, 1] * M[:, 1, 0]
    R = np.zeros_like(M)
    R[:, 0, 0] = rects[:, 2] - rects[:, 0]
    R[:, 0, 2] = rects[:, 0]
    R[:, 1, 1] = rects[:, 3] - rects[:, 1]
    R[:, 1, 2] = rects[:, 1]
    R[:, 2, 2] = 1.0
    H = R @ inv
    ok &= np.abs(H[:, 2, 2]) > 1e-12
    H /= np.where(ok, H[:, 2, 2], 1.0)[:, None, None]
    return H, ok & np.all(np.isfinite(H), axis=(1, 2))


def _rectangle_hypotheses(src: np.ndarray, dst: np.ndarray, cell: float):
    """Every rectangle of measured crossings (four crossings at grid places (k0, l0),
    (k1, l0), (k1, l1), (k0, l1), at least :data:`ROBUST_SPAN` cells apart each way) as
    a homography hypothesis: ``(K, 3, 3)``, ordered by the grid places (not by the order
    of the points)."""
    base = dst.min(axis=0)
    kl = np.rint((dst - base) / cell).astype(np.int64)
    nk, nl = int(kl[:, 0].max()) + 1, int(kl[:, 1].max()) + 1
    at = np.full((nl, nk), -1, np.int64)
    at[kl[:, 1], kl[:, 0]] = np.arange(len(src))
    span = ROBUST_SPAN
    k0, k1 = np.triu_indices(nk, span)
    l0, l1 = np.triu_indices(nl, span)
    if len(k0) == 0 or len(l0) == 0:
        return np.zeros((0, 3, 3))
    # (l pairs, k pairs): the four corners' point indices
    c00, c10 = at[l0[:, None], k0[None, :]], at[l0[:, None], k1[None, :]]
    c11, c01 = at[l1[:, None], k1[None, :]], at[l1[:, None], k0[None, :]]
    have = (c00 >= 0) & (c10 >= 0) & (c11 >= 0) & (c01 >= 0)
    corners = np.stack([c00[have], c10[have], c11[have], c01[have]], axis=1)  # (K, 4)
    if len(corners) == 0:
        return np.zeros((0, 3, 3))
    rects = np.concatenate([dst[corners[:, 0]], dst[corners[:, 2]]], axis=1)
    H, ok = _quad_homographies(src[corners], rects)
    return H[ok]


def _msac_costs(hyps: np.ndarray, src: np.ndarray, dst: np.ndarray, t2: float,
                chunk: int = 256) -> np.ndarray:
    """Truncated quadratic cost ``(K,)`` of homographies ``hyps (K, 3, 3)`` on the point
    pairs ``src → dst`` (``(N, 2)``): squared residuals capped at ``t2``, summed. Float32
    (hundredths of a pixel are plenty to rank hypotheses), ``chunk`` hypotheses at a time
    (the work stays in the cache; every cost is computed alike in any chunk)."""
    sh = np.concatenate([src, np.ones((len(src), 1))], axis=1).T.astype(np.float32)
    h32 = hyps.astype(np.float32)
    d0, d1 = dst[:, 0].astype(np.float32), dst[:, 1].astype(np.float32)
    cap, tiny = np.float32(t2), np.float32(1e-12)
    out = np.empty(len(hyps))
    N = len(src)
    for a in range(0, len(hyps), chunk):
        hk = h32[a:a + chunk]
        # (k, 3, N): one matrix product of the stacked rows (one BLAS call instead of k
        # small ones; each element is the same three-term dot product)
        p = (hk.reshape(-1, 3) @ sh).reshape(len(hk), 3, N)
        z = p[:, 2]
        np.copyto(z, tiny, where=np.abs(z) <= tiny)
        u = p[:, 0] / z
        u -= d0
        v = p[:, 1] / z
        v -= d1
        u *= u
        v *= v
        u += v
        np.minimum(u, cap, out=u)
        out[a:a + chunk] = u.sum(axis=1, dtype=np.float64)
    return out


def robust_homography(src: np.ndarray, dst: np.ndarray, cell: float,
                      local: bool = False) -> np.ndarray | None:
    """Deterministic robust homography ``(3, 3)`` from crossings measured in a view
    (``src (N, 2)``) to their ideal places on a grid of ``cell`` px (``dst (N, 2)``).

    Every rectangle of measured crossings at least two cells wide and high
    (:func:`_rectangle_hypotheses`), and the identity, propose a homography; the one
    with the least truncated quadratic cost (residuals capped at :data:`ROBUST_INLIER`
    cells: an exhaustive MSAC, no random draw) is polished by iteratively reweighted
    least squares (weighted DLT, Tukey's biweight at :data:`ROBUST_SCALES`). ``local``:
    the view is nearly right (crossings searched within :data:`ROBUST_LOCAL` cell), only
    the shift most crossings agree on is polished. The answer depends on the crossings,
    not on their order (bit for bit). None when fewer than :data:`ROBUST_MIN_SUPPORT`
    crossings carry the fit."""
    src = np.asarray(src, np.float64).reshape(-1, 2)
    dst = np.asarray(dst, np.float64).reshape(-1, 2)
    if len(src) < 4:
        return None
    # the crossings in the order of their grid places: every sum below runs in the same
    # order whatever order they came in (bit for bit the same answer)
    order = np.lexsort((dst[:, 0], dst[:, 1]))
    src, dst = src[order], dst[order]
    dlt = _WeightedDLT(src, dst)
    if local:
        # a view nearly right (every crossing searched close to its place): the polish
        # from the shift most crossings agree on
        off = dst - src
        near = np.abs(off[:, None, :] - off[None, :, :]).max(axis=2)
        tol = ROBUST_INLIER * cell
        count = np.count_nonzero(near <= tol, axis=1)
        cost = np.minimum(near, tol).sum(axis=1)
        t = off[np.lexsort((cost, -count))[0]]  # most agreeing, then closest; then first
        start = np.array([[1.0, 0.0, t[0]], [0.0, 1.0, t[1]], [0.0, 0.0, 1.0]])
        got = _polish(start, src, dst, cell, dlt)
        return None if got is None or got[1] < ROBUST_MIN_SUPPORT else got[0]
    hyps = np.concatenate([np.eye(3)[None], _rectangle_hypotheses(src, dst, cell)])
    t2 = (ROBUST_INLIER * cell) ** 2
    cost = _msac_costs(hyps, src, dst, t2)
    got = _polish(hyps[int(np.argmin(cost))], src, dst, cell, dlt)
    if got is None or got[1] < ROBUST_MIN_SUPPORT:
        return None
    return got[0]


def _polish(H: np.ndarray, src: np.ndarray, dst: np.ndarray, cell: float, dlt: _WeightedDLT):
    """Iteratively reweighted least squares from ``H`` (Tukey's biweight at
    :data:`ROBUST_SCALES` cells, two rounds each): ``(H, support)`` — the support is the
    sum of the weights at the last scale — or None when degenerate."""
    for scale in ROBUST_SCALES:
        c = scale * cell
        for _ in range(2):
            r = _residuals(H, src, dst)
            w = np.square(np.clip(1.0 - np.square(r / c), 0.0, None))
            if np.count_nonzero(w) < 4:
                return None
            got = dlt(w)
            if got is None:
                return None
            H = got
    r = _residuals(H, src, dst)
    c = ROBUST_SCALES[-1] * cell
    return H, float(np.square(np.clip(1.0 - np.square(r / c), 0.0, None)).sum())


def _robust_line(t: np.ndarray, d: np.ndarray, iters: int = 3):
    """Fit ``d ≈ a + b·t`` robustly (least squares, keeping the best two thirds)."""
    keep = np.ones(len(t), bool)
    a = b = 0.0
    add = np.add.reduce  # sums and means without ndarray-method overhead (same values)
    for _ in range(iters):
        nk = int(np.count_nonzero(keep))
        if nk < 4:
            return None
        tk, dk = t[keep], d[keep]
        tm, dm = add(tk) / nk, add(dk) / nk
        dt = tk - tm
        var = add(dt * dt)
        b = float(add(dt * (dk - dm)) / var) if var > 0 else 0.0
        a = float(dm - b * tm)
        res = np.abs(d - (a + b * t))
        kth = int(nk * 0.66)
        cut = max(float(np.partition(res[keep], kth)[kth]), 1.0)
        keep = res <= cut
    return a, b


@lru_cache(maxsize=8)
def _pair_indices(m: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.triu_indices(m, 1)``, cached (read-only)."""
    i, j = np.triu_indices(m, 1)
    i.setflags(write=False)
    j.setflags(write=False)
    return i, j


@lru_cache(maxsize=512)
def _spread_indices(m: int, k: int = 32) -> np.ndarray:
    """Up to ``k`` indices spread evenly over ``0..m-1`` (distinct, ascending), cached
    (read-only)."""
    pick = np.unique(np.linspace(0, m - 1, min(m, k)).round().astype(np.int64))
    pick.setflags(write=False)
    return pick


def _consensus_line(t: np.ndarray, d: np.ndarray, tol: float = 2.0, max_slope: float = 0.6):
    """Fit ``d ≈ a + b·t`` to the largest collinear subset of the points (deterministic
    RANSAC): every pair among up to 32 points spread evenly over ``t`` proposes a line
    (slope within ``±max_slope``); the one with most points within ``tol`` wins (ties:
    smaller summed residual), refitted by least squares on its inliers. Clutter beside
    a side's edge (a table pattern, a tile) need not be a minority of a third, as for
    :func:`_robust_line`; it only must not line up better than the edge. None if fewer
    than 4 points agree."""
    if len(t) < 4:
        return None
    pick = _spread_indices(len(t))
    i, j = _pair_indices(len(pick))
    ti, tj, di, dj = t[pick[i]], t[pick[j]], d[pick[i]], d[pick[j]]
    ok = np.abs(tj - ti) >= 0.2 * (t[-1] - t[0] + 1e-9)
    b = np.where(ok, (dj - di) / np.where(ok, tj - ti, 1.0), 0.0)
    ok &= np.abs(b) <= max_slope
    if not np.any(ok):
        return _robust_line(t, d)
    b = b[ok]
    a = di[ok] - b * ti[ok]
    # |d - (a + b·t)| for every line and point, in one buffer
    res = np.multiply(b[:, None], t[None, :])
    res += a[:, None]
    np.subtract(d[None, :], res, out=res)
    np.abs(res, out=res)
    count = np.count_nonzero(res <= tol, axis=1)
    best_count = count.max()
    top = np.flatnonzero(count == best_count)  # ties: the smaller summed residual
    cost = np.minimum(res[top], tol).sum(axis=1)
    best = int(top[int(np.argmin(cost))])
    keep = res[best] <= tol
    if np.count_nonzero(keep) < 4:
        return None
    bb, aa = np.polyfit(t[keep], d[keep], 1)
    return float(aa), float(bb)


def outline_from_mask(mask: np.ndarray, depth: float = 0.3) -> np.ndarray | None:
    """The quad ``(4, 2)`` (clockwise from top-left) bounding a roughly centred square
    ring of marked pixels in a roughly rectified view ``mask (S, S)`` bool.

    For every row (column) the first marked pixel from each side, within ``depth·S`` of
    that side (and not on the view's border), is a point on that side's outline; the
    line most of them follow is fitted per side (:func:`_consensus_line`) and the four
    lines are intersected. None if a side has too few points.
    """
    S = mask.shape[0]
    lim = int(depth * S)
    idx = np.arange(S)
    lo, hi = int(0.15 * S), int(0.85 * S)
    lines = []
    for side in range(4):
        if side == 0:
            sub = mask[:lim, lo:hi]
            hit = sub.any(axis=0)
            d = np.argmax(sub, axis=0).astype(np.float64)
        elif side == 2:
            sub = mask[S - lim:, lo:hi][::-1]
            hit = sub.any(axis=0)
            d = (S - 1 - np.argmax(sub, axis=0)).astype(np.float64)
        elif side == 3:
            sub = mask[lo:hi, :lim]
            hit = sub.any(axis=1)
            d = np.argmax(sub, axis=1).astype(np.float64)
        else:
            sub = mask[lo:hi, S - lim:][:, ::-1]
            hit = sub.any(axis=1)
            d = (S - 1 - np.argmax(sub, axis=1)).astype(np.float64)
        # marked from the view's very border: clutter running on beyond the view (a
        # table pattern), a perfectly straight "edge" no board side is
        first = d if side in (0, 3) else S - 1 - d
        hit &= first >= 2
        t = idx[lo:hi].astype(np.float64)[hit]
        if len(t) < 0.2 * (hi - lo):
            return None
        fit = _consensus_line(t, d[hit])
        if fit is None:
            return None
        lines.append(fit)
    # top/bottom: y = a + b x ; left/right: x = a + b y
    (at, bt), (ar, br), (ab, bb), (al, bl) = lines

    def meet(a_h, b_h, a_v, b_v):
        # y = a_h + b_h x ; x = a_v + b_v y
        y = (a_h + b_h * a_v) / (1 - b_h * b_v)
        return a_v + b_v * y, y

    quad = np.array([meet(at, bt, al, bl), meet(at, bt, ar, br),
                     meet(ab, bb, ar, br), meet(ab, bb, al, bl)])
    return quad if np.all(np.isfinite(quad)) else None


def line_scores(integrals: tuple[np.ndarray, np.ndarray], xs_f: np.ndarray,
                ys_f: np.ndarray) -> np.ndarray:
    """:func:`line_score` of many grids at once: ``xs_f``, ``ys_f`` ``(K, n+1)`` line
    positions (pixels, any values) → ``(K,)`` scores, equal to scoring each grid alone."""
    cx, cy = integrals
    S = cx.shape[1]
    last = S - 1
    xs_f = np.asarray(xs_f, np.float64)
    ys_f = np.asarray(ys_f, np.float64)
    K, n = xs_f.shape[0], xs_f.shape[1] - 1
    if K == 0:
        return np.zeros(0)

    def ints(v):
        return np.minimum(np.maximum(np.rint(v).astype(np.int64), 0), last)

    xs, ys = ints(xs_f), ints(ys_f)
    mx, my = ints((xs_f[:, 1:] + xs_f[:, :-1]) / 2), ints((ys_f[:, 1:] + ys_f[:, :-1]) / 2)
    pxx = np.maximum((xs_f[:, -1] - xs_f[:, 0]) / n, 1.0)
    pyy = np.maximum((ys_f[:, -1] - ys_f[:, 0]) / n, 1.0)
    dy = np.maximum(np.diff(ys, axis=1), 1)[:, :, None]
    dx = np.maximum(np.diff(xs, axis=1), 1)[:, None, :]
    seg_v = np.diff(cx[ys[:, :, None], xs[:, None, :]], axis=1) / dy
    off_v = np.diff(cx[ys[:, :, None], mx[:, None, :]], axis=1) / dy
    seg_h = np.diff(cy[ys[:, :, None], xs[:, None, :]], axis=2) / dx
    off_h = np.diff(cy[my[:, :, None], xs[:, None, :]], axis=2) / dx
    off = np.concatenate([off_v.reshape(K, -1), off_h.reshape(K, -1)], axis=1)
    half = off.shape[1] // 2
    ref = 2.0 * (np.partition(off, half, axis=1)[:, half] + 0.5)
    r3 = ref[:, None, None]
    frac = 0.5 * ((seg_v > r3).mean(axis=(1, 2)) + (seg_h > r3).mean(axis=(1, 2)))
    # the lines' one-cell extensions beyond the field (where a cell's room is seen)
    out_n = np.zeros(K, np.int64)
    out_hit = np.zeros(K, np.int64)
    r2 = ref[:, None]
    ay, ax = ys_f[:, 0], xs_f[:, 0]
    for a_lo, a_hi, pitch, vertical in ((ay - pyy, ay, pyy, True),
                                        (ys_f[:, -1], ys_f[:, -1] + pyy, pyy, True),
                                        (ax - pxx, ax, pxx, False),
                                        (xs_f[:, -1], xs_f[:, -1] + pxx, pxx, False)):
        lo = np.maximum(0, np.rint(a_lo).astype(np.int64))
        hi = np.minimum(S, np.rint(a_hi).astype(np.int64))
        ok = (hi - lo) >= 0.5 * pitch
        span = np.where(ok, hi - lo, 1).astype(np.float32)[:, None]
        lo_c, hi_c = np.where(ok, lo, 0)[:, None], np.where(ok, hi, 0)[:, None]
        if vertical:
            ext = (cx[hi_c, xs] - cx[lo_c, xs]) / span
        else:
            ext = (cy[ys, hi_c] - cy[ys, lo_c]) / span
        out_hit += np.where(ok, (ext > r2).sum(axis=1), 0)
        out_n += np.where(ok, n + 1, 0)
    return frac - np.where(out_n > 0, out_hit / np.maximum(out_n, 1), 0.0)
