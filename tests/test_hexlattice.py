"""The lattice sampling kernels (vision/hexlattice.py) equal plain reference
implementations bit for bit (the forms they were first written in), so the lattice search
and the tile reading that call them give the same answers."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import hexlattice


def ref_sample_bilinear(image, points):
    p = np.asarray(points, dtype=np.float32)
    lead = p.shape[:-1]
    flat = p.reshape(-1, 2)
    n = len(flat)
    tail = image.shape[2:]
    if n == 0:
        return np.zeros((*lead, *tail), np.float32)
    cols = min(n, 4096)
    rows = -(-n // cols)
    if rows * cols != n:
        flat = np.concatenate([flat, np.zeros((rows * cols - n, 2), np.float32)])
    out = cv2.remap(image, flat.reshape(rows, cols, 2), None, cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(rows * cols, *tail)[:n].reshape(*lead, *tail)


def ref_outline_scores(edges, jobs):
    out = hexlattice.outline_offsets(8)
    inn = hexlattice.interior_offsets()
    m = len(out)
    both = np.concatenate([out, inn])[None]
    points, shapes = [], []
    for H, centres_world, shifts_px in jobs:
        pts = hexlattice.apply_homography(H, np.asarray(centres_world)[:, None, :] + both)
        pts = pts.astype(np.float32)[:, None] + np.asarray(shifts_px, np.float32)[None, :, None]
        shapes.append(pts.shape[:2])
        points.append(pts.reshape(-1, pts.shape[2], 2))
    if not points:
        return []
    samples = ref_sample_bilinear(edges, np.concatenate(points))
    so, si = samples[..., :m], samples[..., m:]
    k = so.shape[-1]
    o = np.partition(so, k // 4, axis=-1)[..., k // 4:].mean(axis=-1)
    score = o - si.mean(axis=-1)
    res, start = [], 0
    for n, s in shapes:
        res.append(score[start: start + n * s].reshape(n, s))
        start += n * s
    return res


def _lattice(rng, pitch=None):
    pitch = rng.uniform(14, 40) if pitch is None else pitch
    a_right = pitch * np.array([np.cos(rng.uniform(-0.3, 0.3)), rng.uniform(-0.1, 0.1)])
    a_lr = pitch * np.array([0.5 + rng.uniform(-0.1, 0.1), 0.8])
    H = hexlattice.affine_lattice_homography(a_right, a_lr, rng.uniform(150, 250, 2))
    H[2, :2] = rng.uniform(-2e-4, 2e-4, 2)  # some perspective
    return H, pitch


@pytest.mark.parametrize("tail", [(), (3,)])
@pytest.mark.parametrize("n", [0, 1, 17, 4096, 4097, 3 * 4096 + 5])
def test_sample_bilinear_equals_reference(tail, n):
    rng = np.random.default_rng(n)
    image = rng.uniform(0, 1, (120, 160, *tail)).astype(np.float32)
    pts64 = rng.uniform(-5, 170, (n, 2))
    for points in (pts64, pts64.astype(np.float32), pts64.reshape(-1, 1, 2) if n else pts64,
                   pts64.tolist()):
        got = hexlattice.sample_bilinear(image, points)
        want = ref_sample_bilinear(image, points)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(4))
def test_outline_scores_equal_reference(seed):
    rng = np.random.default_rng(seed)
    edges = cv2.GaussianBlur(rng.uniform(0, 50, (480, 640)).astype(np.float32), (0, 0), 1.5)
    jobs = []
    for j in range(5):
        H, pitch = _lattice(rng)
        cells = rng.integers(-4, 5, (int(rng.integers(0 if j == 2 else 1, 30)), 2))
        steps = int(rng.choice([1, 5, 7]))
        shifts = (np.zeros((1, 2)) if steps == 1
                  else hexlattice.shift_grid(0.1 * pitch, steps))
        jobs.append((H, hexlattice.axial_to_world(cells), shifts))
    got = hexlattice.outline_scores(edges, jobs)
    want = ref_outline_scores(edges, jobs)
    assert len(got) == len(want) == len(jobs)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)
    # one job at a time is the same as all at once
    for job, g in zip(jobs, got, strict=True):
        np.testing.assert_array_equal(hexlattice.outline_score(edges, *job), g)
    assert hexlattice.outline_scores(edges, []) == []
    empty = hexlattice.outline_scores(edges, [(jobs[0][0], np.zeros((0, 2)), np.zeros((4, 2)))])
    assert empty[0].shape == (0, 4)


def _jobs(rng, count, max_cells=30, far=False):
    jobs = []
    for _ in range(count):
        H, pitch = _lattice(rng)
        if far:  # lattices mapping far outside the image (border samples, large maps)
            H[:2, 2] += rng.uniform(-3000, 3000, 2)
        cells = rng.integers(-6, 7, (int(rng.integers(1, max_cells)), 2))
        steps = int(rng.choice([1, 5, 7]))
        shifts = (np.zeros((1, 2)) if steps == 1
                  else hexlattice.shift_grid(0.1 * pitch, steps))
        jobs.append((H, hexlattice.axial_to_world(cells), shifts))
    return jobs


@pytest.mark.parametrize("seed", range(3))
def test_outline_scores_reuse_and_sizes(seed):
    """Calls of growing and shrinking sizes, lattices far outside the image and other
    image dtypes all equal the reference; no result shares memory with a later call's."""
    rng = np.random.default_rng(100 + seed)
    edges = cv2.GaussianBlur(rng.uniform(0, 50, (300, 400)).astype(np.float32), (0, 0), 1.5)
    calls = [_jobs(rng, int(rng.integers(1, 8)), int(rng.choice([3, 60, 150])),
                   far=bool(rng.integers(0, 2))) for _ in range(6)]
    kept = []
    for jobs in calls:
        for image in (edges, edges.astype(np.float64)):
            got = hexlattice.outline_scores(image, jobs)
            want = ref_outline_scores(image, jobs)
            for g, w in zip(got, want, strict=True):
                assert g.dtype == w.dtype and g.shape == w.shape
                np.testing.assert_array_equal(g, w)
            kept.append((got, want))
    for got, want in kept:  # later calls did not overwrite earlier results
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)


