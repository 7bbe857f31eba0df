"""Long-chat retrieval: generated user-assistant chats (longchat_gen) written
into a fresh Memory, then every question searched in its own chat.

Each chat is one scope; each session goes through the public chat facade
(`start_session`, `add_message` with the clock at the message's time, then
`set_session_status(..., "ended")`), with the default offline configuration:
MiniLM unless another embedder is asked for, the offline LLM (extractive
summaries, rule-based capture of facts and preferences into typed memories).
Upkeep runs inside `add_message` rather than on its thread, so two runs
store the same memory.

Questions are asked a day after the chat's last session. The default search
is `search(question, scopes=[chat], limit=20, record=False)`; its ranking
is read as messages: a summary's covered hits count in its place, and a
typed memory captured from a message counts as that message (it is the
engine's own copy of the statement). Each question is timed with its vector
computed anew, as the baselines' are (the engine caches query vectors, and
the generator asks some questions in several chats). Three baselines
(retrieval_eval) run on the same messages: FTS5 over "[date] role: text",
cosine over "role: text" (what the engine embeds for a message), and their
fusion.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..memory import Memory
from ..retrieval.hits import Hit
from .longchat_gen import MONTHS, Chat, generate
from .retrieval_eval import DEPTH, OVERALL, Baselines, Evaluation, Item


def load(memory: Memory, clock: list[datetime], chat: Chat) -> dict[str, str]:
    """Write one chat's sessions; returns {node id: message id}."""
    scope = scope_of(chat)
    message_of: dict[str, str] = {}
    for number, session in enumerate(chat.sessions, 1):
        clock[0] = session.messages[0].time
        node = memory.chat.start_session(scope, f"Session {number}")
        for message in session.messages:
            clock[0] = message.time
            added = memory.chat.add_message(node.id, message.role, message.text)
            message_of[added.id] = message.id
        memory.chat.set_session_status(node.id, "ended")
    return message_of


def scope_of(chat: Chat) -> str:
    return f"longchat:{chat.id}"


def ranked_messages(hits: list[Hit], message_of: dict[str, str]) -> list[str]:
    """The messages a search returned, in order (see the module docstring)."""
    out: list[str] = []
    for hit in (h for top in hits for h in (top, *top.covered)):
        if hit.node.id in message_of:
            out.append(message_of[hit.node.id])
            continue
        sources = hit.node.metadata.get("source_messages")
        if isinstance(sources, list):
            out += [message_of[s] for s in sources if isinstance(s, str) and s in message_of]
    return out


def items(chat: Chat) -> list[Item]:
    """The chat's messages as the baselines see them."""
    out = []
    for message in chat.messages:
        when = message.time
        said = f"{message.role}: {message.text}"
        out.append(
            Item(message.id, f"[{when.day} {MONTHS[when.month - 1]} {when.year}] {said}", said)
        )
    return out


def evaluate(
    memory: Memory,
    clock: list[datetime],
    chats: list[Chat],
    loaded: dict[str, dict[str, str]],
    progress: Callable[[str], None] = lambda _: None,
) -> Evaluation:
    """The default search and the three baselines on every question."""
    evaluation = Evaluation()
    embedder = memory.retriever.embedder
    for chat in chats:
        clock[0] = chat.asked_at
        with Baselines(items(chat), embedder) as baselines:
            for q in chat.questions:
                groups = (q.ability, OVERALL)
                # The generator asks some questions in several chats; the
                # baselines embed every question, so the engine does too.
                memory.retriever.forget_query_vectors()
                started = time.perf_counter()
                hits = memory.search(q.text, scopes=[scope_of(chat)], limit=DEPTH, record=False)
                ms = (time.perf_counter() - started) * 1000
                ranked = ranked_messages(hits, loaded[chat.id])
                evaluation.add("default", ranked, q.evidence, groups, ms)
                for name, found in baselines.all(q.text).items():
                    evaluation.add(name, found.ids, q.evidence, groups, found.ms)
        progress(f"{chat.id}: {len(chat.questions)} questions searched")
    return evaluation


def run(
    db_path: Path,
    split: str = "dev",
    chats: int = 20,
    seed: int = 0,
    embedder: str = "minilm",
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    collection = generate(split, chats, seed)
    clock = [datetime(2023, 1, 1, tzinfo=timezone.utc)]
    with Memory(
        db_path, clock=lambda: clock[0], embedder=embedder, llm="offline", chat_background=False
    ) as memory:
        started = time.perf_counter()
        loaded = {}
        for chat in collection:
            loaded[chat.id] = load(memory, clock, chat)
            progress(f"{chat.id}: {len(loaded[chat.id])} messages written")
        load_s = time.perf_counter() - started
        started = time.perf_counter()
        embedded = memory.flush()
        embed_s = time.perf_counter() - started
        progress(f"embedded {embedded} memories in {embed_s:.1f} s; searching…")
        report = evaluate(memory, clock, collection, loaded, progress).report("by_ability")
    return {
        "split": split,
        "seed": seed,
        "chats": len(collection),
        "messages": sum(len(c.messages) for c in collection),
        "questions": sum(len(c.questions) for c in collection),
        "embedder": embedder,
        **report,
        "default_beats_every_baseline": report["comparison"]["default_beats_every_baseline"],
        "load_s": round(load_s, 2),
        "embed_s": round(embed_s, 2),
        "memories": embedded,
    }
