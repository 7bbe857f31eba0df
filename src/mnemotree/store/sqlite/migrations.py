"""Named, append-only schema migrations. Never edit one that has shipped: add one."""

import sqlite3
from collections.abc import Callable

from ...timeutil import to_iso, utc_now
from . import breadcrumbs, neighbours
from .derived import NEIGHBOURS_UNSCOPED_SQL, PATH_CHARS


def _scoped_derived_text(db: sqlite3.Connection) -> None:
    """0005: neighbour text and breadcrumbs only from nodes in the node's own scope."""
    ids = [r[0] for r in db.execute("SELECT id FROM nodes")]
    neighbours.recompute(db, ids)
    breadcrumbs.refresh(
        db, [r[0] for r in db.execute("SELECT id FROM nodes WHERE parent_id IS NULL")]
    )


def _same_kind_neighbours(db: sqlite3.Connection) -> None:
    """0006: neighbour text only from siblings of the node's own context type."""
    neighbours.recompute(db, [r[0] for r in db.execute("SELECT id FROM nodes")])


Migration = tuple[str, "str | Callable[[sqlite3.Connection], None]"]

MIGRATIONS: list[Migration] = [
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

-- One vector per node and embedder. AUTOINCREMENT: ids are never reused, so
-- in-memory indexes can load "everything after id N" and apply tombstones by id.
CREATE TABLE vectors (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    embedder TEXT NOT NULL,
    content_hash TEXT NOT NULL,       -- sha256 of the embedded text
    vector BLOB NOT NULL,             -- float32, L2-normalised
    UNIQUE (node_id, embedder)
);
CREATE INDEX vectors_by_embedder ON vectors(embedder);

-- Nodes whose vector is missing or outdated: flushing reads this small table
-- instead of scanning every node for a missing vector. New nodes are queued by
-- the store's insert (one multi-row statement beats a trigger per row).
CREATE TABLE vector_queue (node_id TEXT PRIMARY KEY) WITHOUT ROWID;
INSERT INTO vector_queue SELECT id FROM nodes;
CREATE TRIGGER vector_queue_drop AFTER DELETE ON nodes BEGIN
    DELETE FROM vector_queue WHERE node_id = old.id;
END;
-- What a vector was computed from is gone once these change: recompute it.
CREATE TRIGGER vectors_outdated AFTER UPDATE OF text, context_name, scope, root_id ON nodes
WHEN old.text IS NOT new.text OR old.context_name IS NOT new.context_name
    OR old.scope IS NOT new.scope OR old.root_id IS NOT new.root_id
BEGIN
    DELETE FROM vectors WHERE node_id = new.id;
    INSERT OR IGNORE INTO vector_queue VALUES (new.id);
END;

-- Deleted vectors, so in-memory indexes can drop rows without reloading.
CREATE TABLE vector_tombstones (
    seq INTEGER PRIMARY KEY,
    vector_rowid INTEGER NOT NULL,
    embedder TEXT NOT NULL
);
CREATE TRIGGER vectors_tombstone AFTER DELETE ON vectors BEGIN
    INSERT INTO vector_tombstones (vector_rowid, embedder) VALUES (old.id, old.embedder);
END;

-- Per-term document counts, to leave very common terms out of queries.
CREATE VIRTUAL TABLE nodes_fts_vocab USING fts5vocab(nodes_fts, 'row');

-- Retrieval feedback (seed 002): the last accesses feed ACT-R activation.
CREATE TABLE accesses (
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    at TEXT NOT NULL
);
CREATE INDEX accesses_by_node ON accesses(node_id, at);
""",
    ),
    (
        "0003_neighbour_text",
        """
-- The text of each node's previous and next sibling (name and text, 300
-- characters each), indexed at a lower weight: a short reply such as Super
-- good! is found by the words of the question before it. Kept by the store.
ALTER TABLE nodes ADD COLUMN neighbours TEXT NOT NULL DEFAULT '';
DROP TRIGGER nodes_fts_insert;
DROP TRIGGER nodes_fts_delete;
DROP TRIGGER nodes_fts_update;
DROP TABLE nodes_fts_vocab;
DROP TABLE nodes_fts;
UPDATE nodes SET neighbours = NEIGHBOURS_SQL;
CREATE VIRTUAL TABLE nodes_fts USING fts5(
    text, context_name, neighbours,
    content='nodes', content_rowid='seq',
    tokenize='porter unicode61 remove_diacritics 2'
);
INSERT INTO nodes_fts(nodes_fts) VALUES ('rebuild');
CREATE TRIGGER nodes_fts_insert AFTER INSERT ON nodes BEGIN
    INSERT INTO nodes_fts(rowid, text, context_name, neighbours)
    VALUES (new.seq, new.text, new.context_name, new.neighbours);
