-- boardcam companion: play sessions and their confirmed events (SQLite, WAL mode).
CREATE TABLE IF NOT EXISTS sessions (
    id          TEXT PRIMARY KEY,
    game        TEXT NOT NULL CHECK (game IN ('caribo', 'colomino', 'wauri')),
    mode        TEXT NOT NULL DEFAULT 'game' CHECK (mode IN ('game', 'puzzle')),
    players     TEXT NOT NULL,              -- JSON list of player names
    settings    TEXT NOT NULL DEFAULT '{}', -- JSON object (puzzle figure, variant, ...)
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,           -- 1, 2, ... in the order confirmed
    kind        TEXT NOT NULL CHECK (kind IN ('start', 'move', 'pass', 'correction')),
    player      INTEGER,                    -- index into players, NULL for start/correction
    state       TEXT NOT NULL,              -- JSON board state after the event
    answer      TEXT NOT NULL DEFAULT '{}', -- JSON rules answer that confirmed it
    notation    TEXT NOT NULL DEFAULT '',   -- one line for the notation export
    created_at  TEXT NOT NULL,
    undone_at   TEXT,                       -- set by undo; undone events stay in the history
    UNIQUE (session_id, seq)
);

CREATE INDEX IF NOT EXISTS events_by_session ON events (session_id, seq);
