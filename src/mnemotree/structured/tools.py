"""Path memory as an agent sees it (the path-memory design): OpenAI-style tool schemas, a
dispatcher that runs a tool call and answers with the design's result objects,
the system-prompt outline of the tree, and context injection."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput, InvalidOperation, NotFound
from ..jsonlimits import parse_json
from .path_memory import DEFAULT_CONTEXT_TOKENS, Entry, PathMemory


def _tool(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


_PATH = {"type": "string", "description": "Hierarchical path such as 'Project/Goals/Phase1'."}

TOOLS: list[dict[str, Any]] = [
    _tool(
        "saveMemory",
        "Save structured data (any JSON) under a path, with a snapshot of the relevant "
        "context. Saving to an existing path updates it.",
        {
            "path": _PATH,
            "content": {"description": "The data to remember: text, object or list."},
            "contextTokens": {
                "type": "integer",
                "minimum": 0,
                "description": f"Context tokens to keep with it ({DEFAULT_CONTEXT_TOKENS}).",
            },
        },
        ["path", "content"],
    ),
    _tool(
        "queryMemory",
        "Read the entry at a path: its content and the context saved with it.",
        {"path": _PATH},
        ["path"],
    ),
    _tool(
        "queryMemoryHeading",
        "List the entries under a heading, ranked by a query and recency when a query is given.",
        {
            "path": _PATH,
            "query": {"type": "string", "description": "What to look for among the entries."},
            "recencyBias": {
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "description": "Weight of recency against similarity (default 0.3).",
            },
        },
        ["path"],
    ),
    _tool(
        "listMemory",
        "Show the tree of paths (like ls -R), below a path if one is given.",
        {"rootPath": {"type": "string", "description": "Start here (default: everything)."}},
        [],
    ),
    _tool(
        "deleteMemory",
        "Delete the entry at a path; entries below it too when recursive.",
        {"path": _PATH, "recursive": {"type": "boolean", "description": "Default false."}},
        ["path"],
    ),
]


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _content_tree(entries: list[Entry]) -> dict[str, Any]:
    """The path-memory design's listing: nested headings with each entry's content at its
    leaf (an entry that also has entries below keeps it under "_content")."""
    listed = {e.path for e in entries}
    below: dict[str, list[Entry]] = {}
    for entry in entries:
        parent = _parent(entry.path)
        below.setdefault(parent if parent in listed else "\0top", []).append(entry)

    def build(key: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for entry in below.get(key, []):
            children = build(entry.path)
            if not entry.has_content:
                out[entry.heading] = children
            else:
                out[entry.heading] = (
                    {"_content": entry.content, **children} if children else (entry.content)
                )
        return out

    return build("\0top")


def dispatch(memory: PathMemory, name: str, arguments: str | dict[str, Any]) -> dict[str, Any]:
    """Run one tool call; errors become result objects the model can read."""
    try:
        args = parse_json(arguments, "arguments") if isinstance(arguments, str) else dict(arguments)
    except InvalidInput as exc:
        return {"status": "ERROR", "error": exc.message}
    if not isinstance(args, dict):
        return {"status": "ERROR", "error": "arguments must be a JSON object"}
    tool = _TOOLS.get(name)
    if tool is None:
        known = [t["function"]["name"] for t in TOOLS]
        return {"status": "ERROR", "error": f"unknown tool {name!r}; known: {known}"}
    path = args.get("path", args.get("rootPath", ""))
    try:
        return tool(memory, args)
    except KeyError as exc:
        return {"status": "ERROR", "error": f"{name} needs {exc.args[0]!r}"}
    except NotFound:
        return {"status": "NOT_FOUND", "path": path}
    except (InvalidInput, InvalidOperation) as exc:
        return {"status": "ERROR", "path": path, "error": exc.message}


def _save(memory: PathMemory, args: dict[str, Any]) -> dict[str, Any]:
    if "content" not in args:
        raise InvalidInput("saveMemory needs content", args)
    tokens = args.get("contextTokens", DEFAULT_CONTEXT_TOKENS)
    entry = memory.save(args["path"], args["content"], context_tokens=tokens)
    return {
        "status": "SUCCESS",
        "path": entry.path,
        "version": entry.version,
        "contextTokens": sum(c.tokens for c in entry.snapshot),
        "chunksStored": len(entry.snapshot),
    }


def _query(memory: PathMemory, args: dict[str, Any]) -> dict[str, Any]:
    entry = memory.get(args["path"])
    if not entry.has_content:
        return {"status": "NOT_FOUND", "path": entry.path, "error": "a heading, no entry"}
    found = entry.to_dict()
    return {"status": "SUCCESS", **{k: found[k] for k in ("content", "contextChunks", "metadata")}}


def _query_heading(memory: PathMemory, args: dict[str, Any]) -> dict[str, Any]:
    bias = args.get("recencyBias", 0.3)
    children = memory.query_heading(args["path"], args.get("query"), recency_bias=bias)
    if not children:
        return {"status": "NOT_FOUND", "path": args["path"]}
    return {
        "status": "SUCCESS",
        "children": [_child(e) for e in children],
        "totalChildren": len(children),
    }


def _list(memory: PathMemory, args: dict[str, Any]) -> dict[str, Any]:
    entries = memory.list(args.get("rootPath", ""))
    return {
        "status": "SUCCESS",
        "tree": _content_tree(entries),
        "totalEntries": sum(1 for e in entries if e.has_content),
    }


def _delete(memory: PathMemory, args: dict[str, Any]) -> dict[str, Any]:
    deleted = memory.delete(args["path"], recursive=bool(args.get("recursive", False)))
    return {"status": "SUCCESS", "path": args["path"], "deleted": deleted}


_TOOLS: dict[str, Callable[[PathMemory, dict[str, Any]], dict[str, Any]]] = {
    "saveMemory": _save,
    "queryMemory": _query,
    "queryMemoryHeading": _query_heading,
    "listMemory": _list,
    "deleteMemory": _delete,
}


def _child(entry: Entry) -> dict[str, Any]:
    data = {
        "path": entry.path,
        "heading": entry.heading,
        "content": entry.content,
        "modified": entry.modified,
    }
    if entry.score is not None:
        data["score"] = round(entry.score, 4)
        data["relevantChunks"] = [c.to_dict() for c in entry.relevant]
    return data


def outline(memory: PathMemory, depth: int = 3) -> str:
    """The system-prompt block of the path-memory design, Example 4: the tree to `depth` levels."""
    entries = memory.list()
    parents = {_parent(e.path) for e in entries}
    lines = [
        "  " * e.path.count("/")
        + e.heading
        + ("/" if e.path in parents or not e.has_content else "")
        for e in entries
        if e.path.count("/") < depth
    ]
    listing = "\n".join(lines) or "(empty)"
    return (
        "You have access to a structured memory system with the following top-level "
        f"structure:\n\n{listing}\n\n"
        "Use queryMemory(path) to retrieve specific entries.\n"
        "Use queryMemoryHeading(path, query) to search within a heading.\n"
        "Use saveMemory(path, content) to store new information."
    )


@dataclass
class Injected:
    """Messages after injection, their exact token count and what was pruned."""

    messages: list[dict[str, str]]
    tokens: int
    pruned: int


def inject(
    memory: PathMemory,
    path: str,
    messages: Sequence[dict[str, str]],
    budget: int,
    *,
    keep_recent: int = 2,
) -> Injected:
    """The path-memory design's context injection: put the entry and its snapshot after the
    system messages, and prune the oldest other messages (never the last
    `keep_recent`) until the content tokens fit `budget`. Snapshot chunks are
    dropped weakest first if even that is not enough."""
    if isinstance(budget, bool) or not isinstance(budget, int) or budget <= 0:
        raise InvalidInput(f"budget must be a positive number of tokens, got {budget!r}", budget)
    if isinstance(keep_recent, bool) or not isinstance(keep_recent, int) or keep_recent < 0:
        raise InvalidInput(f"keep_recent must be 0 or more, got {keep_recent!r}", keep_recent)
    entry = memory.get(path)
    if not entry.has_content:  # as queryMemory answers: a heading is not an entry
        raise NotFound(f"{entry.path!r} is a heading, not an entry", entry.path)
    chunks = sorted(entry.snapshot, key=lambda c: -c.similarity)
    head = [dict(m) for m in messages if m.get("role") == "system"]
    rest = [dict(m) for m in messages if m.get("role") != "system"]

    def block(kept: int) -> dict[str, str]:
        body = json.dumps(entry.content, ensure_ascii=False, indent=1)
        text = f"Memory {entry.path}:\n{body}"
        if kept:
            context = "\n".join(f"[{c.role or 'context'}] {c.text}" for c in chunks[:kept])
            text += f"\n\nContext from when it was saved:\n{context}"
        return {"role": "system", "content": text}

    tokenizer = memory.tree.tokenizer

    def total(items: list[dict[str, str]]) -> int:
        return sum(tokenizer.count_many([m.get("content", "") for m in items])) if items else 0

    kept_chunks = len(chunks)
    pruned = 0
    while True:
        candidate = [*head, block(kept_chunks), *rest]
        used = total(candidate)
        if used <= budget:
            return Injected(candidate, used, pruned)
        if len(rest) > keep_recent:
            rest.pop(0)
            pruned += 1
        elif kept_chunks:
            kept_chunks -= 1
        else:
            raise InvalidInput(
                f"the entry at {path!r} with the system and last {keep_recent} messages needs "
                f"{used} tokens, over the budget of {budget}; raise the budget",
                budget,
            )