END;
CREATE TRIGGER nodes_fts_delete AFTER DELETE ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, text, context_name, neighbours)
    VALUES ('delete', old.seq, old.text, old.context_name, old.neighbours);
END;
CREATE TRIGGER nodes_fts_update AFTER UPDATE OF text, context_name, neighbours ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, text, context_name, neighbours)
    VALUES ('delete', old.seq, old.text, old.context_name, old.neighbours);
    INSERT INTO nodes_fts(rowid, text, context_name, neighbours)
    VALUES (new.seq, new.text, new.context_name, new.neighbours);
END;
CREATE VIRTUAL TABLE nodes_fts_vocab USING fts5vocab(nodes_fts, 'row');
-- Per-column counts: terms that are names (speakers) are told apart from topic words.
CREATE VIRTUAL TABLE nodes_fts_columns USING fts5vocab(nodes_fts, 'col');
""".replace("NEIGHBOURS_SQL", NEIGHBOURS_UNSCOPED_SQL),
    ),
    (
        "0004_paths",
        """
-- Each node's breadcrumb: its ancestors' text (100 characters each), root
-- first, one per line; indexed so a chunk is found by its section headings.
-- Kept by the store.
ALTER TABLE nodes ADD COLUMN path TEXT NOT NULL DEFAULT '';
CREATE TEMP TABLE node_paths AS
WITH RECURSIVE p(id, path) AS (
    SELECT id, '' FROM nodes WHERE parent_id IS NULL
    UNION ALL
    SELECT n.id, CASE WHEN p.path = '' THEN substr(up.text, 1, PATH_CHARS)
                      ELSE p.path || char(10) || substr(up.text, 1, PATH_CHARS) END
    FROM p JOIN nodes up ON up.id = p.id JOIN nodes n ON n.parent_id = p.id
)
SELECT id, path FROM p;
UPDATE nodes SET path = node_paths.path FROM node_paths WHERE node_paths.id = nodes.id;
DROP TABLE node_paths;
DROP TRIGGER nodes_fts_insert;
DROP TRIGGER nodes_fts_delete;
DROP TRIGGER nodes_fts_update;
DROP TABLE nodes_fts_vocab;
DROP TABLE nodes_fts_columns;
DROP TABLE nodes_fts;
CREATE VIRTUAL TABLE nodes_fts USING fts5(
    text, context_name, neighbours, path,
    content='nodes', content_rowid='seq',
    tokenize='porter unicode61 remove_diacritics 2'
);
INSERT INTO nodes_fts(nodes_fts) VALUES ('rebuild');
CREATE TRIGGER nodes_fts_insert AFTER INSERT ON nodes BEGIN
    INSERT INTO nodes_fts(rowid, text, context_name, neighbours, path)
    VALUES (new.seq, new.text, new.context_name, new.neighbours, new.path);
END;
CREATE TRIGGER nodes_fts_delete AFTER DELETE ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, text, context_name, neighbours, path)
    VALUES ('delete', old.seq, old.text, old.context_name, old.neighbours, old.path);
END;
CREATE TRIGGER nodes_fts_update AFTER UPDATE OF text, context_name, neighbours, path ON nodes
BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, text, context_name, neighbours, path)
    VALUES ('delete', old.seq, old.text, old.context_name, old.neighbours, old.path);
    INSERT INTO nodes_fts(rowid, text, context_name, neighbours, path)
    VALUES (new.seq, new.text, new.context_name, new.neighbours, new.path);
