"""Camera model and canvas geometry of the table simulator."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.simulator.camera import Camera, fit_distance
from vision.simulator.scene import Canvas, kelvin_to_rgb, linear_to_srgb, linear_to_srgb_fast

cameras = st.builds(
    Camera,
    width=st.sampled_from([320, 640, 1280]),
    height=st.sampled_from([240, 480, 720]),
    hfov=st.floats(50, 80),
    distance=st.floats(250, 900),
    tilt=st.floats(0, 45),
    yaw=st.floats(-180, 180),
    roll=st.floats(-5, 5),
    target_x=st.floats(-100, 100),
    target_y=st.floats(-100, 100),
    k1=st.floats(-0.15, 0.05),
    k2=st.floats(-0.02, 0.03),
)


@settings(max_examples=40, deadline=None)
@given(cam=cameras, seed=st.integers(0, 1000))
def test_project_agrees_with_opencv(cam, seed):
    rng = np.random.default_rng(seed)
    pts = np.column_stack([rng.uniform(-150, 150, (20, 2)), rng.uniform(0, 40, 20)])
    R = cam.rotation
    # the points in camera coordinates go to OpenCV with a zero pose: a rotation vector
    # (cv2.Rodrigues) is ill-conditioned near 180° (a camera looking straight down), where
    # its round trip alone moved the reference by 3e-4 px (tilt 6e-5°, found by hypothesis)
    cam_pts = (pts - cam.position) @ R.T
    ref, _ = cv2.projectPoints(cam_pts, np.zeros(3), np.zeros(3), cam.K, cam.dist_coeffs)
    assert np.allclose(cam.project(pts), ref[:, 0, :], atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(cam=cameras)
def test_undistort_inverts_distortion(cam):
    rng = np.random.default_rng(1)
    xu = rng.uniform(-0.6, 0.6, 50)
    yu = rng.uniform(-0.45, 0.45, 50)
    r2 = xu * xu + yu * yu
    d = 1 + cam.k1 * r2 + cam.k2 * r2 * r2
    bx, by = cam.undistort_normalised(xu * d, yu * d)
    assert np.allclose(bx, xu, atol=1e-5) and np.allclose(by, yu, atol=1e-5)


def test_pose_conventions():
    # straight down, yaw 0: north is up in the image, east is right
    cam = Camera(640, 480, 60, 500, 0, 0)
    c, n, e = cam.project([[0, 0, 0], [0, 50, 0], [50, 0, 0]])
    assert n[1] < c[1] and abs(n[0] - c[0]) < 1e-6
    assert e[0] > c[0] and abs(e[1] - c[1]) < 1e-6
    assert np.allclose(c, [(640 - 1) / 2, (480 - 1) / 2])
    # yaw 90: the camera faces east, so east is up
    cam = Camera(640, 480, 60, 500, 20, 90)
    c, e = cam.project([[0, 0, 0], [50, 0, 0]])
    assert e[1] < c[1]
    # tilted cameras sit on the far side from where they look
    cam = Camera(640, 480, 60, 500, 30, 0)
    assert cam.position[1] < 0 and cam.position[2] > 0
    assert np.isclose(np.linalg.norm(cam.position), 500)


@pytest.mark.parametrize("bad", [
    dict(width=8), dict(hfov=5.0), dict(tilt=85.0), dict(distance=0.0),
])
def test_camera_validation(bad):
    base = dict(width=640, height=480, hfov=60.0, distance=500.0, tilt=10.0, yaw=0.0)
    base.update(bad)
    with pytest.raises(ValueError):
        Camera(**base)


def test_fit_distance_frames_all_points():
    cam = Camera(640, 480, 65, 200, 40, 30, k1=-0.1)
    pts = np.array([[x, y, z] for x in (-250, 250) for y in (-100, 100) for z in (0, 30)])
    fitted = fit_distance(cam, pts, margin=0.05)
    uv = fitted.project(pts)
    assert fitted.distance > cam.distance
    assert uv[:, 0].min() >= 0.05 * 640 - 1e-6 and uv[:, 0].max() <= 639 - 0.05 * 640 + 1e-6
    assert uv[:, 1].min() >= 0.05 * 480 - 1e-6 and uv[:, 1].max() <= 479 - 0.05 * 480 + 1e-6
    assert fit_distance(fitted, pts, margin=0.05) == fitted


@settings(max_examples=10, deadline=None)
@given(cam=cameras, max_pixels=st.sampled_from([3.2e6, 3e4]))
def test_canvas_distortion_map_matches_projection(cam, max_pixels):
    """The canvas pixel the photo samples at a projected point is that point's canvas
    position: picture geometry and truth pixels agree (also when big photos are rendered
    at a reduced internal scale)."""
    cam = replace(cam, width=320, height=240)
    canvas = Canvas(cam, max_pixels=max_pixels)
    assert canvas.scale == (1.0 if max_pixels > 1e5 else pytest.approx((3e4 / 76800) ** 0.5))
    rng = np.random.default_rng(0)
    pts = np.column_stack([rng.uniform(-80, 80, (30, 2)), np.zeros(30)])
    photo = cam.project(pts)
    inside = (photo[:, 0] > 1) & (photo[:, 0] < 318) & (photo[:, 1] > 1) & (photo[:, 1] < 238)
    for p, w in zip(photo[inside], pts[inside], strict=True):
        u, v = int(round(p[0])), int(round(p[1]))
        # the map at the nearest pixel, corrected by the sub-pixel remainder
        gx = canvas.map_x[v, u + 1] - canvas.map_x[v, u - 1]
        gy = canvas.map_y[v + 1, u] - canvas.map_y[v - 1, u]
        mx = canvas.map_x[v, u] + gx / 2 * (p[0] - u)
        my = canvas.map_y[v, u] + gy / 2 * (p[1] - v)
        c = canvas.to_canvas([w])[0]
        assert abs(mx - c[0]) < 0.15 * canvas.scale + 0.01
        assert abs(my - c[1]) < 0.15 * canvas.scale + 0.01
    # table coordinates of the canvas pixels invert the projection
    c = canvas.to_canvas(pts)
    ok = (c[:, 0] >= 0) & (c[:, 0] < canvas.width - 1) & (c[:, 1] >= 0) & (
        c[:, 1] < canvas.height - 1)
    for (cx, cy), w in zip(c[ok], pts[ok], strict=True):
        i, j = int(round(cy)), int(round(cx))
        assert abs(canvas.X[i, j] - w[0]) < 3 / canvas.px_per_mm + 1
        assert abs(canvas.Y[i, j] - w[1]) < 3 / canvas.px_per_mm + 1


def test_colour_helpers():
    warm, cold = kelvin_to_rgb(2700), kelvin_to_rgb(6500)
    assert warm[0] > 1.5 and warm[2] < 0.3  # lamp light is orange, no white balance
    assert np.allclose(cold, 1.0, atol=0.1)
    x = np.linspace(0, 1, 1001, dtype=np.float32)
    fast, exact = linear_to_srgb_fast(x), linear_to_srgb(x)
    assert np.max(np.abs(fast - exact)) < 0.06  # the S-curve only bends it a little
    assert fast[0] == 0 and abs(fast[-1] - 1) < 1e-6 and np.all(np.diff(fast) >= 0)
