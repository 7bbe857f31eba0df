from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemotree import Memory
from mnemotree.config import ENV_CACHE
from tests.helpers import Clock


def pytest_configure(config: pytest.Config) -> None:
    """Caches the engine keeps between processes (the query graph) go to a
    folder of the test session's, never the user's."""
    os.environ.setdefault(ENV_CACHE, tempfile.mkdtemp(prefix="mnemotree-test-cache-"))


@pytest.fixture
def store_kind(request: pytest.FixtureRequest) -> str:
    """The store the memory fixtures open: SQLite, and Postgres as well in
    modules marked `both_stores`."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture
def db_path(store_kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """Where the memory fixtures open their memory: a SQLite file, or (as
    `Path | str` in truth) the address of a new Postgres database."""
    if store_kind == "postgres":
        server: PostgresServer = request.getfixturevalue("postgres")
        return server.new_database(migrated=True)  # type: ignore[return-value]
    return tmp_path / "memory.db"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests of a module marked `both_stores` that open a memory through the
    fixtures run on SQLite and on Postgres."""
    marked = metafunc.definition.get_closest_marker
    if (
        marked("both_stores")
        and not marked("sqlite_only")
        and "store_kind" in metafunc.fixturenames
    ):
        metafunc.parametrize("store_kind", ["sqlite", "postgres"], indirect=True)


@pytest.fixture
def mem(db_path: Path) -> Iterator[Memory]:
    with Memory(db_path) as memory:
        yield memory


@pytest.fixture
def memory(db_path: Path) -> Iterator[Memory]:
    """A memory with the hashing embedder: offline, fast, deterministic."""
    with Memory(db_path, embedder="hashing") as m:
        yield m


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def cmem(db_path: Path, clock: Clock) -> Iterator[Memory]:
    """A hashing-embedder memory on a hand-moved clock."""
    with Memory(db_path, embedder="hashing", clock=clock) as m:
        yield m


@pytest.fixture
def chat(db_path: Path, clock: Clock) -> Iterator[Memory]:
    """Summaries inside add_message, offline: deterministic chat sessions."""
    with Memory(
        db_path, embedder="hashing", clock=clock, llm="offline", chat_background=False
    ) as m:
        yield m


class PostgresServer:
    """One Postgres server for the session (pgserver), a new database per test."""

    def __init__(self, folder: Path) -> None:
        import pgserver

        self._server = pgserver.get_server(folder, cleanup_mode="stop")  # type: ignore[attr-defined]
        self._uri = self._server.get_uri()
        self._numbers = itertools.count()
        self._migrated = ""  # the template database, once made

    def new_database(self, *, migrated: bool = False) -> str:
        """An empty database, or (`migrated`) one with the schema made: a copy
        of a template migrated once, many times faster than migrating."""
        import psycopg

        template = f' TEMPLATE "{self._template()}"' if migrated else ""
        name = f"conformance_{next(self._numbers)}"
        with psycopg.connect(self._uri, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"{template}')
        return self._address(name)

    def _address(self, name: str) -> str:
        head, _, query = self._uri.partition("?")
        return f"{head.rsplit('/', 1)[0]}/{name}?{query}"

    def _template(self) -> str:
        if not self._migrated:
            from mnemotree.store.postgres import PostgresStore

            uri = self.new_database()
            PostgresStore(uri).close()
            self._migrated = f"conformance_{int(uri.partition('?')[0].rsplit('_', 1)[1])}"
        return self._migrated

    def close(self) -> None:
        self._server.cleanup()


@pytest.fixture(scope="session")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresServer]:
    server = PostgresServer(tmp_path_factory.mktemp("postgres"))
    try:
        yield server
    finally:
        server.close()
