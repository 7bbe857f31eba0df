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
import logging
from collections.abc import Sequence
from typing import Protocol

from ..errors import MnemotreeError
from ..llm import LLM
from .cues import Candidate
from .extract import extract
from .extractive import Said

log = logging.getLogger(__name__)

PROMOTE_AT = 0.7
MAX_PROMPT_CHARS = 60_000  # of messages per request; more go in further requests
KINDS = ("fact", "decision", "preference", "constraint", "goal", "entity", "procedure")
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
        numbered = "\n".join(f"[{i}] {m.speaker}: {m.text}" for i, m in enumerate(messages))
        ask = [
            {
                "role": "system",
                "content": "From this conversation, list what is worth remembering long "
                "term: facts about people, places and dates, preferences, decisions, "
                "constraints, goals and action items. Each item is one self-contained "
                "sentence naming who it is about, with the number of the message it "
                "comes from and your confidence. Small talk is not worth remembering: "
                "if nothing is, return an empty list.",
            },
            # One message longer than the limit is cut (it is the whole batch).
            {"role": "user", "content": numbered[: 2 * MAX_PROMPT_CHARS]},
        ]
        try:
            reply = self.llm.complete(ask, json_schema=CANDIDATES_SCHEMA, temperature=0.0)
        except MnemotreeError as exc:  # the model failed, or its package is missing
            log.warning("capturing with patterns: %s", exc)
            return self.fallback.extract(messages)
        out = []
        for item in reply.data["memories"]:
            text = item["text"].strip()
            if not text:  # a blank item is nothing to remember
                continue
            index = min(int(item["message"]), len(messages) - 1)
            speaker = messages[index].speaker
            out.append(Candidate(text, item["type"], float(item["confidence"]), index, speaker))
        return out