def test_outline_scores_in_threads():
    """Threads scoring at the same time each get their own answers."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(7)
    edges = cv2.GaussianBlur(rng.uniform(0, 50, (300, 400)).astype(np.float32), (0, 0), 1.5)
    calls = [_jobs(rng, 4, 80) for _ in range(8)]
    want = [ref_outline_scores(edges, jobs) for jobs in calls]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda jobs: hexlattice.outline_scores(edges, jobs), calls * 3))
    for i, g in enumerate(got):
        for a, b in zip(g, want[i % len(calls)], strict=True):
            np.testing.assert_array_equal(a, b)


def test_outline_score_finds_the_drawn_honeycomb():
    """The outline score of a drawn honeycomb peaks at zero shift."""
    rng = np.random.default_rng(5)
    H, pitch = _lattice(rng, 30.0)
    H[2, :2] = 0.0
    img = np.zeros((480, 640), np.uint8)
    cells = np.array([(q, r) for q in range(-3, 4) for r in range(-3, 4)])
    verts = hexlattice.hex_vertices(1.0 / np.sqrt(3.0))
    world = hexlattice.axial_to_world(cells)
    for w in world:
        poly = hexlattice.apply_homography(H, w + verts)
        cv2.polylines(img, [np.round(poly).astype(np.int32)], True, 255, 2)
    edges = img.astype(np.float32)
    shifts = hexlattice.shift_grid(0.3 * pitch, 7)
    scores = hexlattice.outline_score(edges, H, world, shifts)
    centre = len(shifts) // 2
    assert (np.argmax(scores, axis=1) == centre).mean() > 0.9
