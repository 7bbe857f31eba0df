"""Summarisers of message chunks: the extractive one (offline, the default)
and one that asks an LLM and falls back to the extractive one when it fails."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..errors import MnemotreeError, ProviderError
from ..llm import LLM
from .extract import extract
from .extractive import Said, key_topics, shown, summarize

log = logging.getLogger(__name__)
# A chunk is ~10 messages; a longer transcript is cut (its start summarises it).
MAX_PROMPT_CHARS = 60_000

SUMMARY_SCHEMA = {
    "type": "object",
    "properties": {
        "summary": {"type": "string", "minLength": 1},
        "topics": {"type": "array", "items": {"type": "string"}, "maxItems": 8},
    },
    "required": ["summary", "topics"],
}


@dataclass(frozen=True, slots=True)
class Summary:
    text: str
    topics: list[str]
    by: str  # "extractive", or the LLM's identity


class Summarizer(Protocol):
    def summarize(self, messages: Sequence[Said]) -> Summary: ...


class ExtractiveSummarizer:
    """No model: the chunk's own sentences that cover its key terms."""

    def summarize(self, messages: Sequence[Said]) -> Summary:
        # What replies settle ("deal", "yeah ok. Tracewell") is said whole by
        # no sentence: the summary is offered it as capture reads it.
        settled = [(c.message, c.text) for c in extract(messages) if c.settled]
        text = summarize(messages, settled=settled) or " ".join(shown(m) for m in messages[:2])
        return Summary(text, key_topics(messages), "extractive")


class LLMSummarizer:
    """Asks the model for a summary and topics; on failure, the extractive one."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm
        self.fallback = ExtractiveSummarizer()
        self.failures = 0

    def summarize(self, messages: Sequence[Said]) -> Summary:
        transcript = "\n".join(f"{m.speaker}: {m.text}" for m in messages)
        ask = [
            {
                "role": "system",
                "content": "Summarise this part of a conversation in two or three sentences "
                "that keep names, decisions, dates and numbers, and list its key topics.",
            },
            {"role": "user", "content": transcript[:MAX_PROMPT_CHARS]},
        ]
        try:
            data = self.llm.complete(ask, json_schema=SUMMARY_SCHEMA, temperature=0.2).data
            if not data["summary"].strip():
                raise ProviderError(f"{self.llm.identity} returned a blank summary", "")
        except MnemotreeError as exc:  # the model failed, or its package is missing
            self.failures += 1
            log.warning("summarising offline: %s", exc)
            return self.fallback.summarize(messages)
        topics = [str(t).strip() for t in data["topics"] if str(t).strip()]
        return Summary(data["summary"].strip(), topics, self.llm.identity)
