"""With an LLM configured, its verdict settles what the rules read on write:
asked after the write (never under the write lock), cached, and where the
model fails the rules decide. The real local OpenAI-compatible server with
scripted replies; real SQLite."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mnemotree import Memory, Node
from mnemotree.llm import LLMSettings
from mnemotree.llm.openai_compat import OpenAILLM
from tests.helpers import Clock
from tests.openai_server import Reply, Script, openai_server


def verdict(contradicts: bool) -> str:
    return json.dumps({"contradicts": contradicts, "reason": "scripted"})


def llm_at(url: str) -> OpenAILLM:
    return OpenAILLM(LLMSettings("local-judge", base_url=url, retries=0, repairs=0))


@contextmanager
def moved(script: Script, db: Path, clock: Clock) -> Iterator[tuple[Memory, Node, Node]]:
    """A memory judged by the scripted model, where Alice moved a day later."""
    with (
        openai_server(script) as url,
        Memory(db, embedder="hashing", clock=clock, llm=llm_at(url)) as memory,
    ):
        old = memory.remember("Alice lives in Berlin.")
        clock.advance(days=1)
        yield memory, old, memory.remember("Alice moved to Munich.")


def test_a_pair_the_model_calls_compatible_is_settled_as_both_valid(
    db_path: Path, clock: Clock
) -> None:
    script = Script(chat=[verdict(False)])
    with moved(script, db_path, clock) as (memory, old, new):
        (row,) = memory.consolidation.contradictions(status=None)
        assert (row.a_id, row.b_id, row.status, row.resolution) == (
            old.id,
            new.id,
            "resolved",
            "both_valid",
        )
        assert "judged them compatible" in row.note
        assert "valid_to" not in memory.get(old.id).metadata  # nothing superseded
        (asked,) = script.chat_requests()
        assert "Alice lives in Berlin." in json.dumps(asked["messages"])


def test_a_pair_the_model_calls_contradicting_follows_the_rules_verdict(
    db_path: Path, clock: Clock
) -> None:
    with moved(Script(chat=[verdict(True)]), db_path, clock) as (memory, old, new):
        (update,) = memory.consolidation.updates()
        assert (update.a_id, update.b_id) == (old.id, new.id)
        assert "judged a contradiction" in update.note
        assert memory.get(old.id).metadata["valid_to"] == new.created_at


def test_when_the_model_fails_the_rules_decide(db_path: Path, clock: Clock) -> None:
    with moved(Script(chat=[Reply(status=500)]), db_path, clock) as (memory, old, _):
        (update,) = memory.consolidation.updates()
        assert update.a_id == old.id and update.note == ""


def test_facts_of_one_key_need_no_model(db_path: Path, clock: Clock) -> None:
    script = Script(chat=[])
    with (
        openai_server(script) as url,
        Memory(db_path, embedder="hashing", clock=clock, llm=llm_at(url)) as memory,
    ):
        memory.typed.fact("office_city", "Lisbon")
        clock.advance(days=1)
        memory.typed.fact("office_city", "Berlin")
        assert len(memory.consolidation.updates()) == 1
        assert script.chat_requests() == []
