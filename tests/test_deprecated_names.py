"""The flat names of the last release still work, each warning of its new home."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mnemotree import Memory, NotFound
from mnemotree.memory_aliases import MOVED, MOVED_SETTINGS


def test_every_old_name_leads_to_a_real_method(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", llm="offline") as mem:
        for old, (part, new) in MOVED.items():
            assert callable(getattr(getattr(mem, part), new)), old
            assert old not in vars(type(getattr(mem, part))) or old == new
        for old, (part, new) in MOVED_SETTINGS.items():
            assert hasattr(getattr(mem, part), new), old


def test_an_old_method_warns_and_does_the_same(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", llm="offline") as mem:
        old: Any = mem
        with pytest.warns(DeprecationWarning, match=r"Memory.start_session is now Memory.chat"):
            session = old.start_session("team", "Planning")
        assert mem.chat.session(session.id).id == session.id
        warned = pytest.warns(DeprecationWarning, match="Memory.get_contradiction is now")
        with warned, pytest.raises(NotFound, match="no contradiction"):
            old.get_contradiction("nope")
        with pytest.warns(DeprecationWarning, match="Memory.api_keys is now Memory.keys.list"):
            assert old.api_keys() == []


def test_an_old_setting_reads_and_writes_the_part(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", llm="offline") as mem:
        old: Any = mem
        with pytest.warns(DeprecationWarning, match="scan_on_write"):
            old.scan_on_write = False
        assert mem.consolidation.scan_on_write is False
        with pytest.warns(DeprecationWarning, match="half_life_days"):
            assert old.half_life_days == mem.typed.half_life_days
