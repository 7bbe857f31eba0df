"""Moving in from other tools: their exports read into the tree, with their
times and provenance, all or nothing per file.

`mem0`: the JSON of mem0's `Memory.get_all()` (or the platform's export):
either `{"results": [...]}` or a bare list of memory objects, each

    {"id": "…", "memory": "Alice prefers green tea", "hash": "…",
     "metadata": {...} | null, "categories": ["preferences"] | null,
     "created_at": "2024-07-20T01:23:45.123456-07:00", "updated_at": … | null,
     "user_id": "alice" | null, "agent_id": … | null, "run_id": … | null}

`memory` is required. The scope is `user:<user_id>`, else `agent:<agent_id>`,
else `run:<run_id>`, else the default (or the one the caller names); each
memory goes into its scope's memory space. Its metadata keeps `mem0_id`,
`mem0_hash`, the other ids, the categories and mem0's own metadata
(`mem0_metadata`); created and updated times are kept.

`openai-chat`: `conversations.json` of the ChatGPT data export, a list of

    {"title": "…", "create_time": 1700000000.0, "update_time": …,
     "current_node": "<node id>",
     "mapping": {"<node id>": {"id": "…", "parent": "<id>" | null,
                               "children": [...],
                               "message": {"author": {"role": "user"},
                                           "create_time": 1700000001.5 | null,
                                           "content": {"content_type": "text",
                                                       "parts": ["…"]}} | null}}}

Each conversation becomes an ended chat session (its title, its time); its
messages are those on the branch that ends at `current_node` (the one the
user last saw), in order, with their times. Messages that are not text
(images, tool calls without text) and empty ones are skipped and counted.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ..errors import InvalidInput
from ..ids import new_id
from ..model import DEFAULT_SCOPE, Node, clean_scope
from ..timeutil import from_iso, to_iso
from ..vocabulary import CHAT_ROLES as ROLES
from ..vocabulary import MESSAGE_TYPE, SESSION_TYPE

SOURCES = ("mem0", "openai-chat")  # files; a folder of notes: `notes`


@dataclass
class ImportReport:
    """What an import brought in."""

    source: str
    file: str
    memories: int = 0
    sessions: int = 0
    messages: int = 0
    documents: int = 0  # notes
    relations: int = 0  # wiki-links resolved
    dangling: int = 0  # wiki-links to notes not imported
    skipped: int = 0  # records with nothing to keep (no text, not text)
    scopes: dict[str, int] = field(default_factory=dict)  # nodes per scope

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def parse_json_file(text: str, source: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"{source} is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})", source
        ) from None


def _node(
    text: str, scope: str, parent: str | None, order: float, at: str, updated: str, **extra: Any
) -> Node:
    return Node(
        id=new_id(),
        root_id="",
        parent_id=parent,
        order_key=order,
        text=text,
        token_count=0,
        created_at=at,
        updated_at=updated,
        scope=scope,
        **extra,
    )


# -- mem0 ------------------------------------------------------------------------------


def mem0_records(data: Any, source: str) -> list[dict[str, Any]]:
    records = data.get("results") if isinstance(data, dict) else data
    if not isinstance(records, list):
        raise InvalidInput(
            f'{source}: expected mem0\'s export, a list of memories or {{"results": [...]}}',
            type(data).__name__,
        )
    for number, record in enumerate(records, 1):
        if not isinstance(record, dict) or not isinstance(record.get("memory"), str):
            raise InvalidInput(
                f"{source}: memory {number} has no text ('memory'); is this a mem0 export?",
                number,
            )
    return records


def _mem0_scope(record: dict[str, Any], default: str, where: str) -> str:
    for key, prefix in (("user_id", "user:"), ("agent_id", "agent:"), ("run_id", "run:")):
        value = record.get(key)
        if value not in (None, ""):
            try:
                return clean_scope(f"{prefix}{value}")
            except InvalidInput as exc:
                raise InvalidInput(f"{where}: {key} {value!r}: {exc.message}", value) from None
    return default


def mem0_nodes(
    records: list[dict[str, Any]],
    space_of: Callable[[str], str],
    default: str,
    now: str,
    source: str,
) -> tuple[list[Node], int]:
    """The memories, each under its scope's space (`space_of`: a scope's
    space id, made if need be), and how many had no text."""
    nodes: list[Node] = []
    for number, record in enumerate(records, 1):
        where = f"{source}, memory {number}"
        text = record["memory"].strip()
        if not text:
            continue
        scope = _mem0_scope(record, default, where)
        created = _moment(record.get("created_at"), now, where)
        updated = _moment(record.get("updated_at"), created, where)
        meta: dict[str, Any] = {"source": "mem0"}
        for key, name in (
            ("id", "mem0_id"),
            ("hash", "mem0_hash"),
            ("categories", "categories"),
            ("agent_id", "agent_id"),
            ("run_id", "run_id"),
            ("metadata", "mem0_metadata"),
        ):
            if record.get(key) not in (None, "", [], {}):
                meta[name] = record[key]
        nodes.append(
            _node(
                text,
                scope,
                space_of(scope),
                float(number),
                created,
                updated,
                context_type="memory",
                metadata=meta,
            )
        )
    return nodes, len(records) - len(nodes)


def _moment(value: object, default: str, where: str) -> str:
    if value in (None, ""):
        return default
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return to_iso(datetime.fromtimestamp(float(value), tz=timezone.utc))
    if isinstance(value, str):
        try:
            return to_iso(from_iso(value))
        except (InvalidInput, ValueError):
            pass
    raise InvalidInput(f"{where}: {value!r} is not a time (ISO 8601 or seconds)", value)


# -- ChatGPT conversations --------------------------------------------------------------


def openai_conversations(data: Any, source: str) -> list[dict[str, Any]]:
    if not isinstance(data, list) or not all(
        isinstance(c, dict) and isinstance(c.get("mapping"), dict) for c in data
    ):
        raise InvalidInput(
            f"{source}: expected conversations.json of a ChatGPT data export "
            "(a list of conversations, each with a 'mapping')",
            type(data).__name__,
        )
    return data


def conversation_nodes(
    conversation: dict[str, Any], scope: str, now: str, where: str
) -> tuple[list[Node], int]:
    """The session root and its messages, and how many were skipped."""
    started = _moment(conversation.get("create_time"), now, where)
    title = str(conversation.get("title") or "").strip() or f"Chat {started[:10]}"
    meta: dict[str, Any] = {
        "status": "ended",
        "milestones": [],
        "source": "openai-chat",
        "window": {"max_recent": 20, "chunk_size": 10, "max_chunks": 5},
    }
    if conversation.get("id") or conversation.get("conversation_id"):
        meta["openai_id"] = conversation.get("id") or conversation.get("conversation_id")
    ended = _moment(conversation.get("update_time"), started, where)
    root = _node(
        title,
        scope,
        None,
        1.0,
        started,
        ended,
        context_type=SESSION_TYPE,
        context_name=started[:10],
        context_value=started,
        metadata=meta,
    )
    nodes, skipped, turn = [root], 0, 0
    for message in _branch(conversation, where):
        text, role = _said(message)
        if not text or role not in ROLES:
            skipped += 1
            continue
        turn += 1
        at = _moment(message.get("create_time"), started, where)
        nodes.append(
            _node(
                text,
                scope,
                root.id,
                float(turn),
                at,
                at,
                context_type=MESSAGE_TYPE,
                context_name=role,
                context_value=role,
                metadata={"role": role, "turn": turn},
            )
        )
    return nodes, skipped


def _branch(conversation: dict[str, Any], where: str) -> list[dict[str, Any]]:
    """The messages from the first to `current_node`, following parents."""
    mapping: dict[str, Any] = conversation["mapping"]
    current = conversation.get("current_node")
    if current is None:  # no branch named: the last leaf in the file
        leaves = [k for k, v in mapping.items() if isinstance(v, dict) and not v.get("children")]
        current = leaves[-1] if leaves else None
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    while current is not None:
        entry = mapping.get(current)
        if not isinstance(entry, dict) or current in seen:
            raise InvalidInput(f"{where}: node {current!r} is missing or in a loop", current)
        seen.add(current)
        if isinstance(entry.get("message"), dict):
            out.append(entry["message"])
        current = entry.get("parent")
    return out[::-1]


def _said(message: dict[str, Any]) -> tuple[str, str]:
    author = message.get("author")
    role = author.get("role", "") if isinstance(author, dict) else ""
    content = message.get("content")
    if not isinstance(content, dict) or content.get("content_type") not in ("text", None):
        return "", role
    parts = content.get("parts")
    texts = [p for p in parts if isinstance(p, str)] if isinstance(parts, list) else []
    return "\n".join(texts).strip(), role


def default_scope(scope: str | None) -> str:
    return clean_scope(scope) if scope is not None else DEFAULT_SCOPE
