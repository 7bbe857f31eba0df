"""JSONL backup of a whole database: lossless, streamable, diffable."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from ..errors import InvalidInput, SchemaError
from ..jsonlimits import MAX_DEPTH, parse_json
from ..model import Node, NodeVersion
from ..store import Store
from ..tokens import Tokenizer
from ..traverse import walk
from .loader import load_nodes

FORMAT = "mnemotree-jsonl"
FORMAT_VERSION = 1


# json.dumps leaves these raw, yet str.splitlines() and many readers break on them.
_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False).translate(_LINE_BREAKS)


def export_lines(store: Store, tokenizer_name: str) -> Iterator[str]:
    """Header, then every tree depth-first (parents first), then the history."""
    header = {
        "type": "header",
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "schema_version": store.schema_version,
        "tokenizer": tokenizer_name,
    }
    yield json.dumps(header)
    for root in store.roots():
        for _, node, _ in walk(store, root.id):
            record = node.to_dict()
            del record["tags"]  # derived from text
            yield _dumps({"type": "node", **record})
    for version in store.iter_versions():
        yield _dumps({"type": "version", **version.to_dict()})


def write(store: Store, tokenizer_name: str, out: TextIO) -> int:
    count = 0
    for line in export_lines(store, tokenizer_name):
        out.write(line + "\n")
        count += 1
    return count


def read(store: Store, tokenizer: Tokenizer, lines: Iterable[str], source: str) -> list[Node]:
    """Import a JSONL backup; all or nothing."""
    nodes: list[Node] = []
    versions: list[NodeVersion] = []
    seen_header = False
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{source}, line {number}"
        record = _parse(line, where)
        kind = record.get("type")
        if not seen_header:
            _check_header(record, where)
            seen_header = True
        elif kind == "node":
            nodes.append(_node(record, where))
        elif kind == "version":
            versions.append(_version(record, where))
        else:
            raise InvalidInput(f"{where}: unknown record type {kind!r}", kind)
    if not seen_header:
        raise InvalidInput(f"{source} is empty; expected a mnemotree JSONL export", source)
    return load_nodes(store, tokenizer, nodes, versions, source)


def _parse(line: str, where: str) -> dict[str, Any]:
    # A version record holds a node, which holds the metadata: two levels
    # above it. The loader applies the exact limits to each field.
    record = parse_json(line, f"{where}: the record", max_depth=MAX_DEPTH + 2, max_chars=None)
    if not isinstance(record, dict):
        raise InvalidInput(f"{where}: expected a JSON object", line[:80])
    return record


def _check_header(record: dict[str, Any], where: str) -> None:
    if record.get("type") != "header" or record.get("format") != FORMAT:
        raise InvalidInput(
            f"{where}: not a mnemotree JSONL export (no header line); "
            "use --format markdown for Markdown files",
            record.get("format"),
        )
    version = record.get("format_version", 0)
    if isinstance(version, bool) or not isinstance(version, int):
        raise InvalidInput(f"{where}: format_version must be an integer", version)
    if version > FORMAT_VERSION:
        raise SchemaError(
            f"{where}: export format version {record.get('format_version')} is newer than "
            f"this mnemotree reads ({FORMAT_VERSION}); upgrade mnemotree",
            record.get("format_version"),
        )


def _node(record: object, where: str) -> Node:
    """A node from a record; field types are checked by the loader."""
    if not isinstance(record, dict):
        raise InvalidInput(f"{where}: a node must be a JSON object", record)
    try:
        return Node.from_dict(record)
    except TypeError as exc:  # a required field is missing
        raise InvalidInput(f"{where}: malformed node record ({exc})", record.get("id")) from None


def _version(record: dict[str, Any], where: str) -> NodeVersion:
    node = _node(record.get("node"), where)
    fields = [record.get(k) for k in ("node_id", "version", "op", "change_id", "recorded_at")]
    node_id, version, op, change_id, recorded_at = fields
    if not all(isinstance(v, str) for v in (node_id, op, change_id, recorded_at)):
        raise InvalidInput(f"{where}: malformed version record", record.get("node_id"))
    if isinstance(version, bool) or not isinstance(version, int):
        raise InvalidInput(f"{where}: version must be an integer", version)
    return NodeVersion(node_id, version, op, change_id, recorded_at, node)  # type: ignore[arg-type]
