"""Capture (seeds 002 §3.3, 003): memories worth keeping, found in a chat window.

The offline extractor is cue patterns (`extract.py`); an LLM extractor asks
the model for the same candidates as JSON and falls back to the patterns if
the model fails. Candidates that long-term memory already holds are skipped
by the caller; those at or above `PROMOTE_AT` become typed memories at once,
the rest wait for `promote(id)`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from ..errors import ProviderError
from ..llm import LLM
from .extract import Candidate, extract
from .extractive import Said

log = logging.getLogger(__name__)

PROMOTE_AT = 0.7
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
    """No model: seed 003's cue patterns, extended."""

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
            {"role": "user", "content": numbered[:60_000]},
        ]
        try:
            reply = self.llm.complete(ask, json_schema=CANDIDATES_SCHEMA, temperature=0.0)
        except ProviderError as exc:
            log.warning("capturing with patterns: %s", exc)
            return self.fallback.extract(messages)
        out = []
        for item in reply.data["memories"]:
            index = min(int(item["message"]), len(messages) - 1)
            out.append(
                Candidate(item["text"].strip(), item["type"], float(item["confidence"]), index)
            )
        return out
