from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mnemotree import InvalidOperation, Memory, SchemaError, StorageError
from mnemotree.store.sqlite import SQLiteStore
from mnemotree.store.sqlite.migrations import MIGRATIONS, SCHEMA_VERSION


def test_new_database_is_wal_with_foreign_keys_and_recorded_migrations(db_path: Path) -> None:
    store = SQLiteStore(db_path)
    try:
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert store._db.execute("PRAGMA busy_timeout").fetchone()[0] == 30_000
    finally:
        store.close()
    with sqlite3.connect(db_path) as raw:
        names = [r[0] for r in raw.execute("SELECT name FROM schema_migrations")]
        version = raw.execute("PRAGMA user_version").fetchone()[0]
    assert names == [name for name, _ in MIGRATIONS]
    assert version == SCHEMA_VERSION


def test_data_survives_reopening(db_path: Path) -> None:
    with Memory(db_path) as mem:
        root = mem.add("persisted", metadata={"k": [1, 2]})
        mem.append_child(root.id, "child")
    with Memory(db_path) as mem:
        assert [n.text for n in mem.serialize(root.id)] == ["persisted", "child"]
        assert mem.get(root.id).metadata == {"k": [1, 2]}


def test_a_file_that_is_not_sqlite_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"just some notes, not a database\n" * 10)
    before = path.read_bytes()
    with pytest.raises(SchemaError, match="not an SQLite database") as info:
        Memory(path)
    assert info.value.value == str(path)
    assert path.read_bytes() == before


def test_another_applications_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    with pytest.raises(SchemaError, match="not a mnemotree database"):
        Memory(path)
    with sqlite3.connect(path) as raw:
        tables = [r[0] for r in raw.execute("SELECT name FROM sqlite_master")]
    assert tables == ["invoices"]


def test_a_newer_schema_is_refused(db_path: Path) -> None:
    Memory(db_path).close()
    with sqlite3.connect(db_path) as raw:
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(SchemaError, match="newer") as info:
        Memory(db_path)
    assert info.value.value == SCHEMA_VERSION + 1


def test_a_directory_is_not_a_database(tmp_path: Path) -> None:
    with pytest.raises(SchemaError, match="directory"):
        Memory(tmp_path)


def test_a_failed_operation_rolls_back_everything(mem: Memory) -> None:
    root = mem.add("root")
    mem.append_many(root.id, ["a", "b", "c"])
    before = mem.stats()
    with pytest.raises(ZeroDivisionError), mem.store.transaction():
        mem.append_child(root.id, "joins the outer transaction")
        mem.delete(root.id)
        raise ZeroDivisionError  # any failure inside the transaction
    assert mem.stats() == before
    assert len(mem.children(root.id)) == 3


def test_a_locked_database_is_a_storage_error_and_nothing_is_written(db_path: Path) -> None:
    with Memory(db_path) as mem:
        root = mem.add("root")
    blocker = sqlite3.connect(db_path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    try:
        with Memory(store=SQLiteStore(db_path, busy_timeout=0.05)) as mem:
            with pytest.raises(StorageError, match="locked") as info:
                mem.append_child(root.id, "blocked")
            assert info.value.value == str(db_path)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    with Memory(db_path) as mem:
        assert mem.children(root.id) == []


def test_an_uncreatable_folder_is_a_storage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StorageError, match="cannot create the folder"):
        Memory(blocker / "sub" / "memory.db")


def test_processes_opening_a_new_database_at_once_all_succeed(tmp_path: Path) -> None:
    # A race: SQLite answers BUSY at once (no busy handler) to all but one of
    # the processes switching a new file to WAL. It lost about one open in 200
    # before the switch was retried; two rounds of six make it likelier to show.
    import subprocess
    import sys

    code = "import sys; from mnemotree import Memory; Memory(sys.argv[1]).close()"
    for round_ in range(2):
        path = tmp_path / f"shared{round_}.db"
        procs = [
            subprocess.Popen([sys.executable, "-c", code, str(path)], stderr=subprocess.PIPE)
            for _ in range(6)
        ]
        errors = [p.communicate()[1].decode() for p in procs]
        assert [p.returncode for p in procs] == [0] * 6, errors
        with sqlite3.connect(path) as raw:
            assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
            assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_damaged_file_is_a_storage_error(db_path: Path) -> None:
    with Memory(db_path) as mem:
        root = mem.add("root")
        mem.append_many(root.id, [f"memory {i} " * 20 for i in range(300)])
    data = db_path.read_bytes()
    page = 4096
    db_path.write_bytes(data[: 3 * page] + bytes(len(data) - 3 * page))
    with pytest.raises((StorageError, SchemaError)), Memory(db_path) as mem:
        mem.serialize(root.id)


