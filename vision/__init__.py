"""Turning photos of the table into SPEC board states (and rendering simulated photos)."""
