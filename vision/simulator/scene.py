"""Table, light and sensor: everything in a simulated photo that is not a game piece.

Rendering works in linear RGB (floats, 1.0 = a white sheet under the reference light) on an
undistorted pinhole *canvas* slightly larger than the photo; game renderers composite
perspective-warped textures of their pieces onto it (:meth:`Canvas.draw_quad`). The
canvas then goes through the lighting field (lamp fall-off or window gradient, the
colour of the light with NO white balance, an optional arm/hand shadow, specular gloss),
lens distortion, blur, vignetting, auto-exposure, sensor noise, the tone curve and JPEG.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import cv2
import numpy as np

from .camera import Camera

DIFFICULTIES = ("easy", "normal", "hard")


# ------------------------------------------------------------------------- colour helpers
def srgb_to_linear(c) -> np.ndarray:
    """sRGB values in 0..1 (any shape) to linear RGB."""
    c = np.asarray(c, dtype=np.float32)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4).astype(np.float32)


def linear_to_srgb(c: np.ndarray) -> np.ndarray:
    """Linear RGB (clipped to 0..1) to sRGB in 0..1."""
    c = np.clip(c, 0.0, 1.0)
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * np.power(c, 1 / 2.4) - 0.055)


def rgb255(r: float, g: float, b: float) -> np.ndarray:
    """An sRGB colour given in 0..255 as a linear RGB float triple."""
    return srgb_to_linear(np.array([r, g, b], dtype=np.float32) / 255.0)


def jitter_colour(rng: np.random.Generator, rgb, hue=0.0, sat=0.0, val=0.0) -> np.ndarray:
    """An sRGB 0..255 colour with random hue (degrees), saturation and value changes."""
    px = np.uint8(np.clip(np.array(rgb, dtype=np.float32), 0, 255)).reshape(1, 1, 3)
    hsv = cv2.cvtColor(px, cv2.COLOR_RGB2HSV_FULL).astype(np.float32)[0, 0]
    hsv[0] = (hsv[0] + rng.uniform(-hue, hue) * 256 / 360) % 256
    hsv[1] = np.clip(hsv[1] * (1 + rng.uniform(-sat, sat)), 0, 255)
    hsv[2] = np.clip(hsv[2] * (1 + rng.uniform(-val, val)), 0, 255)
    out = cv2.cvtColor(np.uint8(np.round(hsv)).reshape(1, 1, 3), cv2.COLOR_HSV2RGB_FULL)
    return out[0, 0].astype(np.float32)


def kelvin_to_rgb(kelvin: float) -> np.ndarray:
    """Linear RGB of a black-body light (Tanner Helland's fit), green normalised to 1."""
    t = kelvin / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * math.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    rgb = srgb_to_linear(np.clip([r, g, b], 1, 255) / 255.0)
    return (rgb / rgb[1]).astype(np.float32)


# ------------------------------------------------------------------------- noise textures
def periodic_noise(rng: np.random.Generator, size: int = 256, sigma: float = 4.0) -> np.ndarray:
    """A tileable smooth noise texture (zero mean, unit std), Gaussian-filtered white noise."""
    white = rng.standard_normal((size, size))
    fy = np.fft.fftfreq(size)[:, None]
    fx = np.fft.fftfreq(size)[None, :]
    kernel = np.exp(-2 * (math.pi * sigma) ** 2 * (fx * fx + fy * fy))
    out = np.real(np.fft.ifft2(np.fft.fft2(white) * kernel))
    out -= out.mean()
    out /= out.std() + 1e-9
    return out.astype(np.float32)


def sample_noise(tex: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Sample a tileable texture at (fractional) texel coordinates, wrapping around."""
    uu = u if isinstance(u, np.ndarray) and u.dtype == np.float32 else np.float32(u)
    vv = v if isinstance(v, np.ndarray) and v.dtype == np.float32 else np.float32(v)
    n = tex.shape[0]
    # OpenCV's remap saturates coordinates beyond the int16 range: wrap those first
    if float(np.max(np.abs(uu))) > 30000:
        uu = np.mod(uu, n).astype(np.float32)
    if float(np.max(np.abs(vv))) > 30000:
        vv = np.mod(vv, n).astype(np.float32)
    return cv2.remap(tex, uu, vv, cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)


def smoothstep(e0, e1, x):
    """Hermite step from 0 at ``e0`` to 1 at ``e1``."""
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3 - 2 * t)


def soft_blur(layer: np.ndarray, sigma: float, limit: float = 6.0) -> np.ndarray:
    """Gaussian blur; sigmas above ``limit`` are done at reduced resolution."""
    if sigma <= limit:
        return cv2.GaussianBlur(layer, (0, 0), max(sigma, 0.3))
    f = max(2, int(sigma / 2))
    h, w = layer.shape[:2]
    small = cv2.resize(layer, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / f)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


_SRGB_LUT = None


def linear_to_srgb_fast(c: np.ndarray) -> np.ndarray:
    """:func:`linear_to_srgb` plus a gentle S-curve, through a 16k-entry look-up table."""
    global _SRGB_LUT
    if _SRGB_LUT is None:
        lut = linear_to_srgb(np.linspace(0, 1, 16384))
        # gentle S-curve as phones apply
        lut = lut + 0.06 * np.sin(2 * math.pi * lut) * (lut * (1 - lut)) * 4
        _SRGB_LUT = lut.astype(np.float32)
    idx = (np.clip(c, 0.0, 1.0) * 16383.0 + 0.5).astype(np.uint16)
    return _SRGB_LUT[idx]


# ------------------------------------------------------------------------- conditions
TABLE_KINDS = ("wood", "cloth", "gingham", "stripes", "stone", "floral")

WOOD_TONES = {  # (light, dark) sRGB
    "oak": ((196, 154, 104), (150, 105, 62)),
    "walnut": ((120, 82, 55), (70, 45, 30)),
    "pine": ((222, 185, 135), (190, 140, 85)),
    "white_painted": ((228, 224, 214), (205, 200, 188)),
    "grey_laminate": ((170, 165, 158), (140, 135, 128)),
    "cherry": ((168, 110, 80), (112, 66, 44)),
}
CLOTH_COLOURS = [
    (40, 90, 60), (30, 45, 90), (120, 30, 35), (200, 195, 180), (60, 60, 62),
    (170, 140, 100), (90, 120, 150), (225, 225, 220), (140, 100, 140),
]


@dataclass(frozen=True)
class Conditions:
    """Everything random about a photo except the camera pose and the pieces."""

    difficulty: str
    light_kind: str  # "lamp" | "daylight"
    kelvin: float
    light_position: tuple  # lamp: (x, y, z) mm over the table; daylight: unit vector to sun
    ambient: float  # share of light that is diffuse
    table: dict = field(default_factory=dict)
    arm_shadow: dict | None = None
    shadow_softness_mm: float = 3.0
    vignetting: float = 0.3
    exposure_bias: float = 1.0  # 1 = auto-exposure target; <1 under-, >1 over-exposed
    iso_noise: float = 0.01  # read-noise std (linear units)
    shot_noise: float = 0.002  # photon-noise gain
    defocus_px: float = 0.0  # Gaussian sigma at 1000 px image width
    motion_px: float = 0.0  # motion blur length at 1000 px image width
    motion_angle: float = 0.0
    sharpen: float = 0.3
    jpeg_quality: int = 90
    gloss: float = 1.0  # scales specular highlights
    board_rotation: float = 0.0  # degrees, how the board/figure lies on the table
    props: tuple = ()  # things lying beside the game (see vision.simulator.props)

    def to_json(self) -> dict:
        """JSON-ready dict of the conditions (rounded floats)."""

        def rnd(v):
            if isinstance(v, float):
                return round(v, 4)
            if isinstance(v, list | tuple):
                return [rnd(x) for x in v]
            if isinstance(v, dict):
                return {k: rnd(x) for k, x in v.items()}
            return v

        return {k: rnd(v) for k, v in asdict(self).items()}


def _pick(rng: np.random.Generator, seq):
    return seq[int(rng.integers(len(seq)))]


def sample_table(rng: np.random.Generator, difficulty: str) -> dict:
    """A random table: surface (kind, colours, scales, orientation) and maybe its edge.

    ``edge`` (or None): the table ends ``gap_mm`` beyond the game's footprint in the
    direction ``angle``; beyond it lies the floor far below (dim, out of focus).
    """
    table = _sample_surface(rng, difficulty)
    table["edge"] = None
    if rng.random() < {"easy": 0.1, "normal": 0.3, "hard": 0.4}[difficulty]:
        floor = _pick(rng, [(60, 50, 45), (120, 110, 100), (40, 40, 42), (150, 120, 90)])
        table["edge"] = {
            "angle": float(rng.uniform(0, 360)),
            "gap_mm": float(rng.uniform(20, 250)),
            "floor": [float(x) for x in jitter_colour(rng, floor, 10, 0.2, 0.2)],
            "lip": float(rng.uniform(0.6, 1.4)),
        }
    return table


def _sample_surface(rng: np.random.Generator, difficulty: str) -> dict:
    weights = {
        "easy": [0.45, 0.35, 0.0, 0.05, 0.15, 0.0],
        "normal": [0.35, 0.25, 0.1, 0.1, 0.1, 0.1],
        "hard": [0.25, 0.15, 0.2, 0.15, 0.05, 0.2],
    }[difficulty]
    kind = TABLE_KINDS[int(rng.choice(len(TABLE_KINDS), p=np.array(weights) / sum(weights)))]
    angle = float(rng.uniform(0, 180))
    if kind == "wood":
        tone = _pick(rng, sorted(WOOD_TONES))
        light, dark = WOOD_TONES[tone]
        return {
            "kind": kind, "tone": tone, "angle": angle,
            "light": [float(x) for x in jitter_colour(rng, light, 6, 0.15, 0.1)],
            "dark": [float(x) for x in jitter_colour(rng, dark, 6, 0.15, 0.1)],
            "ring_mm": float(rng.uniform(4, 14)),
            "plank_mm": float(rng.uniform(90, 220)),
            "varnish": float(rng.uniform(0.2, 1.0)),
        }
    if kind == "cloth":
        return {
            "kind": kind, "angle": angle,
            "colour": [float(x) for x in jitter_colour(rng, _pick(rng, CLOTH_COLOURS), 8, .2, .15)],
            "weave_mm": float(rng.uniform(0.6, 1.6)),
            "folds": float(rng.uniform(0.0, 0.12)),
        }
    if kind in ("gingham", "stripes"):
        c = _pick(rng, [(180, 40, 40), (40, 70, 160), (40, 120, 60), (60, 60, 60), (200, 160, 40)])
        return {
            "kind": kind, "angle": angle,
            "colour": [float(x) for x in jitter_colour(rng, c, 10, 0.2, 0.15)],
            "base": [float(x) for x in jitter_colour(rng, (235, 232, 225), 5, 0.3, 0.05)],
            "period_mm": float(rng.uniform(12, 40)),
            "folds": float(rng.uniform(0.0, 0.1)),
        }
    if kind == "floral":
        cols = [
            [float(x) for x in jitter_colour(rng, _pick(rng, CLOTH_COLOURS), 20, 0.3, 0.2)]
            for _ in range(3)
        ]
        return {"kind": kind, "angle": angle, "colours": cols,
                "scale_mm": float(rng.uniform(15, 45)), "folds": float(rng.uniform(0, 0.1))}
    base = _pick(rng, [(200, 200, 198), (90, 90, 92), (225, 220, 210), (150, 140, 130)])
    return {
        "kind": "stone", "angle": angle,
        "colour": [float(x) for x in jitter_colour(rng, base, 10, 0.2, 0.1)],
        "speckle": float(rng.uniform(0.05, 0.2)),
    }


def sample_conditions(rng: np.random.Generator, difficulty: str) -> Conditions:
    """Random lighting, table, optics and sensor settings for a difficulty level."""
    from .props import sample_props

    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {', '.join(DIFFICULTIES)}")
    hard, easy = difficulty == "hard", difficulty == "easy"
    p_lamp = {"easy": 0.2, "normal": 0.5, "hard": 0.8}[difficulty]
    lamp = bool(rng.random() < p_lamp)
    if lamp:
        kelvin = float(rng.uniform(2700, 3600) if not easy else rng.uniform(3200, 4200))
        az = rng.uniform(0, 2 * math.pi)
        horiz = rng.uniform(100, 700 if hard else 450)
        light_position = (
            float(horiz * math.cos(az)), float(horiz * math.sin(az)),
            float(rng.uniform(450, 1100)),
        )
        ambient = float(rng.uniform(0.15, 0.35) if hard else rng.uniform(0.25, 0.5))
    else:
        kelvin = float(rng.uniform(5000, 6800) if not hard else rng.uniform(4200, 7000))
        az = rng.uniform(0, 2 * math.pi)
        el = math.radians(rng.uniform(25 if hard else 35, 75))
        light_position = (
            float(math.cos(el) * math.cos(az)), float(math.cos(el) * math.sin(az)),
            float(math.sin(el)),
        )
        ambient = float(rng.uniform(0.35, 0.7))
    p_arm = {"easy": 0.0, "normal": 0.15, "hard": 0.5}[difficulty]
    arm = None
    if rng.random() < p_arm:
        arm = {
            "from_angle": float(rng.uniform(0, 360)),
            "reach": float(rng.uniform(0.2, 0.9)),  # how far into the scene the hand gets
            "offset": float(rng.uniform(-0.4, 0.4)),
            "width_mm": float(rng.uniform(65, 100)),
            "penumbra_mm": float(rng.uniform(15, 45)),
            "darkness": float(rng.uniform(0.6, 0.95)),
        }
    blur_max = {"easy": 0.5, "normal": 0.9, "hard": 1.5}[difficulty]
    motion = float(rng.uniform(0, {"easy": 0.0, "normal": 2.0, "hard": 4.0}[difficulty]))
    q_lo, q_hi = {"easy": (85, 95), "normal": (70, 95), "hard": (60, 75)}[difficulty]
    noise_hi = {"easy": 0.005, "normal": 0.011, "hard": 0.02}[difficulty]
    iso = float(rng.uniform(0.002, noise_hi)) * (1.3 if lamp else 1.0)
    return Conditions(
        difficulty=difficulty,
        light_kind="lamp" if lamp else "daylight",
        kelvin=kelvin,
        light_position=light_position,
        ambient=ambient,
        table=sample_table(rng, difficulty),
        arm_shadow=arm,
        shadow_softness_mm=float(rng.uniform(1.0, 3.0) if lamp else rng.uniform(2.0, 8.0)),
        vignetting=float(rng.uniform(0.05, 0.5 if hard else 0.3)),
        exposure_bias=float(rng.uniform(0.7, 1.25) if hard else rng.uniform(0.85, 1.1)),
        iso_noise=iso,
        shot_noise=float(rng.uniform(0.001, 0.004)) * (2.0 if hard else 1.0),
        defocus_px=float(rng.uniform(0.2 if hard else 0.0, blur_max)),
        motion_px=motion,
        motion_angle=float(rng.uniform(0, 180)),
        sharpen=float(rng.uniform(0.0, 0.8)),
        jpeg_quality=int(rng.integers(q_lo, q_hi + 1)),
        gloss=float(rng.uniform(0.5, 1.5)),
        board_rotation=float(rng.uniform(0, 360)),
        props=tuple(sample_props(rng, difficulty)),
    )


IMAGE_SIZES = {
    "easy": [(1280, 720), (1600, 1200), (1920, 1080)],
    "normal": [(1280, 720), (1920, 1080), (1600, 1200), (2016, 1512), (2560, 1440)],
    "hard": [(1280, 720), (1920, 1080), (2016, 1512), (3264, 2448), (4000, 3000)],
}


def sample_image_size(rng: np.random.Generator, difficulty: str) -> tuple[int, int]:
    """A phone-like photo size (landscape or portrait) for the difficulty."""
    w, h = _pick(rng, IMAGE_SIZES[difficulty])
    if rng.random() < 0.35:
        w, h = h, w
    return int(w), int(h)


def _sample_yaw(rng: np.random.Generator, difficulty: str, centre: float | None) -> float:
    follow = {"easy": 1.0, "normal": 0.75, "hard": 0.5}[difficulty]
    if centre is None:
        yaw = rng.uniform(-25, 25) if difficulty == "easy" else rng.uniform(-180, 180)
    elif rng.random() < follow:
        yaw = centre + rng.normal(0, 10)
    else:
        yaw = rng.uniform(-180, 180)
    return float((yaw + 180) % 360 - 180)


def sample_camera(
    rng: np.random.Generator,
    difficulty: str,
    width: int,
    height: int,
    frame_points,
    centre=(0.0, 0.0),
    yaw_centre: float | None = None,
) -> Camera:
    """A random phone pose looking at ``centre`` that frames all ``frame_points``.

    With ``yaw_centre`` the yaw is usually near it (always for easy, 75 % normal, 50 % hard),
    otherwise any; without it easy photos keep yaw within ±25°, others take any yaw.
    """
    from .camera import fit_distance

    tilt_lo, tilt_hi = {"easy": (0, 20), "normal": (0, 35), "hard": (25, 45)}[difficulty]
    # the field of view is the phone's over its long side (60-75 degrees)
    fov_long = float(rng.uniform(60, 75))
    if width >= height:
        hfov = fov_long
    else:
        hfov = math.degrees(
            2 * math.atan(math.tan(math.radians(fov_long) / 2) * width / height)
        )
    shift = 0.06 if difficulty == "easy" else 0.12
    pts = np.asarray(frame_points, dtype=np.float64).reshape(-1, 3)
    extent = float(np.max(np.ptp(pts[:, :2], axis=0))) if len(pts) else 100.0
    cam = Camera(
        width=width,
        height=height,
        hfov=hfov,
        distance=220.0,
        tilt=float(rng.uniform(tilt_lo, tilt_hi)),
        yaw=_sample_yaw(rng, difficulty, yaw_centre),
        roll=float(rng.uniform(-3, 3)),
        target_x=float(centre[0] + rng.uniform(-shift, shift) * extent),
        target_y=float(centre[1] + rng.uniform(-shift, shift) * extent),
        k1=float(rng.uniform(-0.12, 0.04)),
        k2=float(rng.uniform(-0.02, 0.03)),
    )
    # the photographer frames the pieces, leaving a random border; 30 cm at the closest
    margin = float(rng.uniform(0.03, 0.15 if difficulty != "easy" else 0.1))
    fitted = fit_distance(cam, pts, margin=margin)
    from dataclasses import replace

    closest = float(rng.uniform(300, 420))
    if fitted.distance < closest:
        fitted = replace(fitted, distance=closest)
    return fitted


def _clip_near(pc: np.ndarray, near: float) -> np.ndarray:
    """Clip a polygon in camera coordinates to the half-space ``z >= near``."""
    out = []
    n = len(pc)
    for i in range(n):
        a, b = pc[i], pc[(i + 1) % n]
        ina, inb = a[2] >= near, b[2] >= near
        if ina:
            out.append(a)
        if ina != inb:
            t = (near - a[2]) / (b[2] - a[2])
            out.append(a + t * (b - a))
    return np.array(out).reshape(-1, 3)


def _interp_grid(values: np.ndarray, step: int, width: int, height: int) -> np.ndarray:
    """Bilinear interpolation of values sampled at pixels (j*step, i*step) to every pixel."""
    u = np.arange(width, dtype=np.float32) / step
    i0 = np.minimum(u.astype(np.int32), values.shape[1] - 2)
    tu = (u - i0)[None, :]
    rows = values[:, i0] * (1 - tu) + values[:, i0 + 1] * tu
    v = np.arange(height, dtype=np.float32) / step
    j0 = np.minimum(v.astype(np.int32), values.shape[0] - 2)
    tv = (v - j0)[:, None]
    return (rows[j0] * (1 - tv) + rows[j0 + 1] * tv).astype(np.float32)


def _distortion_map(camera: Camera, step: int = 8):
    """For every photo pixel, the undistorted (pinhole) pixel it shows: (map_u, map_v)."""
    W, H = camera.width, camera.height
    K = camera.K
    gu = np.arange(0, W - 1 + 2 * step, step, dtype=np.float64)
    gv = np.arange(0, H - 1 + 2 * step, step, dtype=np.float64)
    xd = ((gu - K[0, 2]) / K[0, 0])[None, :].repeat(len(gv), 0)
    yd = ((gv - K[1, 2]) / K[1, 1])[:, None].repeat(len(gu), 1)
    xu, yu = camera.undistort_normalised(xd, yd, iterations=20)
    # interpolate only the (small, smooth) correction, then add the exact pixel position
    cu = xu * K[0, 0] + K[0, 2] - gu[None, :]
    cv = yu * K[1, 1] + K[1, 2] - gv[:, None]
    mu = _interp_grid(cu.astype(np.float32), step, W, H) + np.arange(W, dtype=np.float32)[None]
    mv = _interp_grid(cv.astype(np.float32), step, W, H) + np.arange(H, dtype=np.float32)[:, None]
    return mu, mv


# ------------------------------------------------------------------------- the canvas
class Canvas:
    """An undistorted linear-RGB render target covering the photo after distortion.

    ``K`` is the canvas intrinsic matrix (the camera's, shifted by the margin); use
    :meth:`to_canvas` to project world points. ``rgb`` (H,W,3) and ``gloss`` (H,W) are the
    layers game renderers paint into.
    """

    def __init__(self, camera: Camera, max_pixels: float = 3.2e6):
        self.camera = camera
        W, H = camera.width, camera.height
        K = camera.K
        # big photos are rendered at a reduced internal scale (phones at 12 MP are not
        # sharp to the pixel anyway); the geometry stays exact, only detail is lost
        self.scale = min(1.0, math.sqrt(max_pixels / (W * H)))
        sc = self.scale
        # distorted photo pixel -> undistorted pixel (inverse of the radial model), solved
        # exactly on an 8-px grid; the smooth correction is interpolated in between
        mu, mv = _distortion_map(camera)
        self.ox = math.floor(float(min(mu.min(), 0.0))) - 2
        self.oy = math.floor(float(min(mv.min(), 0.0))) - 2
        cw = math.ceil((float(max(mu.max(), W - 1)) - self.ox + 3) * sc)
        ch = math.ceil((float(max(mv.max(), H - 1)) - self.oy + 3) * sc)
        mu -= self.ox
        mu *= sc
        mv -= self.oy
        mv *= sc
        self.map_x, self.map_y = mu, mv
        self.width, self.height = int(cw), int(ch)
        Kc = K.copy()
        Kc[0, 2] -= self.ox
        Kc[1, 2] -= self.oy
        Kc[:2] *= sc
        self.K = Kc
        self.rgb = np.zeros((ch, cw, 3), np.float32)
        self.gloss = np.zeros((ch, cw), np.float32)
        self.shadow = np.zeros((ch, cw), np.float32)  # cast shadows on the table
        # table-plane coordinates of every canvas pixel
        Hinv = np.linalg.inv(camera.homography(0.0, Kc))
        gx, gy = np.meshgrid(
            np.arange(cw, dtype=np.float32), np.arange(ch, dtype=np.float32)
        )
        w = Hinv[2, 0] * gx + Hinv[2, 1] * gy + Hinv[2, 2]
        w = np.where(w > 1e-9, w, 1e-9)
        self.X = ((Hinv[0, 0] * gx + Hinv[0, 1] * gy + Hinv[0, 2]) / w).astype(np.float32)
        self.Y = ((Hinv[1, 0] * gx + Hinv[1, 1] * gy + Hinv[1, 2]) / w).astype(np.float32)
        # millimetres per pixel on the table at the target (for anti-aliasing decisions)
        p = self.to_canvas([[camera.target_x, camera.target_y, 0], [camera.target_x + 10,
                                                                      camera.target_y, 0]])
        self.px_per_mm = float(np.linalg.norm(p[1] - p[0]) / 10.0)

    # ------------------------------------------------------------- geometry helpers
    def to_canvas(self, points) -> np.ndarray:
        """World points (N,3) to canvas pixel coordinates (N,2)."""
        return self.camera.project_pinhole(points, self.K)

    def px_per_mm_at(self, point) -> float:
        """Approximate image scale (pixels per mm) near a world point."""
        p = np.asarray(point, dtype=np.float64)
        q = self.to_canvas([p, p + [5, 0, 0], p + [0, 5, 0]])
        return float(max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[0])) / 5.0)

    # ------------------------------------------------------------- drawing
    def draw_quad(self, texture: np.ndarray, src, world, gloss: float = 0.0) -> None:
        """Composite an RGBA linear texture onto the canvas.

        ``src`` are four texel positions (x, y) and ``world`` the four world points (3-D,
        coplanar) they land on; the texture's alpha channel masks the shape.
        """
        dst = self.to_canvas(world).astype(np.float32)
        x0 = max(int(math.floor(dst[:, 0].min())) - 1, 0)
        y0 = max(int(math.floor(dst[:, 1].min())) - 1, 0)
        x1 = min(int(math.ceil(dst[:, 0].max())) + 2, self.width)
        y1 = min(int(math.ceil(dst[:, 1].max())) + 2, self.height)
        if x1 <= x0 or y1 <= y0:
            return
        M = cv2.getPerspectiveTransform(
            np.asarray(src, np.float32), dst - np.float32([x0, y0])
        )
        warped = cv2.warpPerspective(
            texture, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0),
        )
        a = warped[..., 3:4]
        roi = self.rgb[y0:y1, x0:x1]
        roi *= 1.0 - a
        roi += warped[..., :3] * a
        g = self.gloss[y0:y1, x0:x1]
        g *= 1.0 - a[..., 0]
        g += gloss * a[..., 0]
        # what is drawn now lies above the cast shadows laid on the table so far
        self.shadow[y0:y1, x0:x1] *= 1.0 - a[..., 0]

    def fill_world_polygons(self, layer: np.ndarray, polygons, value: float = 1.0) -> None:
        """Rasterise table-plane polygons (lists of world points) into a (H,W) layer."""
        mask = np.zeros(layer.shape, np.uint8)
        pts = []
        for poly in polygons:
            pc = _clip_near(self.camera.to_camera(poly), near=20.0)
            if len(pc) < 3:
                continue
            uv = np.stack([self.K[0, 0] * pc[:, 0] / pc[:, 2] + self.K[0, 2],
                           self.K[1, 1] * pc[:, 1] / pc[:, 2] + self.K[1, 2]], axis=1)
            uv = np.clip(uv, -1e6, 1e6)
            pts.append(np.round(uv * 16).astype(np.int32))
        if pts:
            cv2.fillPoly(mask, pts, 255, lineType=cv2.LINE_AA, shift=4)
        np.maximum(layer, mask.astype(np.float32) * (value / 255.0), out=layer)

    def add_cast_shadows(self, polygons, softness_mm: float, strength: float = 0.85) -> None:
        """Soft shadows of pieces on the table (polygons in world coordinates on z=0)."""
        layer = np.zeros((self.height, self.width), np.float32)
        self.fill_world_polygons(layer, polygons, strength)
        sigma = max(0.5, softness_mm * self.px_per_mm)
        layer = soft_blur(layer, sigma)
        np.maximum(self.shadow, layer, out=self.shadow)

    # ------------------------------------------------------------- table
    def render_table(self, table: dict, rng: np.random.Generator,
                     keep_radius: float | None = None) -> None:
        """Fill the whole canvas with the table surface seen through the camera.

        ``keep_radius``: the game's footprint around the camera target, which a table edge
        never cuts.
        """
        X, Y = self.X, self.Y
        a = math.radians(table.get("angle", 0.0))
        u = X * math.cos(a) + Y * math.sin(a)
        v = -X * math.sin(a) + Y * math.cos(a)
        footprint = 1.0 / max(self.px_per_mm, 1e-6)  # mm per pixel near the target
        # per-pixel footprint (mm per pixel), to fade detail finer than a pixel
        fp = np.maximum(np.abs(np.diff(X, axis=1, append=X[:, -1:])) + np.abs(
            np.diff(Y, axis=1, append=Y[:, -1:])), np.abs(np.diff(Y, axis=0, append=Y[-1:])) +
            np.abs(np.diff(X, axis=0, append=X[-1:]))).astype(np.float32)
        fp = cv2.blur(fp, (5, 5))

        def fade(scale_mm):
            """Amplitude left of noise with features ~``scale_mm`` at this pixel size."""
            return np.clip(1.5 * scale_mm / np.maximum(fp, 1e-3) - 1.0, 0.0, 1.0)

        n1, n2, n3 = (periodic_noise(rng, 256, s) for s in (3.0, 6.0, 1.5))
        kind = table["kind"]
        gloss = 0.0
        if kind == "wood":
            light = srgb_to_linear(np.array(table["light"]) / 255)
            dark = srgb_to_linear(np.array(table["dark"]) / 255)
            ring = table["ring_mm"]
            warp = (sample_noise(n2, u / 15.0, v / 4.0) * 1.2
                    + sample_noise(n1, u / 90.0, v / 30.0) * 4.0)
            phase = v / ring * (1 + 0.25 * sample_noise(n1, u / 300 + 40, v / 80)) + warp
            lines = (0.5 + 0.5 * np.sin(2 * math.pi * phase)) ** 6
            k = np.clip(ring / 5 / fp - 1, 0, 1)  # too fine to resolve: average it out
            lines = lines * k + 0.1 * (1 - k)
            band = sample_noise(n1, u / 500.0 + 17, v / 25.0) * 0.12
            streak = sample_noise(n3, u / 25.0, v / 0.6) * 0.05 * fade(1.0)
            plank_w = table["plank_mm"]
            plank_idx = np.floor(v / plank_w).astype(np.int32)
            tones = rng.uniform(-0.1, 0.1, 64).astype(np.float32)
            plank_tone = tones[np.mod(plank_idx, 64)]
            dist = np.abs(v - np.round(v / plank_w) * plank_w)
            seam = 1.0 - 0.6 * (1 - smoothstep(0.3, 0.3 + max(0.8, footprint * 1.2), dist))
            t = np.clip(0.3 + 0.3 * lines + band + streak, 0, 1)[..., None]
            col = light * (1 - t) + dark * t
            col *= (1 + plank_tone)[..., None] * seam[..., None]
            gloss = 0.25 * table.get("varnish", 0.5)
        elif kind == "cloth":
            base = srgb_to_linear(np.array(table["colour"]) / 255)
            mott = (sample_noise(n1, u / 30, v / 30) * 0.05
                    + sample_noise(n3, u / 3, v / 3) * 0.03 * fade(4.0))
            p = table["weave_mm"]
            weave = 0.0
            if footprint < p / 2.5:
                weave = (0.06 * np.sin(2 * math.pi * u / p) * np.sin(2 * math.pi * v / p)
                         * np.clip(p / 2.5 / fp - 1, 0, 1))
            col = base * (1 + mott + weave)[..., None]
        elif kind in ("gingham", "stripes"):
            base = srgb_to_linear(np.array(table["base"]) / 255)
            c = srgb_to_linear(np.array(table["colour"]) / 255)
            P = table["period_mm"]
            edge = max(0.3, footprint * 0.7)
            wob = sample_noise(n1, u / 40, v / 40) * 0.8

            def stripe(s):
                f = np.mod(s + wob, P)
                return smoothstep(0, edge, f) * (1 - smoothstep(P / 2, P / 2 + edge, f))

            if kind == "gingham":
                m = 0.5 * (stripe(u) + stripe(v))
            else:
                m = stripe(v)
            col = base * (1 - m[..., None]) + c * m[..., None]
            col *= (1 + sample_noise(n3, u / 2.5, v / 2.5) * 0.03 * fade(3.5))[..., None]
        elif kind == "floral":
            cols = [srgb_to_linear(np.array(x) / 255) for x in table["colours"]]
            s = table["scale_mm"]
            col = np.broadcast_to(cols[0], X.shape + (3,)).copy()
            blob1 = sample_noise(n2, u / s * 14, v / s * 14)
            blob2 = sample_noise(n1, u / s * 8 + 50, v / s * 8 + 80)
            e = max(0.05, footprint / s * 4)
            m1 = smoothstep(1.0, 1.0 + e, blob1)[..., None]
            m2 = smoothstep(1.2, 1.2 + e, blob2)[..., None]
            col = col * (1 - m1) + cols[1] * m1
            col = col * (1 - m2) + cols[2] * m2
        else:  # stone
            base = srgb_to_linear(np.array(table["colour"]) / 255)
            sp = table["speckle"]
            speck = sample_noise(n3, u / 1.2, v / 1.2) * sp * fade(1.8)
            vein = np.abs(sample_noise(n2, u / 12, v / 12))
            veins = (1 - smoothstep(0.0, 0.15, vein)) * 0.15
            col = base * (1 + speck - veins)[..., None]
            gloss = 0.4
        folds = table.get("folds", 0.0)
        if folds:
            col = col * (1 + folds * sample_noise(n1, u / 150, v / 150))[..., None]
        col = np.clip(col, 0, 4).astype(np.float32)
        gl = np.full(X.shape, gloss, np.float32)
        edge = table.get("edge")
        if edge and keep_radius is not None:
            ea = math.radians(edge["angle"])
            dist = keep_radius + edge["gap_mm"]
            sd = (X - self.camera.target_x) * math.cos(ea) + (
                Y - self.camera.target_y) * math.sin(ea) - dist  # >0 beyond the edge
            aa = np.maximum(fp, 0.3)
            beyond = smoothstep(-aa, aa, sd)[..., None]
            floor = srgb_to_linear(np.array(edge["floor"]) / 255) * 0.35
            floor = floor * (1 + 0.1 * sample_noise(n1, X / 400, Y / 400))[..., None]
            # the rounded lip of the table top catches light just before the edge
            lip = (smoothstep(-6.0 - aa, -2.0, sd) * (1 - smoothstep(-1.0, 0.0, sd)))[..., None]
            col = col * (1 + 0.25 * edge["lip"] * lip)
            col = col * (1 - beyond) + floor * beyond
            gl *= 1 - beyond[..., 0]
        self.rgb[:] = col
        self.gloss[:] = gl

    # ------------------------------------------------------------- light and sensor
    def light_dir_at(self, cond: Conditions, point) -> np.ndarray:
        """Unit vector from a world point toward the light."""
        lp = np.asarray(cond.light_position, dtype=np.float64)
        if cond.light_kind == "lamp":
            d = lp - np.asarray(point, dtype=np.float64)
            return d / np.linalg.norm(d)
        return lp / np.linalg.norm(lp)

    def shadow_offset(self, cond: Conditions, point, height: float) -> np.ndarray:
        """Where a point ``height`` mm above ``point`` on the table casts its shadow (x, y)."""
        p = np.asarray(point, dtype=np.float64)
        top = np.array([p[0], p[1], height])
        if cond.light_kind == "lamp":
            lp = np.asarray(cond.light_position, dtype=np.float64)
            k = height / max(lp[2] - height, 1.0)
            return top[:2] + (top[:2] - lp[:2]) * k
        d = self.light_dir_at(cond, p)
        return top[:2] - d[:2] * (height / max(d[2], 0.05))

    def face_shade(self, cond: Conditions, normal, point) -> float:
        """Brightness of a face with ``normal`` relative to a horizontal face (same spot)."""
        ldir = self.light_dir_at(cond, point)
        amb = cond.ambient
        n = np.asarray(normal, dtype=np.float64)
        n = n / np.linalg.norm(n)
        direct = max(0.0, float(n @ ldir))
        flat = max(0.05, float(ldir[2]))
        # diffuse sky light reaches vertical faces about half as well
        sky = 0.5 + 0.5 * n[2]
        return (amb * sky + (1 - amb) * direct) / (amb + (1 - amb) * flat)

    def _arm_polygon(self, cond: Conditions, centre, extent: float):
        arm = cond.arm_shadow
        a = math.radians(arm["from_angle"])
        d = np.array([math.cos(a), math.sin(a)])
        perp = np.array([-d[1], d[0]])
        c = np.asarray(centre[:2], dtype=np.float64) + perp * arm["offset"] * extent
        tip = c + d * (extent * (0.5 - arm["reach"]))
        far = c + d * (extent * 3 + 800)
        w = arm["width_mm"] / 2
        pts = [far + perp * w * 1.3, tip + perp * w, tip - perp * w, far - perp * w * 1.3]
        # hand: an ellipse beyond the wrist
        hand_c = tip - d * 45
        ang = np.linspace(0, 2 * math.pi, 24, endpoint=False)
        hand = [hand_c + d * 60 * math.cos(t) + perp * 48 * math.sin(t) for t in ang]
        return [[(p[0], p[1], 0.0) for p in pts], [(p[0], p[1], 0.0) for p in hand]]

    def finish(self, cond: Conditions, rng: np.random.Generator, centre, extent: float):
        """Light, optics and sensor: returns the photo as uint8 BGR (before JPEG)."""
        cam = self.camera
        full = (self.width, self.height)
        small = (max(2, self.width // 4), max(2, self.height // 4))
        X = cv2.resize(self.X, small, interpolation=cv2.INTER_AREA)
        Y = cv2.resize(self.Y, small, interpolation=cv2.INTER_AREA)
        amb = cond.ambient
        tint = kelvin_to_rgb(cond.kelvin)
        cx, cy = float(centre[0]), float(centre[1])
        if cond.light_kind == "lamp":
            lx, ly, lz = cond.light_position
            dx, dy = X - lx, Y - ly
            r2 = dx * dx + dy * dy + lz * lz
            irr = lz / np.power(r2, 1.5)
            r0 = (cx - lx) ** 2 + (cy - ly) ** 2 + lz * lz
            irr0 = lz / r0**1.5
            direct = irr / irr0 * (lz / math.sqrt(r0))
            ldz = lz / math.sqrt(r0)
        else:
            d = np.asarray(cond.light_position)
            ldz = float(d[2])
            # window light: a gentle gradient along the light's horizontal direction
            hx, hy = d[0], d[1]
            hn = math.hypot(hx, hy) + 1e-9
            grad = ((X - cx) * hx + (Y - cy) * hy) / hn / max(extent * 4, 400.0)
            direct = ldz * np.clip(1 + grad, 0.5, 1.5)
        direct = cv2.resize(direct.astype(np.float32), full, interpolation=cv2.INTER_LINEAR)
        ref = amb + (1 - amb) * ldz
        block = self.shadow.copy()
        if cond.arm_shadow:
            arm = np.zeros_like(block)
            self.fill_world_polygons(arm, self._arm_polygon(cond, centre, extent), 1.0)
            arm = soft_blur(arm, max(1.0, cond.arm_shadow["penumbra_mm"] * self.px_per_mm))
            block = np.maximum(block, arm * cond.arm_shadow["darkness"])
        illum = (amb + (1 - amb) * direct * (1 - block)) / ref
        img = self.rgb * illum[..., None]
        # specular highlights (Blinn-Phong on horizontal surfaces)
        if float(self.gloss.max()) > 0:
            cpos = cam.position
            vx, vy, vz = cpos[0] - X, cpos[1] - Y, np.full_like(X, cpos[2])
            vn = np.sqrt(vx * vx + vy * vy + vz * vz)
            if cond.light_kind == "lamp":
                lx, ly, lz = cond.light_position
                qx, qy, qz = lx - X, ly - Y, np.full_like(X, lz)
                qn = np.sqrt(qx * qx + qy * qy + qz * qz)
                qx, qy, qz = qx / qn, qy / qn, qz / qn
                shin, strength = 60.0, 1.6
            else:
                d = np.asarray(cond.light_position)
                qx, qy, qz = (np.full_like(X, float(c)) for c in d)
                shin, strength = 25.0, 0.5
            hx, hy, hz = vx / vn + qx, vy / vn + qy, vz / vn + qz
            hz = hz / np.sqrt(hx * hx + hy * hy + hz * hz)
            spec = np.power(np.clip(hz, 0, 1), shin) * strength * cond.gloss
            spec = cv2.resize(spec.astype(np.float32), full, interpolation=cv2.INTER_LINEAR)
            spec *= 1 - block
            img += (self.gloss * spec)[..., None] * 0.6
        img *= tint
        # optics: distortion, blur
        scale = cam.width / 1000.0
        cscale = scale * self.scale  # blur sizes in canvas pixels
        if cond.defocus_px > 0.05:
            img = cv2.GaussianBlur(img, (0, 0), cond.defocus_px * cscale,
                                   borderType=cv2.BORDER_REPLICATE)
        if cond.motion_px > 0.5:
            L = max(2, int(round(cond.motion_px * cscale)))
            k = np.zeros((L * 2 + 1, L * 2 + 1), np.float32)
            a = math.radians(cond.motion_angle)
            c0 = L
            p1 = (int(round(c0 - L * math.cos(a) / 2)), int(round(c0 - L * math.sin(a) / 2)))
            p2 = (int(round(c0 + L * math.cos(a) / 2)), int(round(c0 + L * math.sin(a) / 2)))
            cv2.line(k, p1, p2, 1.0, 1, cv2.LINE_AA)
            k /= k.sum()
            img = cv2.filter2D(img, -1, k)
        img = cv2.remap(img, self.map_x, self.map_y, cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)
        H, W = img.shape[:2]
        # vignetting (cos^4-like fall-off)
        xx = np.arange(W, dtype=np.float32)[None, :]
        yy = np.arange(H, dtype=np.float32)[:, None]
        rr = ((xx - W / 2) ** 2 + (yy - H / 2) ** 2) / ((W / 2) ** 2 + (H / 2) ** 2)
        img *= (1 - cond.vignetting * rr * (0.6 + 0.4 * rr))[..., None]
        # auto exposure: the brightest part of the scene lands near 0.8 of full scale
        # (centre-weighted: the middle 60 % of the frame, where the game is)
        lum = img[int(H * 0.2):int(H * 0.8):3, int(W * 0.2):int(W * 0.8):3].mean(axis=2)
        p = float(np.percentile(lum, 98)) + 1e-6
        img *= 0.8 / p * cond.exposure_bias
        # sensor noise (linear): photon noise + read noise, some of it blotchy
        sigma = np.sqrt(np.maximum(img, 0) * cond.shot_noise + cond.iso_noise**2)
        img = img + rng.standard_normal(img.shape, dtype=np.float32) * sigma
        small = rng.standard_normal((H // 4 + 1, W // 4 + 1, 3), dtype=np.float32)
        blotch = cv2.resize(small, (W, H), interpolation=cv2.INTER_LINEAR)
        img = img + blotch * (cond.iso_noise * 0.6)
        out = linear_to_srgb_fast(img)  # sRGB with the phone's gentle S-curve
        # the phone's denoising (colour noise smoothed, some brightness grain kept) and
        # sharpening, in YCrCb
        ycc = cv2.cvtColor(out, cv2.COLOR_RGB2YCrCb)
        ycc[..., 1:] = soft_blur(np.ascontiguousarray(ycc[..., 1:]), 1.5 * max(1.0, scale),
                                 limit=2.5)
        y = ycc[..., 0]
        y = 0.4 * y + 0.6 * soft_blur(y, 0.8 * max(1.0, scale), limit=2.5)
        if cond.sharpen > 0:
            y = y + cond.sharpen * 0.6 * (y - cv2.GaussianBlur(y, (0, 0), 1.2))
        ycc[..., 0] = y
        out = cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB)
        out8 = np.clip(out * 255 + 0.5, 0, 255).astype(np.uint8)
        return cv2.cvtColor(out8, cv2.COLOR_RGB2BGR)


def encode_jpeg(bgr: np.ndarray, quality: int) -> bytes:
    """JPEG bytes of a BGR image (deterministic for the same input)."""
    ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:  # pragma: no cover - OpenCV failure
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()
