"""Photos of hand-painted CARIBO hexagons (40 mm across the flats, 10 mm thick).

Every tile is a 3-D prism: a painted top face (six triangular segments, SPEC numbering,
uneven hand-painted boundaries, brush streaks, worn spots, bevelled edge) warped into the
photo through the camera homography of the plane ``z = 10 mm``, plus its visible wooden
side faces, and a soft cast shadow on the table. Tiles are laid by hand: gaps of
0.5-2 mm, rotations up to ±3°, offsets up to ±1 mm.

Tile-local frame: x right, y down (as in the notation), origin at the tile centre; a
pointy-top hexagon with circumradius ``R``; segment k (1..6) is the triangle between the
centre and edge k (1 upper-right, 2 right, 3 lower-right, 4 lower-left, 5 left,
6 upper-left).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from .scene import Canvas, Conditions, jitter_colour, srgb_to_linear

TILE_FLATS_MM = 40.0
TILE_THICKNESS_MM = 10.0
R_MM = TILE_FLATS_MM / 2 / math.cos(math.radians(30))
SQRT3_2 = math.sqrt(3.0) / 2.0

# Vertices v0..v5 clockwise from the top tip (y down); edge k (1-based) = v[k-1] .. v[k%6].
HEX_VERTS = np.array(
    [(R_MM * math.sin(math.radians(60 * i)), -R_MM * math.cos(math.radians(60 * i)))
     for i in range(6)]
)

BASE_PAINTS = {  # sRGB of the six paints before a paint set varies them
    "W": (234, 230, 216),
    "S": (40, 38, 38),
    "B": (28, 78, 168),
    "R": (196, 38, 36),
    "G": (36, 134, 66),
    "Y": (238, 196, 38),
}
WOODS = [(205, 168, 118), (186, 142, 92), (222, 190, 142), (150, 105, 66)]


@dataclass(frozen=True)
class PaintSet:
    """The six paint colours (sRGB 0..255) and the raw wood colour of one tile set."""

    paints: tuple  # ((letter, (r, g, b)), ...)
    wood: tuple
    variation: float  # per-tile brightness/hue wobble

    def colour(self, letter: str) -> np.ndarray:
        """sRGB 0..255 of a paint letter."""
        return np.array(dict(self.paints)[letter], dtype=np.float32)

    def to_json(self) -> dict:
        """JSON-ready description."""
        return {
            "paints": {k: [round(float(x), 1) for x in v] for k, v in self.paints},
            "wood": [round(float(x), 1) for x in self.wood],
            "variation": round(self.variation, 4),
        }


def sample_paint_set(rng: np.random.Generator, difficulty: str) -> PaintSet:
    """A random paint set: hue, saturation and brightness of every paint vary."""
    k = {"easy": 0.6, "normal": 1.0, "hard": 1.4}[difficulty]
    paints = []
    for letter, rgb in BASE_PAINTS.items():
        if letter == "W":
            c = jitter_colour(rng, rgb, 25, 1.2 * k, 0.06 * k)
        elif letter == "S":
            c = jitter_colour(rng, rgb, 30, 0.5 * k, 0.4 * k)
        else:
            c = jitter_colour(rng, rgb, 8 * k, 0.2 * k, 0.15 * k)
        paints.append((letter, tuple(float(x) for x in c)))
    wood = tuple(float(x) for x in jitter_colour(rng, WOODS[int(rng.integers(len(WOODS)))],
                                                 6, 0.15, 0.1))
    return PaintSet(tuple(paints), wood, float(rng.uniform(0.02, 0.05) * k))


@dataclass(frozen=True)
class PlacedTile:
    """A tile as it lies on the table: grid cell, colours and its exact pose."""

    row: int
    col: int
    code: str
    segments: str  # six colour letters, index 0 = segment 1
    x: float  # world mm (centre)
    y: float
    angle: float  # degrees: rotation of the tile-local frame on the table (counter-clockwise)

    def local_to_world(self, pts, z: float) -> np.ndarray:
        """Tile-local points (x right, y down, mm) to world points at height ``z``."""
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        a = math.radians(self.angle)
        c, s = math.cos(a), math.sin(a)
        lx, ly = p[:, 0], -p[:, 1]  # y down -> y up (north)
        wx = self.x + c * lx - s * ly
        wy = self.y + s * lx + c * ly
        return np.stack([wx, wy, np.full_like(wx, z)], axis=1)

    def segment_centres(self, z: float = TILE_THICKNESS_MM) -> np.ndarray:
        """World points at the centroids of the six segment triangles (index 0 = seg 1)."""
        cents = [(HEX_VERTS[k] + HEX_VERTS[(k + 1) % 6]) / 3.0 for k in range(6)]
        return self.local_to_world(cents, z)


def lay_tiles(
    cells: Sequence[tuple[int, int, str, str]],
    first_row_shifted: bool,
    rng: np.random.Generator,
    board_rotation: float,
    messiness: float = 1.0,
) -> list[PlacedTile]:
    """Hand-place tiles ``(row, col, code, segments)`` on the table around the origin.

    The lattice pitch is the tile width plus a gap of 0.5-2 mm; every tile gets its own
    offset (±1 mm) and rotation (±3°); the whole figure is turned by ``board_rotation``.
    """
    gap = float(rng.uniform(0.5, 2.0))
    pitch = TILE_FLATS_MM + gap
    raw = []
    for row, col, code, segs in cells:
        indented = (row % 2 == 1) != bool(first_row_shifted)
        bx = (col + 0.5 * indented) * pitch
        by = -row * SQRT3_2 * pitch
        raw.append((row, col, code, segs, bx, by))
    if not raw:
        return []
    cx = float(np.mean([r[4] for r in raw]))
    cy = float(np.mean([r[5] for r in raw]))
    a = math.radians(board_rotation)
    c, s = math.cos(a), math.sin(a)
    out = []
    for row, col, code, segs, bx, by in raw:
        dx = bx - cx + rng.uniform(-1, 1) * messiness
        dy = by - cy + rng.uniform(-1, 1) * messiness
        out.append(
            PlacedTile(
                row, col, code, segs,
                float(c * dx - s * dy), float(s * dx + c * dy),
                float(board_rotation + rng.uniform(-3, 3) * messiness),
            )
        )
    return separate_tiles(out)


def _penetration(a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray]:
    """Overlap depth of two convex polygons (>0 overlapping) and the axis to push along
    (separating axis theorem, edge normals of both)."""
    best, axis = math.inf, None
    for poly in (a, b):
        n = len(poly)
        for i in range(n):
            e = poly[(i + 1) % n] - poly[i]
            ax = np.array([-e[1], e[0]]) / (np.hypot(e[0], e[1]) + 1e-12)
            pa, pb = a @ ax, b @ ax
            depth = min(pa.max() - pb.min(), pb.max() - pa.min())
            if depth < best:
                best, axis = depth, ax
    return best, axis


def separate_tiles(tiles: list[PlacedTile], clearance: float = 0.15,
                   rounds: int = 8) -> list[PlacedTile]:
    """Push hand-placed tiles apart where their jitter made wooden hexagons overlap."""
    from dataclasses import replace

    tiles = list(tiles)
    for _ in range(rounds):
        moved = False
        polys = [t.local_to_world(HEX_VERTS, 0.0)[:, :2] for t in tiles]
        for i in range(len(tiles)):
            for j in range(i + 1, len(tiles)):
                d = math.hypot(tiles[i].x - tiles[j].x, tiles[i].y - tiles[j].y)
                if d > 2 * R_MM + 1:
                    continue
                depth, ax = _penetration(polys[i], polys[j])
                if depth + clearance <= 0:
                    continue
                centre = np.array([tiles[j].x - tiles[i].x, tiles[j].y - tiles[i].y])
                if ax @ centre < 0:
                    ax = -ax
                push = (depth + clearance) / 2 + 1e-3
                tiles[i] = replace(tiles[i], x=tiles[i].x - ax[0] * push,
                                   y=tiles[i].y - ax[1] * push)
                tiles[j] = replace(tiles[j], x=tiles[j].x + ax[0] * push,
                                   y=tiles[j].y + ax[1] * push)
                polys[i] = tiles[i].local_to_world(HEX_VERTS, 0.0)[:, :2]
                polys[j] = tiles[j].local_to_world(HEX_VERTS, 0.0)[:, :2]
                moved = True
        if not moved:
            break
    return tiles


# ----------------------------------------------------------------------------- textures
def _wavy(p0, p1, rng, amp, n=7):
    """Points from p0 to p1 with a hand-drawn perpendicular wobble (ends fixed)."""
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    t = np.linspace(0, 1, n)
    d = p1 - p0
    perp = np.array([-d[1], d[0]]) / (np.linalg.norm(d) + 1e-9)
    wob = rng.normal(0, amp, n) * np.sin(np.pi * t) ** 0.5
    wob[0] = wob[-1] = 0
    return p0[None, :] + t[:, None] * d[None, :] + wob[:, None] * perp[None, :]


def tile_texture(
    segments: str, paints: PaintSet, rng: np.random.Generator, ppm: float
) -> tuple[np.ndarray, float]:
    """RGBA linear texture of a tile's painted top; returns (texture, texels per mm).

    Texel (u, v) shows the tile-local point ((u - c) / ppm, (v - c) / ppm), c = size / 2.
    """
    size = int(math.ceil(2 * R_MM * ppm)) + 4
    c = size / 2.0

    def tex(pts):
        return np.round((np.asarray(pts) * ppm + c) * 16).astype(np.int32)

    wood = srgb_to_linear(np.array(paints.wood) / 255)
    # the six boundary rays from the centre to the vertices, hand-drawn
    centre = rng.normal(0, 0.5, 2)
    amp = float(rng.uniform(0.2, 0.7))
    rays = [_wavy(centre, HEX_VERTS[i] * 1.02, rng, amp) for i in range(6)]
    var = paints.variation
    tile_gain = 1 + rng.normal(0, var)
    cols = {}
    for letter in sorted(set(segments)):  # sorted: same draws in every process
        base = paints.colour(letter)
        if letter == "S":
            jit = jitter_colour(rng, base, 10, 0.2, 0.2)
        else:
            jit = jitter_colour(rng, base, 4, var * 2, var * 2)
        cols[letter] = srgb_to_linear(jit / 255) * tile_gain
    # paint the six segments as a label map, then soften the boundaries a little
    labels = np.zeros((size, size), np.uint8)
    for k in range(6):
        a, b = k, (k + 1) % 6
        poly = np.concatenate([rays[a], rays[b][::-1]], axis=0)
        cv2.fillPoly(labels, [tex(poly)], k + 1, lineType=cv2.LINE_8, shift=4)
    palette = np.vstack([wood[None, :]] + [cols[segments[k]][None, :] for k in range(6)])
    img = palette[labels].astype(np.float32)
    img = cv2.GaussianBlur(img, (0, 0), 0.6)
    # brush streaks: elongated noise along a random stroke direction
    noise = rng.standard_normal((size, size)).astype(np.float32)
    L = max(3, int(6 * ppm))
    ker = np.zeros((L, L), np.float32)
    ang = rng.uniform(0, math.pi)
    cv2.line(ker, (int(L / 2 - L / 2 * math.cos(ang)), int(L / 2 - L / 2 * math.sin(ang))),
             (int(L / 2 + L / 2 * math.cos(ang)), int(L / 2 + L / 2 * math.sin(ang))), 1.0, 1)
    ker /= max(ker.sum(), 1e-6)
    streak = cv2.filter2D(noise, -1, ker)
    streak = cv2.GaussianBlur(streak, (0, 0), max(0.5, ppm * 0.25))
    streak /= streak.std() + 1e-6
    # (thick white paint hides the strokes better than the thin dark colours)
    amp = np.array([1.0] + [0.45 if segments[k] == "W" else 1.0 for k in range(6)],
                   np.float32)[labels]
    img *= (1 + streak * amp * rng.uniform(0.012, 0.035))[..., None]
    # blotchy paint thickness
    blot = cv2.GaussianBlur(rng.standard_normal((size, size)).astype(np.float32), (0, 0),
                            ppm * 3)
    blot /= blot.std() + 1e-6
    img *= (1 + blot * 0.03)[..., None]
    # worn spots and dents showing wood, mostly near the rim
    for _ in range(int(rng.integers(0, 5))):
        k = int(rng.integers(6))
        t = rng.uniform(0.1, 0.9)
        p = HEX_VERTS[k] * (1 - t) + HEX_VERTS[(k + 1) % 6] * t
        p = p * rng.uniform(0.85, 1.0)
        r = rng.uniform(0.4, 1.8)
        # work in a small window around the spot
        half = int(math.ceil((r + 1.5) * ppm)) + 2
        u0 = max(0, int(p[0] * ppm + c) - half)
        v0 = max(0, int(p[1] * ppm + c) - half)
        u1, v1 = min(size, u0 + 2 * half), min(size, v0 + 2 * half)
        mask = np.zeros((v1 - v0, u1 - u0), np.uint8)
        cv2.ellipse(mask, (int(round((p[0] * ppm + c - u0) * 16)),
                           int(round((p[1] * ppm + c - v0) * 16))),
                    (int(r * ppm * 16), int(r * ppm * 16 * rng.uniform(0.4, 1))),
                    float(rng.uniform(0, 180)), 0, 360, 255, -1, cv2.LINE_AA, 4)
        m = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), max(0.5, ppm * 0.3))
        w = rng.uniform(0.4, 0.85)
        roi = img[v0:v1, u0:u1]
        roi[:] = roi * (1 - w * m[..., None]) + wood * 0.8 * (w * m[..., None])
    # alpha: the hexagon, with a darker rounded bevel along its rim
    mask = np.zeros((size, size), np.uint8)
    cv2.fillPoly(mask, [tex(HEX_VERTS)], 255, lineType=cv2.LINE_AA, shift=4)
    alpha = mask.astype(np.float32) / 255.0
    inner = cv2.erode(mask, np.ones((3, 3), np.uint8), iterations=max(1, int(ppm * 0.6)))
    bevel = cv2.GaussianBlur(1 - inner.astype(np.float32) / 255.0, (0, 0), max(0.5, ppm * 0.3))
    img *= (1 - 0.25 * bevel)[..., None]
    rgba = np.dstack([img, alpha]).astype(np.float32)
    return rgba, ppm


def side_texture(paints: PaintSet, rng: np.random.Generator, ppm: float) -> np.ndarray:
    """RGBA texture of one wooden side face (edge length x thickness), grain along it."""
    w = max(4, int(math.ceil(2 * R_MM * math.sin(math.radians(30)) * ppm)))
    h = max(3, int(math.ceil(TILE_THICKNESS_MM * ppm)))
    wood = srgb_to_linear(np.array(paints.wood) / 255)
    rows = 1 + 0.12 * np.sin(np.linspace(0, rng.uniform(6, 18), h) + rng.uniform(0, 6))
    grain = rows[:, None] * (1 + 0.05 * rng.standard_normal((1, w)))
    shade = np.linspace(1.0, 0.8, h)[:, None]  # contact darkening toward the table
    img = wood[None, None, :] * (grain * shade)[..., None]
    return np.dstack([img, np.ones((h, w))]).astype(np.float32)


# ----------------------------------------------------------------------------- drawing
def draw_tiles(
    canvas: Canvas,
    placed: Sequence[PlacedTile],
    paints: PaintSet,
    cond: Conditions,
    rng: np.random.Generator,
    gloss: float = 0.15,
) -> None:
    """Cast shadows, then every tile (sides and painted top) farthest first."""
    T = TILE_THICKNESS_MM
    shadows = []
    for t in placed:
        foot = t.local_to_world(HEX_VERTS, 0.0)
        top_sh = [canvas.shadow_offset(cond, p, T) for p in foot]
        pts = np.vstack([foot[:, :2], np.array(top_sh)]).astype(np.float32)
        hull = cv2.convexHull(pts)[:, 0, :]
        shadows.append([(x, y, 0.0) for x, y in hull])
    canvas.add_cast_shadows(shadows, cond.shadow_softness_mm, strength=0.9)
    # ambient occlusion right around the tiles
    ao = [[tuple(p) for p in t.local_to_world(HEX_VERTS * 1.06, 0.0)] for t in placed]
    canvas.add_cast_shadows(ao, 1.0, strength=0.35)
    cam_pos = canvas.camera.position
    order = sorted(placed, key=lambda t: -float(canvas.camera.depth([[t.x, t.y, T / 2]])[0]))
    for t in order:
        ppm = float(np.clip(canvas.px_per_mm_at((t.x, t.y, T)) * 1.5, 1.5, 14.0))
        top = t.local_to_world(HEX_VERTS, T)
        bottom = t.local_to_world(HEX_VERTS, 0.0)
        centre = np.array([t.x, t.y, T / 2])
        side = side_texture(paints, rng, ppm)
        sh, sw = side.shape[:2]
        for k in range(6):
            a, b = k, (k + 1) % 6
            mid = (top[a] + top[b]) / 2
            normal = mid - centre
            normal[2] = 0
            normal /= np.linalg.norm(normal)
            if normal @ (cam_pos - mid) <= 0:
                continue
            shade = canvas.face_shade(cond, normal, mid)
            tex = side.copy()
            tex[..., :3] *= shade * rng.uniform(0.92, 1.05)
            canvas.draw_quad(
                tex,
                [(0, 0), (sw - 1, 0), (sw - 1, sh - 1), (0, sh - 1)],
                [top[a], top[b], bottom[b], bottom[a]],
                gloss=0.02,
            )
        tex, ppm = tile_texture(t.segments, paints, rng, ppm)
        size = tex.shape[0]
        c = size / 2.0
        local = np.array([(-R_MM, -R_MM), (R_MM, -R_MM), (R_MM, R_MM), (-R_MM, R_MM)])
        src = local * ppm + c
        canvas.draw_quad(tex, src, t.local_to_world(local, T), gloss=gloss)


# ----------------------------------------------------------------------------- the photo
def parse_caribo_state(state) -> tuple[str, list[tuple[int, int, str, str]], bool]:
    """A CARIBO state (notation text or ``{"game": "caribo", "notation": ...}``) →
    (canonical notation, [(row, col, code, segments)], first_row_shifted).

    Raises :class:`engines.errors.FormatError` subclasses for malformed input.
    """
    from engines.caribo import format_board, parse_board
    from engines.errors import FormatError

    if isinstance(state, dict):
        if state.get("game", "caribo") != "caribo":
            raise FormatError(f"state: game is {state.get('game')!r}, expected 'caribo'")
        notation = state.get("notation")
        if not isinstance(notation, str):
            raise FormatError("state: 'notation' must be a string")
    elif isinstance(state, str):
        notation = state
    else:
        raise FormatError("state: expected notation text or a JSON object")
    board = parse_board(notation.strip())
    if len(board.tiles) == 0:
        raise FormatError("state: the board has no tiles to photograph")
    cells = [
        (r, c, t.code, "".join(t.segments)) for (r, c), t in sorted(board.tiles.items())
    ]
    return format_board(board), cells, board.first_row_shifted


def render_caribo(
    state,
    seed: int = 0,
    difficulty: str = "normal",
    width: int | None = None,
    height: int | None = None,
    source: str = "given",
):
    """Photograph a CARIBO board; returns :class:`vision.simulator.photo.Photo`.

    Truth ``pieces``: per tile its grid cell, code, segment colours, the pixel centre of its
    top face, the pixel positions of its six top corners (v0 = top tip, clockwise in the
    tile frame) and of its six segment centroids (index 0 = segment 1).
    """
    from .photo import Photo, px, rng_for, shoot

    notation, cells, fs = parse_caribo_state(state)
    cond_rng = rng_for(seed, "caribo", "conditions")
    from .scene import sample_conditions

    cond = sample_conditions(cond_rng, difficulty) if difficulty in ("easy", "normal", "hard") \
        else None
    paints = sample_paint_set(rng_for(seed, "caribo", "layout"), difficulty) if cond else None
    lay_rng = rng_for(seed, "caribo", "layout")
    lay_rng.random(64)  # decorrelate from the paint draw
    placed = lay_tiles(cells, fs, lay_rng, cond.board_rotation if cond else 0.0,
                       messiness={"easy": 0.5, "normal": 1.0, "hard": 1.0}.get(difficulty, 1))
    frame = np.vstack([t.local_to_world(HEX_VERTS * 1.15, z) for t in placed
                       for z in (0.0, TILE_THICKNESS_MM)])
    extent = float(np.max(np.ptp(frame[:, :2], axis=0)))

    def draw(canvas, cnd, rng):
        draw_tiles(canvas, placed, paints, cnd, rng)

    jpeg, bgr, cam, cond = shoot("caribo", seed, difficulty, width, height, frame,
                                 (0.0, 0.0), extent, draw, cond=cond)
    pieces = []
    for t in placed:
        pieces.append({
            "row": t.row,
            "col": t.col,
            "tile": t.code,
            "segments": t.segments,
            "center_px": px(cam.project([[t.x, t.y, TILE_THICKNESS_MM]])[0]),
            "corners_px": px(cam.project(t.local_to_world(HEX_VERTS, TILE_THICKNESS_MM))),
            "segment_centers_px": px(cam.project(t.segment_centres())),
            "world_mm": [round(t.x, 3), round(t.y, 3)],
            "angle_deg": round(t.angle, 3),
        })
    truth = {
        "game": "caribo",
        "state": {"game": "caribo", "notation": notation},
        "pieces": pieces,
        "camera": cam.to_json(),
        "conditions": cond.to_json(),
        "paint_set": paints.to_json(),
        "difficulty": difficulty,
        "seed": int(seed),
        "source": source,
        "image_size": [cam.width, cam.height],
    }
    return Photo(jpeg, bgr, truth)
