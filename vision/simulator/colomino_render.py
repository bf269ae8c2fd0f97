"""Photos of a Colomino board: printed board, rim markings, plastic four-colour tiles.

The board (cardboard, 2.5 mm) lies at any rotation on the table; its print shows the
grid, a coloured rim marking beside every outer cell (from the state's layout; the rim
fixes the orientation) and the printed centre fields. Tiles are 3 mm plastic squares with
four triangles meeting in the centre (north, east, south, west in board coordinates),
glossy; jokers are white. The truth stays in SPEC coordinates (south = base line).

Board frame: origin at the board centre, x toward east, y toward north (mm); cell
``(row, col)`` has its centre at ``((col - (n-1)/2) * CELL, ((n-1)/2 - row) * CELL)``.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .scene import Canvas, Conditions, jitter_colour, soft_blur, srgb_to_linear

CELL_MM = 28.0
TILE_MM = 26.8
TILE_H_MM = 3.0
BOARD_H_MM = 2.5
RIM_MM = 24.0
BASE_COLOURS = {"R": (205, 35, 45), "Y": (245, 200, 20), "G": (30, 150, 70), "B": (25, 85, 185)}
PRINTS = [(226, 222, 208), (200, 205, 210), (235, 230, 215), (170, 185, 200), (215, 200, 170)]


def sample_palette(rng: np.random.Generator, difficulty: str) -> dict:
    """Plastic and print colours of one Colomino copy (sRGB 0..255)."""
    k = {"easy": 0.6, "normal": 1.0, "hard": 1.4}[difficulty]
    plastic = {c: [float(x) for x in jitter_colour(rng, v, 7 * k, 0.15 * k, 0.12 * k)]
               for c, v in BASE_COLOURS.items()}
    ink = {c: [float(x) for x in jitter_colour(rng, v, 6 * k, 0.2 * k, 0.15 * k)]
           for c, v in BASE_COLOURS.items()}
    return {
        "plastic": plastic,
        "ink": ink,
        "joker": [float(x) for x in jitter_colour(rng, (238, 236, 230), 20, 0.6, 0.04)],
        "print": [float(x) for x in jitter_colour(rng, PRINTS[int(rng.integers(len(PRINTS)))],
                                                  8, 0.2, 0.06)],
        "grid": [float(x) for x in jitter_colour(rng, (60, 60, 70), 20, 0.3, 0.3)],
        "edge": [float(x) for x in jitter_colour(rng, (70, 60, 50), 20, 0.3, 0.3)],
    }


def _lin(rgb) -> np.ndarray:
    return srgb_to_linear(np.asarray(rgb, dtype=np.float32) / 255.0)


class BoardPose:
    """Where the board lies: centre (mm) and rotation (degrees counter-clockwise)."""

    def __init__(self, size: int, angle: float, cx: float = 0.0, cy: float = 0.0):
        self.size = size
        self.angle = angle
        self.cx, self.cy = cx, cy
        a = math.radians(angle)
        self.c, self.s = math.cos(a), math.sin(a)

    def to_world(self, pts, z: float) -> np.ndarray:
        """Board-frame points (x east, y north, mm) to world points at height ``z``."""
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        wx = self.cx + self.c * p[:, 0] - self.s * p[:, 1]
        wy = self.cy + self.s * p[:, 0] + self.c * p[:, 1]
        return np.stack([wx, wy, np.full_like(wx, z)], axis=1)

    def cell_centre(self, row: int, col: int) -> tuple[float, float]:
        """Board-frame centre of a cell."""
        h = (self.size - 1) / 2.0
        return (col - h) * CELL_MM, (h - row) * CELL_MM


def board_texture(layout, size: int, palette: dict, rng, ppm: float):
    """RGBA texture of the printed board top; texel (u, v) ↔ board (x, y) with
    x = u / ppm - half, y = half - v / ppm."""
    half = size * CELL_MM / 2 + RIM_MM
    n = int(math.ceil(2 * half * ppm)) + 1
    img = np.empty((n, n, 3), np.float32)
    img[:] = _lin(palette["print"])

    def tx(x, y):
        return (int(round((x + half) * ppm * 16)), int(round((half - y) * ppm * 16)))

    def rect(x0, y0, x1, y1, colour, target=img):
        pts = np.array([tx(x0, y0), tx(x1, y0), tx(x1, y1), tx(x0, y1)], np.int32)
        u0 = max(0, int(pts[:, 0].min()) // 16 - 2)
        v0 = max(0, int(pts[:, 1].min()) // 16 - 2)
        u1 = min(n, int(pts[:, 0].max()) // 16 + 3)
        v1 = min(n, int(pts[:, 1].max()) // 16 + 3)
        if u1 <= u0 or v1 <= v0:
            return
        mask = np.zeros((v1 - v0, u1 - u0), np.uint8)
        cv2.fillPoly(mask, [pts - np.int32([u0 * 16, v0 * 16])], 255, cv2.LINE_AA, 4)
        m = (mask.astype(np.float32) / 255)[..., None]
        roi = target[v0:v1, u0:u1]
        roi *= 1 - m
        roi += m * colour

    g = size * CELL_MM / 2
    # a darker band around the playing field
    band = _lin(palette["print"]) * 0.82
    rect(-g - 3, -g - 3, g + 3, g + 3, band)
    rect(-g, -g, g, g, _lin(palette["print"]))
    ink = {c: _lin(v) for c, v in palette["ink"].items()}
    # printed centre fields
    for row, col, colour in layout.printed:
        x = (col - (size - 1) / 2) * CELL_MM
        y = ((size - 1) / 2 - row) * CELL_MM
        h = CELL_MM / 2 - 1.2
        rect(x - h, y - h, x + h, y + h, ink[colour])
    # rim markings beside every outer cell
    depth = RIM_MM * 0.55
    off = 3.0
    for i in range(size):
        t = (i - (size - 1) / 2) * CELL_MM
        w = CELL_MM / 2 - 2.0
        rect(t - w, g + off, t + w, g + off + depth, ink[layout.rim["north"][i]])
        rect(t - w, -g - off - depth, t + w, -g - off, ink[layout.rim["south"][i]])
        y = -t  # east/west rims are listed north to south
        rect(g + off, y - w, g + off + depth, y + w, ink[layout.rim["east"][i]])
        rect(-g - off - depth, y - w, -g - off, y + w, ink[layout.rim["west"][i]])
    # grid lines
    gl = _lin(palette["grid"])
    lw = 0.35
    for i in range(size + 1):
        t = -g + i * CELL_MM
        rect(t - lw, -g, t + lw, g, gl)
        rect(-g, t - lw, g, t + lw, gl)
    # print texture and wear
    noise = cv2.GaussianBlur(rng.standard_normal((n, n)).astype(np.float32), (0, 0),
                             max(0.6, ppm * 0.4))
    noise /= noise.std() + 1e-6
    img *= (1 + 0.02 * noise)[..., None]
    alpha = np.ones((n, n), np.float32)
    return np.dstack([img, alpha]).astype(np.float32), half


def tile_texture(cell: str, palette: dict, rng, ppm: float) -> np.ndarray:
    """RGBA texture of a tile's top (north at the top of the texture), TILE_MM square."""
    n = max(8, int(math.ceil(TILE_MM * ppm)) + 2)
    c = n / 2.0
    img = np.zeros((n, n, 3), np.float32)
    hw = TILE_MM / 2

    def tx(x, y):  # tile frame x east, y south (texture down)
        return [int(round((x * ppm + c) * 16)), int(round((y * ppm + c) * 16))]

    if cell == "*":
        img[:] = _lin(palette["joker"])
    else:
        corners = {"nw": (-hw, -hw), "ne": (hw, -hw), "se": (hw, hw), "sw": (-hw, hw)}
        tris = {0: ("nw", "ne"), 1: ("ne", "se"), 2: ("se", "sw"), 3: ("sw", "nw")}
        gain = 1 + rng.normal(0, 0.02)
        for side, (a, b) in tris.items():
            colour = _lin(palette["plastic"][cell[side]]) * gain
            pts = np.array([tx(0, 0), tx(*(np.array(corners[a]) * 1.2)),
                            tx(*(np.array(corners[b]) * 1.2))], np.int32)
            mask = np.zeros((n, n), np.uint8)
            cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA, 4)
            m = (mask.astype(np.float32) / 255)[..., None]
            img[:] = img * (1 - m) + colour * m
        # thin moulded grooves along the diagonals
        groove = np.zeros((n, n), np.uint8)
        for a in ("nw", "ne"):
            p, q = np.array(corners[a]), -np.array(corners[a])
            cv2.line(groove, tuple(tx(*p)), tuple(tx(*q)), 255, max(1, int(ppm * 0.4)),
                     cv2.LINE_AA, 4)
        img *= (1 - 0.35 * groove.astype(np.float32) / 255)[..., None]
    # rounded edges: darker rim, thin highlight just inside
    mask = np.zeros((n, n), np.uint8)
    sq = np.array([tx(-hw, -hw), tx(hw, -hw), tx(hw, hw), tx(-hw, hw)], np.int32)
    cv2.fillPoly(mask, [sq], 255, cv2.LINE_AA, 4)
    alpha = mask.astype(np.float32) / 255
    inner = cv2.erode(mask, np.ones((3, 3), np.uint8), iterations=max(1, int(ppm * 0.7)))
    rim = cv2.GaussianBlur(1 - inner.astype(np.float32) / 255, (0, 0), max(0.5, ppm * 0.3))
    img *= (1 - 0.3 * rim)[..., None]
    noise = cv2.GaussianBlur(rng.standard_normal((n, n)).astype(np.float32), (0, 0), ppm)
    img *= (1 + 0.015 * noise / (noise.std() + 1e-6))[..., None]
    return np.dstack([img, alpha]).astype(np.float32)


