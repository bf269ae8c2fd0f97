"""A phone-like pinhole camera with mild radial distortion, posed over the table.

World frame (millimetres): the table is the plane ``z = 0``, ``x`` points east (right as
the photographer sits), ``y`` points north (away from the photographer), ``z`` up.
The camera looks at a target point on the table from ``distance`` mm along its optical
axis; ``tilt`` is the angle between the optical axis and straight down, ``yaw`` turns the
camera about the vertical axis (yaw 0: the top of the image shows north, the camera sits
south of the target), ``roll`` turns it about its optical axis.

Image coordinates are pixels, ``x`` right, ``y`` down, pixel centres at integers.
Distortion follows the Brown/OpenCV radial model ``x_d = x_u (1 + k1 r^2 + k2 r^4)`` in
normalised coordinates, so :func:`cv2.projectPoints` agrees with :meth:`Camera.project`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class Camera:
    """An immutable camera pose and intrinsics (all angles in degrees, lengths in mm)."""

    width: int
    height: int
    hfov: float  # horizontal field of view of the image as taken (degrees)
    distance: float  # from the camera centre to the target point along the optical axis
    tilt: float  # 0 = looking straight down
    yaw: float  # rotation about the vertical axis
    roll: float = 0.0
    target_x: float = 0.0
    target_y: float = 0.0
    k1: float = 0.0
    k2: float = 0.0

    def __post_init__(self):
        if self.width < 16 or self.height < 16:
            raise ValueError(f"camera size {self.width}x{self.height} too small")
        if not 10.0 <= self.hfov <= 150.0:
            raise ValueError(f"camera hfov {self.hfov} out of range")
        if not 0.0 <= self.tilt < 80.0:
            raise ValueError(f"camera tilt {self.tilt} out of range")
        if self.distance <= 0:
            raise ValueError(f"camera distance {self.distance} must be positive")

    # ---------------------------------------------------------------- intrinsics
    @property
    def focal(self) -> float:
        """Focal length in pixels (square pixels)."""
        return (self.width / 2.0) / math.tan(math.radians(self.hfov) / 2.0)

    @property
    def K(self) -> np.ndarray:
        """The 3x3 intrinsic matrix."""
        f = self.focal
        return np.array(
            [[f, 0.0, (self.width - 1) / 2.0], [0.0, f, (self.height - 1) / 2.0], [0, 0, 1.0]]
        )

    @property
    def dist_coeffs(self) -> np.ndarray:
        """OpenCV distortion coefficients (k1, k2, p1, p2, k3)."""
        return np.array([self.k1, self.k2, 0.0, 0.0, 0.0])

    # ---------------------------------------------------------------- extrinsics
    @cached_property
    def rotation(self) -> np.ndarray:
        """World-to-camera rotation (rows: camera x right, y down, z forward)."""
        t, yw, rl = (math.radians(a) for a in (self.tilt, self.yaw, self.roll))
        heading = np.array([math.sin(yw), math.cos(yw), 0.0])
        forward = np.array([math.sin(t) * heading[0], math.sin(t) * heading[1], -math.cos(t)])
        right = np.array([math.cos(yw), -math.sin(yw), 0.0])
        down = np.cross(forward, right)
        # roll about the optical axis
        c, s = math.cos(rl), math.sin(rl)
        right, down = c * right + s * down, -s * right + c * down
        return np.stack([right, down, forward])

    @cached_property
    def position(self) -> np.ndarray:
        """Camera centre in world coordinates."""
        forward = self.rotation[2]
        return np.array([self.target_x, self.target_y, 0.0]) - self.distance * forward

    # ---------------------------------------------------------------- projection
    def to_camera(self, points) -> np.ndarray:
        """World points (N,3) to camera coordinates (N,3)."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        return (p - self.position) @ self.rotation.T

    def project_pinhole(self, points, K: np.ndarray | None = None) -> np.ndarray:
        """Undistorted projection of world points (N,3) with intrinsics ``K`` → (N,2)."""
        K = self.K if K is None else K
        pc = self.to_camera(points)
        z = np.maximum(pc[:, 2], 1e-6)
        x, y = pc[:, 0] / z, pc[:, 1] / z
        return np.stack([K[0, 0] * x + K[0, 2], K[1, 1] * y + K[1, 2]], axis=1)

    def project(self, points) -> np.ndarray:
        """Projection of world points (N,3) into the photo, distortion included → (N,2)."""
        pc = self.to_camera(points)
        z = np.maximum(pc[:, 2], 1e-6)
        x, y = pc[:, 0] / z, pc[:, 1] / z
        r2 = x * x + y * y
        d = 1.0 + self.k1 * r2 + self.k2 * r2 * r2
        K = self.K
        return np.stack([K[0, 0] * x * d + K[0, 2], K[1, 1] * y * d + K[1, 2]], axis=1)

    def depth(self, points) -> np.ndarray:
        """Distance of world points along the optical axis (for painter's ordering)."""
        return self.to_camera(points)[:, 2]

    def homography(self, z: float = 0.0, K: np.ndarray | None = None) -> np.ndarray:
        """3x3 homography from plane ``z`` world (x, y, 1) to undistorted pixels."""
        K = self.K if K is None else K
        R = self.rotation
        t = -R @ self.position
        return K @ np.column_stack([R[:, 0], R[:, 1], R[:, 2] * z + t])

    def undistort_normalised(self, xd: np.ndarray, yd: np.ndarray, iterations: int = 8):
        """Invert the radial model: distorted normalised coords → undistorted ones."""
        xu, yu = xd.copy(), yd.copy()
        for _ in range(iterations):
            r2 = xu * xu + yu * yu
            d = 1.0 + self.k1 * r2 + self.k2 * r2 * r2
            xu, yu = xd / d, yd / d
        return xu, yu

    def to_json(self) -> dict:
        """The camera as a JSON-ready dict (pose, intrinsics, distortion, matrix)."""
        out = {k: (round(v, 6) if isinstance(v, float) else v) for k, v in asdict(self).items()}
        out["focal_px"] = round(self.focal, 3)
        out["K"] = [[round(float(v), 4) for v in row] for row in self.K]
        out["position_mm"] = [round(float(v), 3) for v in self.position]
        out["hfov_axis"] = "image width"
        return out


def fit_distance(cam: Camera, points, margin: float = 0.06, max_distance: float = 2500.0):
    """The camera moved back (same angles) until all world ``points`` lie in the frame.

    ``margin`` is the fraction of width/height kept free on each side. The distance only
    grows; a camera that already frames the points is returned unchanged.
    """
    from dataclasses import replace

    pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    current = cam
    for _ in range(60):
        uv = current.project(pts)
        mx, my = margin * current.width, margin * current.height
        ok = (
            np.all(uv[:, 0] >= mx)
            and np.all(uv[:, 0] <= current.width - 1 - mx)
            and np.all(uv[:, 1] >= my)
            and np.all(uv[:, 1] <= current.height - 1 - my)
            and np.all(current.depth(pts) > 1.0)
        )
        if ok or current.distance >= max_distance:
            return current
        current = replace(current, distance=min(max_distance, current.distance * 1.07))
    return current
