from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemotree import Memory
from tests.helpers import Clock


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


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

    def new_database(self) -> str:
        import psycopg

        name = f"conformance_{next(self._numbers)}"
        with psycopg.connect(self._uri, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        head, _, query = self._uri.partition("?")
        return f"{head.rsplit('/', 1)[0]}/{name}?{query}"

    def close(self) -> None:
        self._server.cleanup()


@pytest.fixture(scope="session")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresServer]:
    server = PostgresServer(tmp_path_factory.mktemp("postgres"))
    try:
        yield server
    finally:
        server.close()
