"""Working memory for one chat turn (the tiered-memory design): a budget split by priority.

available = total - system reserve - working reserve (the current turn);
recent messages get 60% of it and retrieved memories 40% (configurable);
chunk summaries take what those leave. Within a section items go by
priority: recent messages 0.9 decreasing with age, memories by score,
summaries 0.5 decreasing with age. Every section's tokens are counted
exactly (a message costs what `message_tokens` says, as in the message
list), and whatever did not fit is named in a warning.

Only what is valid now and not archived is sent, the session's own messages
and summaries included. Retrieved memories are content: each line is led by
a short reference (`m1`) that `refs` maps to its node id, a document chunk
sits under its file and sections, headings are never items, and a text
said twice is sent once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..conversation.session import message_tokens, render_node
from ..errors import InvalidInput
from ..model import Node, NodeFilter
from ..retrieval.search import Hit
from ..store import Store
from ..tokens import Tokenizer
from ..vocabulary import MESSAGE_TYPE
from .dedupe import Seen
from .pack import Labels, grouped
from .render import group_of, is_content

Search = Callable[[str, NodeFilter, int], list[Hit]]

SYSTEM_RESERVE = 2_000
WORKING_RESERVE = 8_000
RECENT_SHARE = 0.6
MEMORY_HEADER = "Relevant memories:"
RETRIEVED = 20
NAMED = 5  # dropped node ids a warning names (all are in `dropped_ids`)


@dataclass
class Section:
    name: str
    budget: int
    tokens: int = 0
    items: list[dict[str, Any]] = field(default_factory=list)  # node id, priority, tokens
    dropped: int = 0
    dropped_tokens: int = 0
    dropped_ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "budget": self.budget,
            "tokens": self.tokens,
            "items": self.items,
            "dropped": self.dropped,
            "dropped_ids": self.dropped_ids,
        }


@dataclass
class WorkingMemory:
    """The messages to send, and how the budget was spent."""

    total: int
    available: int
    messages: list[dict[str, Any]]
    sections: list[Section]
    warnings: list[str]
    refs: dict[str, str] = field(default_factory=dict)  # "m1" -> the node id it stands for

    @property
    def tokens(self) -> int:
        return sum(s.tokens for s in self.sections)

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "available": self.available,
            "tokens": self.tokens,
            "sections": [s.to_dict() for s in self.sections],
            "warnings": self.warnings,
            "messages": self.messages,
            "refs": self.refs,
        }


def _whole(value: object, what: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InvalidInput(f"{what} must be a whole number >= {low}, got {value!r}", value)
    return value


def working_memory(
    store: Store,
    tokenizer: Tokenizer,
    search: Search,
    session: Node,
    *,
    total: int,
    system_prompt: str = "",
    query: str = "",
    where: NodeFilter,
    system_reserve: int = SYSTEM_RESERVE,
    working_reserve: int = WORKING_RESERVE,
    recent_share: float = RECENT_SHARE,
) -> WorkingMemory:
    """The tiered-memory design's context for the next turn of `session`."""
    if not isinstance(query, str):
        raise InvalidInput(f"query must be text, got {type(query).__name__}", query)
    system = {"role": "system", "content": system_prompt}
    system_tokens = message_tokens(system, tokenizer) if system_prompt else 0
    available = _available(total, system_reserve, working_reserve, recent_share, system_tokens)
    # The session's own messages and summaries, as far as they are valid.
    listed = store.children(session.id)
    valid = store.visible([n.id for n in listed], where)
    top = [n for n in listed if n.id in valid]
    recent_budget = int(available * recent_share)

    # Recent messages, newest first (priority 0.9 falling with age).
    recent = Section("recent", recent_budget)
    window = [n for n in top if n.context_type == MESSAGE_TYPE]
    kept = _newest_first(recent, window, 0.9, tokenizer)

    # Retrieved memories by score, outside this session: its own messages and
    # summaries are sent as themselves.
    memories = Section("retrieved", available - recent_budget)
    last_user = next((n.text for n in reversed(window) if n.context_value == "user"), "")
    text = query.strip() or last_user
    hits = [
        h
        for h in (search(text, where, RETRIEVED) if text else [])
        if h.node.id != session.id
        and all(a.id != session.id for a in h.ancestry)
        and is_content(h.node)
    ]
    lines, labels = _retrieved(memories, hits, tokenizer)

    # Chunk summaries, newest first (priority 0.5 falling), in what is left.
    summaries = Section("summaries", available - recent.tokens - memories.tokens)
    chosen = _newest_first(summaries, [n for n in top if n.is_summary], 0.5, tokenizer)

    system_section = Section("system", system_reserve, system_tokens)
    messages: list[dict[str, Any]] = [system] if system_prompt else []
    for node in reversed(chosen):
        messages += render_node(node)
    if lines:
        messages.append(_memory_message(lines))
    for node in reversed(kept):
        messages += render_node(node)
    sections = [system_section, recent, memories, summaries]
    return WorkingMemory(total, available, messages, sections, _warnings(sections), labels.refs())


