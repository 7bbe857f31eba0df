"""An OpenAI Agents SDK `Session` kept as a mnemotree chat session (extra
`openai-agents`): the agent's conversation is a session like any other, so
its summaries and captured memories follow, and search finds what was said.

>>> session = MnemotreeSession("user_123", Memory("memory.db"), scope="user:123")
>>> await Runner.run(agent, "What city is the Golden Gate Bridge in?", session=session)

Messages are kept as text (their role and words); other items (tool calls
and their outputs, reasoning) are kept whole, as JSON, in `tool` turns.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from .. import InvalidInput, Memory, MissingExtra, Node, NotFound

try:
    from agents.memory import SessionSettings
except ImportError as exc:  # pragma: no cover - the extra names the fix
    raise MissingExtra(
        "the Agents SDK session needs openai-agents: pip install 'mnemotree[openai-agents]'",
        exc.name,
    ) from None

_TITLE = "agents:{}"  # a session's title names the SDK's session id
_MESSAGE_ROLES = {"user": "user", "assistant": "assistant", "system": "system"}


class MnemotreeSession:
    """The Agents SDK's `Session` protocol over a mnemotree chat session in
    `scope`, found by `session_id` (or started on first use)."""

    session_settings: SessionSettings | None = None

    def __init__(self, session_id: str, memory: Memory, *, scope: str = "default") -> None:
        if not isinstance(session_id, str) or not session_id.strip():
            raise InvalidInput(
                f"a session id must be non-empty text, got {session_id!r}", session_id
            )
        self.session_id = session_id
        self.memory = memory
        self.scope = scope
        self._lock = asyncio.Lock()
        self._found: str | None = None  # the chat session's id, once known

    # -- the protocol ------------------------------------------------------------------

    async def get_items(self, limit: int | None = None) -> list[Any]:
        items = await asyncio.to_thread(self._items)
        return items if limit is None else items[-limit:] if limit > 0 else []

    async def add_items(self, items: list[Any]) -> None:
        async with self._lock:
            await asyncio.to_thread(self._add, list(items))

    async def pop_item(self) -> Any | None:
        async with self._lock:
            return await asyncio.to_thread(self._pop)

    async def clear_session(self) -> None:
        async with self._lock:
            await asyncio.to_thread(self._clear)

    # -- on a worker thread ------------------------------------------------------------

    def _session(self, create: bool) -> str | None:
        if self._found is not None:
            with contextlib.suppress(NotFound):  # deleted (cleared) meanwhile
                return self.memory.chat.session(self._found).id
        title = _TITLE.format(self.session_id)
        self._found = next(
            (
                found.id
                for found in self.memory.chat.sessions([self.scope], status="active")
                if found.text == title
            ),
            None,
        )
        if self._found is None and create:
            self._found = self.memory.chat.start_session(self.scope, title).id
        return self._found

    def _messages(self) -> list[Node]:
        session = self._session(create=False)
        return [] if session is None else self.memory.chat.session_messages(session)

    def _items(self) -> list[Any]:
        return [_item(n) for n in self._messages()]

    def _add(self, items: list[Any]) -> None:
        session = self._session(create=True)
        assert session is not None  # created when missing
        for item in items:
            role, text = _turn(item)
            self.memory.chat.add_message(session, role, text)

    def _pop(self) -> Any | None:
        messages = self._messages()
        if not messages:
            return None
        last = messages[-1]
        self.memory.delete(last.id)  # kept in history, as every delete
        return _item(last)

    def _clear(self) -> None:
        session = self._session(create=False)
        if session is not None:
            self.memory.delete(session)


def _turn(item: Any) -> tuple[str, str]:
    """The role and text a session keeps for an item."""
    if not isinstance(item, dict):
        raise InvalidInput(
            f"a session item must be a dict, got {type(item).__name__}", repr(item)[:200]
        )
    role = _MESSAGE_ROLES.get(str(item.get("role")))
    if role is not None and item.get("type", "message") == "message":
        text = _text(item.get("content"))
        if text is not None:
            return role, text
    return "tool", json.dumps(item, ensure_ascii=False)


def _text(content: Any) -> str | None:
    """A message's words: its text, or its text parts joined (None if it has
    parts that are not text, such as an image: then it is kept whole)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content:
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        if len(parts) == len(content) and all(isinstance(p, str) for p in parts):
            kinds = {p.get("type") for p in content}
            if kinds <= {"input_text", "output_text", "text"}:
                return "".join(str(p) for p in parts)
    return None


def _item(node: Node) -> Any:
    role = node.metadata.get("role", "user")
    if role == "tool":
        try:
            return json.loads(node.text)
        except ValueError:
            return {"role": "user", "content": node.text}  # a tool turn written by hand
    return {"role": role, "content": node.text}
