"""A task given to the assistant is carried out under the user's standing
instructions: they join its hits whatever its words; a question about the
past, or a search narrowed to other things, is searched as ever."""

from __future__ import annotations

from pathlib import Path

from mnemotree import Memory
from mnemotree.retrieval.instructions import INSTRUCTION, is_task


def _chat(db_path: Path) -> tuple[Memory, str]:
    mem = Memory(db_path, embedder="hashing", chat_background=False)
    session = mem.chat.start_session("user:7", title="General")
    said = [
        ("user", "From now on, please put your answers in bullet points."),
        ("assistant", "Understood, bullet points from now on."),
        ("user", "My tent is a two-person Vango and I own a 3-season sleeping bag."),
        ("assistant", "Good kit for spring camping."),
        ("user", "We went to the Brecon Beacons last May and it rained all weekend."),
        ("assistant", "Wales in May can be wet."),
    ]
    for role, text in said:
        mem.chat.add_message(session.id, role, text)
    mem.chat.set_session_status(session.id, "ended")  # capture what is left
    return mem, session.id


def test_a_task_is_given_the_standing_instructions(db_path: Path) -> None:
    mem, _ = _chat(db_path)
    with mem:
        (rule,) = [m.node for m in mem.typed.memories(types=["preference"], scopes=["user:7"])]
        assert "bullet points" in rule.text and "instruction" in rule.tags
        hits = mem.search("What should I pack for a weekend of camping?", scopes=["user:7"])
        joined = [h for h in hits if h.parts.get(INSTRUCTION)]
        assert [h.node.id for h in joined] == [rule.id]
        # After the task's own best matches, never before them.
        assert hits.index(joined[0]) == min(3, len(hits) - 1)
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)


def test_a_question_about_the_past_or_a_narrowed_search_is_searched_as_ever(
    db_path: Path,
) -> None:
    mem, session = _chat(db_path)
    with mem:
        asked = mem.search("Where did we go camping last May?", scopes=["user:7"])
        assert not any(h.parts.get(INSTRUCTION) for h in asked)
        narrowed = mem.search("Plan a camping weekend for me", roots=[session])
        assert not any(h.parts.get(INSTRUCTION) for h in narrowed)
        other = mem.search("Plan a camping weekend for me", scopes=["user:8"])
        assert other == []  # another user's instructions are never joined


def test_what_reads_as_a_task() -> None:
    for task in ("Give me tips for a job interview", "What should I pack?", "can you plan it"):
        assert is_task(task)
    for question in ("How did I ask you to format replies?", "Where did we go in May?"):
        assert not is_task(question)
