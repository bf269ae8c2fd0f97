"""Data: the CARIBO figure library (``library.json``), see :mod:`engines.caribo.puzzles`."""
