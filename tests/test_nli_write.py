"""A user-supplied NLI model judges similar statements as they are written.

The tiny generated model of test_nli reads "no"/"not" as contradiction and
"yes"/"indeed" as entailment: enough to see both ways it weighs in.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemotree import InvalidInput, Memory, ParseError
from tests.helpers import Clock
from tests.test_nli import model_dir


@pytest.fixture
def nli_memory(tmp_path: Path, clock: Clock) -> Memory:
    model = model_dir(tmp_path / "nli")
    return Memory(tmp_path / "m.db", embedder="hashing", clock=clock, nli=model)


def test_a_contradiction_the_rules_miss_is_found_by_the_model(
    nli_memory: Memory, clock: Clock
) -> None:
    with nli_memory as memory:
        old = memory.remember("marco works in berlin")
        clock.advance(days=1)
        new = memory.remember("no nurse works in berlin")
        rows = memory.consolidation.contradictions(status=None)
        assert [(r.a_id, r.b_id, r.kind) for r in rows] == [(old.id, new.id, "nli")]
        assert "reads a contradiction" in rows[0].reason


def test_the_model_overrules_a_rule_when_one_follows_from_the_other(
    nli_memory: Memory, clock: Clock
) -> None:
    with nli_memory as memory:
        memory.remember("Alice lives in Berlin.")
        clock.advance(days=1)
        memory.remember("Indeed Alice moved to Munich.")
        assert memory.consolidation.contradictions(status=None) == []


def test_without_the_model_the_rules_decide(tmp_path: Path, clock: Clock) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", clock=clock) as memory:
        memory.remember("Alice lives in Berlin.")
        clock.advance(days=1)
        memory.remember("Indeed Alice moved to Munich.")
        assert [r.kind for r in memory.consolidation.contradictions(status=None)] == [
            "changed_value"
        ]


def test_a_bad_model_file_fails_before_anything_is_written(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with pytest.raises(InvalidInput, match="no NLI model file"):
        Memory(db, embedder="hashing", nli=tmp_path / "missing.onnx")
    fake = tmp_path / "fake" / "model.onnx"
    fake.parent.mkdir()
    fake.write_text("not a model")
    (fake.parent / "tokenizer.json").write_text("{}")
    with pytest.raises((ParseError, InvalidInput)):
        Memory(db, embedder="hashing", nli=fake)
    assert not db.exists()
