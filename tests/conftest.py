from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemotree import Memory


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
