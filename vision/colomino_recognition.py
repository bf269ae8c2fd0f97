"""Colomino recognition: a photo of the board → the SPEC board state.

Pipeline (image ``(H, W, 3)`` uint8 BGR, full resolution):

1. *Locate*: in a reduced copy (long side 480 px) the pixels of the four game colours
   (hue classes R, Y, G, B; a class covering a fifth of the photo is the table and is
   ignored) are gathered; their clusters' minimum-area rectangles, and closed edge
   contours (:func:`vision.square_grid.quad_candidates`), are candidate outlines.
2. *Fit the grid*: each candidate is rectified (homography) and a 9×9 or 12×12 grid of
   thin dark lines is fitted (:func:`vision.square_grid.fit_grid`); the best fit gives
   the field's corners, refined per grid intersection (RANSAC homography).
3. *Read*: the field is warped to a canonical view (``CELL`` px per cell plus one cell
   of rim); every cell's four triangles, its centre and the rim markings are averaged.
   Colours are white-balanced on the board print (von Kries, linear RGB), then labelled
   by hue in CIE Lab with centres re-estimated over the whole board (k-means on hue).
4. *Orient*: the read rim is compared with the default layouts in all four turns; the
   best turn fixes the base line (south). If none fits, the read rim is returned under
   ``"layout"`` in the orientation nearest the image's up with ``"base_known": false``.
5. *Decide cells*: four coloured triangles → a tile; a light, uncoloured cell brighter
   than the print → a joker (at most four, the brightest); a solid cell of the printed
   colour on a printed field → ``.``.

Known limits: see the module's tests and the project report (textured/saturated
tables confuse the locator; jokers are told from empty cells by brightness only).
"""

from __future__ import annotations

import cv2
import numpy as np

from engines.colomino import default_layout, diff_boards, parse_state, score_turn
from engines.colomino.layout import Layout, layout_to_json
from engines.errors import FormatError
from vision.colour import bgr8_to_linear, linear_to_lab
from vision.recognize import NothingFound
from vision.square_grid import (
    fit_grid,
    order_quad,
    outline_from_mask,
    quad_candidates,
    refine_grid,
    square_homography,
)

COLOURS = "RYGB"
#: Canonical view: pixels per cell, and cells of margin around the field.
CELL = 32
MARGIN_CELLS = 1
#: Nominal game colours (sRGB 0..255) used only to name the clusters.
NOMINAL_SRGB = {"R": (205, 35, 45), "Y": (245, 200, 20), "G": (30, 150, 70), "B": (25, 85, 185)}
#: Chroma (Lab, after white balance) above which a triangle counts as coloured.
MIN_CHROMA = 22.0
#: A grid fit must show at least this fraction of its line segments to be a board.
MIN_GRID_SCORE = 0.3


# ----------------------------------------------------------------------------- locate
def _colour_classes_small(small: np.ndarray) -> list[np.ndarray]:
    """Boolean masks ``(h, w)`` of pixels with the hue of R, Y, G, B (HSV, saturated)."""
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    h = hsv[..., 0].astype(np.int32) * 2
    sat = (hsv[..., 1] > 80) & (hsv[..., 2] > 40)
    return [sat & ((h < 20) | (h >= 330)), sat & (h >= 35) & (h < 75),
            sat & (h >= 85) & (h < 175), sat & (h >= 185) & (h < 265)]


