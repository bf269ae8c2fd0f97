"""Everyday things lying on the table beside the game: a note, a coaster, a pen, a coin.

They never touch the pieces (placed outside the game's footprint) but may reach into the
frame, so recognisers meet clutter as on a real table. Each prop is a flat prism: a
textured top, visible side faces and a cast shadow.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .scene import Canvas, Conditions, jitter_colour, srgb_to_linear

KINDS = ("paper", "coaster", "pen", "coin")


def sample_props(rng: np.random.Generator, difficulty: str) -> list[dict]:
    """0-3 random props for a photo (more on harder levels)."""
    n = int(rng.choice([0, 0, 1, 1, 2] if difficulty == "easy" else
                       [0, 1, 1, 2, 3] if difficulty == "normal" else [1, 2, 2, 3]))
    props = []
    for _ in range(n):
        kind = KINDS[int(rng.integers(len(KINDS)))]
        colour = {
            "paper": (240, 238, 230), "coaster": (170, 125, 80),
            "pen": [(30, 60, 160), (200, 40, 40), (30, 30, 30), (230, 200, 40)][
                int(rng.integers(4))],
            "coin": (190, 160, 90),
        }[kind]
        props.append({
            "kind": kind,
            "direction": float(rng.uniform(0, 360)),
            "gap_mm": float(rng.uniform(10, 120)),
            "rotation": float(rng.uniform(0, 360)),
            "colour": [float(x) for x in jitter_colour(rng, colour, 8, 0.2, 0.1)],
        })
    return props


def _shape(kind: str) -> tuple[np.ndarray, float]:
    """Outline (N,2) in mm around the prop's centre and its height."""
    if kind == "paper":
        w, h = 74.0, 105.0
        return np.array([(-w, -h), (w, -h), (w, h), (-w, h)]), 0.3
    if kind == "pen":
        w, h = 70.0, 4.5
        return np.array([(-w, -h), (w, -h), (w, h), (-w, h)]), 9.0
    r, z = (45.0, 4.0) if kind == "coaster" else (12.0, 2.0)
    t = np.linspace(0, 2 * math.pi, 28, endpoint=False)
    return np.stack([r * np.cos(t), r * np.sin(t)], axis=1), z


def _top_texture(kind: str, colour, rng: np.random.Generator, n: int) -> np.ndarray:
    base = srgb_to_linear(np.array(colour) / 255)
    img = np.empty((n, n, 3), np.float32)
    img[:] = base
    if kind == "paper":  # ruled lines and a few handwritten-looking score rows
        for i in range(6, n, max(3, n // 22)):
            img[i:i + 1, :] *= 0.85
        ink = np.array([0.03, 0.04, 0.12], np.float32)
        pen = np.zeros((n, n), np.uint8)
        for i in range(int(rng.integers(2, 7))):  # a few rows of scribbled "words"
            y = n * (0.15 + 0.1 * i)
            x = n * 0.1
            while x < n * rng.uniform(0.4, 0.9):
                w = n * rng.uniform(0.04, 0.12)
                xs = np.linspace(x, x + w, 12)
                ys = y + n * 0.012 * np.sin(xs / n * rng.uniform(60, 140) + rng.uniform(0, 6))
                pts = np.round(np.stack([xs, ys], axis=1) * 16).astype(np.int32)
                cv2.polylines(pen, [pts], False, 255, 1, cv2.LINE_AA, 4)
                x += w + n * rng.uniform(0.015, 0.03)
        m = (pen.astype(np.float32) / 255 * 0.8)[..., None]
        img = img * (1 - m) + ink * m
    elif kind == "coaster":
        speck = cv2.GaussianBlur(rng.standard_normal((n, n)).astype(np.float32), (0, 0), 1.0)
        img *= (1 + 0.25 * speck / (speck.std() + 1e-6))[..., None]
    elif kind == "coin":
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
        r = np.hypot(xx - n / 2, yy - n / 2) / (n / 2)
        img *= (1 - 0.3 * (r > 0.85))[..., None]
    else:  # pen: a highlight stripe along its length
        img[n // 2 - n // 12: n // 2 + n // 12] *= 1.6
    return img


def draw_props(canvas: Canvas, props: list[dict], cond: Conditions, rng: np.random.Generator,
               centre, radius: float) -> list[np.ndarray]:
    """Draw the props around a game whose footprint is a circle (``centre``, ``radius``);
    returns their outlines on the table (world mm)."""
    from .colomino_render import _slab_sides

    outlines = []
    for p in props:
        outline, height = _shape(p["kind"])
        a = math.radians(p["rotation"])
        c, s = math.cos(a), math.sin(a)
        rot = outline @ np.array([[c, s], [-s, c]])
        reach = float(np.max(np.linalg.norm(outline, axis=1)))
        d = math.radians(p["direction"])
        dist = radius + p["gap_mm"] + reach
        pos = np.array([centre[0] + dist * math.cos(d), centre[1] + dist * math.sin(d)])
        ring = rot + pos
        outlines.append(ring)
        foot = np.column_stack([ring, np.zeros(len(ring))])
        top = np.column_stack([ring, np.full(len(ring), height)])
        if height > 1:
            sh = [canvas.shadow_offset(cond, q, height) for q in foot]
            pts = np.vstack([ring, np.array(sh)]).astype(np.float32)
            hull = cv2.convexHull(pts)[:, 0, :]
            canvas.add_cast_shadows([[(x, y, 0.0) for x, y in hull]], cond.shadow_softness_mm,
                                    0.85)
        colour = srgb_to_linear(np.array(p["colour"]) / 255)
        _slab_sides(canvas, cond, foot, top, colour * 0.8, rng, gloss=0.2)
        # top texture over the bounding square of the outline (alpha masks the shape)
        half = reach
        ppm = float(np.clip(canvas.px_per_mm_at((pos[0], pos[1], height)) * 1.2, 0.5, 6))
        n = max(8, int(2 * half * ppm))
        tex = _top_texture(p["kind"], p["colour"], rng, n)
        mask = np.zeros((n, n), np.uint8)
        poly = np.round((outline * [1, -1] + half) * (n - 1) / (2 * half) * 16).astype(np.int32)
        cv2.fillPoly(mask, [poly], 255, cv2.LINE_AA, 4)
        rgba = np.dstack([tex, mask.astype(np.float32) / 255]).astype(np.float32)
        sq = np.array([(-half, half), (half, half), (half, -half), (-half, -half)])
        world = np.column_stack([sq @ np.array([[c, s], [-s, c]]) + pos, np.full(4, height)])
        gloss = {"paper": 0.05, "coaster": 0.0, "pen": 0.8, "coin": 1.2}[p["kind"]]
        canvas.draw_quad(rgba, [(0, 0), (n - 1, 0), (n - 1, n - 1), (0, n - 1)], world, gloss)
    return outlines