END;
CREATE VIRTUAL TABLE nodes_fts_vocab USING fts5vocab(nodes_fts, 'row');
CREATE VIRTUAL TABLE nodes_fts_columns USING fts5vocab(nodes_fts, 'col');
""".replace("PATH_CHARS", str(PATH_CHARS)),
    ),
    ("0005_scoped_derived_text", _scoped_derived_text),
    ("0006_same_kind_neighbours", _same_kind_neighbours),
    (
        "0007_path_memory",
        """
-- Path memory (seed 001): an entry is found by its path in one space.
CREATE INDEX nodes_by_path ON nodes(root_id, context_value) WHERE context_type = 'path';
-- Context snapshots: chunks copied (text, embedding) when an entry is saved,
-- so they outlive their sources; the entry owns them.
CREATE TABLE snapshots (
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    text TEXT NOT NULL,
    source_id TEXT,
    role TEXT NOT NULL DEFAULT '',
    similarity REAL NOT NULL,
    tokens INTEGER NOT NULL,
    embedder TEXT NOT NULL DEFAULT '',
    embedding BLOB,
    PRIMARY KEY (node_id, position)
);
""",
    ),
    (
        "0008_relations",
        """
-- Typed relations between memories (seeds 003, 004): related_to, depends_on,
-- contradicts, supersedes, derived_from, with a strength.
CREATE TABLE relations (
    source_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    target_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    strength REAL NOT NULL DEFAULT 1.0,
    created_at TEXT NOT NULL,
    PRIMARY KEY (source_id, target_id, type)
);
CREATE INDEX relations_by_target ON relations(target_id);
""",
    ),
    (
        "0009_captured_facts",
        """
