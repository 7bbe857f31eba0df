"""One precedence for every setting: code, else the environment, else the default."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemotree import InvalidInput, Memory
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


@pytest.mark.parametrize(
    "location",
    [
        "postgresql:/postgres@/app?host=/tmp",  # one slash: a typo
        Path("postgresql://postgres@localhost/app"),  # a Path folds the two slashes
        "mysql://root@localhost/app",
        "sqlite:///tmp/x.db",
    ],
)
def test_an_address_of_no_known_store_is_refused_not_made_a_file(
    location: str | Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidInput, match="postgresql://user@host/dbname") as refused:
        Memory(location, embedder="hashing")
    assert refused.value.value == str(location)
    assert list(tmp_path.iterdir()) == []  # no SQLite file named like the address


def test_a_file_name_with_a_colon_is_still_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with Memory("notes:2026.db", embedder="hashing") as mem:
        mem.remember("kept")
    assert (tmp_path / "notes:2026.db").exists()
