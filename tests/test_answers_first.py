"""A statement that answers a question ranks above the chat message that
only asks it: the question shares the query's words, the statement holds
what is asked. Unless the query is about what the asker said."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemotree import Memory
from mnemotree.retrieval.evidence import asks


@pytest.mark.parametrize(
    ("text", "only_asks"),
    [
        ("When did you go to Lisbon?", True),
        ("Wait, really? When was that? 😮", True),
        ("We went in May. How about you?", False),
        ("In May, with my sister.", False),
        ("Can you always answer me in bullet points?", False),  # an instruction
        ("", False),
    ],
)
def test_a_message_that_only_asks(text: str, only_asks: bool) -> None:
    assert asks(text) is only_asks


def test_a_statement_that_answers_outranks_the_question_that_asks_it(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", chat_background=False) as mem:
        fact = mem.remember("The invoice export deadline is the 3rd of May.", scope="me")
        session = mem.chat.start_session("me", max_recent=50)
        asked = mem.chat.add_message(
            session.id, "user", "When is the invoice export deadline again?", name="Ana"
        )
        hits = mem.search("invoice export deadline", scopes=["me"])
        ids = [h.node.id for h in hits]
    assert ids.index(fact.id) < ids.index(asked.id)


def test_when_the_query_is_about_what_the_asker_said_the_question_stays(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", chat_background=False) as mem:
        session = mem.chat.start_session("me", max_recent=50)
        mem.chat.add_message(session.id, "user", "Which Lisbon museums are open on Mondays?")
        mem.chat.add_message(session.id, "assistant", "Most close then; Gulbenkian is shut too.")
        hits = mem.search("what did I ask about Lisbon museums", scopes=["me"])
    assert hits[0].node.text == "Which Lisbon museums are open on Mondays?"
