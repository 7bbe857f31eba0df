"""Named, append-only schema migrations. Never edit one that has shipped: add one."""

from __future__ import annotations

MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_nodes",
        """
CREATE TABLE nodes (
    seq INTEGER PRIMARY KEY,            -- stable rowid for the FTS index
    id TEXT NOT NULL UNIQUE,
    root_id TEXT NOT NULL,
    parent_id TEXT REFERENCES nodes(id) ON DELETE CASCADE,
    order_key REAL NOT NULL,
    text TEXT NOT NULL,
    token_count INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    context_type TEXT NOT NULL DEFAULT '',
    context_name TEXT NOT NULL DEFAULT '',
    context_value TEXT NOT NULL DEFAULT '',
    scope TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 1,
    is_summary INTEGER NOT NULL DEFAULT 0,
    stale INTEGER NOT NULL DEFAULT 0,
    metadata TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX nodes_by_parent ON nodes(parent_id, order_key);
CREATE INDEX nodes_by_root ON nodes(root_id);
CREATE INDEX nodes_by_scope ON nodes(scope);
CREATE INDEX nodes_by_type ON nodes(context_type);
CREATE INDEX nodes_stale ON nodes(stale) WHERE stale = 1;

CREATE VIRTUAL TABLE nodes_fts USING fts5(
    text, context_name,
    content='nodes', content_rowid='seq',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER nodes_fts_insert AFTER INSERT ON nodes BEGIN
    INSERT INTO nodes_fts(rowid, text, context_name)
    VALUES (new.seq, new.text, new.context_name);
END;
CREATE TRIGGER nodes_fts_delete AFTER DELETE ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, text, context_name)
    VALUES ('delete', old.seq, old.text, old.context_name);
END;
CREATE TRIGGER nodes_fts_update AFTER UPDATE OF text, context_name ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, text, context_name)
    VALUES ('delete', old.seq, old.text, old.context_name);
    INSERT INTO nodes_fts(rowid, text, context_name)
    VALUES (new.seq, new.text, new.context_name);
END;

CREATE TABLE node_tags (
    tag TEXT NOT NULL,
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    PRIMARY KEY (tag, node_id)
) WITHOUT ROWID;
CREATE INDEX node_tags_by_node ON node_tags(node_id);

CREATE TABLE node_versions (
    node_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    op TEXT NOT NULL,
    change_id TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    state TEXT NOT NULL,                -- the whole node row as JSON
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
        "0002_retrieval",
        """
ALTER TABLE nodes ADD COLUMN importance REAL NOT NULL DEFAULT 0.5;

-- One vector per node and embedder; rowid orders them for incremental loading.
CREATE TABLE vectors (
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    embedder TEXT NOT NULL,
    content_hash TEXT NOT NULL,       -- sha256 of the embedded text
    vector BLOB NOT NULL,             -- float32, L2-normalised
    PRIMARY KEY (node_id, embedder)
);
CREATE INDEX vectors_by_embedder ON vectors(embedder);
-- What a vector was computed from is gone once these change: recompute it.
CREATE TRIGGER vectors_outdated AFTER UPDATE OF text, context_name, scope, root_id ON nodes
BEGIN
    DELETE FROM vectors WHERE node_id = new.id;
END;

-- Retrieval feedback (seed 002): the last accesses feed ACT-R activation.
CREATE TABLE accesses (
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    at TEXT NOT NULL
);
CREATE INDEX accesses_by_node ON accesses(node_id, at);
""",
    ),
]

SCHEMA_VERSION = len(MIGRATIONS)
