"""Photos of a carved Wauri board with round seeds in its 2×6 pits and two stores.

Board frame (mm): origin at the board centre, x toward south's right (east), y toward
north. The photographer sits at south, so with yaw ≈ 0 and no board rotation south's row
is the one nearer the bottom of the image; the board is turned at random on the table and
the truth says which image side south's row is nearest (``south_side``). South's pits
1..6 run west→east (left to right as south sees them) at y < 0, north's pits 1..6 run
east→west at y > 0; south's store is at the east end, north's at the west end (SPEC:
each store on its owner's right).

Pits are paraboloid bowls carved into the top; the bowls are drawn as a shaded floor
plane below the top surface, seen through holes in the top texture, so the near rim hides
what lies low in a pit. Seeds (Molucca-bean-like, ~15 mm, grey or brown) are shaded
spheres dropped one by one into their pit and resting on the bowl or on other seeds,
so big counts form real piles.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .colomino_render import BoardPose, _image_side, _slab_sides
from .scene import (
    Canvas,
    Conditions,
    jitter_colour,
    periodic_noise,
    sample_noise,
    soft_blur,
    srgb_to_linear,
)

PIT_PITCH = 62.0
PIT_R = 25.0
PIT_DEPTH = 13.0
ROW_Y = 32.0
STORE_HALF = 34.0  # half length of the straight part of the stadium-shaped store
STORE_R = 27.0
STORE_X = 3.5 * PIT_PITCH + 42.0
BOARD_HALF_X = STORE_X + STORE_R + 16.0
BOARD_HALF_Y = ROW_Y + PIT_R + 14.0
BOARD_H = 32.0
FLOOR_DEPTH = 11.0  # the floor plane below the top
SEED_R = 8.2

SEED_COLOURS = [(128, 130, 120), (105, 110, 104), (146, 142, 128), (98, 70, 48), (120, 86, 58)]
BOARD_WOODS = [(140, 100, 70), (105, 72, 50), (170, 132, 95), (85, 60, 44), (150, 118, 90)]


def cavities() -> list[dict]:
    """All 14 cavities: name, owner, index, centre (board frame) and half-length a."""
    out = []
    for i in range(1, 7):
        out.append({"pit": f"south{i}", "owner": "south", "index": i,
                    "x": (i - 3.5) * PIT_PITCH, "y": -ROW_Y, "a": 0.0, "r": PIT_R})
        out.append({"pit": f"north{i}", "owner": "north", "index": i,
                    "x": (3.5 - i) * PIT_PITCH, "y": ROW_Y, "a": 0.0, "r": PIT_R})
    out.append({"pit": "store_south", "owner": "south", "index": 0,
                "x": STORE_X, "y": 0.0, "a": STORE_HALF, "r": STORE_R})
    out.append({"pit": "store_north", "owner": "north", "index": 0,
                "x": -STORE_X, "y": 0.0, "a": STORE_HALF, "r": STORE_R})
    return out


def _cavity_rho(cav, x, y):
    """Normalised distance (0 at the axis, 1 at the rim) and outward unit vector."""
    dy = np.clip(y - cav["y"], -cav["a"], cav["a"]) if cav["a"] else 0.0
    px, py = x - cav["x"], y - cav["y"] - dy
    d = np.sqrt(px * px + py * py) + 1e-9
    return d / cav["r"], px / d, py / d


def bowl_z(cav, x, y):
    """Height of the bowl surface below the top (negative), paraboloid, 0 at the rim."""
    t, _, _ = _cavity_rho(cav, x, y)
    depth = PIT_DEPTH * (1.12 if cav["a"] else 1.0)
    return -depth * (1 - np.minimum(t, 1.0) ** 2)


def drop_seeds(cav, count: int, rng: np.random.Generator) -> np.ndarray:
    """(count, 4) seeds x, y, z (centre, relative to the board top) and radius."""
    seeds = np.zeros((0, 4))
    for _ in range(count):
        r = SEED_R * rng.uniform(0.92, 1.1)
        best = None
        for _k in range(14):
            ang = rng.uniform(0, 2 * math.pi)
            rad = (cav["r"] - r * 0.7) * math.sqrt(rng.uniform(0, 1))
            x = cav["x"] + rad * math.cos(ang)
            y = cav["y"] + rng.uniform(-cav["a"], cav["a"]) + rad * math.sin(ang)
            z = float(bowl_z(cav, x, y)) + r * 0.9
            if len(seeds):
                d2 = (seeds[:, 0] - x) ** 2 + (seeds[:, 1] - y) ** 2
                reach = (seeds[:, 3] + r) * 0.97
                touching = d2 < reach**2
                if touching.any():
                    z = max(z, float(np.max(seeds[touching, 2]
                                            + np.sqrt(reach[touching] ** 2 - d2[touching]))))
            if best is None or z < best[2]:
                best = (x, y, z, r)
        seeds = np.vstack([seeds, best])
    return seeds


def _wood_albedo(shape, ppm, wood, rng, along_x=True):
    h, w = shape
    n1, n2 = periodic_noise(rng, 128, 3.0), periodic_noise(rng, 128, 6.0)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32) / ppm
    u, v = (xx, yy) if along_x else (yy, xx)
    warp = sample_noise(n2, u / 12, v / 3) * 1.0 + sample_noise(n1, u / 60, v / 20) * 3
    phase = v / rng.uniform(3, 8) + warp
    lines = (0.5 + 0.5 * np.sin(2 * math.pi * phase)) ** 4
    t = 0.25 + 0.35 * lines + sample_noise(n1, u / 200 + 9, v / 12) * 0.1
    base = srgb_to_linear(np.array(wood) / 255)
    dark = base * 0.55
    t = np.clip(t, 0, 1)[..., None]
    return (base * (1 - t) + dark * t).astype(np.float32)


def board_textures(pose: BoardPose, cond: Conditions, canvas: Canvas, wood, rng, ppm):
    """(top RGBA, floor RGBA): carved top with holes, and the shaded bowl floor plane."""
    hx, hy = BOARD_HALF_X, BOARD_HALF_Y
    w, h = int(math.ceil(2 * hx * ppm)) + 1, int(math.ceil(2 * hy * ppm)) + 1
    xs = np.arange(w, dtype=np.float32) / ppm - hx
    ys = hy - np.arange(h, dtype=np.float32) / ppm
    X, Y = np.meshgrid(xs, ys)
    albedo = _wood_albedo((h, w), ppm, wood, rng)
    cavs = cavities()
    # light direction in the board frame (at the board centre)
    ld = canvas.light_dir_at(cond, pose.to_world([(0, 0)], BOARD_H)[0])
    a = math.radians(pose.angle)
    lbx = math.cos(a) * ld[0] + math.sin(a) * ld[1]
    lby = -math.sin(a) * ld[0] + math.cos(a) * ld[1]
    lz = ld[2]
    amb = cond.ambient
    flat = amb + (1 - amb) * max(lz, 0.05)
    # --- top surface: holes, rounded outer edge, slight lip around each hole
    hole = np.zeros((h, w), np.float32)
    lip = np.zeros((h, w), np.float32)
    for cav in cavs:
        t, _, _ = _cavity_rho(cav, X, Y)
        hole = np.maximum(hole, np.clip((1.0 - t) * cav["r"] * ppm + 0.5, 0, 1))
        lip = np.maximum(lip, np.clip(1 - np.abs(t - 1.0) * cav["r"] / 2.0, 0, 1))
    # rounded-rectangle outline of the board
    cr = 22.0
    qx = np.maximum(np.abs(X) - (hx - cr), 0)
    qy = np.maximum(np.abs(Y) - (hy - cr), 0)
    dist_out = np.sqrt(qx * qx + qy * qy) - cr  # <0 inside
    alpha = np.clip(-dist_out * ppm + 0.5, 0, 1)
    edge = np.clip(1 + dist_out / 5.0, 0, 1)  # 1 at the outline, 0 5 mm inside
    top = albedo * (1 - 0.25 * edge - 0.12 * lip)[..., None]
    top_rgba = np.dstack([top, alpha * (1 - hole)]).astype(np.float32)
    # --- floor plane: what one sees through the holes (bowl shading, rim shadows)
    shade = np.ones((h, w), np.float32) * flat
    inside_any = np.zeros((h, w), bool)
    for cav in cavs:
        t, ox, oy = _cavity_rho(cav, X, Y)
        near = t < 1.6
        if not near.any():
            continue
        tt = np.minimum(t, 1.0)
        depth = PIT_DEPTH * (1.12 if cav["a"] else 1.0)
        slope = 2 * depth * tt / cav["r"] * (1 + 2.5 * np.clip(t - 1, 0, 1))  # walls steepen
        nx, ny, nz = -slope * ox, -slope * oy, np.ones_like(slope)
        nn = np.sqrt(nx * nx + ny * ny + nz * nz)
        lam = np.clip((nx * lbx + ny * lby + nz * lz) / nn, 0, 1)
        # rim shadow: does the ray toward the light leave the bowl below the top?
        zb = -depth * (1 - tt**2)
        run = -zb / max(lz, 0.08)  # ray parameter until the ray reaches the top
        te, _, _ = _cavity_rho(cav, X + lbx * run, Y + lby * run)
        lit = np.clip((1.05 - te) * 4, 0, 1)
        ao = 0.7 + 0.3 * tt
        s = (amb * ao + (1 - amb) * lam * lit) * 0.9
        shade = np.where(near, s, shade)
        inside_any |= near
    floor_alb = albedo * 0.8
    floor = floor_alb * (shade / flat)[..., None]
    floor_rgba = np.dstack([floor, inside_any.astype(np.float32)]).astype(np.float32)
    return top_rgba, floor_rgba


def seed_sprite(canvas: Canvas, cond: Conditions, centre_w, r_mm, colour, rng, occl: float):
    """Draw one shaded seed (sphere) at world centre ``centre_w`` onto the canvas."""
    cam = canvas.camera
    uv = canvas.to_canvas([centre_w])[0]
    depth = float(cam.depth([centre_w])[0])
    rp = canvas.K[0, 0] * r_mm / depth
    if rp < 0.6:
        return
    n = int(math.ceil(rp)) + 2
    x0, y0 = int(round(uv[0])) - n, int(round(uv[1])) - n
    x1, y1 = x0 + 2 * n + 1, y0 + 2 * n + 1
    if x1 <= 0 or y1 <= 0 or x0 >= canvas.width or y0 >= canvas.height:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    sq = rng.uniform(0.9, 1.0)  # slightly flattened beans
    a = (xs - uv[0]) / rp
    b = (ys - uv[1]) / (rp * sq)
    d2 = a * a + b * b
    alpha = np.clip((1 - np.sqrt(d2)) * rp + 0.5, 0, 1)
    nz = np.sqrt(np.clip(1 - d2, 0, 1))
    Rm = cam.rotation
    # camera-frame normal (a, b, -nz) to world
    nwx = Rm[0, 0] * a + Rm[1, 0] * b - Rm[2, 0] * nz
    nwy = Rm[0, 1] * a + Rm[1, 1] * b - Rm[2, 1] * nz
    nwz = Rm[0, 2] * a + Rm[1, 2] * b - Rm[2, 2] * nz
    ld = canvas.light_dir_at(cond, centre_w)
    lam = np.clip(nwx * ld[0] + nwy * ld[1] + nwz * ld[2], 0, 1)
    amb = cond.ambient
    sky = 0.5 + 0.5 * nwz
    ref = amb + (1 - amb) * max(ld[2], 0.05)
    shade = (amb * sky * occl + (1 - amb) * lam * occl**2) / ref
    # Blinn-Phong highlight (view direction = toward the camera)
    vx, vy, vz = -Rm[2]
    hx, hy, hz = ld[0] + vx, ld[1] + vy, ld[2] + vz
    hn = math.sqrt(hx * hx + hy * hy + hz * hz)
    spec = np.clip((nwx * hx + nwy * hy + nwz * hz) / hn, 0, 1) ** 20 * 0.12 * cond.gloss * occl
    mott = cv2.GaussianBlur(rng.standard_normal(a.shape).astype(np.float32), (0, 0),
                            max(0.5, rp / 5))
    mott /= mott.std() + 1e-6
    alb = colour * (1 + 0.07 * mott)[..., None]
    rgb = alb * shade[..., None] + spec[..., None]
    cx0, cy0 = max(x0, 0), max(y0, 0)
    cx1, cy1 = min(x1, canvas.width), min(y1, canvas.height)
    sl = (slice(cy0 - y0, cy1 - y0), slice(cx0 - x0, cx1 - x0))
    al = alpha[sl][..., None]
    roi = canvas.rgb[cy0:cy1, cx0:cx1]
    roi *= 1 - al
    roi += rgb[sl] * al
    g = canvas.gloss[cy0:cy1, cx0:cx1]
    g *= 1 - al[..., 0]
    canvas.shadow[cy0:cy1, cx0:cx1] *= 1 - al[..., 0]


def draw_wauri(canvas: Canvas, pose: BoardPose, seeds_by_cav, wood, seed_cols, cond, rng):
    """Board block, floor of the bowls, seeds below the rim, top surface, seeds above."""
    hx, hy = BOARD_HALF_X, BOARD_HALF_Y
    cr = 22.0
    ring = []
    for cx, cy, a0 in ((hx - cr, hy - cr, 0), (-hx + cr, hy - cr, 90),
                       (-hx + cr, -hy + cr, 180), (hx - cr, -hy + cr, 270)):
        for k in range(7):
            t = math.radians(a0 + k * 15)
            ring.append((cx + cr * math.cos(t), cy + cr * math.sin(t)))
    ring = np.array(ring)
    foot = pose.to_world(ring, 0.0)
    top_sh = [canvas.shadow_offset(cond, p, BOARD_H) for p in foot]
    pts = np.vstack([foot[:, :2], np.array(top_sh)]).astype(np.float32)
    hull = cv2.convexHull(pts)[:, 0, :]
    canvas.add_cast_shadows([[(x, y, 0.0) for x, y in hull]], cond.shadow_softness_mm * 2, 0.9)
    canvas.add_cast_shadows([[tuple(p) for p in pose.to_world(ring * 1.01, 0.0)]], 2.0, 0.5)
    wood_lin = srgb_to_linear(np.array(wood) / 255)
    _slab_sides(canvas, cond, foot, pose.to_world(ring, BOARD_H), wood_lin * 0.75, rng,
                gloss=0.1)
    ppm = float(np.clip(canvas.px_per_mm_at(pose.to_world([(0, 0)], BOARD_H)[0]) * 1.2,
                        1.2, 2000 / (2 * hx)))
    top_rgba, floor_rgba = board_textures(pose, cond, canvas, wood, rng, ppm)
    h, w = top_rgba.shape[:2]
    src = [(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)]
    ex, ey = (w - 1) / ppm, (h - 1) / ppm
    local = np.array([(-hx, hy), (-hx + ex, hy), (-hx + ex, hy - ey), (-hx, hy - ey)])
    canvas.draw_quad(floor_rgba, src, pose.to_world(local, BOARD_H - FLOOR_DEPTH), gloss=0.05)
    cam = canvas.camera
    all_seeds = []
    for _cav, seeds in seeds_by_cav:
        for s in seeds:
            above = np.sum((np.hypot(seeds[:, 0] - s[0], seeds[:, 1] - s[1]) < 2 * SEED_R)
                           & (seeds[:, 2] > s[2] + 2))
            occl = max(0.45, 1.0 - 0.12 * above) * (0.8 + 0.2 * min(1, (s[2] + PIT_DEPTH) / 8))
            all_seeds.append((s, occl))
    world = [(pose.to_world([(s[0], s[1])], BOARD_H + s[2])[0], s[3], o) for s, o in all_seeds]
    order = sorted(range(len(world)), key=lambda i: -float(cam.depth([world[i][0]])[0]))
    low = [i for i in order if all_seeds[i][0][2] + 0.2 * all_seeds[i][0][3] < 0]
    high = [i for i in order if all_seeds[i][0][2] + 0.2 * all_seeds[i][0][3] >= 0]
    # contact shadows of the seeds lying on the bowl
    contact = []
    for i in low:
        s = all_seeds[i][0]
        ang = np.linspace(0, 2 * math.pi, 12, endpoint=False)
        ring_pts = [(s[0] + s[3] * 0.8 * math.cos(t), s[1] + s[3] * 0.8 * math.sin(t))
                    for t in ang]
        contact.append(pose.to_world(ring_pts, BOARD_H - FLOOR_DEPTH))
    if contact:
        layer = np.zeros((canvas.height, canvas.width), np.float32)
        canvas.fill_world_polygons(layer, contact, 0.6)
        layer = soft_blur(layer, max(0.8, 2.5 * canvas.px_per_mm))
        canvas.rgb *= (1 - layer)[..., None]
    for i in low:
        p, r, o = world[i]
        seed_sprite(canvas, cond, p, r, seed_cols[i % len(seed_cols)], rng, o)
    canvas.draw_quad(top_rgba, src, pose.to_world(local, BOARD_H), gloss=0.2)
    for i in high:
        p, r, o = world[i]
        seed_sprite(canvas, cond, p, r, seed_cols[i % len(seed_cols)], rng, o)


def parse_wauri_state(state):
    """A Wauri position JSON → :class:`engines.wauri.Position`."""
    from engines.errors import FormatError
    from engines.wauri import Position

    if not isinstance(state, dict):
        raise FormatError("state: a Wauri position must be a JSON object")
    return Position.from_json(state)


def render_wauri(state, seed: int = 0, difficulty: str = "normal", width=None, height=None,
                 source: str = "given"):
    """Photograph a Wauri position; returns :class:`vision.simulator.photo.Photo`.

    Truth ``pieces``: one entry per pit and store (``pit`` name such as ``south3`` or
    ``store_north``, owner, index, ``count``, pixel centre of the cavity at the board top,
    and the pixel centres of its seeds); ``board_corners_px``: the board top's corners
    in the order south-west, south-east, north-east, north-west (board frame);
    ``south_side``: the image side nearest to south's row.
    """
    from .photo import Photo, px, rng_for, shoot
    from .scene import sample_conditions

    pos = parse_wauri_state(state)
    cond = sample_conditions(rng_for(seed, "wauri", "conditions"), difficulty) \
        if difficulty in ("easy", "normal", "hard") else None
    lay = rng_for(seed, "wauri", "layout")
    # photographer at south: the board lies roughly across the view, turned a little,
    # sometimes a lot (the truth records it)
    if cond is not None:
        turn = float(lay.normal(0, 12)) if lay.random() < 0.7 else float(lay.uniform(-180, 180))
    else:
        turn = 0.0
    pose = BoardPose(6, turn)
    wood_base = BOARD_WOODS[int(lay.integers(5))]
    wood = tuple(float(x) for x in jitter_colour(lay, wood_base, 8, 0.2, 0.15))
    mix = lay.random()
    seed_cols = []
    for _ in range(48):
        base = SEED_COLOURS[int(lay.integers(0, 3))] if lay.random() < mix else \
            SEED_COLOURS[int(lay.integers(3, 5))]
        seed_cols.append(srgb_to_linear(jitter_colour(lay, base, 8, 0.2, 0.15) / 255))
    counts = {f"south{i + 1}": pos.south[i] for i in range(6)}
    counts.update({f"north{i + 1}": pos.north[i] for i in range(6)})
    counts["store_south"] = pos.south_store
    counts["store_north"] = pos.north_store
    cavs = cavities()
    seeds_by_cav = [(cav, drop_seeds(cav, counts[cav["pit"]], lay)) for cav in cavs]
    corners = np.array([(-BOARD_HALF_X, -BOARD_HALF_Y), (BOARD_HALF_X, -BOARD_HALF_Y),
                        (BOARD_HALF_X, BOARD_HALF_Y), (-BOARD_HALF_X, BOARD_HALF_Y)])
    frame = np.vstack([pose.to_world(corners, 0.0), pose.to_world(corners, BOARD_H + 20)])
    extent = 2 * BOARD_HALF_X

    def draw(canvas, cnd, rng):
        draw_wauri(canvas, pose, seeds_by_cav, wood, seed_cols, cnd, rng)

    # the photographer sits at south: camera yaw follows the board's turn loosely
    jpeg, bgr, cam, cond = shoot("wauri", seed, difficulty, width, height, frame, (0.0, 0.0),
                                 extent, draw, cond=cond, yaw_centre=-turn)
    pieces = []
    for cav, seeds in seeds_by_cav:
        centre = pose.to_world([(cav["x"], cav["y"])], BOARD_H)
        sw = pose.to_world(seeds[:, :2], 0.0) if len(seeds) else np.zeros((0, 3))
        if len(seeds):
            sw[:, 2] = BOARD_H + seeds[:, 2]
        pieces.append({
            "pit": cav["pit"], "owner": cav["owner"], "index": cav["index"],
            "count": int(counts[cav["pit"]]),
            "center_px": px(cam.project(centre)[0]),
            "seeds_px": px(cam.project(sw)) if len(seeds) else [],
        })
    top_px = cam.project(pose.to_world(corners, BOARD_H))
    south_dir = cam.project(pose.to_world([(0, -ROW_Y)], BOARD_H))[0] - \
        cam.project(pose.to_world([(0, ROW_Y)], BOARD_H))[0]
    truth = {
        "game": "wauri",
        "state": pos.to_json(),
        "pieces": pieces,
        "board_corners_px": px(top_px),
        "board_corners_order": ["south-west", "south-east", "north-east", "north-west"],
        "south_side": _image_side(south_dir),
        "board_rotation_deg": round(turn, 3),
        "camera": cam.to_json(),
        "conditions": cond.to_json(),
        "difficulty": difficulty,
        "seed": int(seed),
        "source": source,
        "image_size": [cam.width, cam.height],
    }
    return Photo(jpeg, bgr, truth)
