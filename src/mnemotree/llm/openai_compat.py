"""Chat completions from any OpenAI-compatible endpoint, with retries and JSON repair.

Used only when configured. Failures that may pass (timeouts, dropped
connections, 429, 5xx) are retried with exponential back-off; a reply that is
not the JSON asked for is sent back once with the problems named (local
models often get it right the second time); what still fails is a
ProviderError naming the endpoint, so callers can take the offline path.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlparse

from ..errors import InvalidInput, MissingExtra, ProviderError
from ..telemetry import operation
from .jsonout import extract_json, validate
from .protocol import ChatMessage, Completion
from .settings import LLMSettings

ROLES = frozenset({"system", "user", "assistant", "tool"})


class OpenAILLM:
    """`identity` is `openai:<model>@<host>`."""

    def __init__(
        self, settings: LLMSettings, *, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self.settings = settings
        self._sleep = sleep
        self._client: Any = None
        self._lock = threading.Lock()
        parsed = urlparse(settings.base_url) if settings.base_url else None
        host = f"{parsed.netloc}{parsed.path.rstrip('/')}" if parsed else "api.openai.com/v1"
        self.identity = f"openai:{settings.model}@{host}"
        self.where = f"{settings.model} at {settings.base_url or 'api.openai.com'}"

    def _connect(self) -> Any:
        with self._lock:
            if self._client is None:
                try:
                    import openai
                except ImportError:
                    raise MissingExtra(
                        "the OpenAI-compatible LLM needs the openai package: "
                        "pip install 'mnemotree[openai]'",
                        "openai",
                    ) from None
                self._client = openai.OpenAI(
                    base_url=self.settings.base_url,
                    api_key=self.settings.api_key or "unused",  # local servers take any key
                    timeout=self.settings.timeout,
                    max_retries=0,  # retried here, where the back-off is ours
                )
            return self._client

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        """The model's reply; with `json_schema`, parsed and valid against it."""
        chat = _checked(messages)
        if json_schema is not None:
            instruction = (
                "Reply with one JSON object and nothing else. It must be valid against "
                f"this JSON Schema:\n{json.dumps(json_schema, ensure_ascii=False)}"
            )
            chat = [{"role": "system", "content": instruction}, *chat]
        attempts = 0
        problems: list[str] = []
        text = ""
        for _ in range(self.settings.repairs + 1):
            with operation("llm", {"gen_ai.request.model": self.settings.model}):
                text, tries = self._request(chat, json_schema is not None, max_tokens, temperature)
            attempts += tries
            if json_schema is None:
                return Completion(text, None, attempts)
            try:
                data = extract_json(text)
            except ValueError as exc:
                problems = [str(exc)]
            else:
                problems = validate(data, json_schema)
                if not problems:
                    return Completion(text, data, attempts)
            chat = [
                *chat,
                {"role": "assistant", "content": text},
                {
                    "role": "user",
                    "content": "That reply is not valid: "
                    + "; ".join(problems[:5])
                    + ". Reply again with only the JSON object, valid against the schema.",
                },
            ]
        raise ProviderError(
            f"{self.where} did not return JSON valid against the schema after {attempts} "
            f"requests: {'; '.join(problems[:3])}",
            text[:500],
        )

    def _request(
        self,
        chat: list[ChatMessage],
        json_mode: bool,
        max_tokens: int | None,
        temperature: float | None,
    ) -> tuple[str, int]:
        """One reply's text and the requests it took."""
        client = self._connect()  # first: a missing package is a MissingExtra
        import openai

        extra: dict[str, Any] = {}
        if json_mode:
            extra["response_format"] = {"type": "json_object"}
        if max_tokens is not None:
            extra["max_tokens"] = max_tokens
        if temperature is not None:
            extra["temperature"] = temperature
        passing = (
            openai.APITimeoutError,
            openai.APIConnectionError,
            openai.RateLimitError,
            openai.InternalServerError,
        )
        retries = self.settings.retries
        for attempt in range(retries + 1):
            try:
                reply = client.chat.completions.create(
                    model=self.settings.model, messages=chat, **extra
                )
            except passing as exc:
                if attempt == retries:
                    raise ProviderError(
                        f"chat request to {self.where} failed after {attempt + 1} tries: "
                        f"{_reason(exc)}",
                        self.where,
                    ) from None
                self._sleep(self.settings.backoff * 2**attempt)
                continue
            except openai.APIError as exc:  # 400, 401, 404…: asking again will not help
                raise ProviderError(
                    f"chat request to {self.where} was refused: {_reason(exc)}", self.where
                ) from None
            return _content(reply, self.where), attempt + 1
        raise AssertionError("unreachable")  # the loop returns or raises


def _content(reply: Any, where: str) -> str:
    try:
        content = reply.choices[0].message.content
    except (AttributeError, IndexError, TypeError) as exc:
        raise ProviderError(
            f"{where} answered something that is not a chat reply ({exc})", where
        ) from None
    if not isinstance(content, str):
        raise ProviderError(f"{where} sent a reply without text", where)
    return content


def _reason(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    kind = type(exc).__name__
    return f"{kind} (HTTP {status})" if status else kind


def _checked(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """The messages as the API takes them: role and text, plus a speaker's
    `name`, an assistant's `tool_calls` (its content may then be None) and a
    tool reply's `tool_call_id` (how a session's summaries are shown)."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence) or not messages:
        raise InvalidInput("messages must be a non-empty list of {role, content}", messages)
    out = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise InvalidInput(f"message {i} must be a dict, got {type(message).__name__}", i)
        role, content = message.get("role"), message.get("content")
        if role not in ROLES:
            raise InvalidInput(f"message {i} has role {role!r}; use one of {sorted(ROLES)}", role)
        calls = message.get("tool_calls")
        if calls is not None and (role != "assistant" or not _valid_calls(calls)):
            raise InvalidInput(
                f"message {i} tool_calls must be an assistant's list of "
                "{id, type: function, function: {name, arguments}}",
                calls,
            )
        if not isinstance(content, str) and not (calls and content is None):
            raise InvalidInput(f"message {i} content must be text", content)
        checked: ChatMessage = {"role": str(role), "content": content}
        for key in ("name", "tool_call_id"):
            value = message.get(key)
            if value is not None and not isinstance(value, str):
                raise InvalidInput(f"message {i} {key} must be text", value)
            if value is not None:
                checked[key] = value
        if calls:
            checked["tool_calls"] = calls
        out.append(checked)
    return out


def _valid_calls(calls: object) -> bool:
    return isinstance(calls, list) and all(
        isinstance(c, dict)
        and isinstance(c.get("id"), str)
        and c.get("type") == "function"
        and isinstance(c.get("function"), dict)
        and isinstance(c["function"].get("name"), str)
        and isinstance(c["function"].get("arguments"), str)
        for c in calls
    )
