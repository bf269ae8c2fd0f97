"""The shared photo pipeline: seeds → conditions → camera → canvas → pieces → JPEG + truth."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .camera import Camera
from .scene import (
    DIFFICULTIES,
    Canvas,
    Conditions,
    encode_jpeg,
    sample_camera,
    sample_conditions,
    sample_image_size,
)

GAME_SALT = {"caribo": 1, "colomino": 2, "wauri": 3}
STREAMS = ("conditions", "size", "camera", "layout", "texture", "sensor", "state")


class Photo(NamedTuple):
    """A rendered photo: JPEG bytes, the decoded-equivalent BGR array and its truth."""

    jpeg: bytes
    image: np.ndarray  # BGR uint8, the picture before JPEG compression
    truth: dict


def rng_for(seed: int, game: str, stream: str) -> np.random.Generator:
    """An independent random stream per (seed, game, purpose): changing one part of the
    pipeline does not reshuffle the others."""
    return np.random.default_rng([int(seed) & 0xFFFFFFFFFFFF, GAME_SALT[game],
                                  STREAMS.index(stream)])


def check_options(difficulty: str, width: int | None, height: int | None) -> None:
    """Raise ValueError for an unknown difficulty or an unusable photo size."""
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {', '.join(DIFFICULTIES)}")
    if (width is None) != (height is None):
        raise ValueError("width and height must be given together")
    if width is not None and not (64 <= width <= 8000 and 64 <= height <= 8000):
        raise ValueError(f"photo size {width}x{height} out of range 64..8000")


def shoot(
    game: str,
    seed: int,
    difficulty: str,
    width: int | None,
    height: int | None,
    frame_points,
    centre,
    extent: float,
    draw: Callable[[Canvas, Conditions, np.random.Generator], None],
    cond: Conditions | None = None,
    yaw_centre: float | None = None,
) -> tuple[bytes, np.ndarray, Camera, Conditions]:
    """Render one photo. ``draw(canvas, cond, rng)`` paints shadows and pieces.

    ``frame_points`` (world, N×3) must all be inside the photo; ``centre``/``extent``
    describe the scene for the light and arm-shadow placement; ``yaw_centre`` makes the
    camera usually face that way (a photographer sitting on one side of a board).
    """
    check_options(difficulty, width, height)
    if cond is None:
        cond = sample_conditions(rng_for(seed, game, "conditions"), difficulty)
    if width is None:
        width, height = sample_image_size(rng_for(seed, game, "size"), difficulty)
    cam = sample_camera(rng_for(seed, game, "camera"), difficulty, width, height,
                        frame_points, centre, yaw_centre=yaw_centre)
    canvas = Canvas(cam)
    tex_rng = rng_for(seed, game, "texture")
    pts = np.asarray(frame_points, dtype=np.float64).reshape(-1, 3)
    radius = float(np.max(np.hypot(pts[:, 0] - centre[0], pts[:, 1] - centre[1])))
    # (the camera target may sit off the game's centre: keep the edge clear of both)
    off = float(np.hypot(cam.target_x - centre[0], cam.target_y - centre[1]))
    canvas.render_table(cond.table, tex_rng, keep_radius=radius + off)
    if cond.props:
        from .props import draw_props

        draw_props(canvas, list(cond.props), cond, tex_rng, centre, radius)
    draw(canvas, cond, tex_rng)
    bgr = canvas.finish(cond, rng_for(seed, game, "sensor"), centre, extent)
    return encode_jpeg(bgr, cond.jpeg_quality), bgr, cam, cond


def px(points) -> list:
    """Pixel coordinates rounded for JSON."""
    arr = np.asarray(points, dtype=np.float64)
    return np.round(arr, 2).tolist()
