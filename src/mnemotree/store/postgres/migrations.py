"""Named, append-only schema migrations for Postgres. Never edit one that has
shipped: add one. The schema mirrors the SQLite one table for table, so a
backup moves between the two; derived text and the text index are
Postgres's own (a tsvector instead of FTS5)."""

from __future__ import annotations

from typing import Any

from ...errors import SchemaError, StorageError

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
    (
        "0003_logs",
        """
CREATE TABLE accesses (
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    at TEXT NOT NULL
);
CREATE INDEX accesses_by_node ON accesses(node_id, at);
CREATE TABLE usage_batches (
    batch TEXT PRIMARY KEY,
    at TEXT NOT NULL,
    day TEXT NOT NULL,
    hour INTEGER NOT NULL,
    file TEXT NOT NULL DEFAULT '',
    branch TEXT NOT NULL DEFAULT '',
    activity TEXT NOT NULL DEFAULT ''
);
CREATE INDEX usage_batches_by_file ON usage_batches(file, at);
CREATE INDEX usage_batches_by_branch ON usage_batches(branch, at);
CREATE INDEX usage_batches_by_activity ON usage_batches(activity, at);
CREATE INDEX usage_batches_by_hour ON usage_batches(hour, at);
CREATE TABLE usage (
    seq BIGSERIAL PRIMARY KEY,
    batch TEXT NOT NULL,
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    event TEXT NOT NULL CHECK (event IN ('retrieved', 'cited', 'ignored')),
    at TEXT NOT NULL,
    hour INTEGER NOT NULL,
    file TEXT NOT NULL DEFAULT '',
    branch TEXT NOT NULL DEFAULT '',
    activity TEXT NOT NULL DEFAULT ''
);
CREATE INDEX usage_by_node ON usage(node_id, event, at);
CREATE INDEX usage_by_batch ON usage(batch);
CREATE INDEX usage_by_file ON usage(file, event, at, node_id, batch);
CREATE INDEX usage_by_branch ON usage(branch, event, at, node_id, batch);
CREATE INDEX usage_by_activity ON usage(activity, event, at, node_id, batch);
CREATE INDEX usage_by_hour ON usage(hour, event, at, node_id, batch);
CREATE TABLE contradictions (
    id TEXT PRIMARY KEY,
    a_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    b_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
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
CREATE INDEX contradictions_by_a ON contradictions(a_id);
CREATE INDEX contradictions_by_b ON contradictions(b_id);
CREATE INDEX contradictions_by_status ON contradictions(status, detected_at);
CREATE TABLE consolidation_runs (
    id TEXT PRIMARY KEY,
    started_at TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    summary TEXT NOT NULL,
    actions TEXT NOT NULL,
    undo TEXT NOT NULL,
    undone_at TEXT
);
CREATE INDEX consolidation_runs_by_time ON consolidation_runs(applied_at);
CREATE TABLE judgements (
    pair TEXT PRIMARY KEY,
    verdict TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    judged_at TEXT NOT NULL
);
CREATE INDEX nodes_archived ON nodes(archived_at) WHERE archived_at IS NOT NULL;
CREATE TABLE vectors (
    id BIGSERIAL PRIMARY KEY,
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    embedder TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    vector BYTEA NOT NULL,
    UNIQUE (node_id, embedder)
);
CREATE INDEX vectors_by_embedder ON vectors(embedder);
CREATE TABLE vector_queue (node_id TEXT PRIMARY KEY REFERENCES nodes(id) ON DELETE CASCADE);
CREATE TABLE vector_tombstones (
    seq BIGSERIAL PRIMARY KEY,
    vector_rowid BIGINT NOT NULL,
    embedder TEXT NOT NULL
);
CREATE FUNCTION vectors_tombstone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO vector_tombstones (vector_rowid, embedder) VALUES (OLD.id, OLD.embedder);
    RETURN OLD;
END $$;
CREATE TRIGGER vectors_tombstone AFTER DELETE ON vectors
    FOR EACH ROW EXECUTE FUNCTION vectors_tombstone();
CREATE FUNCTION vectors_outdated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.text IS DISTINCT FROM NEW.text OR OLD.context_name IS DISTINCT FROM NEW.context_name
        OR OLD.scope IS DISTINCT FROM NEW.scope OR OLD.root_id IS DISTINCT FROM NEW.root_id THEN
        DELETE FROM vectors WHERE node_id = NEW.id;
        INSERT INTO vector_queue VALUES (NEW.id) ON CONFLICT DO NOTHING;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER vectors_outdated AFTER UPDATE OF text, context_name, scope, root_id ON nodes
    FOR EACH ROW EXECUTE FUNCTION vectors_outdated();
CREATE INDEX facts_by_key ON nodes((metadata::jsonb ->> 'key')) WHERE context_type = 'fact';
""",
    ),
    (
        "0004_access_order",
        """
ALTER TABLE accesses ADD COLUMN seq BIGSERIAL;
""",
    ),
    (
        "0005_memories",
        """
CREATE TABLE snapshots (
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    text TEXT NOT NULL,
    source_id TEXT,
    role TEXT NOT NULL DEFAULT '',
    similarity DOUBLE PRECISION NOT NULL,
    tokens INTEGER NOT NULL,
    embedder TEXT NOT NULL DEFAULT '',
    embedding BYTEA,
    PRIMARY KEY (node_id, position)
);
CREATE TABLE relations (
    source_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    target_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    strength DOUBLE PRECISION NOT NULL DEFAULT 1.0,
    created_at TEXT NOT NULL,
    PRIMARY KEY (source_id, target_id, type)
);
CREATE INDEX relations_by_target ON relations(target_id);
CREATE INDEX relations_by_type ON relations(type, created_at);
CREATE TABLE captured (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    scope TEXT NOT NULL,
    text TEXT NOT NULL,
    type TEXT NOT NULL,
    confidence DOUBLE PRECISION NOT NULL,
    sources TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    memory_id TEXT REFERENCES nodes(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX captured_by_scope ON captured(scope, status, created_at);
CREATE TABLE artifacts (
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    ref TEXT NOT NULL,
    name TEXT NOT NULL
);
CREATE INDEX artifacts_by_node ON artifacts(node_id);
CREATE INDEX artifacts_by_ref ON artifacts(ref COLLATE "C");
CREATE INDEX artifacts_by_name ON artifacts(name);
-- A memory's artifacts (files, commits, branches) kept from its metadata;
-- `name` is a file's last path segment, lowercased.
CREATE FUNCTION node_artifacts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF OLD.metadata = NEW.metadata THEN
            RETURN NEW;
        END IF;
        DELETE FROM artifacts WHERE node_id = OLD.id;
    END IF;
    IF NEW.metadata <> '{}'
        AND jsonb_typeof(NEW.metadata::jsonb -> 'artifacts') = 'array' THEN
        INSERT INTO artifacts
        SELECT NEW.id, a ->> 'type', a ->> 'ref',
            lower(regexp_replace(a ->> 'ref', '^.*/', ''))
        FROM jsonb_array_elements(NEW.metadata::jsonb -> 'artifacts') a
        WHERE jsonb_typeof(a -> 'ref') = 'string' AND jsonb_typeof(a -> 'type') = 'string';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER node_artifacts AFTER INSERT OR UPDATE OF metadata ON nodes
    FOR EACH ROW EXECUTE FUNCTION node_artifacts();
""",
    ),
    (
        "0006_text_index",
        """
-- Weighted like FTS5's bm25 on SQLite: text, name, neighbours' text, breadcrumb.
-- A tsvector holds at most 1 MB: the first 200,000 characters of a text are indexed.
ALTER TABLE nodes ADD COLUMN words tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', left(text, 200000)), 'A')
    || setweight(to_tsvector('english', context_name), 'B')
    || setweight(to_tsvector('english', neighbours), 'C')
    || setweight(to_tsvector('english', path), 'D')
) STORED;
CREATE INDEX nodes_words ON nodes USING gin (words);
ALTER TABLE nodes ADD COLUMN name_words tsvector
    GENERATED ALWAYS AS (to_tsvector('english', context_name)) STORED;
CREATE INDEX nodes_name_words ON nodes USING gin (name_words);
""",
    ),
    (
        "0007_purges",
        """
CREATE TABLE purges (
    id TEXT PRIMARY KEY,
    at TEXT NOT NULL,
    key_id TEXT NOT NULL DEFAULT '',
    selector TEXT NOT NULL,
    nodes INTEGER NOT NULL,
    versions INTEGER NOT NULL,
    other_rows INTEGER NOT NULL
);
""",
    ),
    (
        "0008_deferrable_references",
        """
-- A restore inserts rows as they were, a summary after the children that name
-- it: every reference may wait for the end of the transaction to be checked.
DO $$
DECLARE c record;
BEGIN
    FOR c IN SELECT conrelid::regclass AS tab, conname FROM pg_constraint
        WHERE contype = 'f' AND connamespace = current_schema()::regnamespace
    LOOP
        EXECUTE format('ALTER TABLE %s ALTER CONSTRAINT %I DEFERRABLE INITIALLY IMMEDIATE',
            c.tab, c.conname);
    END LOOP;
END $$;
""",
    ),
    (
        "0009_pgvector",
        """
-- Each row of a stored vector (a node's own, then its later passages') in
-- pgvector, for the HNSW index a store makes per embedder (its dimensions
-- are the embedder's). The bytes in `vectors` stay what a backup holds;
-- `indexed` says their rows are here. `sample_key` orders an even, random
-- sample of a collection without counting it.
ALTER TABLE vectors ADD COLUMN indexed BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX vectors_unindexed ON vectors(embedder) WHERE NOT indexed;
CREATE TABLE vector_passages (
    node_id TEXT NOT NULL,
    embedder TEXT NOT NULL,
    passage INTEGER NOT NULL,
    sample_key DOUBLE PRECISION NOT NULL DEFAULT random(),
    embedding vector NOT NULL,
    PRIMARY KEY (node_id, embedder, passage),
    FOREIGN KEY (node_id, embedder) REFERENCES vectors(node_id, embedder)
        ON DELETE CASCADE DEFERRABLE INITIALLY IMMEDIATE
);
CREATE INDEX vector_passages_sample ON vector_passages(embedder, sample_key) WHERE passage = 0;
""",
    ),
    (
        "0010_word_totals",
        """
-- A node's length in words over what its text index holds (text, name,
-- neighbours' text, breadcrumb): BM25's document length, as FTS5 counts it.
ALTER TABLE nodes ADD COLUMN word_total INTEGER GENERATED ALWAYS AS (
    coalesce(array_length(regexp_split_to_array(btrim(
        left(text, 200000) || ' ' || context_name || ' ' || neighbours || ' ' || path
    ), '[[:space:]]+'), 1), 0)
) STORED;
""",
    ),
    (
        "0011_vector_sample_ids",
        """
-- The background sample is chosen from the index alone (its node ids with
-- their keys), and only the chosen rows' vectors are read.
CREATE INDEX vector_passages_sample_ids ON vector_passages(embedder, sample_key)
    INCLUDE (node_id) WHERE passage = 0;
DROP INDEX vector_passages_sample;
""",
    ),
    (
        "0012_captured_fields",
        """
-- What a captured fact carries beyond its text (JSON: an action item's owner
-- and due date, a standing instruction's mark), so a pending one promoted by
-- hand keeps them.
ALTER TABLE captured ADD COLUMN fields TEXT NOT NULL DEFAULT '{}';
""",
    ),
    (
        "0013_word_totals_split_by_spaces",
        """
-- The same count without a regular expression: splitting on '[[:space:]]+'
-- cost ~28 us a row of every write (a fifth of a row's server time), a plain
-- split on spaces after line breaks and tabs become spaces ~6 us. Rarer
-- whitespace (form feeds, no-break spaces) no longer separates words, which
-- moves a BM25 length by a word at most. The column is computed again for
-- every row once (a table rewrite).
ALTER TABLE nodes DROP COLUMN word_total;
ALTER TABLE nodes ADD COLUMN word_total INTEGER GENERATED ALWAYS AS (
    cardinality(array_remove(string_to_array(replace(replace(replace(
        left(text, 200000) || ' ' || context_name || ' ' || neighbours || ' ' || path,
        chr(10), ' '), chr(13), ' '), chr(9), ' '), ' '), ''))
) STORED;
""",
    ),
]
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(execute: Any, upto: int | None = None) -> int:
    """Apply the migrations this database lacks (the first `upto` only, for a
    staging database at an older schema), each recorded by name, in the
    caller's transaction (which holds the write lock); returns the version."""
    execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
    )
    done = {r[0] for r in execute("SELECT name FROM schema_migrations")}
    newer = sorted(done - {name for name, _ in MIGRATIONS})
    if newer:
        raise SchemaError(
            f"the database was written by a newer mnemotree (it has migration {newer[-1]!r}, "
            f"this version knows {MIGRATIONS[-1][0]!r}): upgrade mnemotree to open it",
            newer[-1],
        )
    wanted = MIGRATIONS if upto is None else MIGRATIONS[:upto]
    for name, sql in wanted:
        if name not in done:
            if name == "0009_pgvector":
                _require_pgvector(execute)
            execute(sql)
            execute("INSERT INTO schema_migrations (name) VALUES (%s)", (name,))
    return len(wanted)


def _require_pgvector(execute: Any) -> None:
    """The `vector` extension is made here if the server has it and the role
    may; otherwise a SchemaError says what to do."""
    if execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'"):
        return
    if not execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"):
        raise SchemaError(
            "the Postgres server has no pgvector extension: install pgvector on the server "
            "(e.g. the postgresql-16-pgvector package, or the pgvector/pgvector Docker image), "
            "then open the database again",
            "vector",
        )
    try:
        execute("CREATE EXTENSION vector")
    except StorageError as exc:
        raise SchemaError(
            "this database lacks the pgvector extension and this role may not create it "
            f"({exc.message}): ask a superuser to run `CREATE EXTENSION vector;` in this "
            "database, then open it again",
            "vector",
        ) from None
