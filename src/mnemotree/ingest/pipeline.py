"""Ingesting files: find them, skip the unchanged, parse, plan, sync.

A file is read, parsed and planned (token counts included) outside any
transaction, within its IngestLimits; then written in short transactions
(see `write`): a file that fails to read or parse is reported with its
reason and leaves nothing behind, and the batch goes on. One whose writing
stops half-way stays marked incomplete until it is ingested again. Unchanged
files are recognised by size and modification time (no read), then by
content hash.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from stat import S_ISREG
from typing import Any

from ..errors import InvalidInput, InvalidOperation, MissingExtra, MnemotreeError, ParseError
from ..model import Node, clean_scope
from ..store import Store
from ..timeutil import to_iso
from ..tree import Tree
from ..treesync import Planned
from .imports import link_imports
from .limits import DEFAULT_LIMITS, Budget, IngestLimits
from .parsers import parse, parser_name
from .plan import CHUNK, DOCUMENT, PARSER_VERSION, document_id, owned, plan_document
from .python_source import LANGUAGE
from .tree_source import GRAMMARS
from .write import INGESTING, WriteRunner, complete, prepare, run_here, write

ADDED, CHANGED, UNCHANGED, FAILED = "added", "changed", "unchanged", "failed"


@dataclass
class FileResult:
    """What happened to one file."""

    path: str
    status: str  # added, changed, unchanged or failed
    root_id: str | None = None
    chunks: int = 0  # chunks the document holds now
    written: int = 0  # nodes added or updated by this ingest
    removed: int = 0
    error: str | None = None
    batches: int = 0  # write transactions this ingest took
    # The error behind `error`, for callers that answer with it (the HTTP upload).
    cause: MnemotreeError | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "cause"
        }


@dataclass
class IngestReport:
    """A batch's results, file by file, and documents pruned."""

    files: list[FileResult] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for f in self.files if f.status == status)

    @property
    def failed(self) -> list[FileResult]:
        return [f for f in self.files if f.status == FAILED]

    def summary(self) -> dict[str, int]:
        return {
            "added": self.count(ADDED),
            "changed": self.count(CHANGED),
            "unchanged": self.count(UNCHANGED),
            "failed": self.count(FAILED),
            "pruned": len(self.pruned),
            "chunks": sum(f.chunks for f in self.files),
            "written": sum(f.written for f in self.files),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary(),
            "files": [f.to_dict() for f in self.files],
            "pruned": self.pruned,
        }


@dataclass
class Source:
    """A file to ingest: where it is (or its bytes), and the key it is kept under."""

    key: str  # absolute path, or the name given with bytes
    path: Path | None = None
    data: bytes | None = None
    error: str | None = None
    # The path below the directory it was found in (a lone file: its name),
    # as code is cited: "store/search.py:41-50".
    relative: str | None = None


Progress = Callable[[int, int, FileResult], None]  # (done, total, last result)