-- Facts captured from chat (seeds 002, 003): pending until promoted into a
-- typed memory (automatically above a confidence, or by hand) or dismissed.
CREATE TABLE captured (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    scope TEXT NOT NULL,
    text TEXT NOT NULL,
    type TEXT NOT NULL,
    confidence REAL NOT NULL,
    sources TEXT NOT NULL,  -- JSON list of message node ids
    status TEXT NOT NULL DEFAULT 'pending',
    memory_id TEXT REFERENCES nodes(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX captured_by_scope ON captured(scope, status, created_at);
""",
    ),
    (
        "0010_usage",
        """
-- The context engine's usage log (seed 004): which memories were retrieved
-- into a context, cited in an answer or ignored, under which signals. One
-- `batch` is one context's feedback, so memories used together share it.
CREATE TABLE usage (
    seq INTEGER PRIMARY KEY,
    batch TEXT NOT NULL,
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    event TEXT NOT NULL CHECK (event IN ('retrieved', 'cited', 'ignored')),
    at TEXT NOT NULL,
    hour INTEGER NOT NULL,  -- UTC hour of `at`, for routines by time of day
    file TEXT NOT NULL DEFAULT '',
    branch TEXT NOT NULL DEFAULT ''
);
CREATE INDEX usage_by_node ON usage(node_id, event, at);
CREATE INDEX usage_by_batch ON usage(batch);
CREATE INDEX usage_by_file ON usage(file, event) WHERE file != '';
CREATE INDEX usage_by_branch ON usage(branch, event) WHERE branch != '';
CREATE INDEX usage_by_hour ON usage(hour, event, at);
-- Typed memories newest first, one type at a time, without sorting them all.
CREATE INDEX nodes_by_type_time ON nodes(context_type, created_at);
CREATE INDEX relations_by_type ON relations(type, created_at);
-- Artifacts a memory names (seed 004's episode_artifacts): files, commits,
-- branches. Kept from each node's metadata by triggers; `name` is a file's
-- last path segment, lowercased, so "login.ts" finds "src/auth/login.ts".
CREATE TABLE artifacts (
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    ref TEXT NOT NULL,
    name TEXT NOT NULL
);
CREATE INDEX artifacts_by_node ON artifacts(node_id);
CREATE INDEX artifacts_by_ref ON artifacts(ref);
CREATE INDEX artifacts_by_name ON artifacts(name);
CREATE TRIGGER nodes_artifacts_insert AFTER INSERT ON nodes
WHEN new.metadata != '{}' AND json_type(new.metadata, '$.artifacts') = 'array'
BEGIN
    INSERT INTO artifacts
    SELECT new.id, json_extract(a.value, '$.type'), json_extract(a.value, '$.ref'),
        lower(substr(json_extract(a.value, '$.ref'), length(rtrim(
            json_extract(a.value, '$.ref'),
            replace(json_extract(a.value, '$.ref'), '/', '')
        )) + 1))
    FROM json_each(new.metadata, '$.artifacts') a
    WHERE json_type(a.value, '$.ref') = 'text' AND json_type(a.value, '$.type') = 'text';
END;
CREATE TRIGGER nodes_artifacts_update AFTER UPDATE OF metadata ON nodes
WHEN old.metadata != new.metadata
BEGIN
    DELETE FROM artifacts WHERE node_id = old.id;
    INSERT INTO artifacts
    SELECT new.id, json_extract(a.value, '$.type'), json_extract(a.value, '$.ref'),
        lower(substr(json_extract(a.value, '$.ref'), length(rtrim(
            json_extract(a.value, '$.ref'),
            replace(json_extract(a.value, '$.ref'), '/', '')
        )) + 1))
    FROM json_each(new.metadata, '$.artifacts') a
    WHERE json_type(new.metadata, '$.artifacts') = 'array'
        AND json_type(a.value, '$.ref') = 'text' AND json_type(a.value, '$.type') = 'text';
END;
-- Memories written before this migration.
INSERT INTO artifacts
SELECT n.id, json_extract(a.value, '$.type'), json_extract(a.value, '$.ref'),
    lower(substr(json_extract(a.value, '$.ref'), length(rtrim(
        json_extract(a.value, '$.ref'), replace(json_extract(a.value, '$.ref'), '/', '')
    )) + 1))
FROM nodes n, json_each(n.metadata, '$.artifacts') a
WHERE n.metadata != '{}' AND json_type(n.metadata, '$.artifacts') = 'array'
    AND json_type(a.value, '$.ref') = 'text' AND json_type(a.value, '$.type') = 'text';
""",
    ),
    (
        "0011_usage_indexes_and_activity",
        """
-- 0010's partial indexes (WHERE file != '') could not serve `file = ?`, and
-- `event` between `hour` and `at` kept the hour index from bounding time:
-- every prediction scanned the whole log.
DROP INDEX usage_by_file;
DROP INDEX usage_by_branch;
DROP INDEX usage_by_hour;
CREATE INDEX usage_by_file ON usage(file, at);
CREATE INDEX usage_by_branch ON usage(branch, at);
CREATE INDEX usage_by_hour ON usage(hour, at);
-- What was used during an activity (deploying, debugging, …) predicts it too.
ALTER TABLE usage ADD COLUMN activity TEXT NOT NULL DEFAULT '';
CREATE INDEX usage_by_activity ON usage(activity, at);
""",
    ),
    (
        "0012_usage_covering_indexes",
        """
-- Predictions count batches and nodes per file, branch, activity and hour:
-- with every column they read in the index, they never touch the table.
DROP INDEX usage_by_file;
DROP INDEX usage_by_branch;
DROP INDEX usage_by_hour;
DROP INDEX usage_by_activity;
CREATE INDEX usage_by_file ON usage(file, at, event, batch, node_id);
CREATE INDEX usage_by_branch ON usage(branch, at, event, batch, node_id);
CREATE INDEX usage_by_hour ON usage(hour, at, event, batch, node_id);
CREATE INDEX usage_by_activity ON usage(activity, at, event, batch, node_id);
""",
    ),
    (
        "0013_usage_batches",
        """
-- One row per feedback batch: the totals predictions divide by ("cited in 3
-- of 4 contexts with this file") count batches here, not every event of
-- them (16 events a batch scanned 16 times over). Cited events are found
-- along (key, event, at), so the many retrieved and ignored ones are skipped.
CREATE TABLE usage_batches (
    batch TEXT PRIMARY KEY,
    at TEXT NOT NULL,
    day TEXT NOT NULL,
    hour INTEGER NOT NULL,
    file TEXT NOT NULL DEFAULT '',
    branch TEXT NOT NULL DEFAULT '',
    activity TEXT NOT NULL DEFAULT ''
);
INSERT INTO usage_batches
SELECT batch, min(at), substr(min(at), 1, 10), min(hour), min(file), min(branch), min(activity)
FROM usage GROUP BY batch;
CREATE INDEX usage_batches_by_file ON usage_batches(file, at);
CREATE INDEX usage_batches_by_branch ON usage_batches(branch, at);
CREATE INDEX usage_batches_by_activity ON usage_batches(activity, at);
CREATE INDEX usage_batches_by_hour ON usage_batches(hour, at);
DROP INDEX usage_by_file;
DROP INDEX usage_by_branch;
DROP INDEX usage_by_hour;
DROP INDEX usage_by_activity;
CREATE INDEX usage_by_file ON usage(file, event, at, node_id, batch);
CREATE INDEX usage_by_branch ON usage(branch, event, at, node_id, batch);
CREATE INDEX usage_by_hour ON usage(hour, event, at, node_id, batch);
CREATE INDEX usage_by_activity ON usage(activity, event, at, node_id, batch);
""",
    ),
    (
        "0014_contradictions",
        """
-- Contradictions between memories (seed 004), found on write or by a scan.
-- Resolving one sets the loser's validity and a supersedes relation; no
-- memory is ever deleted by it.
CREATE TABLE contradictions (
    id TEXT PRIMARY KEY,
    a_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,  -- the earlier memory
    b_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,  -- the later one
    kind TEXT NOT NULL,
    reason TEXT NOT NULL,
    scope TEXT NOT NULL,
    detected_at TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
    resolution TEXT CHECK (resolution IN ('a_wins', 'b_wins', 'both_valid', 'merged')),
    note TEXT NOT NULL DEFAULT '',
    resolved_at TEXT,
    UNIQUE (a_id, b_id)
);
CREATE INDEX contradictions_by_status ON contradictions(status, detected_at);
CREATE INDEX contradictions_by_b ON contradictions(b_id);
-- Facts by key, so a new value finds the old ones at once.
CREATE INDEX facts_by_key ON nodes(json_extract(metadata, '$.key'))
WHERE context_type = 'fact';
""",
    ),
    (
        "0015_consolidation",
        """
-- Forgetting archives, never deletes: an archived node leaves search and
-- contexts (its vectors are dropped, and queued again when it is restored).
ALTER TABLE nodes ADD COLUMN archived_at TEXT;
CREATE INDEX nodes_archived ON nodes(archived_at) WHERE archived_at IS NOT NULL;
-- The decay factor the last consolidation computed (seed 003's decayFactor).
ALTER TABLE nodes ADD COLUMN decay REAL;
-- One row per applied consolidation: its actions with their reasons, and the
-- inverse operations that undo it.
CREATE TABLE consolidation_runs (
    id TEXT PRIMARY KEY,
    started_at TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    summary TEXT NOT NULL,   -- JSON: actions per step
    actions TEXT NOT NULL,   -- JSON list of actions
    undo TEXT NOT NULL,      -- JSON list of inverse operations, in order of application
    undone_at TEXT
);
CREATE INDEX consolidation_runs_by_time ON consolidation_runs(applied_at);
-- An LLM judge's verdicts on statement pairs, so a pair is never asked twice.
CREATE TABLE judgements (
    pair TEXT PRIMARY KEY,   -- sha256 of the judge and both texts
    verdict TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    judged_at TEXT NOT NULL
);
""",
    ),
    (
        "0016_contradiction_versions",
        """
-- A path update contradicts an earlier version of the same entry: the rows
-- name versions (0: the memory as it is now), so one entry can be updated
-- against itself many times. SQLite cannot alter a UNIQUE constraint:
-- the table is rebuilt.
CREATE TABLE contradictions_new (
    id TEXT PRIMARY KEY,
    a_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,  -- the earlier memory
    b_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,  -- the later one
    kind TEXT NOT NULL,
    reason TEXT NOT NULL,
    scope TEXT NOT NULL,
    detected_at TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
    resolution TEXT CHECK (resolution IN ('a_wins', 'b_wins', 'both_valid', 'merged')),
    note TEXT NOT NULL DEFAULT '',
    resolved_at TEXT,
    a_version INTEGER NOT NULL DEFAULT 0,
    b_version INTEGER NOT NULL DEFAULT 0,
    UNIQUE (a_id, b_id, a_version, b_version)
);
INSERT INTO contradictions_new (id, a_id, b_id, kind, reason, scope, detected_at, status,
                                resolution, note, resolved_at)
SELECT id, a_id, b_id, kind, reason, scope, detected_at, status, resolution, note, resolved_at
FROM contradictions;
DROP TABLE contradictions;
ALTER TABLE contradictions_new RENAME TO contradictions;
CREATE INDEX contradictions_by_status ON contradictions(status, detected_at);
CREATE INDEX contradictions_by_b ON contradictions(b_id);
""",
    ),
    (
        "0017_api_keys",
        """
-- Keys for the HTTP API and MCP over HTTP. Only a hash of the secret is
-- kept: a key is shown once, when it is made.
CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,        -- the public part of the key (mt_<id>_<secret>)
    secret_hash TEXT NOT NULL,  -- sha256 of the secret, hex
    name TEXT NOT NULL DEFAULT '',
    scopes TEXT NOT NULL,       -- JSON list; ["*"] is every scope
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
);
""",
    ),
    (
        "0018_updates_and_review",
        """
-- An automatic update (a newer statement superseding an older one) is kept
-- as a resolved row with resolution 'update', so it is listed, explained and
-- reversible; a low-confidence candidate waits with status 'review' and never
-- reaches a context. The CHECK constraints change: the table is rebuilt.
CREATE TABLE contradictions_new (
    id TEXT PRIMARY KEY,
    a_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,  -- the earlier memory
    b_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,  -- the later one
    kind TEXT NOT NULL,
    reason TEXT NOT NULL,
    scope TEXT NOT NULL,
    detected_at TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'review', 'resolved')),
    resolution TEXT CHECK (resolution IN ('a_wins', 'b_wins', 'both_valid', 'merged', 'update')),
    note TEXT NOT NULL DEFAULT '',
    resolved_at TEXT,
    a_version INTEGER NOT NULL DEFAULT 0,
    b_version INTEGER NOT NULL DEFAULT 0,
    UNIQUE (a_id, b_id, a_version, b_version)
);
INSERT INTO contradictions_new SELECT * FROM contradictions;
DROP TABLE contradictions;
ALTER TABLE contradictions_new RENAME TO contradictions;
CREATE INDEX contradictions_by_status ON contradictions(status, detected_at);
CREATE INDEX contradictions_by_b ON contradictions(b_id);
CREATE INDEX contradictions_by_a ON contradictions(a_id);
""",
    ),
    (
        "0019_purges",
        """
-- Erasures: that one happened, when, by which key and how much went, never
-- what (the selector may itself be the personal data).
CREATE TABLE purges (
    id TEXT PRIMARY KEY,
    at TEXT NOT NULL,
    key_id TEXT NOT NULL DEFAULT '',  -- the API key that asked; '' locally
    selector TEXT NOT NULL,           -- ids | scope | subject
    nodes INTEGER NOT NULL,
    versions INTEGER NOT NULL,
    other_rows INTEGER NOT NULL       -- derived rows: snapshots, captures, runs...
);
""",
    ),
    (
        "0020_captured_fields",
        """
-- What a captured fact carries beyond its text (JSON: an action item's owner
-- and due date, a standing instruction's mark), so a pending one promoted by
-- hand keeps them.
ALTER TABLE captured ADD COLUMN fields TEXT NOT NULL DEFAULT '{}';
""",
    ),
]

SCHEMA_VERSION = len(MIGRATIONS)


APPLICATION_ID = 0x6D6E656D  # "mnem": marks the file as ours


def apply_migrations(db: sqlite3.Connection, start: int, stop: int) -> None:
    """Run migrations `start` to `stop` (exclusive) on `db`, recording each,
    inside the caller's transaction; the file then has schema `stop`."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    for name, step in MIGRATIONS[start:stop]:
        if callable(step):  # a data migration written in Python
            step(db)
        else:
            for statement in _statements(step):
                db.execute(statement)
        db.execute("INSERT INTO schema_migrations VALUES (?, ?)", (name, to_iso(utc_now())))
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute(f"PRAGMA user_version = {stop}")


def _statements(sql: str) -> list[str]:
    """Split a migration into statements, keeping trigger bodies whole."""
    out: list[str] = []
    buffer = ""
    for line in sql.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                out.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        out.append(buffer.strip())
    return out
