"""Capture (the documents-and-chat and tiered-memory designs): memories worth
keeping, found in a chat window.

The offline extractor reads each sentence's mood and kind (`extract.py`);
an LLM extractor asks the model for the same candidates as JSON and falls
back to the offline one if the model fails. Candidates that long-term
memory already holds are skipped by the caller; those at or above
`PROMOTE_AT` become typed memories at once, the rest wait for `promote(id)`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from datetime import date
from typing import Any, Protocol

from ..errors import MnemotreeError
from ..llm import LLM
from .cues import Candidate, novel
from .extract import extract
from .extractive import Said

log = logging.getLogger(__name__)

PROMOTE_AT = 0.7
CACHED_REPLIES = 64  # windows whose model items are kept (a window is ~20 messages)
MAX_PROMPT_CHARS = 60_000  # of messages per request; more go in further requests
KINDS = ("fact", "decision", "preference", "constraint", "goal", "action", "entity", "procedure")
CANDIDATES_SCHEMA = {
    "type": "object",
    "properties": {
        "memories": {
            "type": "array",
            "maxItems": 30,
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "minLength": 1},
                    "type": {"enum": list(KINDS)},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    "message": {"type": "integer", "minimum": 0},
                    "owner": {"type": "string"},
                    "due": {"type": "string"},
                },
                "required": ["text", "type", "confidence", "message"],
            },
        }
    },
    "required": ["memories"],
}


class Extractor(Protocol):
    def extract(self, messages: Sequence[Said]) -> list[Candidate]: ...


class PatternExtractor:
    """No model: each sentence's mood and kind read from its words."""

    by = "patterns"

    def extract(self, messages: Sequence[Said]) -> list[Candidate]:
        return extract(messages)


class LLMExtractor:
    """The model lists facts, preferences, decisions and action items; on
    failure, the patterns do."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm
        self.by = llm.identity
        self.fallback = PatternExtractor()
        # The model's items for a window it has read, by the request's hash:
        # a capture retried after a failed write, or redone by another
        # process's race, asks nothing twice. Held in this process only, so
        # nothing of an erased message outlives it on disk.
        self._replies: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def extract(self, messages: Sequence[Said]) -> list[Candidate]:
        """Batches of messages that fit the prompt, so no message goes unread."""
        out: list[Candidate] = []
        start = 0
        while start < len(messages):
            end, size = start, 0
            while end < len(messages) and (end == start or size < MAX_PROMPT_CHARS):
                size += len(messages[end].text) + len(messages[end].speaker) + 8
                end += 1
            found = self._extract(messages[start:end])
            out += [dataclasses.replace(c, message=c.message + start) for c in found]
            start = end
        return out

    def _extract(self, messages: Sequence[Said]) -> list[Candidate]:
        numbered = "\n".join(
            f"[{i}] {m.day.isoformat() + ' ' if m.day else ''}{m.speaker}: {m.text}"
            for i, m in enumerate(messages)
        )
        ask = [
            {
                "role": "system",
                "content": "From this conversation, list what is worth remembering long "
                "term: facts about people, places, dates and numbers, preferences, "
                "decisions (deferrals included), constraints, goals and action items. "
                "Each item is one self-contained sentence naming who it is about (no "
                "'I' or 'we': the speaker's name, the team), with the number of the "
                "message it comes from and your confidence. An action item (type "
                "'action') names its owner and its due date as YYYY-MM-DD if one was "
                "said (each message starts with the day it was said). Questions, "
                "hedges, hypotheticals, rumours, jokes, pasted logs and small talk are "
                "not worth remembering: if nothing is, return an empty list.",
            },
            # One message longer than the limit is cut (it is the whole batch).
            {"role": "user", "content": numbered[: 2 * MAX_PROMPT_CHARS]},
        ]
        try:
            items = self._ask(ask)
        except MnemotreeError as exc:  # the model failed, or its package is missing
            log.warning("capturing with patterns: %s", exc)
            return self.fallback.extract(messages)
        out: list[Candidate] = []
        failed: set[int] = set()  # messages whose items the offline reading replaces
        for item in items:
            index = min(int(item["message"]), len(messages) - 1)
            candidate = _candidate(item, index, messages[index].speaker)
            if candidate is None:
                failed.add(index)
            else:
                out.append(candidate)
        if failed:
            log.warning(
                "capturing %d messages offline: the model's items were malformed", len(failed)
            )
            # An item may sit on the message that completes it ("sure, will
            # do"), the offline reading on the one that asked: neighbours count.
            near = {i + d for i in failed for d in (-1, 0, 1)}
            offline = [c for c in self.fallback.extract(messages) if c.message in near]
            out += novel(offline, [c.text for c in out])
        return out

    def _ask(self, ask: list[dict[str, str]]) -> list[dict[str, Any]]:
        """The model's items for this request, asked once while it is remembered."""
        key = hashlib.sha256(json.dumps([self.by, ask], sort_keys=True).encode()).hexdigest()
        with self._lock:
            if key in self._replies:
                self._replies.move_to_end(key)
                return self._replies[key]
        reply = self.llm.complete(ask, json_schema=CANDIDATES_SCHEMA, temperature=0.0)
        items: list[dict[str, Any]] = list(reply.data["memories"])
        with self._lock:
            self._replies[key] = items
            while len(self._replies) > CACHED_REPLIES:
                self._replies.popitem(last=False)
        return items


def _candidate(item: dict[str, Any], index: int, speaker: str) -> Candidate | None:
    """A model's item as a candidate, or None where it breaks what the schema
    cannot say: an action without an owner, a due date that is no date."""
    text = item["text"].strip()
    kind = item["type"]
    owner = str(item.get("owner") or "").strip()
    due = str(item.get("due") or "").strip()
    if not text or (kind == "action" and not owner):
        return None
    if due:
        try:
            due = date.fromisoformat(due).isoformat()
        except ValueError:
            return None
    if kind != "action":
        owner = due = ""
    return Candidate(text, kind, float(item["confidence"]), index, speaker, owner, due)
