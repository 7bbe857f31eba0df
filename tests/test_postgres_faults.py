"""Bad input and faults on Postgres: an unreachable server, an unknown role,
a database without pgvector, a schema newer than the code, a connection cut
mid-transaction, two processes migrating one new database at once. Each is a
clear error (never a traceback) and leaves no partial data."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from mnemotree import Memory
from mnemotree.errors import SchemaError, StorageError
from mnemotree.store.postgres import PostgresStore
from mnemotree.store.postgres.migrations import SCHEMA_VERSION
from tests.cli_runner import run_cli
from tests.conftest import PostgresServer


def _cli(uri: str, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(uri, *args, embedder="hashing")


def _as_role(postgres: PostgresServer, role: str, database: str) -> str:
    query = postgres.new_database().partition("?")[2]
    return f"postgresql://{role}@/{database}?{query}"


def test_an_unreachable_server_is_named_without_its_password() -> None:
    uri = "postgresql://alice:s3cret@127.0.0.1:9/memories"
    with pytest.raises(StorageError) as caught:
        Memory(uri, embedder="hashing", llm="offline")
    assert "127.0.0.1" in caught.value.message and "refused" in caught.value.message
    assert "s3cret" not in caught.value.message
    shown = _cli(uri, "search", "tea")
    assert shown.returncode != 0 and "Traceback" not in shown.stderr
    assert "cannot open Postgres at postgresql://alice@127.0.0.1:9/memories" in shown.stderr


def test_an_unknown_role_is_a_clear_error(postgres: PostgresServer) -> None:
    uri = _as_role(postgres, "nobody", "postgres")
    with pytest.raises(StorageError, match='role "nobody" does not exist'):
        PostgresStore(uri)


def test_a_database_without_pgvector_names_the_fix(postgres: PostgresServer) -> None:
    """A role that may not create the extension is told who may, and how;
    nothing of the schema is left behind."""
    admin = postgres.new_database()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("CREATE ROLE plain LOGIN")
        conn.execute("CREATE DATABASE plain_db OWNER plain")
    uri = _as_role(postgres, "plain", "plain_db")
    with pytest.raises(SchemaError, match=r"ask a superuser to run `CREATE EXTENSION vector;`"):
        PostgresStore(uri)
    shown = _cli(uri, "search", "tea")
    assert shown.returncode != 0 and "Traceback" not in shown.stderr
    assert "CREATE EXTENSION vector" in shown.stderr
    with psycopg.connect(uri) as conn:
        tables = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()
    assert tables == (0,)  # all or nothing: the migrations rolled back


def test_a_schema_newer_than_the_code_is_refused(postgres: PostgresServer) -> None:
    uri = postgres.new_database()
    PostgresStore(uri).close()
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_migrations (name) VALUES ('9999_from_the_future')")
    with pytest.raises(SchemaError, match=r"9999_from_the_future.*upgrade mnemotree"):
        PostgresStore(uri)
    shown = _cli(uri, "search", "tea")
    assert shown.returncode != 0 and "Traceback" not in shown.stderr
    assert "upgrade mnemotree" in shown.stderr


def test_a_connection_cut_mid_transaction_leaves_nothing_half_written(
    postgres: PostgresServer,
) -> None:
    uri = postgres.new_database()
    with Memory(uri, embedder="hashing", llm="offline") as mem:
        root = mem.add("Log", scope="ops")
        with pytest.raises(StorageError), mem.store.transaction():
            mem.append_child(root.id, "first of two")
            ((pid,),) = mem.store._db.execute("SELECT pg_backend_pid()")  # type: ignore[attr-defined]
            with psycopg.connect(uri, autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            mem.append_child(root.id, "second of two")
        assert [n.text for n in mem.children(root.id)] == []  # neither was kept
        mem.append_child(root.id, "after the cut")  # a new connection serves writes
        assert [n.text for n in mem.children(root.id)] == ["after the cut"]


def test_a_read_on_a_connection_the_server_dropped_is_asked_again(
    postgres: PostgresServer,
) -> None:
    uri = postgres.new_database()
    with Memory(uri, embedder="hashing", llm="offline") as mem:
        mem.remember("Backups are kept thirty days", scope="ops")
        with psycopg.connect(uri, autocommit=True) as admin:  # every idle pooled connection
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid != pg_backend_pid()"
            )
        hits = mem.search("backups", scopes=["ops"], record=False)
        assert [h.node.text for h in hits] == ["Backups are kept thirty days"]


def test_two_processes_migrating_one_new_database_take_turns(postgres: PostgresServer) -> None:
    uri = postgres.new_database()
    with ThreadPoolExecutor(4) as pool:
        stores = list(pool.map(lambda _: PostgresStore(uri), range(4)))
    try:
        assert {s.schema_version for s in stores} == {SCHEMA_VERSION}
        with psycopg.connect(uri) as conn:
            (count,) = conn.execute("SELECT count(*) FROM schema_migrations").fetchone()  # type: ignore[misc]
        assert count == SCHEMA_VERSION  # each migration applied once
    finally:
        for store in stores:
            store.close()
