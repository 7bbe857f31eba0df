"""Named, append-only schema migrations for Postgres. Never edit one that has
shipped: add one. The schema mirrors the SQLite one table for table, so a
backup moves between the two; derived text and the text index are
Postgres's own (a tsvector instead of FTS5)."""

from __future__ import annotations

from typing import Any

MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_tree",
        """
CREATE TABLE nodes (
    seq BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    root_id TEXT NOT NULL,
    parent_id TEXT REFERENCES nodes(id) ON DELETE CASCADE,
    order_key DOUBLE PRECISION NOT NULL,
    text TEXT NOT NULL,
    token_count INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    context_type TEXT NOT NULL DEFAULT '',
    context_name TEXT NOT NULL DEFAULT '',
    context_value TEXT NOT NULL DEFAULT '',
    scope TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 1,
    is_summary BOOLEAN NOT NULL DEFAULT FALSE,
    stale BOOLEAN NOT NULL DEFAULT FALSE,
    metadata TEXT NOT NULL DEFAULT '{}',
    importance DOUBLE PRECISION NOT NULL DEFAULT 0.5,
    neighbours TEXT NOT NULL DEFAULT '',
    path TEXT NOT NULL DEFAULT '',
    archived_at TEXT,
    decay DOUBLE PRECISION
);
CREATE INDEX nodes_by_parent ON nodes(parent_id, order_key);
CREATE INDEX nodes_by_root ON nodes(root_id);
CREATE INDEX nodes_by_scope ON nodes(scope);
CREATE INDEX nodes_by_type_time ON nodes(context_type, created_at);
CREATE INDEX nodes_stale ON nodes(stale) WHERE stale;
CREATE INDEX nodes_by_path ON nodes(root_id, context_value) WHERE context_type = 'path';
CREATE TABLE node_tags (
    tag TEXT NOT NULL,
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    PRIMARY KEY (tag, node_id)
);
CREATE INDEX node_tags_by_node ON node_tags(node_id);
CREATE TABLE node_versions (
    seq BIGSERIAL UNIQUE,
    node_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    op TEXT NOT NULL,
    change_id TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (node_id, version)
);
CREATE INDEX node_versions_by_change ON node_versions(change_id);
CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
""",
    ),
    (
        "0002_api_keys",
        """
CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    scopes TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
);
""",
    ),
]
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(execute: Any) -> int:
    """Apply the migrations this database lacks, each recorded by name, in the
    caller's transaction (which holds the write lock); returns the version."""
    execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
    )
    done = {r[0] for r in execute("SELECT name FROM schema_migrations")}
    for name, sql in MIGRATIONS:
        if name not in done:
            execute(sql)
            execute("INSERT INTO schema_migrations (name) VALUES (%s)", (name,))
    return len(MIGRATIONS)