def _colour_cluster_quads(small: np.ndarray) -> list[np.ndarray]:
    """Minimum-area rectangles ``(4, 2)`` around the regions where the game colours mix.

    A class covering a fifth of the photo is the table (or the light) and is dropped.
    Where at least three of the remaining classes occur within a window of a sixth of
    the photo, the board is likely; the coloured pixels of each such region (largest
    two) give a rectangle.
    """
    h, w = small.shape[:2]
    masks = [m for m in _colour_classes_small(small) if m.mean() < 0.2]
    if len(masks) < 2:
        return []
    win = max(9, min(h, w) // 6) | 1
    div = np.zeros((h, w), np.int32)
    coloured = np.zeros((h, w), bool)
    for mk in masks:
        mk = cv2.morphologyEx(mk.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        coloured |= mk > 0
        div += cv2.blur(mk.astype(np.float32), (win, win)) > 0.01
    need = min(3, len(masks))
    region = (div >= need).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(region)
    out = []
    for i in (np.argsort(-stats[1:, cv2.CC_STAT_AREA])[:2] + 1):
        pts = np.argwhere((labels == i) & coloured)[:, ::-1].astype(np.float32)
        if len(pts) < 30:
            continue
        out.append(order_quad(cv2.boxPoints(cv2.minAreaRect(pts))))
    return out


def _expand(quad: np.ndarray, factor: float) -> np.ndarray:
    c = quad.mean(axis=0)
    return c + (quad - c) * factor


def _grid_in_candidate(image: np.ndarray, half: np.ndarray, quad: np.ndarray,
                       drop: list[bool], sizes, view: int = 256, vm: int = 24):
    """Rectify one candidate outline, straighten it on the rim markings, fit the grid.

    ``quad`` is in full-resolution pixels; ``half`` is the photo at half size (warps
    read from it). Returns ``(GridFit, H)`` with ``H`` full-res image → view, or None.
    """
    S_h = np.diag([0.5, 0.5, 1.0])
    Hq = square_homography(quad, view - 2 * vm, vm)
    rect = cv2.warpPerspective(half, Hq @ np.linalg.inv(S_h), (view, view),
                               flags=cv2.INTER_LINEAR)
    masks = [m for m, d in zip(_colour_classes_small(rect), drop, strict=True) if not d]
    ring = np.zeros(rect.shape[:2], bool)
    for m in masks:
        ring |= m
    ring = cv2.morphologyEx(ring.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    outline = outline_from_mask(ring > 0)
    if outline is not None:
        quad2 = cv2.perspectiveTransform(outline[None], np.linalg.inv(Hq))[0]
        if abs(cv2.contourArea(quad2.astype(np.float32))) > 0.3 * abs(
                cv2.contourArea(quad.astype(np.float32))):
            Hq = square_homography(quad2, view - 2 * vm, vm)
            rect = cv2.warpPerspective(half, Hq @ np.linalg.inv(S_h), (view, view),
                                       flags=cv2.INTER_LINEAR)
    fits = fit_grid(cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY), sizes)
    if not fits:
        return None
    return fits[0], Hq


def locate_field(image: np.ndarray, sizes=(9, 12)):
    """Find the playing field: returns ``(H, n, score)`` where ``H`` maps image pixels
    to the canonical view (field ``[M, M + n·CELL]²``, ``M = MARGIN_CELLS·CELL``).

    Raises :class:`NothingFound` when no candidate shows a grid.
    """
    h, w = image.shape[:2]
    s = 480.0 / max(h, w)
    small = cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    half = cv2.resize(image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    drop = [m.mean() >= 0.2 for m in _colour_classes_small(small)]
    best = None
    cands = [_expand(q, 1.06) / s for q in _colour_cluster_quads(small)]
    tried = 0
    for stage in range(2):
        if stage == 1:
            if best is not None and best[0].score >= 0.45:
                break
            cands = [q / s for q in quad_candidates(small, min_frac=0.02)[:4]]
        for q in cands:
            tried += 1
            got = _grid_in_candidate(image, half, q, drop, sizes)
            if got and (best is None or got[0].score > best[0].score):
                best = got
            if best is not None and best[0].score >= 0.6:
                break
    if best is None or best[0].score < MIN_GRID_SCORE:
        raise NothingFound("no board found")
    fit, Hq = best
    n = fit.n
    corners = np.array([[fit.x0, fit.y0], [fit.x0 + n * fit.px, fit.y0],
                        [fit.x0 + n * fit.px, fit.y0 + n * fit.py],
                        [fit.x0, fit.y0 + n * fit.py]])
    img_corners = cv2.perspectiveTransform(corners[None], np.linalg.inv(Hq))[0]
    M = MARGIN_CELLS * CELL
    Hc = square_homography(img_corners, n * CELL, M)
    size = n * CELL + 2 * M
    for _ in range(2):
        canon = cv2.warpPerspective(image, Hc, (size, size), flags=cv2.INTER_LINEAR)
        Hr = refine_grid(cv2.cvtColor(canon, cv2.COLOR_BGR2GRAY), n, CELL, M)
        if Hr is None or not np.all(np.isfinite(Hr)):
            break
        Hc = Hr @ Hc
    return Hc, n, float(fit.score)


# ----------------------------------------------------------------------------- read
#: uint8 sRGB value → linear 0..1 (float32), for whole views at once
_LINEAR_LUT = bgr8_to_linear(np.arange(256, dtype=np.float64)[:, None].repeat(3, 1))[:, 0]
_LINEAR_LUT = _LINEAR_LUT.astype(np.float32)
def _cell_masks(c: int) -> dict[str, np.ndarray]:
    """Sampling masks ``(c, c)`` inside one cell: triangles N, E, S, W and the centre."""
    t = (np.arange(c) + 0.5) / c - 0.5
    v, u = np.meshgrid(t, t, indexing="ij")  # v down (south), u east
    r = np.maximum(np.abs(u), np.abs(v))
    ring = (r > 0.14) & (r < 0.36)
    off_diag = np.abs(np.abs(u) - np.abs(v)) > 0.07
    m = {
        "N": ring & off_diag & (v < -np.abs(u)),
        "E": ring & off_diag & (u > np.abs(v)),
        "S": ring & off_diag & (v > np.abs(u)),
        "W": ring & off_diag & (u < -np.abs(v)),
        "C": r < 0.3,
    }
    return {k: x.astype(np.float32) / max(1, x.sum()) for k, x in m.items()}


def read_canonical(canon: np.ndarray, n: int):
    """Mean linear-RGB colours from a canonical view.

    Returns ``(tri (n, n, 4, 3), centre (n, n, 3), rim (4, n, 3))``: triangle means in
    canonical N, E, S, W order, cell-centre means, and rim marking means for the
    canonical top, right, bottom, left sides (top/bottom left→right, sides top→bottom).
    """
    M = MARGIN_CELLS * CELL
    lin = _LINEAR_LUT[canon[..., ::-1]]
    field = lin[M:M + n * CELL, M:M + n * CELL].reshape(n, CELL, n, CELL, 3)
    masks = _cell_masks(CELL)
    flat = field.transpose(0, 2, 4, 1, 3).reshape(n, n, 3, CELL * CELL)
    weights = np.stack([masks[k].ravel() for k in "NESWC"], axis=1)  # (CELL², 5)
    means = flat @ weights                                              # (n, n, 3, 5)
    tri = means[..., :4].transpose(0, 1, 3, 2)
    centre = means[..., 4]
    # rim markings: a strip 0.12..0.55 cell outside the field, middle half of each cell
    d0, d1 = int(0.12 * CELL), int(0.55 * CELL)
    a0, a1 = int(0.25 * CELL), int(0.75 * CELL)
    rim = np.zeros((4, n, 3), np.float32)
    for i in range(n):
        lo, hi = M + i * CELL + a0, M + i * CELL + a1
        rim[0, i] = _saturated_mean(lin[M - d1:M - d0, lo:hi])
        rim[2, i] = _saturated_mean(lin[M + n * CELL + d0:M + n * CELL + d1, lo:hi])
        rim[3, i] = _saturated_mean(lin[lo:hi, M - d1:M - d0])
        rim[1, i] = _saturated_mean(lin[lo:hi, M + n * CELL + d0:M + n * CELL + d1])
    return tri, centre, rim


def _saturated_mean(patch: np.ndarray) -> np.ndarray:
    """Mean of the more saturated half of a patch's pixels (linear RGB)."""
    p = patch.reshape(-1, 3)
    if len(p) == 0:
        return np.zeros(3, np.float32)
    sat = p.max(axis=1) - p.min(axis=1)
    keep = sat >= np.median(sat)
    return p[keep].mean(axis=0)


def white_balance(tri: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """Per-channel gain ``(3,)`` making the board print neutral (von Kries).

    The print is estimated as the median of the least chromatic quarter of the cell
    centres (empty cells are light and uncoloured; jokers are few)."""
    c = centre.reshape(-1, 3)
    chroma = (c.max(axis=1) - c.min(axis=1)) / (c.max(axis=1) + 1e-4)
    k = max(3, len(c) // 5)
    ref = np.median(c[np.argsort(chroma)[:k]], axis=0)
    return ref / max(float(ref.mean()), 1e-5)


def _hue_centres(lab_ab: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """k-means on hue angle (4 clusters seeded with the nominal colours) → angles (4,)."""
    nom = linear_to_lab(np.array([
        (np.array(NOMINAL_SRGB[c]) / 255.0) for c in COLOURS]) ** 2.2)
    cent = np.arctan2(nom[:, 2], nom[:, 1])
    ang = np.arctan2(lab_ab[:, 1], lab_ab[:, 0])
    for _ in range(4):
        d = np.abs(np.angle(np.exp(1j * (ang[:, None] - cent[None, :]))))
        lab = np.argmin(d, axis=1)
        new = cent.copy()
        for k in range(4):
            sel = lab == k
            if weights[sel].sum() > 0:
                z = (weights[sel] * np.exp(1j * ang[sel])).sum()
                new[k] = np.angle(z)
        # shrink towards the seeds and keep the order (R, Y, G, B by hue)
        cent = np.angle(np.exp(1j * cent) * 0.3 + np.exp(1j * new) * 0.7)
    return cent


def classify_hues(lab: np.ndarray, cent: np.ndarray):
    """Colour index ``(...)`` into :data:`COLOURS` and a margin in radians ``(...)``."""
    ang = np.arctan2(lab[..., 2], lab[..., 1])
    d = np.abs(np.angle(np.exp(1j * (ang[..., None] - cent))))
    srt = np.sort(d, axis=-1)
    return np.argmin(d, axis=-1), srt[..., 1] - srt[..., 0]


# ----------------------------------------------------------------------------- orient
def rotate_cw(rows: list[list[str]], rim: dict[str, str]):
    """Turn a board picture 90° clockwise: cells, tile edges and rim move together."""
    n = len(rows)
    out = [[rows[n - 1 - c][r] for c in range(n)] for r in range(n)]
    out = [[x[3] + x[:3] if len(x) == 4 else x for x in row] for row in out]
    new_rim = {"north": rim["west"][::-1], "east": rim["north"],
               "south": rim["east"][::-1], "west": rim["south"]}
    return out, new_rim


def _rim_mismatch(rim: dict[str, str], layout: Layout) -> int:
    return sum(a != b for s in ("north", "east", "south", "west")
               for a, b in zip(rim[s], layout.rim[s], strict=True))


# ----------------------------------------------------------------------------- main
def recognize(image: np.ndarray, *, previous=None, calibration=None) -> dict:
    """Read a Colomino photo (``(H, W, 3)`` uint8 BGR) into the SPEC answer.

    ``previous``: the last confirmed state (JSON text or object) → adds ``"placed"`` and
    ``"explained"``. ``calibration`` is accepted for interface compatibility (unused).
    """
    if image is None or image.ndim != 3 or image.shape[2] != 3 or min(image.shape[:2]) < 64:
        raise NothingFound("no board found")
    prev_state = _parse_previous(previous) if previous is not None else None
    Hc, n, grid_score = locate_field(image)
    M = MARGIN_CELLS * CELL
    size = n * CELL + 2 * M
    canon = cv2.warpPerspective(image, Hc, (size, size), flags=cv2.INTER_LINEAR)
    tri, centre, rim_lin = read_canonical(canon, n)
    gain = white_balance(tri, centre)
    tri_lab = linear_to_lab(tri / gain)
    cen_lab = linear_to_lab(centre / gain)
    rim_lab = linear_to_lab(rim_lin / gain)
    chroma = np.hypot(tri_lab[..., 1], tri_lab[..., 2])
    coloured = chroma > MIN_CHROMA
    ab = np.concatenate([tri_lab[coloured][:, 1:], rim_lab.reshape(-1, 3)[:, 1:]])
    wts = np.concatenate([chroma[coloured], np.hypot(rim_lab[..., 1], rim_lab[..., 2]).ravel()])
    cent = _hue_centres(ab, wts)
    labels, margin = classify_hues(tri_lab, cent)
    rim_labels, rim_margin = classify_hues(rim_lab, cent)
    warnings: list[str] = []
    # cells in the canonical frame
    n_col = coloured.sum(axis=2)
    print_L = float(np.median(cen_lab[..., 0][n_col == 0])) if (n_col == 0).any() else 100.0
    rows = [["." for _ in range(n)] for _ in range(n)]
    conf = np.ones((n, n))
    for r in range(n):
        for c in range(n):
            if n_col[r, c] >= 3:
                rows[r][c] = "".join(COLOURS[k] for k in labels[r, c])
                conf[r, c] = float(np.clip(margin[r, c].min() / 0.6, 0.05, 1.0))
    # jokers: uncoloured cells clearly brighter than the print (at most four)
    light = [(float(cen_lab[r, c, 0] - print_L), r, c) for r in range(n) for c in range(n)
             if n_col[r, c] == 0]
    light.sort(reverse=True)
    for dl, r, c in light[:4]:
        if dl > 4.0:
            rows[r][c] = "*"
            conf[r, c] = float(np.clip((dl - 4.0) / 4.0, 0.1, 1.0))
    rim_read = {side: "".join(COLOURS[k] for k in rim_labels[i])
                for i, side in enumerate(("north", "east", "south", "west"))}
    # orientation: try the four turns against the default layout of this size
    layout = default_layout(n)
    best = None
    cur_rows, cur_rim = rows, rim_read
    cur_conf = conf
    for k in range(4):
        mism = _rim_mismatch(cur_rim, layout)
        if best is None or mism < best[0]:
            best = (mism, k, cur_rows, cur_rim, cur_conf)
        cur_rows, cur_rim = rotate_cw(cur_rows, cur_rim)
        cur_conf = np.rot90(cur_conf, -1)
    mism, turns, rows_o, rim_o, conf_o = best
    answer: dict = {"game": "colomino", "size": n}
    if mism <= n // 2:
        if mism:
            warnings.append(f"{mism} rim markings read differently from the default layout")
        final_layout = layout
    else:
        rows_o, conf_o, turns = rows, conf, 0
        final_layout = Layout(n, rim_read, ())
        answer["layout"] = layout_to_json(final_layout)
        answer["base_known"] = False
        warnings.append("rim does not match a default layout; base line unknown")
    # uncovered printed fields are '.'; a solid cell of the printed colour is the print
    for pr, pc, colour in final_layout.printed:
        if rows_o[pr][pc] == colour * 4:
            rows_o[pr][pc] = "."
    Hinv = np.linalg.inv(Hc)
    cells = []
    for r in range(n):
        for c in range(n):
            # canonical position of SPEC cell (r, c) after `turns` clockwise turns
            cr, cc = r, c
            for _ in range(turns):
                cr, cc = n - 1 - cc, cr
            p = np.array([[[M + (cc + 0.5) * CELL, M + (cr + 0.5) * CELL]]])
            x, y = cv2.perspectiveTransform(p, Hinv)[0, 0]
            cells.append({"row": r, "col": c, "centre_px": [round(float(x), 1),
                                                           round(float(y), 1)],
                          "confidence": round(float(conf_o[r][c]), 3)})
    answer["rows"] = rows_o
    answer["cells"] = cells
    rim_conf = float(np.clip(np.median(rim_margin) / 0.6, 0, 1))
    answer["confidence"] = round(float(min(grid_score, rim_conf, np.min(conf_o))), 3)
    answer["warnings"] = warnings
    if prev_state is not None:
        _track(answer, prev_state, warnings)
    answer["field_corners_px"] = cv2.perspectiveTransform(
        np.array([[[M, M], [M + n * CELL, M], [M + n * CELL, M + n * CELL],
                   [M, M + n * CELL]]], np.float64), Hinv)[0].round(1).tolist()
    return answer


def _parse_previous(previous):
    import json

    obj = previous
    if isinstance(previous, str | bytes):
        try:
            obj = json.loads(previous)
        except ValueError:
            raise FormatError("--previous: not a JSON Colomino board state") from None
    try:
        return parse_state(obj)
    except FormatError as exc:
        raise FormatError(f"--previous: {exc}") from None


def answer_state(answer: dict):
    """The :class:`engines.colomino.BoardState` of a recognition answer."""
    obj = {"game": "colomino", "size": answer["size"], "rows": answer["rows"]}
    if "layout" in answer:
        obj["layout"] = answer["layout"]
    return parse_state(obj)


def _track(answer: dict, prev, warnings: list[str]) -> None:
    """Add ``placed`` and ``explained`` by comparing with the previous state."""
    try:
        now = answer_state(answer)
    except FormatError as exc:
        answer["placed"], answer["explained"] = [], False
        warnings.append(f"previous: cannot compare ({exc})")
        return
    if now.size != prev.size:
        answer["placed"], answer["explained"] = [], False
        warnings.append(f"previous: board size {prev.size}, photo shows {now.size}")
        return
    if "layout" in answer:
        now = parse_state({"game": "colomino", "size": now.size, "rows": answer["rows"],
                           "layout": layout_to_json(prev.layout)})
    placements, problems = diff_boards(prev, now)
    answer["placed"] = [p.to_json() for p in placements]
    result = score_turn(prev, now)
    answer["explained"] = bool(result.legal and not problems)
    if not answer["explained"]:
        warnings.extend(f"previous: {p}" for p in (problems or list(result.problems)))


def write_overlay(image: np.ndarray, answer: dict, path) -> None:
    """Draw the field outline, cell centres and read codes onto a copy; save to ``path``."""
    out = image.copy()
    quad = np.array(answer.get("field_corners_px", []), np.float64)
    if quad.shape == (4, 2):
        cv2.polylines(out, [quad.astype(np.int32)], True, (255, 0, 255), 3)
    colours = {"R": (40, 40, 220), "Y": (30, 210, 240), "G": (60, 160, 40),
               "B": (200, 90, 30)}
    rows = answer.get("rows", [])
    for cell in answer.get("cells", []):
        x, y = (int(round(v)) for v in cell["centre_px"])
        code = rows[cell["row"]][cell["col"]]
        if code == ".":
            cv2.circle(out, (x, y), 2, (128, 128, 128), -1)
        elif code == "*":
            cv2.circle(out, (x, y), 7, (255, 255, 255), 2)
        else:
            for k, (dx, dy) in enumerate(((0, -6), (6, 0), (0, 6), (-6, 0))):
                cv2.circle(out, (x + dx, y + dy), 3, colours[code[k]], -1)
    if not cv2.imwrite(str(path), out):
        raise FormatError(f"--overlay: cannot write {path}")
