"""Moving memories in and out (`Memory.exchange`): Markdown that reads as a
document and imports back identically, the lossless JSONL backup, and
imports from other tools."""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..errors import InvalidInput, NotFound
from ..model import Node, clean_scope
from ..services import Part, Services
from ..store import StagingArea
from ..timeutil import to_iso
from . import backup, importers, jsonl, markdown, notes
from .importers import ImportReport
from .loader import load_nodes

if TYPE_CHECKING:
    from ..keys import ApiKeys
    from ..structured.memories import TypedMemories


class Exchange(Part):
    """Exports and imports; every import is all or nothing."""

    def __init__(
        self,
        services: Services,
        keys: ApiKeys,
        typed: TypedMemories,
        staging: Callable[[int], StagingArea],
    ) -> None:
        super().__init__(services)
        self._keys = keys
        self._typed = typed
        self._staging = staging  # a database at an older backup's table format

    def export_markdown(self, node_id: str | None = None, *, scope: str | None = None) -> str:
        """One tree, a scope's trees or every tree as Markdown that reads as a
        document and imports back identically."""
        if node_id is not None and scope is not None:
            raise InvalidInput("export one tree (node_id) or one scope, not both", node_id)
        if node_id is not None:
            return markdown.export(self.store, [node_id])
        wanted = None if scope is None else clean_scope(scope)
        ids = [r.id for r in self.store.roots() if wanted is None or r.scope == wanted]
        if wanted is not None and not ids:
            raise NotFound(f"scope {wanted!r} holds no trees", wanted)
        return markdown.export(self.store, ids)

    def import_markdown(
        self, text: str, *, source: str = "markdown", scope: str | None = None
    ) -> list[Node]:
        """Import an export (exactly) or any Markdown (as an outline); returns the tops."""
        return markdown.parse(
            self.store, self.tokenizer, text, source=source, clock=self.clock, scope=scope
        )

    def lines(
        self, *, include_keys: bool = False, include_vectors: bool = False
    ) -> Generator[str, None, None]:
        """The backup `export_jsonl` writes, line by line (header first)."""
        embedder = self.retriever.embedder.identity if include_vectors else None
        return backup.export_lines(
            self.store, self.tokenizer.name, embedder, keys=include_keys, vectors=include_vectors
        )

    def export_jsonl(
        self, out: TextIO, *, include_keys: bool = False, include_vectors: bool = False
    ) -> int:
        """Write a lossless backup of every table of the memory; returns the
        line count. API keys (their hashes, never a secret) and vectors only
        when asked: without them the restored database embeds its nodes again."""
        embedder = self.retriever.embedder.identity if include_vectors else None
        return jsonl.write(
            self.store,
            self.tokenizer.name,
            out,
            embedder=embedder,
            keys=include_keys,
            vectors=include_vectors,
        )

    def import_jsonl(
        self,
        lines: Iterable[str],
        *,
        source: str = "jsonl",
        merge: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[Node]:
        """Restore a JSONL backup into this empty database, all or nothing;
        with `merge`, add its trees and their history to a database that
        holds memories. Returns the imported roots. `progress(rows, total)`
        hears of a restore's rows as they are read."""

        def identity() -> str:
            return self.retriever.embedder.identity

        tops = jsonl.read(
            self.store,
            self.tokenizer,
            lines,
            source,
            identity,
            staging=self._staging,
            merge=merge,
            progress=progress,
        )
        self._keys.forget_verified()  # keys and shared scopes may have come with it
        return tops

    def import_from(
        self, source: str, text: str, *, file: str = "import", scope: str | None = None
    ) -> ImportReport:
        """Move in from another tool's export (`source`: mem0 or openai-chat;
        the formats are in `exchange.importers`), all or nothing. `scope` is
        where records that name none go (default: the default scope)."""
        if source not in importers.SOURCES:
            raise InvalidInput(
                f"unknown source {source!r}; choose one of {list(importers.SOURCES)}", source
            )
        data = importers.parse_json_file(text, file)
        default = importers.default_scope(scope)
        now = to_iso(self.clock())
        report = ImportReport(source, file)
        with self.store.transaction():
            if source == "mem0":
                records = importers.mem0_records(data, file)
                nodes, report.skipped = importers.mem0_nodes(
                    records, self.services.space, default, now, file
                )
                load_nodes(self.store, self.tokenizer, nodes, (), file)
                report.memories = len(nodes)
                _count(report, nodes)
                return report
            for number, conversation in enumerate(importers.openai_conversations(data, file), 1):
                where = f"{file}, conversation {number}"
                nodes, skipped = importers.conversation_nodes(conversation, default, now, where)
                load_nodes(self.store, self.tokenizer, nodes, (), where)
                report.sessions += 1
                report.messages += len(nodes) - 1
                report.skipped += skipped
                _count(report, nodes)
        return report

    def import_notes(
        self, folder: str | os.PathLike[str], *, scope: str | None = None
    ) -> ImportReport:
        """A folder of Markdown notes, one document each, with their front
        matter and wiki-links as relations (see `exchange.notes`); all or
        nothing."""
        chosen = importers.default_scope(scope)
        found = list(notes.notes_in(Path(folder), chosen))
        report = ImportReport("markdown", str(folder), documents=len(found))
        by_name: dict[str, str] = {}
        for note in found:
            for name in note.names:
                by_name.setdefault(name, note.nodes[0].id)
        with self.store.transaction():
            for note in found:
                load_nodes(self.store, self.tokenizer, note.nodes, (), note.path)
                _count(report, note.nodes)
            for note in found:
                for node_id, name in notes.links(note.nodes):
                    target = by_name.get(name)
                    if target is None:
                        report.dangling += 1
                    elif target != node_id:
                        self._typed.relate(node_id, target, "related_to")
                        report.relations += 1
        return report


def _count(report: ImportReport, nodes: Iterable[Node]) -> None:
    for node in nodes:
        report.scopes[node.scope] = report.scopes.get(node.scope, 0) + 1
