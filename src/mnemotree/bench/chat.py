"""Chat benchmark: `add_message` latency through long sessions with upkeep
(summaries and capture) on its background thread, the offline summary of a
10-message chunk, and the offline capture of 20 messages.

Conversations are generated (small talk mixed with facts, decisions, plans
and preferences about people, places and dates), or read from a LoCoMo file
given with `--data` (evaluation only; its turns are used as they are).
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..conversation.extractive import Said
from ..conversation.summarize import ExtractiveSummarizer
from ..memory import Memory
from .stats import percentiles

_NAMES = ["Ana", "Bruno", "Carla", "Diego", "Elena", "Farid", "Greta", "Hugo", "Iris", "Jonas"]
_PLACES = ["Lisbon", "Porto", "Berlin", "Oslo", "Kyoto", "Austin", "Lyon", "Quito", "Accra"]
_THINGS = [
    "PostgreSQL",
    "the billing service",
    "the mobile app",
    "our API",
    "the dashboard",
    "the data pipeline",
    "the onboarding flow",
    "the search page",
]
_MONTHS = ["January", "March", "May", "July", "September", "November"]
_TEMPLATES = [
    "Hi! How was your weekend?",
    "Pretty good, thanks for asking.",
    "Haha, that is funny.",
    "Sounds great, tell me more about it.",
    "ok, makes sense",
    "I see what you mean.",
    "We decided to use {thing} for the next release.",
    "I prefer working on {thing} in the morning, honestly.",
    "My friend {name} moved to {place} last {month}.",
    "{name} is starting a new job in {place} in {month}.",
    "The deadline for {thing} is the 14th of {month}.",
    "We must not change {thing} before the audit.",
    "Our goal is to ship {thing} by {month}.",
    "Maybe we should ask {name} about {thing}?",
    "I went hiking near {place} with {name}; the views were amazing.",
    "I love the food in {place}, especially the street markets.",
    "Remember that {name} is allergic to peanuts.",
    "Let's meet {name} at the office on Tuesday to review {thing}.",
]


def generated(turns: int, seed: int) -> list[tuple[str, str]]:
    """(role, text) pairs of a synthetic conversation."""
    rng = random.Random(seed)
    out = []
    for i in range(turns):
        text = rng.choice(_TEMPLATES).format(
            name=rng.choice(_NAMES),
            place=rng.choice(_PLACES),
            thing=rng.choice(_THINGS),
            month=rng.choice(_MONTHS),
        )
        out.append((("user", "assistant")[i % 2], text))
    return out


def locomo_turns(path: Path) -> list[list[tuple[str, str]]]:
    """Each LoCoMo conversation's turns in order, as (speaker, text)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for sample in data:
        talk = sample["conversation"]
        keys = [k for k in talk if k.startswith("session_") and not k.endswith("date_time")]
        keys.sort(key=lambda k: int(k.split("_")[1]))
        out.append([(t["speaker"], t["text"]) for k in keys for t in talk[k] if t["text"]])
    return out


def _role(who: str) -> tuple[str, str | None]:
    """A generated turn's role, or a LoCoMo speaker as a named user."""
    return (who, None) if who in ("user", "assistant") else ("user", who)


def _conversations(data: Path | None, sessions: int, turns: int) -> list[list[tuple[str, str]]]:
    if data is None:
        return [generated(turns, seed) for seed in range(sessions)]
    found = [c[:turns] for c in locomo_turns(data)]
    return [c for c in found if c][:sessions]


def run(
    data: Path | None = None,
    sessions: int = 4,
    turns: int = 250,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    conversations = _conversations(data, sessions, turns)
    with tempfile.TemporaryDirectory() as tmp:
        adds, upkeep = _adds(Path(tmp) / "chat.db", conversations, progress)
        summaries = _summaries(conversations)
        progress("summaries timed; timing capture…")
        captures, found = _captures(Path(tmp) / "capture.db", conversations)
    return {
        "source": str(data) if data else "generated",
        "sessions": len(conversations),
        "turns_per_session": max(len(c) for c in conversations),
        "add_message_ms": percentiles(adds),
        "upkeep_after_last_message_ms": round(statistics.fmean(upkeep), 1),
        "offline_summary_10_messages_ms": percentiles(summaries),
        "offline_capture_20_messages_ms": percentiles(captures),
        "capture_candidates_per_20_messages": round(statistics.fmean(found), 2),
    }


def _adds(
    path: Path, conversations: list[list[tuple[str, str]]], progress: Callable[[str], None]
) -> tuple[list[float], list[float]]:
    """add_message with the default background upkeep (capture on)."""
    adds: list[float] = []
    upkeep: list[float] = []
    with Memory(path, llm="offline") as memory:
        for n, talk in enumerate(conversations, 1):
            session = memory.chat.start_session(f"user:{n}")
            for who, text in talk:
                role, name = _role(who)
                started = time.perf_counter()
                memory.chat.add_message(session.id, role, text, name=name)
                adds.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            memory.chat.wait_for_chat()
            upkeep.append((time.perf_counter() - started) * 1000)
            progress(f"session {n}: {len(talk)} messages added")
        if memory.chat_errors:
            raise RuntimeError(f"chat upkeep failed: {memory.chat_errors[0]}")
    return adds, upkeep


def _summaries(conversations: list[list[tuple[str, str]]]) -> list[float]:
    summarizer = ExtractiveSummarizer()
    timed = []
    for talk in conversations:
        for start in range(0, len(talk) - 9, 10):
            chunk = [Said(who, text) for who, text in talk[start : start + 10]]
            started = time.perf_counter()
            summarizer.summarize(chunk)
            timed.append((time.perf_counter() - started) * 1000)
    return timed


def _captures(
    path: Path, conversations: list[list[tuple[str, str]]]
) -> tuple[list[float], list[int]]:
    """Memory.chat.capture over 20 new messages at a time (automatic capture off),
    into a memory that keeps what earlier captures found."""
    timed: list[float] = []
    found: list[int] = []
    with Memory(path, llm="offline", chat_background=False) as memory:
        for n, talk in enumerate(conversations, 1):
            session = memory.chat.start_session(f"user:{n}", max_recent=10_000, chunk_size=10)
            for start in range(0, len(talk) - 19, 20):
                for who, text in talk[start : start + 20]:
                    role, name = _role(who)
                    memory.chat.add_message(session.id, role, text, name=name)
                started = time.perf_counter()
                report = memory.chat.capture(session.id)
                timed.append((time.perf_counter() - started) * 1000)
                found.append(report.found)
    return timed, found
