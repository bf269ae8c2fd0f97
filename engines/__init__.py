"""Rules engines for CARIBO, Colomino and Wauri.

Pure game logic: no images, no web. Every game exposes immutable value types for its
pieces and moves, a state with ``push``/``pop`` and a lazy view of the legal moves (see
:mod:`engines.game`), and parsers/printers for the interchange formats of SPEC.md whose
errors are :class:`engines.errors.FormatError` subclasses of ``ValueError``.
"""
