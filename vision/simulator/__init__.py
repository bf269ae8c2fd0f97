"""The table simulator: realistic photos of CARIBO, Colomino and Wauri with exact truth.

``render_caribo`` / ``render_colomino`` / ``render_wauri`` turn one board state into a
:class:`~vision.simulator.photo.Photo` (JPEG bytes, BGR image, ground-truth dict);
:mod:`vision.simulator.dataset` writes many of them deterministically from a seed.
"""
