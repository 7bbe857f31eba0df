"""The LLM protocol: what summaries, capture and judgement ask of a model.

An LLM improves summaries and extraction but is never required: callers hold
an `LLM | None` and take the offline path when it is None or fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

# role and content, and where the API has them: name, tool_calls, tool_call_id.
ChatMessage = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Completion:
    """A reply: its text, the parsed JSON when a schema was asked for, and how
    many requests it took (retries and repairs included)."""

    text: str
    data: Any = None
    attempts: int = 1


@runtime_checkable
class LLM(Protocol):
    """Chat completion. With `json_schema`, the reply is JSON valid against it
    (or a ProviderError says why not)."""

    @property
    def identity(self) -> str: ...

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion: ...
