"""Chat sessions as subtrees (the tree design's DocmemChat, the tiered-memory design's layer 2).

A session is a root (`chat_session`, named by its date) whose children are
messages in order. When more than `max_recent` messages are unsummarised,
the oldest `chunk_size` get a summary node above them (docmem's
`add_summary`: the originals stay, one level down); when more than
`max_chunks` summaries sit at the top, the two oldest merge under a summary
of summaries ("Earlier: …\\n\\nThen: …"). So the top level of a session is
always a few summaries and the recent window, whatever its length.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput, InvalidOperation, NotFound
from ..model import NewNode, Node, clean_scope
from ..store import Store
from ..timeutil import from_iso
from ..tokens import Tokenizer
from ..tree import Tree
from ..vocabulary import CHAT_ROLES, MESSAGE_TYPE, SESSION_STATUSES, SESSION_TYPE
from .extractive import Said, summarize
from .summarize import Summarizer

SUMMARY_TYPE = "summary"
ROLES = CHAT_ROLES
STATUSES = SESSION_STATUSES
MAX_MESSAGE_BYTES = 1 << 20
# What a chat message costs beyond its content (role and separators), as
# OpenAI counts it for its chat models.
MESSAGE_OVERHEAD = 4
RECALL_TOOL = "recall_summary"


@dataclass(frozen=True, slots=True)
class WindowSettings:
    """The tiered-memory design's rolling window: 20 recent messages, chunks of 10, 5 summaries."""

    max_recent: int = 20
    chunk_size: int = 10
    max_chunks: int = 5

    def __post_init__(self) -> None:
        for name in ("max_recent", "chunk_size", "max_chunks"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10_000:
                raise InvalidInput(f"{name} must be an integer 1-10000, got {value!r}", value)
        if self.chunk_size > self.max_recent:
            raise InvalidInput(
                f"chunk_size ({self.chunk_size}) cannot exceed max_recent ({self.max_recent})",
                self.chunk_size,
            )
        if self.max_chunks < 2:
            raise InvalidInput("max_chunks must be at least 2 (two merge into one)", 1)

    @classmethod
    def of(cls, node: Node) -> WindowSettings:
        saved = node.metadata.get("window", {})
        return cls(
            **{k: v for k, v in saved.items() if k in ("max_recent", "chunk_size", "max_chunks")}
        )


class Sessions:
    """Session operations over the tree; the facade decides when `maintain` runs."""

    def __init__(self, tree: Tree, summarizer: Summarizer) -> None:
        self.tree = tree
        self.store: Store = tree.store
        self.summarizer = summarizer

    # -- sessions ----------------------------------------------------------------

    def start(self, scope: str, title: str | None, window: WindowSettings) -> Node:
        now = self.tree.now()
        scope = clean_scope(scope)
        if title is not None and (not isinstance(title, str) or not title.strip()):
            raise InvalidInput("a session title must be non-empty text", title)
        text = title.strip() if title else f"Chat {now[:10]}"
        meta = {
            "status": "active",
            "window": {
                "max_recent": window.max_recent,
                "chunk_size": window.chunk_size,
                "max_chunks": window.max_chunks,
            },
            "milestones": [],
        }
        new = NewNode(text, SESSION_TYPE, now[:10], now, scope=scope, metadata=meta)
        return self.tree.create_root(new)

    def require(self, session_id: str) -> Node:
        node = self.store.get(session_id) if isinstance(session_id, str) else None
        if node is None or node.context_type != SESSION_TYPE:
            raise NotFound(f"no chat session with id {session_id!r}", session_id)
        return node

    def find(self, scopes: Sequence[str] | None, status: str | None) -> list[Node]:
        if status is not None and status not in STATUSES:
            raise InvalidInput(f"unknown status {status!r}; use one of {list(STATUSES)}", status)
        found = self.store.roots_of_type(SESSION_TYPE, scopes)
        return [s for s in found if status is None or s.metadata.get("status") == status]

    def patch(self, session_id: str, change: Callable[[Node], dict[str, Any]]) -> Node:
        """Set the metadata keys `change(session)` returns, reading the session
        inside the write, so two writers (the upkeep thread, another process)
        never undo each other's keys."""
        with self.store.transaction():
            session = self.require(session_id)
            return self.tree.update(session.id, metadata={**session.metadata, **change(session)})

    def set_status(self, session_id: str, status: str) -> Node:
        if status not in STATUSES:
            raise InvalidInput(f"unknown status {status!r}; use one of {list(STATUSES)}", status)
        return self.patch(session_id, lambda _: {"status": status})

    def add_milestone(self, session_id: str, text: str) -> Node:
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("a milestone needs some text", text)

        def change(session: Node) -> dict[str, Any]:
            milestone = {"text": text.strip(), "turn": self.turns(session), "at": self.tree.now()}
            return {"milestones": [*session.metadata.get("milestones", []), milestone]}

        return self.patch(session_id, change)

    # -- messages ----------------------------------------------------------------

    def add(self, session_id: str, role: str, content: str, name: str | None) -> Node:
        """Append a message (the fast path: no summarising here)."""
        if role not in ROLES:
            raise InvalidInput(f"unknown role {role!r}; use one of {list(ROLES)}", role)
        if not isinstance(content, str):
            raise InvalidInput(
                f"message content must be text, got {type(content).__name__}", content
            )
        if not content.strip():
            raise InvalidInput("message content is empty", content)
        size = len(content.encode("utf-8", "surrogatepass"))
        if size > MAX_MESSAGE_BYTES:
            raise InvalidInput(
                f"message is {size:,} bytes; the limit is {MAX_MESSAGE_BYTES:,} "
                "(ingest long texts as documents)",
                size,
            )
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise InvalidInput("a speaker name must be non-empty text", name)
        with self.store.transaction():
            session = self.require(session_id)
            if session.metadata.get("status") == "ended":
                raise InvalidOperation(
                    f"session {session.id} has ended; start a new one", session.id
                )
            meta = {"role": role, "turn": self.turns(session) + 1}
            new = NewNode(content, MESSAGE_TYPE, (name or role).strip(), role, metadata=meta)
            return self.tree.append_child(session.id, new)

    def turns(self, session: Node) -> int:
        """The last turn number given: that of the newest stored message, or of
        the newest that retention pruned or capture read (so a restored message
        is not counted twice, and a message after a deleted one is never
        numbered below what capture has read)."""
        stored = self.store.max_number(session.id, MESSAGE_TYPE, "turn")
        meta = session.metadata
        return max(stored, int(meta.get("pruned_through", 0)), int(meta.get("captured_turn", 0)))

    def window(self, session_id: str) -> list[Node]:
        """The unsummarised messages, oldest first."""
        return [n for n in self.store.children(session_id) if n.context_type == MESSAGE_TYPE]

    def needs_care(self, session: Node) -> bool:
        window = WindowSettings.of(session)
        top = self.store.children(session.id)
        recent = sum(1 for n in top if n.context_type == MESSAGE_TYPE)
        summaries = sum(1 for n in top if n.is_summary)
        return recent > window.max_recent or summaries > window.max_chunks

    def maintain(self, session_id: str) -> list[Node]:
        """Summarise and merge until the window and the summaries are within
        their limits; returns the summaries made."""
        made: list[Node] = []
        while True:
            session = self.require(session_id)
            window = WindowSettings.of(session)
            top = self.store.children(session.id)
            recent = [n for n in top if n.context_type == MESSAGE_TYPE]
            summaries = [n for n in top if n.is_summary]
            if len(recent) > window.max_recent:
                made.append(self._summarise(recent[: window.chunk_size]))
            elif len(summaries) > window.max_chunks:
                made.append(self._merge(summaries[0], summaries[1]))
            else:
                return made

    def _summarise(self, messages: list[Node]) -> Node:
        # The model (or the extractive pass) runs outside any transaction: a
        # slow LLM never holds the write lock.
        summary = self.summarizer.summarize([said_of(m) for m in messages])
        first, last = messages[0].metadata.get("turn"), messages[-1].metadata.get("turn")
        meta = {
            "topics": summary.topics,
            "by": summary.by,
            "level": 1,
            "first_turn": first,
            "last_turn": last,
        }
        new = NewNode(summary.text, SUMMARY_TYPE, "chunk", f"turns {first}-{last}", metadata=meta)
        return self.tree.add_summary([m.id for m in messages], new)

    def _merge(self, older: Node, newer: Node) -> Node:
        # The older part is condensed again, so merged summaries stay short
        # however long the session grows.
        earlier = older.text.removeprefix("Earlier: ").replace("\n\nThen: ", " ")
        condensed = summarize([Said("", earlier)], max_sentences=2) or earlier[:400]
        text = f"Earlier: {condensed}\n\nThen: {newer.text}"
        topics = list(
            dict.fromkeys([*older.metadata.get("topics", []), *newer.metadata.get("topics", [])])
        )[:8]
        first, last = older.metadata.get("first_turn"), newer.metadata.get("last_turn")
        level = 1 + max(older.metadata.get("level", 1), newer.metadata.get("level", 1))
        meta = {
            "topics": topics,
            "by": "merge",
            "level": level,
            "first_turn": first,
            "last_turn": last,
        }
        new = NewNode(text, SUMMARY_TYPE, "merged", f"turns {first}-{last}", metadata=meta)
        return self.tree.add_summary([older.id, newer.id], new)

    def messages(self, session_id: str) -> list[Node]:
        """Every message of the session in order, summarised or not (drill-down)."""
        session = self.require(session_id)
        nodes = self.store.tree_nodes(session.id)
        found = [n for n in nodes if n.context_type == MESSAGE_TYPE]
        return sorted(found, key=lambda n: int(n.metadata.get("turn", 0)))

    # -- the model's view --------------------------------------------------------

    def message_list(
        self, session_id: str, tokenizer: Tokenizer, budget: int | None = None
    ) -> list[dict[str, Any]]:
        """OpenAI chat messages for the session's top level: each summary as a
        tool call and its response (the tree design), each message as itself. With a
        `budget`, the newest items that fit it (see `message_tokens`)."""
        if budget is not None and (
            isinstance(budget, bool) or not isinstance(budget, int) or budget < 0
        ):
            raise InvalidInput(f"budget must be an integer >= 0, got {budget!r}", budget)
        session = self.require(session_id)
        items = [render_node(n) for n in self.store.children(session.id)]
        if budget is None:
            return [m for item in items for m in item]
        kept: list[list[dict[str, Any]]] = []
        used = 0
        for item in reversed(items):  # newest first: recent turns matter most
            cost = sum(message_tokens(m, tokenizer) for m in item)
            if used + cost > budget:
                break
            kept.append(item)
            used += cost
        return [m for item in reversed(kept) for m in item]


def message_tokens(message: dict[str, Any], tokenizer: Tokenizer) -> int:
    """Tokens a chat message costs: its content, speaker name, tool call
    arguments and the per-message overhead."""
    cost = MESSAGE_OVERHEAD + tokenizer.count(str(message.get("content") or ""))
    if message.get("name"):
        cost += tokenizer.count(str(message["name"]))
    for call in message.get("tool_calls", []):
        cost += tokenizer.count(call["function"]["name"] + call["function"]["arguments"])
    return cost


def render_node(node: Node) -> list[dict[str, Any]]:
    if node.is_summary:
        call_id = f"call_{node.id}"
        arguments = json.dumps({"node_id": node.id, "turns": node.context_value})
        call = {
            "id": call_id,
            "type": "function",
            "function": {"name": RECALL_TOOL, "arguments": arguments},
        }
        return [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call_id, "content": node.text},
        ]
    message: dict[str, Any] = {"role": node.context_value, "content": node.text}
    if node.context_name != node.context_value:
        # OpenAI takes a name of at most 64 characters without spaces or <|\\/>.
        message["name"] = _API_NAME.sub("_", node.context_name)[:64]
    return [message]


_API_NAME = re.compile(r"[\s<|\\/>]+")


def said_of(message: Node) -> Said:
    """A stored message as capture and summaries read it: speaker, text, role, day."""
    day = from_iso(message.created_at).date()
    return Said(message.context_name, message.text, message.context_value, day)
