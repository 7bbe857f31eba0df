"""LangChain adapters (extra `langchain`): a retriever over mnemotree's hybrid
search, and a chat message history kept as a mnemotree chat session (so its
summaries and captured memories follow as for any session).

>>> retriever = MnemotreeRetriever(memory=mem, scopes=["team"], k=4)
>>> retriever.invoke("what does Alice drink")
>>> history = MnemotreeChatHistory(mem, scope="user:42")
>>> history.add_messages([HumanMessage("I prefer green tea")])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import InvalidInput, Memory, MissingExtra, Node

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.chat_history import BaseChatMessageHistory
    from langchain_core.documents import Document
    from langchain_core.messages import (
        AIMessage,
        BaseMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
    )
    from langchain_core.retrievers import BaseRetriever
    from pydantic import ConfigDict
except ImportError as exc:  # pragma: no cover - the extra names the fix
    raise MissingExtra(
        "the LangChain adapters need langchain-core: pip install 'mnemotree[langchain]'",
        exc.name,
    ) from None

# LangChain's message types and mnemotree's roles, both ways.
_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


class MnemotreeRetriever(BaseRetriever):
    """Documents for a query from `memory.search` (words, meaning and the
    tree), within `scopes`; each document's metadata holds the node's id,
    score, scope and type, and for document chunks where they come from."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Memory
    scopes: list[str] | None = None
    k: int = 4

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        hits = self.memory.search(query, scopes=self.scopes, limit=self.k)
        documents = []
        for hit in hits:
            metadata: dict[str, Any] = {
                "id": hit.node.id,
                "score": hit.score,
                "scope": hit.node.scope,
                "context_type": hit.node.context_type,
            }
            cited = hit.citation()
            if cited is not None:
                metadata["source"] = cited.to_dict()
            documents.append(
                Document(page_content=hit.node.text, metadata=metadata, id=hit.node.id)
            )
        return documents


class MnemotreeChatHistory(BaseChatMessageHistory):
    """A LangChain chat history that is a mnemotree chat session: `session`
    (an id) continues one, otherwise a new one starts in `scope`."""

    def __init__(
        self,
        memory: Memory,
        *,
        session: str | None = None,
        scope: str = "default",
        title: str | None = None,
    ) -> None:
        self.memory = memory
        self.scope = scope
        self.title = title
        found = memory.chat.session(session) if session else memory.chat.start_session(scope, title)
        self.session_id = found.id

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        return [_message(n) for n in self.memory.chat.session_messages(self.session_id)]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        for message in messages:
            role = _ROLES.get(message.type)
            if role is None:
                raise InvalidInput(
                    f"a {message.type!r} message has no mnemotree role; "
                    f"use one of {sorted(_ROLES)}",
                    message.type,
                )
            self.memory.chat.add_message(
                self.session_id, role, message.text, name=getattr(message, "name", None)
            )

    def clear(self) -> None:
        """Start over in a new session; the old one stays in history (deleted)."""
        self.memory.delete(self.session_id)
        self.session_id = self.memory.chat.start_session(self.scope, self.title).id


def _message(node: Node) -> BaseMessage:
    role = node.metadata.get("role", "user")
    name = node.context_name if node.context_name not in ("", role) else None
    if role == "assistant":
        return AIMessage(node.text, name=name, id=node.id)
    if role == "system":
        return SystemMessage(node.text, name=name, id=node.id)
    if role == "tool":
        return ToolMessage(node.text, tool_call_id=name or "", id=node.id)
    return HumanMessage(node.text, name=name, id=node.id)
