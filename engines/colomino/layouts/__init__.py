"""Shipped default Colomino layouts (JSON data files; a package so they are installed)."""
