"""A tree as a Markdown document, and back.

Interior nodes become headings and leaves become paragraphs, so the export
reads as a normal document. Each node is preceded by an HTML comment holding
its id and metadata (invisible when rendered), which makes the round trip
exact. Text that Markdown cannot carry verbatim (a multi-line heading, edge
whitespace, a line that looks like our marker) also goes into the comment.
Markdown without markers imports as a plain outline: headings nest, and
paragraphs become leaves.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import InvalidInput
from ..ids import new_id
from ..jsonlimits import MAX_DEPTH, parse_json
from ..model import DEFAULT_SCOPE, Node
from ..store import Store
from ..timeutil import Clock, to_iso
from ..tokens import Tokenizer
from ..traverse import walk
from .loader import load_nodes

HEADER = "<!-- mnemotree markdown v1 -->"
_MARK = "<!-- mt "
_MARK_LINE = re.compile(r"^<!-- mt (\{.*\}) -->$")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
_DEFAULTS: dict[str, Any] = {
    "context_type": "",
    "context_name": "",
    "context_value": "",
    "is_summary": False,
    "stale": False,
    "metadata": {},
    "importance": 0.5,
}


def export(store: Store, node_ids: list[str]) -> str:
    """The subtrees under `node_ids`, one after another, as one Markdown document."""
    parts = [HEADER, ""]
    for depth, node, has_children in (row for i in node_ids for row in walk(store, i)):
        heading = has_children or depth == 0
        meta: dict[str, Any] = {
            "id": node.id,
            # The top of an exported subtree becomes a root: its parent is not in the file.
            "parent_id": None if depth == 0 else node.parent_id,
            "order_key": node.order_key,
            "scope": node.scope,
            "version": node.version,
            "created_at": node.created_at,
            "updated_at": node.updated_at,
        }
        for key, default in _DEFAULTS.items():
            value = getattr(node, key)
            if value != default:
                meta[key] = value
        body = _heading_body(node.text, depth) if heading else _leaf_body(node.text)
        if body is None:
            meta["text"] = node.text
            body = _fallback_body(node.text, depth, heading)
        parts.append(_MARK + _json(meta) + " -->")
        parts.append(body)
        parts.append("")
    return "\n".join(parts)


def _json(meta: dict[str, Any]) -> str:
    # "-->" would end the comment early; escaping ">" rules it out.
    return json.dumps(meta, ensure_ascii=False).replace(">", "\\u003e")


# Characters that str.splitlines() or a text-mode reader would treat as line ends.
_ODD_BREAKS = frozenset("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def _heading_body(text: str, depth: int) -> str | None:
    if "\n" in text or text != text.strip() or text.endswith("#") or _ODD_BREAKS & set(text):
        return None
    return "#" * min(depth + 1, 6) + " " + text


def _leaf_body(text: str) -> str | None:
    if text != text.strip() or _ODD_BREAKS & set(text):
        return None
    if any(line.startswith(_MARK) for line in text.split("\n")):
        return None
    return text


def _fallback_body(text: str, depth: int, heading: bool) -> str:
    first = next((line.strip() for line in text.splitlines() if line.strip()), "…")
    first = first.replace(_MARK, "<!-- ")
    return "#" * min(depth + 1, 6) + " " + first if heading else first


def parse(
    store: Store,
    tokenizer: Tokenizer,
    text: str,
    *,
    source: str,
    clock: Clock,
    scope: str | None = None,
) -> list[Node]:
    """Import Markdown: an export round-trips exactly; other Markdown becomes an outline."""
    lines = text.replace("\r\n", "\n").split("\n")  # a file saved with CRLF line ends
    if HEADER in lines or any(_MARK_LINE.match(line) for line in lines):
        return load_nodes(store, tokenizer, _marked_nodes(lines, source), source=source)
    return load_nodes(
        store, tokenizer, outline_nodes(lines, source, to_iso(clock()), scope), source=source
    )


def _marked_nodes(lines: list[str], source: str) -> list[Node]:
    blocks: list[tuple[int, dict[str, Any], list[str]]] = []
    for number, line in enumerate(lines, 1):
        match = _MARK_LINE.match(line)
        if match:
            # The marker holds the metadata (one level down) and may hold the text:
            # the loader applies the exact limits to each field.
            meta = parse_json(
                match.group(1),
                f"{source}, line {number}: node marker",
                max_depth=MAX_DEPTH + 1,
                max_chars=None,
            )
            blocks.append((number, meta, []))
        elif blocks:
            blocks[-1][2].append(line)
    parents = {str(meta.get("parent_id")) for _, meta, _ in blocks}
    ids = {str(meta.get("id")) for _, meta, _ in blocks}
    nodes = []
    for number, meta, body in blocks:
        node_id = str(meta.get("id"))
        heading = node_id in parents or meta.get("parent_id") not in ids
        text = meta.get("text")
        if text is None:
            text = _text_from_body(body, heading)
        if not isinstance(meta.get("id"), str):
            raise InvalidInput(f'{source}, line {number}: node marker has no "id"', meta)
        try:
            nodes.append(
                Node(
                    id=node_id,
                    root_id=node_id,  # recomputed on load
                    parent_id=meta.get("parent_id"),
                    order_key=meta["order_key"],  # types are checked by the loader
                    text=text,
                    token_count=0,  # recomputed on load
                    created_at=meta["created_at"],
                    updated_at=meta["updated_at"],
                    scope=meta.get("scope", DEFAULT_SCOPE),
                    version=meta.get("version", 1),
                    **{key: meta.get(key, default) for key, default in _DEFAULTS.items()},
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInput(
                f"{source}, line {number}: node marker lacks a valid {exc}", node_id
            ) from None
    return nodes


def _text_from_body(body: list[str], heading: bool) -> str:
    text = "\n".join(body).strip("\n")
    if heading:
        match = _HEADING.match(text)
        if match:
            return match.group(2)
    return text


def outline_nodes(lines: list[str], source: str, now: str, scope: str | None) -> list[Node]:
    scope = scope or DEFAULT_SCOPE
    nodes: list[Node] = []
    counters: dict[str | None, float] = {}

    def add(text: str, parent: Node | None) -> Node:
        key = counters.get(parent.id if parent else None, 0.0) + 1.0
        counters[parent.id if parent else None] = key
        node_id = new_id()
        node = Node(
            id=node_id,
            root_id=parent.root_id if parent else node_id,
            parent_id=parent.id if parent else None,
            order_key=key,
            text=text,
            token_count=0,
            created_at=now,
            updated_at=now,
            context_type="section" if parent else "document",
            scope=scope,
        )
        nodes.append(node)
        return node

    root = add(source.rsplit("/", 1)[-1], None)
    stack: list[tuple[int, Node]] = [(0, root)]
    paragraph: list[str] = []
    fenced = False

    def flush() -> None:
        text = "\n".join(paragraph).strip()
        paragraph.clear()
        if text:
            add(text, stack[-1][1])

    for line in lines:
        if line.lstrip().startswith("```"):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading:
            flush()
            level = len(heading.group(1))
            while stack[-1][0] >= level:
                stack.pop()
            stack.append((level, add(heading.group(2) or heading.group(1), stack[-1][1])))
        elif not line.strip() and not fenced:
            flush()
        else:
            paragraph.append(line)
    flush()
    if len(nodes) == 1:
        raise InvalidInput(f"{source} has no text to import", source)
    return nodes