def _slab_sides(canvas: Canvas, cond: Conditions, corners_w0, corners_w1, colour, rng,
                gloss=0.0):
    """Visible vertical faces of a box between bottom (z0) and top (z1) corner rings."""
    cam = canvas.camera.position
    centre = corners_w1.mean(axis=0)
    k = len(corners_w1)
    for i in range(k):
        j = (i + 1) % k
        mid = (corners_w1[i] + corners_w1[j]) / 2
        normal = mid - centre
        normal[2] = 0
        normal /= np.linalg.norm(normal) + 1e-9
        if normal @ (cam - mid) <= 0:
            continue
        shade = canvas.face_shade(cond, normal, mid)
        tex = np.empty((4, 4, 4), np.float32)
        tex[..., :3] = colour * shade * rng.uniform(0.95, 1.05)
        tex[2:, :, :3] *= 0.85
        tex[..., 3] = 1
        canvas.draw_quad(tex, [(0, 0), (3, 0), (3, 3), (0, 3)],
                         [corners_w1[i], corners_w1[j], corners_w0[j], corners_w0[i]], gloss)


def draw_colomino(canvas: Canvas, state, pose: BoardPose, placements, palette: dict,
                  cond: Conditions, rng) -> None:
    """Board, shadows and tiles (farthest first)."""
    size = state.size
    half = size * CELL_MM / 2 + RIM_MM
    board_local = np.array([(-half, half), (half, half), (half, -half), (-half, -half)])
    bw0 = pose.to_world(board_local, 0.0)
    bw1 = pose.to_world(board_local, BOARD_H_MM)
    # shadows of board edge and tiles
    polys = []
    foot = [pose.to_world(board_local, 0.0)]
    for (_r, _c), (dx, dy, ang) in placements.items():
        sq = _tile_corners(pose, _r, _c, dx, dy, ang)
        foot.append(pose.to_world(sq, BOARD_H_MM))
    for i, f in enumerate(foot):
        h = BOARD_H_MM if i == 0 else BOARD_H_MM + TILE_H_MM
        top = [canvas.shadow_offset(cond, (p[0], p[1], 0), h) for p in f]
        pts = np.vstack([f[:, :2], np.array(top)]).astype(np.float32)
        hull = cv2.convexHull(pts)[:, 0, :]
        polys.append([(x, y, 0.0) for x, y in hull])
    canvas.add_cast_shadows(polys[:1], cond.shadow_softness_mm, 0.8)
    _slab_sides(canvas, cond, bw0, bw1, _lin(palette["edge"]), rng)
    ppm = float(np.clip(canvas.px_per_mm_at((pose.cx, pose.cy, 0)) * 1.3, 1.5, 2040 / (2 * half)))
    tex, half = board_texture(state.layout, size, palette, rng, ppm)
    nt = tex.shape[0]
    src = [(0, 0), (nt - 1, 0), (nt - 1, nt - 1), (0, nt - 1)]
    # shift so texel centres match: texel u ↔ x = u / ppm - half
    dst = pose.to_world(np.array([(-half, half), (-half + (nt - 1) / ppm, half),
                                  (-half + (nt - 1) / ppm, half - (nt - 1) / ppm),
                                  (-half, half - (nt - 1) / ppm)]), BOARD_H_MM)
    canvas.draw_quad(tex, src, dst, gloss=0.25)
    # tile shadows fall on the board: draw them into the board pixels
    tile_shadow = np.zeros((canvas.height, canvas.width), np.float32)
    canvas.fill_world_polygons(tile_shadow, polys[1:], 0.75)
    tile_shadow = soft_blur(tile_shadow, max(0.5, cond.shadow_softness_mm * 0.6
                                             * canvas.px_per_mm))
    canvas.rgb *= (1 - tile_shadow * 0.55)[..., None]
    cam = canvas.camera
    order = sorted(
        placements.items(),
        key=lambda kv: -float(cam.depth(
            pose.to_world([pose.cell_centre(*kv[0])], BOARD_H_MM))[0]),
    )
    for (r, c), (dx, dy, ang) in order:
        sq = _tile_corners(pose, r, c, dx, dy, ang)
        z0, z1 = BOARD_H_MM, BOARD_H_MM + TILE_H_MM
        cell = state.cells[r][c]
        body = _lin(palette["joker"]) if cell == "*" else _lin(palette["plastic"][cell[2]]) * 0.8
        _slab_sides(canvas, cond, pose.to_world(sq, z0), pose.to_world(sq, z1), body, rng,
                    gloss=0.3)
        tppm = float(np.clip(canvas.px_per_mm_at(pose.to_world([sq[0]], z1)[0]) * 1.5, 2, 14))
        ttex = tile_texture(cell, palette, rng, tppm)
        n = ttex.shape[0]
        cc = n / 2.0
        hw = TILE_MM / 2
        local = np.array([(-hw, -hw), (hw, -hw), (hw, hw), (-hw, hw)])  # x east, y south
        src = local * tppm + cc
        canvas.draw_quad(ttex, src, pose.to_world(_rotate(local * [1, -1], ang)
                                                  + _cellxy(pose, r, c, dx, dy), z1),
                         gloss=1.0)