def test_migrations_0005_0006_recompute_derived_text_by_scope_and_kind(tmp_path: Path) -> None:
    from tests.helpers import assert_derived_text

    db_path = tmp_path / "m.db"
    with Memory(db_path, embedder="hashing") as mem:
        mem.keys.share_scope("pub")  # mixed scopes, as databases of that time held them
        team = mem.add("Team notes", scope="pub")
        mem.append_child(team.id, "Zorblax secret", scope="secret")
        mem.append_child(team.id, "lunch", scope="pub")
        mem.append_child(team.id, "Heading", scope="pub", context_type="section")
        mem.append_child(team.id, "chunk text", scope="pub", context_type="chunk")
    raw = sqlite3.connect(db_path, isolation_level=None)
    raw.execute("UPDATE nodes SET neighbours = 'stale', path = 'stale'")  # as 0003/0004 left it
    raw.execute("DELETE FROM schema_migrations WHERE name > '0005'")
    raw.execute("DROP INDEX nodes_by_path")  # what 0007 adds, so it can run again
    raw.execute("DROP TABLE snapshots")
    raw.execute("DROP TABLE relations")  # and 0008
    raw.execute("DROP TABLE captured")  # and 0009
    for sql in (
        "DROP TABLE usage",
        "DROP TABLE usage_batches",
        "DROP TABLE contradictions",
        "DROP INDEX facts_by_key",
        "DROP TABLE artifacts",
        "DROP INDEX nodes_by_type_time",
        "DROP TRIGGER nodes_artifacts_insert",
        "DROP TRIGGER nodes_artifacts_update",
        "DROP TABLE consolidation_runs",
        "DROP TABLE judgements",
        "DROP INDEX nodes_archived",
        "ALTER TABLE nodes DROP COLUMN archived_at",
        "ALTER TABLE nodes DROP COLUMN decay",
        "DROP TABLE api_keys",
        "DROP TABLE purges",
    ):
        raw.execute(sql)  # and 0010-0019
    raw.execute("PRAGMA user_version = 4")
    raw.close()
    with Memory(db_path, embedder="hashing") as mem:
        assert mem.store.schema_version == SCHEMA_VERSION
        assert_derived_text(mem)


def test_each_thread_reads_through_its_own_connection(db_path: Path) -> None:
    """While one thread is inside a write transaction, another reads at once
    (no waiting on the writer) and sees only what was committed."""
    import threading

    with Memory(db_path, embedder="hashing") as mem:
        root = mem.add("root")
        inside, done = threading.Event(), threading.Event()
        seen: dict[str, object] = {}

        def writer() -> None:
            with mem.store.transaction():
                seen["new"] = mem.append_child(root.id, "written, not yet committed").id
                inside.set()
                done.wait(30)

        thread = threading.Thread(target=writer)
        thread.start()
        assert inside.wait(30)

        def read() -> None:
            seen["before"] = mem.store.get(str(seen["new"]))
            seen["children"] = len(mem.children(root.id))

        reader = threading.Thread(target=read)
        reader.start()
        reader.join(30)
        assert not reader.is_alive() and not done.is_set()  # it did not wait for the commit
        done.set()
        thread.join()
        assert seen["before"] is None and seen["children"] == 0
        assert mem.store.get(str(seen["new"])) is not None  # committed: visible everywhere


def test_access_ages_are_the_newest_accesses_in_seconds(db_path: Path) -> None:
    """What activation sums: at most `latest` accesses per node, newest first,
    as seconds before `now`; nodes never accessed are absent."""
    from datetime import datetime, timedelta, timezone

    from mnemotree.timeutil import to_iso

    now = datetime(2026, 5, 1, 12, 0, tzinfo=timezone.utc)
    with Memory(db_path, embedder="hashing") as mem:
        hot, cold, never = (mem.remember(t).id for t in ("hot", "cold", "never"))
        with mem.store.transaction():
            for seconds in range(1, 101):  # 100 accesses, 1 s to 100 s ago
                mem.store.record_accesses([hot], to_iso(now - timedelta(seconds=seconds)))
            mem.store.record_accesses([cold], to_iso(now - timedelta(days=2)))
        ages = mem.store.access_ages([hot, cold, never], to_iso(now), 10)
    assert set(ages) == {hot, cold}
    assert [round(a) for a in ages[hot]] == list(range(1, 11))  # the newest ten
    assert round(ages[cold][0]) == 2 * 86400


def test_a_lock_file_that_cannot_be_made_is_a_storage_error(tmp_path: Path) -> None:
    """A task's lock beside the database (the folder gone read-only, or a
    directory where the file would be) is a StorageError naming it; the
    background embedder that takes it keeps running and says why."""
    db = tmp_path / "m.db"
    (tmp_path / "m.db.embedding.lock").mkdir()  # where the lock file would go
    store = SQLiteStore(db)
    try:
        with pytest.raises(StorageError, match=r"m\.db\.embedding\.lock"), store.alone("embedding"):
            pass
    finally:
        store.close()
    with Memory(db, embedder="hashing", background=True) as mem:
        mem.remember("Deploys run on Fridays")
        with pytest.raises(InvalidOperation, match=r"background.*m\.db\.embedding\.lock"):
            mem.wait_for_vectors(timeout=10.0)  # the worker's error, not a traceback
        assert mem.pending_vectors() > 0  # nothing was embedded, nothing lost
