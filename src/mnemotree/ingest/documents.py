"""Documents (`Memory.docs`): ingest files as trees, list, forget, and ask
questions answered from them with citations."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, MnemotreeError
from ..model import clean_scopes
from ..rag import Answer, build_answer
from ..services import Part, Search, Services
from ..telemetry import operation
from ..timeutil import to_iso
from .limits import DEFAULT_LIMITS, IngestLimits
from .pipeline import (
    DocumentInfo,
    Ingestor,
    IngestReport,
    Progress,
    bytes_source,
    discover,
    documents,
    matching_documents,
)
from .write import WriteRunner, run_here

# Files made by tools, not written by people: reading them would bury the
# project's own code under thousands of machine-made symbols.
GENERATED_FILES = (
    "*_pb2.py",
    "*_pb2.pyi",
    "*_pb2_grpc.py",
    "*.min.js",
    "node_modules/*",
    "*/node_modules/*",
    "*.egg-info/*",
    "*/site-packages/*",
)


class Documents(Part):
    """Files read into trees (one per file, its sections and chunks below),
    kept in step with the files, and questions answered from them."""

    def __init__(self, services: Services, search: Search) -> None:
        super().__init__(services)
        self.search = search

    def ingest(
        self,
        source: str | os.PathLike[str] | bytes | Sequence[str | os.PathLike[str]],
        *,
        scope: str,
        filename: str | None = None,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        generated: Sequence[str] | None = None,
        prune: bool = False,
        progress: Progress | None = None,
        limits: IngestLimits = DEFAULT_LIMITS,
        run_write: WriteRunner = run_here,
    ) -> IngestReport:
        """Read files (a path, a directory, several, or `bytes` with `filename`)
        into `scope` as document trees; re-reading writes only what changed.

        A file that fails to read or parse is reported in the result and
        leaves nothing behind; `limits` bound what one file may cost (a file
        over one fails with a ParseError naming it). A file is written in
        transactions of `limits.batch_nodes` nodes, each run by `run_write`
        (default: here); until the last commits, the document is listed as
        incomplete. `prune=True` forgets documents once read from the given
        directories whose files are gone. Walking a directory skips files
        matching `generated` (default `GENERATED_FILES`: protobuf output,
        node_modules, build metadata; pass `()` to read them); a file named
        alone is always read.
        """
        include, exclude = _globs(include, "include"), _globs(exclude, "exclude")
        skipped = GENERATED_FILES if generated is None else _globs(generated, "generated")
        exclude = (*exclude, *skipped)
        walked: list[Path] = []
        if isinstance(source, (bytes, bytearray)):
            sources = [bytes_source(source, filename or "")]
        else:
            if filename is not None:
                raise InvalidInput(
                    "filename is only for bytes; a path names its own file", filename
                )
            sources, walked = discover(_paths(source), include, exclude)
        pruned = walked if prune else []
        ingestor = Ingestor(self._tree, limits, run_write)
        with operation("ingest", {"mnemotree.files": len(sources)}):
            return ingestor.ingest(sources, scope, prune_under=pruned, progress=progress)

    def forget(
        self, path: str | os.PathLike[str], *, scopes: Sequence[str] | None = None
    ) -> list[str]:
        """Delete the documents read from `path` (or from under it, if a directory);
        they stay in history. Returns the forgotten sources."""
        wanted = clean_scopes(scopes)
        found = matching_documents(self.store, path, wanted)
        with self.store.transaction():
            for root in found:
                self._tree.delete(root.id)
        return [r.context_value for r in found]

    def ask(
        self,
        question: str,
        *,
        scopes: Sequence[str] | None = None,
        limit: int = 5,
        record: bool = True,
        history: Sequence[dict[str, Any]] = (),
        generate: bool = True,
    ) -> Answer:
        """Search memories and documents and build the cited RAG prompts for
        `question` (the documents-and-chat design). With an LLM configured (and `generate`), it
        answers from the memory system prompt, `history` (earlier chat
        messages) and the question; offline, or when the model fails, `answer`
        is None and `error` says why."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise InvalidInput(f"limit must be an integer from 1 to 1000, got {limit!r}", limit)
        # Headings also match; a deeper search leaves `limit` real sources.
        hits = self.search(question, scopes=scopes, limit=3 * limit, record=False)
        answer = build_answer(question, hits, limit)
        llm = self.llm if generate else None
        if llm is not None:
            messages = [
                {"role": "system", "content": answer.system_prompt},
                *history,
                {"role": "user", "content": question},
            ]
            try:
                answer.answer = llm.complete(messages).text.strip()
            except MnemotreeError as exc:  # the model failed, or its package is missing
                answer.error = str(exc)
        used = [s.node_id for s in answer.sources] + [h.node.id for h in answer.memories]
        if record and used:  # only what the prompt cites counts; never waits for the lock
            self.store.record_accesses_soon(used, to_iso(self.clock()))
        return answer

    def list(self, scopes: Sequence[str] | None = None) -> list[DocumentInfo]:
        """Ingested documents (in `scopes` if given) with their chunk counts."""
        wanted = clean_scopes(scopes)
        return documents(self.store, wanted)


def _paths(source: object) -> list[str | os.PathLike[str]]:
    """A path or a list of paths, as given to `ingest`."""
    items = [source] if isinstance(source, (str, os.PathLike)) else source
    if not isinstance(items, (list, tuple)) or not all(
        isinstance(p, (str, os.PathLike)) for p in items
    ):
        raise InvalidInput(
            "ingest wants a path, a list of paths, or bytes with a filename; "
            f"got {type(source).__name__}",
            source,
        )
    if not items or any(not str(p).strip() for p in items):
        raise InvalidInput("ingest needs a path: an empty one names nothing", source)
    return list(items)


def _globs(patterns: object, what: str) -> tuple[str, ...]:
    """Glob patterns: one string or a list of them (a string is not split into letters)."""
    found = (patterns,) if isinstance(patterns, str) else patterns
    if not isinstance(found, (list, tuple)) or not all(isinstance(p, str) for p in found):
        raise InvalidInput(f"{what} wants glob patterns such as '*.md', got {patterns!r}", patterns)
    return tuple(found)