def _rotate(pts, ang):
    a = math.radians(ang)
    c, s = math.cos(a), math.sin(a)
    p = np.asarray(pts, dtype=np.float64)
    return np.stack([c * p[:, 0] - s * p[:, 1], s * p[:, 0] + c * p[:, 1]], axis=1)


def _cellxy(pose, r, c, dx, dy):
    x, y = pose.cell_centre(r, c)
    return np.array([x + dx, y + dy])


def _tile_corners(pose, r, c, dx, dy, ang):
    hw = TILE_MM / 2
    sq = np.array([(-hw, hw), (hw, hw), (hw, -hw), (-hw, -hw)])  # board frame, y north
    return _rotate(sq, ang) + _cellxy(pose, r, c, dx, dy)


def parse_colomino_state(state):
    """A Colomino state (JSON object) → :class:`engines.colomino.BoardState`."""
    from engines.colomino import parse_state
    from engines.errors import FormatError

    if not isinstance(state, dict):
        raise FormatError("state: a Colomino board state must be a JSON object")
    return parse_state(state)


def render_colomino(state, seed: int = 0, difficulty: str = "normal", width=None, height=None,
                    source: str = "given"):
    """Photograph a Colomino board state; returns :class:`vision.simulator.photo.Photo`.

    Truth ``pieces``: one entry per cell (row, col in SPEC coordinates, ``cell`` value,
    printed colour if any, pixel centre on the board/tile top; for tiles also
    ``triangle_centers_px``, the centroids of the north, east, south and west triangles
    in that order); ``board_corners_px``: the
    playing field's corners NW, NE, SE, SW in SPEC directions (south = base line);
    ``board_outer_corners_px`` the cardboard's corners; ``south_side``: the image side the
    base line is nearest to.
    """
    from engines.colomino import state_to_json

    from .photo import Photo, px, rng_for, shoot
    from .scene import sample_conditions

    board = parse_colomino_state(state)
    cond = sample_conditions(rng_for(seed, "colomino", "conditions"), difficulty) \
        if difficulty in ("easy", "normal", "hard") else None
    lay = rng_for(seed, "colomino", "layout")
    palette = sample_palette(lay, difficulty) if cond else None
    size = board.size
    pose = BoardPose(size, cond.board_rotation if cond else 0.0)
    mess = 0.5 if difficulty == "easy" else 1.0
    placements = {}
    for r in range(size):
        for c in range(size):
            if board.cells[r][c] != ".":
                placements[(r, c)] = (float(lay.uniform(-0.8, 0.8) * mess),
                                      float(lay.uniform(-0.8, 0.8) * mess),
                                      float(lay.uniform(-2.5, 2.5) * mess))
    half = size * CELL_MM / 2 + RIM_MM
    outer = np.array([(-half, half), (half, half), (half, -half), (-half, -half)])
    frame = pose.to_world(outer, 0.0)
    extent = 2 * half

    def draw(canvas, cnd, rng):
        draw_colomino(canvas, board, pose, placements, palette, cnd, rng)

    jpeg, bgr, cam, cond = shoot("colomino", seed, difficulty, width, height, frame,
                                 (0.0, 0.0), extent, draw, cond=cond)
    pieces = []
    for r in range(size):
        for c in range(size):
            cell = board.cells[r][c]
            if cell != ".":
                dx, dy, _ = placements[(r, c)]
                xy = _cellxy(pose, r, c, dx, dy)
                z = BOARD_H_MM + TILE_H_MM
            else:
                xy, z = np.array(pose.cell_centre(r, c)), BOARD_H_MM
            entry = {
                "row": r, "col": c, "cell": cell,
                "printed": board.layout.printed_colour(r, c),
                "center_px": px(cam.project(pose.to_world([xy], z))[0]),
            }
            if cell != ".":
                ang = placements[(r, c)][2]
                k = TILE_MM / 3.0  # centroid of each triangle: 1/3 of the way to its edge
                tri = _rotate(np.array([(0, k), (k, 0), (0, -k), (-k, 0)]), ang) + xy
                entry["triangle_centers_px"] = px(cam.project(pose.to_world(tri, z)))
            pieces.append(entry)
    g = size * CELL_MM / 2
    grid = np.array([(-g, g), (g, g), (g, -g), (-g, -g)])
    grid_px = cam.project(pose.to_world(grid, BOARD_H_MM))
    truth = {
        "game": "colomino",
        "state": state_to_json(board),
        "pieces": pieces,
        "board_corners_px": px(grid_px),
        "board_outer_corners_px": px(cam.project(pose.to_world(outer, BOARD_H_MM))),
        "south_side": _image_side(grid_px[3] - grid_px[0] + grid_px[2] - grid_px[1]),
        "cell_mm": CELL_MM,
        "camera": cam.to_json(),
        "conditions": cond.to_json(),
        "palette": {k: v for k, v in palette.items()},
        "difficulty": difficulty,
        "seed": int(seed),
        "source": source,
        "image_size": [cam.width, cam.height],
    }
    return Photo(jpeg, bgr, truth)


def _image_side(direction) -> str:
    """Image side ('bottom', 'right', 'top', 'left') a pixel direction vector points to."""
    dx, dy = float(direction[0]), float(direction[1])
    if abs(dy) >= abs(dx):
        return "bottom" if dy > 0 else "top"
    return "right" if dx > 0 else "left"
