"""The sessions database: one SQLite file in the instance folder, in WAL mode.

One connection per application context (:func:`get_db`, closed by :func:`close_db`);
the schema (``schema.sql``) is created on start if missing, so sessions survive a
server restart. Writers use :func:`transaction` — one transaction per confirmed move.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

from flask import Flask, current_app, g

DB_FILENAME = "boardcam.sqlite3"


def database_path(app: Flask) -> Path:
    """Where ``app`` keeps its sessions (``DATABASE`` config, default the instance folder)."""
    configured = app.config.get("DATABASE")
    return Path(configured) if configured else Path(app.instance_path) / DB_FILENAME


def connect(path: str | Path) -> sqlite3.Connection:
    """Open the database with the settings every connection uses."""
    conn = sqlite3.connect(path, timeout=10.0, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 10000")
    return conn


def get_db() -> sqlite3.Connection:
    """The connection of the current application context (opened on first use)."""
    if "db" not in g:
        g.db = connect(database_path(current_app))
    return g.db


def close_db(_exc: BaseException | None = None) -> None:
    """Close the context's connection, if one was opened."""
    conn = g.pop("db", None)
    if conn is not None:
        conn.close()


def init_db(path: str | Path) -> None:
    """Create the schema if missing and switch the file to WAL mode."""
    schema = resources.files(__package__).joinpath("schema.sql").read_text(encoding="utf-8")
    conn = connect(path)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.executescript(schema)
    finally:
        conn.close()


def init_app(app: Flask) -> None:
    """Create the database of ``app`` and close connections at the end of each request."""
    path = database_path(app)
    path.parent.mkdir(parents=True, exist_ok=True)
    init_db(path)
    app.teardown_appcontext(close_db)


@contextmanager
def transaction(conn: sqlite3.Connection | None = None):
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on any exception)."""
    conn = conn or get_db()
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def now() -> str:
    """The current UTC time as ISO 8601 text (seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")