def _available(
    total: int, system_reserve: int, working_reserve: int, recent_share: float, system: int
) -> int:
    """The tokens left for messages, memories and summaries (inputs checked)."""
    total = _whole(total, "total budget", 1)
    system_reserve = _whole(system_reserve, "system reserve", 0)
    working_reserve = _whole(working_reserve, "working reserve", 0)
    if (
        isinstance(recent_share, bool)
        or not isinstance(recent_share, (int, float))
        or not (0 <= recent_share <= 1)
    ):
        raise InvalidInput(f"recent_share must be from 0 to 1, got {recent_share!r}", recent_share)
    available = total - system_reserve - working_reserve
    if available <= 0:
        raise InvalidInput(
            f"a total budget of {total} leaves nothing after the system reserve "
            f"({system_reserve}) and the working reserve ({working_reserve}); raise the total "
            "or lower the reserves",
            total,
        )
    if system > system_reserve:
        raise InvalidInput(
            f"the system prompt takes {system} tokens, more than its reserve of "
            f"{system_reserve}; shorten it or raise system_reserve",
            system,
        )
    return available


def _warnings(sections: list[Section]) -> list[str]:
    """What each section left out, named (the system section never drops)."""
    what = {"recent": "older messages", "retrieved": "memories", "summaries": "older summaries"}
    warnings = []
    for section in sections:
        if section.dropped:
            named = ", ".join(section.dropped_ids[:NAMED])
            more = f" and {section.dropped - NAMED} more" if section.dropped > NAMED else ""
            warnings.append(
                f"dropped {section.dropped} {what[section.name]} ({section.dropped_tokens} "
                f"tokens: {named}{more}): the {section.name} budget is {section.budget} tokens"
            )
    return warnings


def _retrieved(
    section: Section, hits: list[Hit], tokenizer: Tokenizer
) -> tuple[list[tuple[str, str]], Labels]:
    """The memory lines (group, line) that fit the section, best first; a
    text already sent is not sent again. Fills `section`."""
    lines: list[tuple[str, str]] = []
    labels = Labels()
    seen: Seen[str] = Seen()
    for hit in hits:
        repeated = seen.match(hit.node.text)
        if repeated is not None and not repeated[1]:
            continue  # said already, by a better hit
        ref = f"m{len(labels.of) + 1}"
        line = (group_of(hit.node, hit.ancestry), f"{ref} {' '.join(hit.node.text.split())}")
        # The whole message is counted each time: exact, and at most 20 lines.
        cost = _memory_tokens([*lines, line], tokenizer)
        if cost <= section.budget:
            labels(hit.node.id)
            seen.keep(hit.node.text, hit.node.id)
            section.items.append(_item(hit.node.id, hit.score, cost - section.tokens, ref))
            lines.append(line)
            section.tokens = cost
        else:
            section.dropped += 1
            section.dropped_tokens += tokenizer.count(line[1])
            section.dropped_ids.append(hit.node.id)
    return lines, labels


def _newest_first(
    section: Section, nodes: list[Node], priority: float, tokenizer: Tokenizer
) -> list[Node]:
    """The newest of `nodes` (oldest first in the list) that fit the section
    together, without gaps; priority falls 0.01 a step back. Fills `section`."""
    kept: list[Node] = []
    for age, node in enumerate(reversed(nodes)):
        cost = sum(message_tokens(m, tokenizer) for m in render_node(node))
        if section.tokens + cost <= section.budget and len(kept) == age:
            kept.append(node)
            section.tokens += cost
            section.items.append(_item(node.id, priority - 0.01 * age, cost))
        else:
            section.dropped += 1
            section.dropped_tokens += cost
            section.dropped_ids.append(node.id)
    return kept


def _item(node_id: str, priority: float, tokens: int, ref: str = "") -> dict[str, Any]:
    item = {"node_id": node_id, "priority": round(priority, 6), "tokens": tokens}
    return {**item, "ref": ref} if ref else item


def _memory_message(lines: list[tuple[str, str]]) -> dict[str, Any]:
    return {"role": "system", "content": grouped(MEMORY_HEADER, lines)}


def _memory_tokens(lines: list[tuple[str, str]], tokenizer: Tokenizer) -> int:
    return message_tokens(_memory_message(lines), tokenizer)
