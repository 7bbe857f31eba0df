"""A LlamaIndex chat memory kept as a mnemotree chat session (extra
`llama-index`): `get()` returns the session's message list within a token
budget, older turns folded into the session's rolling summaries, so a long
chat fits where a buffer would drop its start.

>>> memory = MnemotreeChatMemory.from_defaults(memory=Memory("memory.db"), scope="user:42")
>>> engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory)
"""

from __future__ import annotations

from typing import Annotated, Any

from .. import InvalidInput, Memory, MissingExtra

try:
    from llama_index.core.base.llms.types import ChatMessage, MessageRole
    from llama_index.core.bridge.pydantic import ConfigDict, Field
    from llama_index.core.memory.types import BaseMemory
except ImportError as exc:  # pragma: no cover - the extra names the fix
    raise MissingExtra(
        "the LlamaIndex memory needs llama-index-core: pip install 'mnemotree[llama-index]'",
        exc.name,
    ) from None

# LlamaIndex's roles and mnemotree's, both ways (the rest are refused by name).
_ROLES = {
    MessageRole.USER: "user",
    MessageRole.ASSISTANT: "assistant",
    MessageRole.SYSTEM: "system",
    MessageRole.DEVELOPER: "system",
    MessageRole.TOOL: "tool",
}


class MnemotreeChatMemory(BaseMemory):
    """LlamaIndex's `BaseMemory` over a mnemotree chat session in `scope`
    (`session`: an id to continue; otherwise one starts on first use)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Memory
    scope: str = "default"
    session: str | None = None
    token_limit: Annotated[int, Field(gt=0)] = 3000

    @classmethod
    def class_name(cls) -> str:
        return "MnemotreeChatMemory"

    @classmethod
    def from_defaults(cls, **kwargs: Any) -> MnemotreeChatMemory:
        return cls(**kwargs)

    def _session(self) -> str:
        if self.session is None:
            self.session = self.memory.chat.start_session(self.scope).id
        return self.session

    def get(self, input: str | None = None, **kwargs: Any) -> list[ChatMessage]:
        """The chat as a model should see it, within `token_limit` tokens."""
        listed = self.memory.chat.build_message_list(self._session(), self.token_limit)
        return [_message(m.get("role", "user"), str(m.get("content", ""))) for m in listed]

    def get_all(self) -> list[ChatMessage]:
        messages = self.memory.chat.session_messages(self._session())
        return [_message(n.metadata.get("role", "user"), n.text) for n in messages]

    def put(self, message: ChatMessage) -> None:
        role = _ROLES.get(message.role)
        if role is None:
            raise InvalidInput(
                f"a {message.role.value!r} message has no mnemotree role; "
                f"use one of {sorted(r.value for r in _ROLES)}",
                message.role.value,
            )
        self.memory.chat.add_message(self._session(), role, message.content or "")

    def set(self, messages: list[ChatMessage]) -> None:
        self.reset()
        for message in messages:
            self.put(message)

    def reset(self) -> None:
        """Start over in a new session; the old one stays in history (deleted)."""
        if self.session is not None:
            self.memory.delete(self.session)
        self.session = None


def _message(role: str, text: str) -> ChatMessage:
    return ChatMessage(role=MessageRole(role), content=text)
