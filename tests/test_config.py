"""One precedence for every setting: code, else the environment, else the default."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemotree import Memory
from mnemotree.config import default_db_path


def test_the_embedder_comes_from_code_else_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MNEMOTREE_EMBEDDER", "hashing")
    with Memory(tmp_path / "a.db") as mem:
        assert mem.retriever.embedder.identity.startswith("hashing")
    monkeypatch.setenv("MNEMOTREE_EMBEDDER", "no-such-embedder")
    with Memory(tmp_path / "b.db", embedder="hashing") as mem:  # code wins
        assert mem.retriever.embedder.identity.startswith("hashing")


def test_the_llm_comes_from_code_else_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MNEMOTREE_LLM_MODEL", "some-model")
    monkeypatch.setenv("MNEMOTREE_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MNEMOTREE_LLM", "offline")  # the environment says: no model
    with Memory(tmp_path / "a.db", embedder="hashing") as mem:
        assert mem.llm is None
    monkeypatch.delenv("MNEMOTREE_LLM")
    with Memory(tmp_path / "b.db", embedder="hashing") as mem:  # the default: configured
        assert mem.llm is not None
    with Memory(tmp_path / "c.db", embedder="hashing", llm="offline") as mem:  # code wins
        assert mem.llm is None


def test_the_database_comes_from_code_else_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MNEMOTREE_DB", str(tmp_path / "env.db"))
    assert default_db_path() == tmp_path / "env.db"
    with Memory(embedder="hashing") as mem:
        assert mem.path == tmp_path / "env.db"
    with Memory(tmp_path / "code.db", embedder="hashing") as mem:
        assert mem.path == tmp_path / "code.db"
    monkeypatch.setenv("MNEMOTREE_DB", "  ")  # blank is unset
    assert default_db_path().name == "memory.db"
