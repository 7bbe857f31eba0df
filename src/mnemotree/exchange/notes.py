"""A folder of Markdown notes (Obsidian, basic-memory, Logseq pages, plain
notes) read into the tree: one document per note, all in one transaction.

Every `*.md` file below the folder (sorted by path) becomes a document
whose root is the note's title (front matter `title`, else the file name
without `.md`), with the note's headings as sections and its paragraphs as
leaves. A front matter block at the top of the file

    ---
    title: Porto trip
    tags: [travel, 2024]
    created: 2024-03-02
    aliases:
      - Oporto
    ---

is kept in the root's metadata (`front_matter`; scalars and lists of
scalars, one level; other lines are kept as text in `front_matter_lines`).
`created` (or `date`) sets the note's time, else the file's modification
time. A wiki-link `[[Other note]]`, `[[Other note|shown text]]` or
`[[Other note#Heading]]` becomes a `related_to` relation from the paragraph
that holds it to the linked note's root, found by file name, title or alias
(case-insensitive); links to notes not in the folder are counted as
dangling. The note's path relative to the folder is kept (`path`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..model import Node
from ..timeutil import from_iso, to_iso
from .markdown import outline_nodes

WIKI_LINK = re.compile(r"\[\[([^\]\|#\n]+)(?:#[^\]\|\n]*)?(?:\|[^\]\n]*)?\]\]")
_KEY = re.compile(r"^([A-Za-z_][\w -]*):\s*(.*)$")
MAX_NOTES = 50_000


@dataclasses.dataclass
class Note:
    path: str  # relative, with forward slashes
    nodes: list[Node]
    names: set[str]  # lower-cased: file stem, title, aliases


def notes_in(folder: Path, scope: str) -> Iterator[Note]:
    if not folder.is_dir():
        raise InvalidInput(f"{str(folder)!r} is not a folder of Markdown notes", str(folder))
    files = sorted(p for p in folder.rglob("*.md") if p.is_file())
    if not files:
        raise InvalidInput(f"{str(folder)!r} holds no .md files", str(folder))
    if len(files) > MAX_NOTES:
        raise InvalidInput(
            f"{str(folder)!r} holds {len(files):,} notes; at most {MAX_NOTES:,}", len(files)
        )
    for file in files:
        relative = file.relative_to(folder).as_posix()
        try:
            text = file.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInput(f"cannot read {relative}: {exc}", relative) from None
        yield note_of(relative, text, _mtime(file), scope)


def _mtime(file: Path) -> str:
    return to_iso(datetime.fromtimestamp(file.stat().st_mtime, tz=timezone.utc))


def note_of(relative: str, text: str, modified: str, scope: str) -> Note:
    front, lines, body = front_matter(text.replace("\r\n", "\n"))
    title = str(front.get("title") or "").strip() or relative.rsplit("/", 1)[-1][:-3]
    when = _when(front.get("created") or front.get("date")) or modified
    meta: dict[str, Any] = {"source": "markdown-notes", "path": relative}
    if front:
        meta["front_matter"] = front
    if lines:
        meta["front_matter_lines"] = lines
    if body.strip():
        nodes = outline_nodes(body.split("\n"), relative, when, scope)
    else:  # a note that is only a title
        nodes = outline_nodes([title], relative, when, scope)[:1]
    root = dataclasses.replace(nodes[0], text=title, metadata=meta)
    aliases = front.get("aliases") or []
    names = {relative.rsplit("/", 1)[-1][:-3].lower(), title.lower()}
    names.update(str(a).lower() for a in (aliases if isinstance(aliases, list) else [aliases]))
    return Note(relative, [root, *nodes[1:]], names)


def front_matter(text: str) -> tuple[dict[str, Any], list[str], str]:
    """(fields, lines not read as fields, the rest of the note)."""
    if not text.startswith("---\n"):
        return {}, [], text
    end = text.find("\n---", 3)
    if end < 0 or text[end + 4 : end + 5] not in ("", "\n"):
        return {}, [], text
    fields: dict[str, Any] = {}
    other: list[str] = []
    key: str | None = None
    for line in text[4:end].split("\n"):
        item = line.strip()
        if key is not None and item.startswith("- ") and isinstance(fields.get(key), list):
            fields[key].append(_scalar(item[2:]))
            continue
        found = _KEY.match(line)
        if found:
            key, value = found.group(1).strip(), found.group(2).strip()
            fields[key] = [] if not value else _value(value)
        elif item:
            other.append(line)
    return fields, other, text[end + 4 :].lstrip("\n")


def _value(text: str) -> Any:
    if text.startswith("[") and text.endswith("]"):
        return [_scalar(v) for v in text[1:-1].split(",") if v.strip()]
    return _scalar(text)


def _scalar(text: str) -> Any:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return text


def _when(value: object) -> str | None:
    text = str(value).strip() if value not in (None, "") else ""
    if not text:
        return None
    try:
        return to_iso(from_iso(text if "T" in text or " " in text else f"{text}T00:00:00"))
    except ValueError:
        return None


def links(nodes: list[Node]) -> Iterator[tuple[str, str]]:
    """(node id, linked name lower-cased) for each wiki-link in the note's text."""
    for node in nodes[1:]:
        for found in WIKI_LINK.finditer(node.text):
            yield node.id, found.group(1).strip().lower()
