from __future__ import annotations

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