def discover(
    paths: Sequence[str | os.PathLike[str]],
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> tuple[list[Source], list[Path]]:
    """Files to ingest (directories walked, hidden entries skipped, only known
    types; `include`/`exclude` globs match the path below the directory or the
    file name) and the directories walked (for pruning)."""
    found: list[Source] = []
    walked: list[Path] = []
    for given in paths:
        # One spelling everywhere: absolute, symlinks kept (a link and its
        # target are two names the user may forget separately).
        path = Path(os.path.abspath(Path(given).expanduser()))
        try:
            if path.is_dir():
                walked.append(path)
                found.extend(
                    Source(str(f), f, relative=f.relative_to(path).as_posix())
                    for f in _walk(path, include, exclude)
                )
            elif path.exists():
                found.append(Source(str(path), path, relative=path.name))
            else:
                found.append(Source(str(path), error="no such file or directory"))
        except OSError as exc:  # too long a name, an unreadable folder: this path only
            reason = exc.strerror or str(exc)
            found.append(Source(str(path), error=f"cannot read ({reason})"))
    unique = {s.key: s for s in found}  # the same file named twice is read once
    return list(unique.values()), walked


def _walk(top: Path, include: Sequence[str], exclude: Sequence[str]) -> Iterator[Path]:
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.startswith(".") or parser_name(name) is None:
                continue
            path = Path(folder) / name
            relative = path.relative_to(top).as_posix()
            if include and not _matches(relative, name, include):
                continue
            if exclude and _matches(relative, name, exclude):
                continue
            yield path


def _matches(relative: str, name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatch(relative, p) or fnmatch.fnmatch(name, p) for p in patterns)


class Ingestor:
    """Writes documents into the tree; one per (scope, source). `run_write`
    runs each write transaction (default: here; the server: on its writer)."""

    def __init__(
        self, tree: Tree, limits: IngestLimits = DEFAULT_LIMITS, run_write: WriteRunner = run_here
    ) -> None:
        if not isinstance(limits, IngestLimits):
            raise InvalidInput(f"limits must be an IngestLimits, got {limits!r}", limits)
        self.tree = tree
        self.store = tree.store
        self.limits = limits
        self.run = run_write
        self._tops: dict[Path, Path | None] = {}  # folder -> its project's top folder

    def ingest(
        self,
        sources: list[Source],
        scope: str,
        *,
        prune_under: Sequence[Path] = (),
        progress: Progress | None = None,
    ) -> IngestReport:
        scope = clean_scope(scope)
        report = IngestReport()
        ids = [document_id(scope, s.key) for s in sources]
        known = {n.id: n for n in self.store.get_many(ids)}
        for done, (source, root_id) in enumerate(zip(sources, ids, strict=True), start=1):
            result = self._one(source, scope, known.get(root_id))
            report.files.append(result)
            if progress is not None:
                progress(done, len(sources), result)
        counts = self.store.count_by_root([f.root_id for f in report.files if f.root_id], CHUNK)
        for result in report.files:
            result.chunks = counts.get(result.root_id or "", 0)
        if prune_under:
            seen = {s.key for s in sources}
            report.pruned = self._prune(scope, prune_under, seen)
        written = [
            s.key
            for s, f in zip(sources, report.files, strict=True)
            if f.status in (ADDED, CHANGED)
        ]
        if report.pruned or any(_is_code(key) for key in written):
            self.run(partial(self._link, scope))
        return report

    def _link(self, scope: str) -> None:
        """Relate the scope's code files by their imports, as they are now."""
        with self.store.transaction():
            link_imports(self.store, scope, to_iso(self.tree.clock()))

    def _relative(self, source: Source, known: Node | None) -> str | None:
        """The path code is cited by, the same however the file is named: kept
        from the last read, else below the project's top folder, else below
        the folder it was found in; None for a document that is not code."""
        if not _is_code(source.key):
            return None
        key = source.key.replace("\\", "/")
        kept = known.metadata.get("relative_path") if known is not None else None
        if isinstance(kept, str) and kept and key.endswith("/" + kept):
            return kept
        if source.path is not None:
            top = self._top(source.path.parent)
            if top is not None:
                return source.path.relative_to(top).as_posix()
        return source.relative

    def _top(self, folder: Path) -> Path | None:
        """The nearest folder at or above `folder` holding a project marker
        (looked up once per folder of an ingest)."""
        if folder not in self._tops:
            self._tops[folder] = next(
                (
                    f
                    for f in (folder, *folder.parents)
                    if any((f / marker).exists() for marker in _PROJECT_MARKERS)
                ),
                None,
            )
        return self._tops[folder]

    def _one(self, source: Source, scope: str, known: Node | None) -> FileResult:
        if source.error is not None:
            return FileResult(source.key, FAILED, error=f"{source.key}: {source.error}")
        try:
            with _one_at_a_time(self.store, document_id(scope, source.key), source.key):
                return self._read_and_sync(source, scope, known)
        except (ParseError, InvalidInput, InvalidOperation, MissingExtra) as exc:
            message = exc.message if source.key in exc.message else f"{source.key}: {exc.message}"
            return FileResult(source.key, FAILED, error=message, cause=exc)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            return FileResult(source.key, FAILED, error=f"{source.key}: cannot read ({reason})")

    def _is_own_database(self, path: Path) -> bool:
        location = self.store.location
        if location == ":memory:" or not location:
            return False
        own = Path(location).resolve()
        found = path.resolve()
        return found.parent == own.parent and found.name in {
            own.name + suffix for suffix in ("", "-wal", "-shm", "-journal")
        }

    def _read_and_sync(self, source: Source, scope: str, known: Node | None) -> FileResult:
        budget = Budget(source.key, self.limits)
        info: dict[str, Any] = {}
        if source.path is not None:
            stat = source.path.stat()
            if not S_ISREG(stat.st_mode):  # a FIFO or device would block or never end
                raise ParseError(f"{source.key} is not a regular file", source.key)
            if self._is_own_database(source.path):
                # Closing a file handle on the database drops every SQLite lock
                # this process holds on it, which lets another process reset the
                # WAL under a writer here: the file could be corrupted.
                raise ParseError(
                    f"{source.key} is this memory's own database (or its journal); "
                    "it cannot be read as a document",
                    source.key,
                )
            info = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
            if known is not None and _current(known, info):
                return self._unchanged(known)
            budget.at_most("max_file_bytes", stat.st_size, "bytes")
            data = source.path.read_bytes()
        else:
            assert source.data is not None
            data = source.data
            info = {"size": len(data)}
        budget.at_most("max_file_bytes", len(data), "bytes")  # a file may grow as it is read
        info["sha256"] = hashlib.sha256(data).hexdigest()
        if known is not None and _current(known, {"sha256": info["sha256"]}):
            touched = dataclasses.replace(known, metadata={**known.metadata, **info})
            self.run(lambda: self._annotate(touched))  # same content, touched file: new time
            return self._unchanged(known)
        parsed = parse(data, source.key, self.limits)  # its errors name the whole path
        del data  # the text is in `parsed` now: a large file read here is not held twice
        plan = plan_document(
            parsed,
            scope=scope,
            source=source.key,
            filename=Path(source.key).name,
            file_info=info,
            relative=self._relative(source, known),
            budget=budget,
        )
        if not any(_chunks(plan)):
            raise ParseError(f"{source.key} has no text to index", source.key)
        writes = prepare(self.tree, plan, owned)
        batches = write(self.store, writes, self.limits.batch_nodes, self.run)
        status = CHANGED if known is not None else ADDED
        return FileResult(
            source.key,
            status,
            plan.id,
            written=len(writes.written),
            removed=len(writes.gone),
            batches=batches,
        )

    def _annotate(self, node: Node) -> None:
        with self.store.transaction():
            self.tree.batch().annotate(node)

    def _unchanged(self, known: Node) -> FileResult:
        return FileResult(known.context_value, UNCHANGED, known.id)

    def _prune(self, scope: str, folders: Sequence[Path], seen: set[str]) -> list[str]:
        """Forget documents once read from under `folders` whose file is gone."""
        pruned = []
        for root in self.store.roots_of_type(DOCUMENT, (scope,)):
            source = root.context_value
            inside = any(source.startswith(str(f) + os.sep) for f in folders)
            if inside and source not in seen and not Path(source).is_file():
                self.run(partial(self.tree.delete, root.id))
                pruned.append(source)
        return pruned


# Files that mark a project's top folder: code is cited by its path below it.
_PROJECT_MARKERS = (".git", "pyproject.toml", "setup.py", "setup.cfg", "package.json", "go.mod")
_CODE = frozenset({LANGUAGE, *GRAMMARS})  # parsers whose documents are source code


def _is_code(key: str) -> bool:
    return parser_name(key) in _CODE


def _chunks(plan: Planned) -> Iterator[Planned]:
    """The chunk nodes of a plan."""
    for child in plan.children:
        if child.new.context_type == CHUNK:
            yield child
        yield from _chunks(child)


def _current(known: Node, info: dict[str, Any]) -> bool:
    """The stored document was read from this very file by this parser version,
    and written to the end."""
    meta = known.metadata
    return (
        meta.get("parser") == PARSER_VERSION
        and INGESTING not in meta
        and all(meta.get(k) == v for k, v in info.items())
    )


_BUSY_LOCK = threading.Lock()
_BUSY: set[tuple[int, str]] = set()  # (store, document) being ingested now


@contextmanager
def _one_at_a_time(store: Store, root_id: str, source: str) -> Iterator[None]:
    """Claims a document while one thread ingests it: its batches are written
    outside one transaction, so a second ingest of the same file must not
    write between them. The second is refused rather than made to wait: it
    may be running on the very writer thread the first is waiting for."""
    key = (id(store), root_id)
    with _BUSY_LOCK:
        if key in _BUSY:
            raise InvalidOperation(
                f"{source} is being ingested right now (another request); "
                "send it again once that is done",
                source,
            )
        _BUSY.add(key)
    try:
        yield
    finally:
        with _BUSY_LOCK:
            _BUSY.discard(key)


def bytes_source(data: bytes, filename: str) -> Source:
    """A file given as bytes, kept under `filename`."""
    if not isinstance(data, (bytes, bytearray)):
        raise InvalidInput(f"data must be bytes, got {type(data).__name__}", data)
    if not isinstance(filename, str) or not filename.strip():
        raise InvalidInput(
            "a file given as bytes needs a filename (for its type and citations)", filename
        )
    return Source(filename.strip(), data=bytes(data), relative=filename.strip())


@dataclass
class DocumentInfo:
    """An ingested document as `mnemotree docs` lists it."""

    root_id: str
    title: str
    source: str
    scope: str
    document_type: str
    chunks: int
    pages: int | None
    size: int | None
    updated_at: str
    complete: bool = True  # False while (or if) its writing stopped half-way

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def documents(store: Store, scopes: Sequence[str] | None = None) -> list[DocumentInfo]:
    """Every ingested document (in `scopes` if given), with its chunk count."""
    roots = store.roots_of_type(DOCUMENT, scopes)
    counts = store.count_by_root([r.id for r in roots], CHUNK)
    return [_info(r, counts.get(r.id, 0)) for r in roots]


def _info(root: Node, chunks: int) -> DocumentInfo:
    meta = root.metadata
    return DocumentInfo(
        root.id,
        root.text,
        root.context_value,
        root.scope,
        str(meta.get("document_type", "")),
        chunks,
        meta.get("pages"),
        meta.get("size"),
        root.updated_at,
        complete(root),
    )


def matching_documents(
    store: Store, path: str | os.PathLike[str], scopes: Sequence[str] | None = None
) -> list[Node]:
    """Document roots read from `path`, or from under it if it is a folder. The
    path is taken as given (a name given with bytes), then as ingest spells a
    path (absolute, links kept), then resolved (a document ingested through a
    link, forgotten by its target)."""
    roots = store.roots_of_type(DOCUMENT, scopes)
    given = Path(path).expanduser()
    for spelling in (str(path), os.path.abspath(given), os.path.realpath(given)):
        found = [
            r
            for r in roots
            if r.context_value == spelling
            or r.context_value.startswith(spelling.rstrip(os.sep) + os.sep)
        ]
        if found:
            return found
    return []
