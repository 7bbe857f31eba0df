"""`Memory`: the public facade over one memory database, and the composition
root that builds its parts.

The core verbs are methods here: the tree (add, append, update, move,
delete, restore, read), `remember`, `search`, `context`, `ingest`, `ask`,
`purge`, `flush` and `close`. The rest are nouns built once from one
`Services` object: `mem.chat`, `mem.docs`, `mem.typed`, `mem.consolidation`,
`mem.keys`, `mem.exchange`, `mem.activity`, `mem.code`, and
`mem.paths(scope)`.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar, cast

from .activity.events import Activity
from .config import address_scheme, default_location, is_postgres
from .context.engine import ContextEngine
from .embed import Embedder
from .errors import InvalidInput, MnemotreeError
from .exchange.erasure import Erasure
from .exchange.migration import copy_store
from .exchange.transfer import Exchange
from .ingest.documents import Documents
from .ingest.pattern_memory import CodePatterns
from .keys import ApiKeys
from .llm import LLM
from .memory_aliases import attach
from .model import (
    DEFAULT_SCOPE,
    NewNode,
    Node,
    NodeFilter,
    NodeVersion,
    SerializeMode,
    clean_id,
    clean_importance,
    clean_scope,
    clean_scopes,
)
from .nli import NLI, load_nli
from .perf import paused_gc
from .retrieval.rank import Weights
from .retrieval.search import Hit, Retriever
from .retrieval.vectors import ANN_MIN_ROWS
from .retrieval.worker import EmbeddingWorker
from .services import Services, moment, pick_tokenizer
from .store import StagingArea, Store, StoreStats
from .store.sqlite import SQLiteStore
from .store.sqlite.staging import Staging
from .structured import typed
from .structured.memories import TypedMemories
from .structured.path_memory import PathMemory
from .telemetry import operation
from .timeutil import Clock, utc_now
from .tokens import Tokenizer, warm
from .traverse import ancestors, expand_by_relevance, expand_to_budget, require, serialize

if TYPE_CHECKING:
    from .consolidate.consolidation import Consolidation
    from .consolidate.on_write import WriteScan
    from .conversation.chat import Chat

_Part = TypeVar("_Part")


class Memory:
    """A memory database: trees of nodes with history, search and context on top.

    >>> with Memory("memory.db") as mem:
    ...     space = mem.add("Project notes")
    ...     mem.append_child(space.id, "We chose SQLite for storage.")
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        tokenizer: str | Tokenizer | None = None,
        clock: Clock | None = None,
        store: Store | None = None,
        embedder: str | Embedder | None = None,
        weights: Weights | None = None,
        background: bool = False,
        ann_min_rows: int | None = ANN_MIN_ROWS,
        llm: LLM | str | None = None,
        chat_background: bool = True,
        nli: NLI | str | os.PathLike[str] | None = None,
    ) -> None:
        """`background=True` embeds new nodes in a worker thread instead of at the
        next search or flush; `ann_min_rows` is how many vectors a search must
        cover before the usearch graph (extra `ann`) is used, None for never.
        `llm`: an LLM, a registered name, "offline", or None for the one the
        MNEMOTREE_LLM_* variables configure (if any). `chat_background=False`
        summarises and captures chat inside `add_message` instead of after it.
        `nli`: an NLI cross-encoder (or the path of one exported to ONNX; None
        for $MNEMOTREE_NLI_MODEL, if set) that judges similar statements as
        they are written, beside the offline rules."""
        # Loaded first: a bad model file fails before anything is opened.
        self.nli: NLI | None = nli if isinstance(nli, NLI) else load_nli(nli)
        if store is None:
            store = open_store(path if path is not None else default_location())
        self.store: Store = store
        # Where the memory lives: a file's path, or a database's address
        # without its password. `path` is the file's (meaningless on Postgres).
        self.location = store.location
        self.path = Path(store.location)
        self.tokenizer = pick_tokenizer(store, tokenizer)
        # Whatever writes, the lock never waits for the tokenizer to load.
        store.before_writes(lambda: warm(self.tokenizer))
        self.clock: Clock = clock or utc_now
        self.services = services = Services(
            store,
            self.tokenizer,
            self.clock,
            weights=weights or Weights(),
            nli=self.nli,
            embedder=embedder,
            ann_min_rows=ann_min_rows,
            llm=llm,
        )
        self.weights = services.weights
        self._tree = services.tree
        # Background chat upkeep that failed (documented: there before any chat).
        self.chat_errors: list[MnemotreeError] = services.chat_errors
        self._build_parts(services, chat_background)
        self._worker: EmbeddingWorker | None = None
        self._worker_store: SQLiteStore | None = None
        if background:
            try:
                self._start_worker()
            except MnemotreeError:
                self.store.close()  # the caller never gets this object to close
                raise

    def _build_parts(self, services: Services, chat_background: bool) -> None:
        # Parts only writes or chats need are built on first use, so that a
        # process that only searches never imports their machinery (a cold
        # CLI search: ~70 ms of CPU of ~0.4 s).
        self._parts: dict[str, object] = {}
        self._parts_lock = threading.RLock()  # a part may build another
        self._chat_background = chat_background
        self.typed = TypedMemories(services, lambda: self._scan)
        self.docs = Documents(services, self.search)
        self.keys = ApiKeys(services)
        self.exchange = Exchange(services, self.keys, self.typed, staging=_staging)
        engine = ContextEngine(services, lambda session: self.chat.session(session))
        # Verbs that live in a part, named here as well: the part documents them.
        self.ingest = self.docs.ingest
        self.ask = self.docs.ask
        self.context = engine.context
        self.predict = engine.predict
        self.record_usage = engine.record_usage
        self.working_memory = engine.working_memory
        self.purge = Erasure(services, self.search).purge
        self.activity = Activity(services, self.typed)
        self.code = CodePatterns(services, lambda plan: self.consolidation.apply(plan))
        self.record_event = self.activity.record

    def _built(self, name: str, build: Callable[[], _Part]) -> _Part:
        """The part `name`, built by `build` on first use, once (a server's
        threads may ask for it together)."""
        with self._parts_lock:
            if name not in self._parts:
                self._parts[name] = build()
            return cast(_Part, self._parts[name])

    @property
    def consolidation(self) -> Consolidation:
        """Plans and runs of consolidation, contradictions and updates."""

        def build() -> Consolidation:
            from .consolidate.consolidation import Consolidation

            return Consolidation(self.services, self.typed, self._scan)

        return self._built("consolidation", build)

    @property
    def chat(self) -> Chat:
        """Chat sessions: messages, rolling summaries, and what is captured from them."""

        def build() -> Chat:
            from .conversation.chat import Chat

            return Chat(self.services, self.remember, background=self._chat_background)

        return self._built("chat", build)

    @property
    def _scan(self) -> WriteScan:
        """The scan each written statement runs for updates and contradictions."""

        def build() -> WriteScan:
            from .consolidate.on_write import WriteScan

            return WriteScan(self.services)

        return self._built("scan", build)

    def _start_worker(self) -> None:
        if self.store.location == ":memory:":
            raise InvalidInput(
                "background embedding needs a database file, not ':memory:'", self.store.location
            )
        worker_store: Store = self.store  # a pool serves the worker's thread too
        if isinstance(self.store, SQLiteStore):
            # Its own connection: reads and embeds while this one writes. A short
            # lock wait, since the worker retries anyway.
            worker_store = self._worker_store = SQLiteStore(self.store.location, busy_timeout=1.0)
        worker_retriever = Retriever(
            worker_store, self.retriever.embedder, self.clock, ann_min_rows=None
        )

        def flush(stop: Callable[[], bool]) -> int | None:
            with worker_store.alone("embedding") as mine:  # one process embeds at a time
                return worker_retriever.flush(stop=stop) if mine else None

        self._worker = EmbeddingWorker(worker_retriever.pending, flush).start()
        self.retriever.piggyback = 0  # the worker embeds new nodes, once

    def serve_concurrently(self) -> None:
        """Tune for many callers at once (a server): a search runs on its
        caller's thread alone, since the other cores serve other callers, and
        accesses are written at most once a second (or with the next write)."""
        self.retriever.parallel = False
        if isinstance(self.store, SQLiteStore):
            self.store.access_flush_every = 1.0

    def wait_for_vectors(self, timeout: float | None = None) -> bool:
        """With `background=True`: block until every queued node has its vector."""
        if self._worker is None:
            self.flush()
            return True
        return self._worker.wait_idle(timeout)

    @property
    def llm(self) -> LLM | None:
        """The configured LLM, or None (offline)."""
        return self.services.llm

    # -- lifecycle -------------------------------------------------------------

    def close(self) -> None:
        with self._parts_lock:
            chat = self._parts.get("chat")
        if chat is not None:
            cast("Chat", chat).stop()  # its last writes land before the connection closes
        if self._worker is not None:
            self._worker.stop()
            self._worker = None
        if self._worker_store is not None:
            self._worker_store.close()
            self._worker_store = None
        built = self.services.built_retriever
        if built is not None:
            built.close()
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- the tree --------------------------------------------------------------

    def add(
        self,
        text: str,
        *,
        parent: str | None = None,
        context_type: str = "",
        context_name: str = "",
        context_value: str = "",
        scope: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Node:
        """A new root, or a child appended under `parent`."""
        new = _spec(text, context_type, context_name, context_value, scope, metadata)
        if parent is None:
            return self._tree.create_root(new)
        return self._tree.append_child(parent, new)

    def append_child(
        self,
        parent: str,
        text: str,
        *,
        context_type: str = "",
        context_name: str = "",
        context_value: str = "",
        scope: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Node:
        """Append a child after the parent's last child (order = last + 1.0)."""
        return self.add(
            text,
            parent=clean_id(parent, "parent id"),
            context_type=context_type,
            context_name=context_name,
            context_value=context_value,
            scope=scope,
            metadata=metadata,
        )

    def append_many(self, parent: str, items: Iterable[NewNode | str]) -> list[Node]:
        """Append many children in one transaction."""
        specs = [item if isinstance(item, NewNode) else NewNode(item) for item in items]
        return self._tree.append_many(parent, specs)

    def insert_between(
        self,
        first: str,
        second: str,
        text: str,
        *,
        context_type: str = "",
        context_name: str = "",
        context_value: str = "",
        scope: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Node:
        """Insert a node between two adjacent siblings."""
        new = _spec(text, context_type, context_name, context_value, scope, metadata)
        return self._tree.insert_between(first, second, new)

    def update(
        self,
        node_id: str,
        text: str | None = None,
        *,
        context_type: str | None = None,
        context_name: str | None = None,
        context_value: str | None = None,
        scope: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Node:
        """Change text and/or fields; the previous state goes to history."""
        return self._tree.update(
            node_id,
            text,
            context_type=context_type,
            context_name=context_name,
            context_value=context_value,
            scope=scope,
            metadata=metadata,
        )

    update_content = update

    def delete(self, node_id: str) -> int:
        """Delete a node and its subtree (kept in history); returns how many went."""
        return self._tree.delete(node_id)

    def move(
        self,
        node_id: str,
        *,
        parent: str | None = None,
        after: str | None = None,
        before: str | None = None,
    ) -> Node:
        """Re-parent a node (append under `parent`) or reorder it next to a sibling."""
        return self._tree.move(node_id, parent_id=parent, after=after, before=before)

    def add_summary(
        self,
        node_ids: Sequence[str],
        text: str,
        *,
        context_type: str = "summary",
        context_name: str = "",
        context_value: str = "",
        metadata: dict[str, Any] | None = None,
    ) -> Node:
        """Summarise contiguous sibling leaves: the summary becomes their parent."""
        new = _spec(text, context_type, context_name, context_value, None, metadata)
        return self._tree.add_summary(node_ids, new)

    def restore(self, node_id: str, version: int) -> Node:
        """Bring a node back to a past version (undeleting it if needed)."""
        return self._tree.restore(node_id, version)

    # -- reads -------------------------------------------------------------------

    def find(self, node_id: str) -> Node | None:
        """The node, or None."""
        return self.store.get(clean_id(node_id))

    def nodes(self, node_ids: Sequence[str]) -> list[Node]:
        """Those of these nodes that exist, in one read."""
        return self.store.get_many([clean_id(i) for i in node_ids])

    def get(self, node_id: str) -> Node:
        """The node, or NotFound."""
        return require(self.store, node_id)

    def children(self, node_id: str) -> list[Node]:
        """Children in order."""
        return self.store.children(self.get(node_id).id)

    def roots(self) -> list[Node]:
        """Every root (space, document, session) in creation order."""
        return self.store.roots()

    def child_counts(
        self, node_ids: Sequence[str], *, scopes: Sequence[str] | None = None
    ) -> dict[str, int]:
        """How many children each of these nodes has (only those in `scopes`,
        if given; 0 for a leaf or an unknown id)."""
        found = self.store.child_counts(node_ids, clean_scopes(scopes))
        return {i: found.get(i, 0) for i in node_ids}

    def ancestors(self, node_id: str) -> list[Node]:
        """Parent first, root last."""
        return ancestors(self.store, self.get(node_id))

    def stale_summaries(self) -> list[Node]:
        """Summaries whose children changed since they were written."""
        return self.store.stale_summaries()

    def serialize(
        self, node_id: str, mode: SerializeMode | str = SerializeMode.INCLUDE
    ) -> list[Node]:
        """Depth-first reading order of the subtree (the tree is the document)."""
        with paused_gc():
            return [node for _, node in serialize(self.store, node_id, mode)]

    def serialize_with_depth(
        self, node_id: str, mode: SerializeMode | str = SerializeMode.INCLUDE
    ) -> list[tuple[int, Node]]:
        return serialize(self.store, node_id, mode)

    def expand_to_budget(
        self, node_id: str, max_tokens: int, *, query: str | None = None
    ) -> list[Node]:
        """Expansion within `max_tokens`, returned in reading order: breadth
        first (the tree design), or with `query` best first by closeness in meaning
        (a relevant branch deep down is opened, irrelevant ones stay shut)."""
        if query is None:
            return [node for _, node in expand_to_budget(self.store, node_id, max_tokens)]
        # A node is as relevant as the best search hit at or under it (the
        # trace-up), so a plain heading above the answer is opened first.
        top = require(self.store, node_id)
        # Vectors still queued are made first: else this call would make them
        # half way (search sees the nodes by words, relevance by meaning) and
        # the same expansion asked twice would differ.
        self.retriever.flush()
        where = NodeFilter(roots=(top.root_id,))
        carried: dict[str, float] = {}
        for hit in self.retriever.search(query, where, 50, self.weights, False):
            for node in (hit.node, *hit.ancestry):
                carried[node.id] = max(carried.get(node.id, 0.0), hit.score)
        vector = self.retriever.embed_query(query)

        def relevance(nodes: Sequence[Node]) -> dict[str, float]:
            own = self.retriever.vectors([n.id for n in nodes])
            return {
                n.id: carried.get(n.id, 0.0) + 0.1 * float(own[n.id] @ vector if n.id in own else 0)
                for n in nodes
            }

        return [n for _, n in expand_by_relevance(self.store, node_id, max_tokens, relevance)]

    def history(self, node_id: str) -> list[NodeVersion]:
        """Past versions oldest first, then the current one."""
        return self._tree.history(node_id)

    def stats(self) -> StoreStats:
        return self.store.stats()

    def migrate_to(
        self, location: str | os.PathLike[str], progress: Callable[[int, int], None] | None = None
    ) -> int:
        """Copy the whole memory (history, keys and vectors included) into the
        database at `location` (a SQLite file or a postgresql:// address),
        empty or holding an unfinished migration of this memory: chunks are
        committed as they go, so a stopped run resumes where it stopped.
        `progress(rows, total)` follows it; every table's count is checked
        on arrival. Returns the rows this run copied."""
        embedder = self.retriever.embedder
        with Memory(location, tokenizer=self.tokenizer, embedder=embedder, llm="offline") as target:
            return copy_store(self.store, target.store, self._identity(), progress)

    def _identity(self) -> str:
        """This memory's database as a migration names it (id and location)."""
        return f"{self.store.get_setting('database_id') or ''}@{self.store.location}"

    # -- retrieval ---------------------------------------------------------------

    @property
    def retriever(self) -> Retriever:
        """The search engine (built on first use: loading the model takes ~0.5 s)."""
        return self.services.retriever

    def remember(
        self,
        text: str,
        *,
        type: str | None = None,
        scope: str | None = None,
        under: str | None = None,
        importance: float | None = None,
        context_type: str = "memory",
        context_name: str = "",
        context_value: str = "",
        metadata: dict[str, Any] | None = None,
        **typed_fields: Any,
    ) -> Node:
        """Store an atomic memory under `under`, or in the scope's default space.

        With `type` (fact, decision, preference, entity, procedure, constraint,
        goal) it is a typed memory: importance defaults to the type's, and
        `tags`, `category`, `confidence`, `source`, `valid_from`, `valid_to`
        and `fields` are kept with it. It is searchable at once (lexically);
        its vector is computed by the background worker (`background=True`),
        the next `flush()`, or a search's query batch (a few per search). What it
        contradicts among similar memories of its scope is recorded
        (`consolidation.contradictions()`), unless `consolidation.scan_on_write`
        is off.
        """
        if type is None and typed_fields:
            raise InvalidInput(
                f"{sorted(typed_fields)} apply to typed memories; give type='fact' (or another)",
                sorted(typed_fields),
            )
        if type is not None:
            new = typed.typed_node(
                text, type, importance=importance, extra=metadata, scope=scope, **typed_fields
            )
        else:
            spec = _spec(text, context_type, context_name, context_value, scope, metadata)
            new = dataclasses.replace(spec, importance=0.5 if importance is None else importance)
        scan = self._scan
        answers = scan.prepare(new)  # the model's part of the scan, before the lock
        with self.store.transaction():  # a failure leaves no new space behind either
            if type is not None:
                node = self.typed._typed(new, [], under)
            else:
                scoped = clean_scope(scope or DEFAULT_SCOPE)
                space = self.services.space(scoped) if under is None else under
                node = self._tree.append_child(clean_id(space, "parent id"), new)
            pending = scan.contradicted(node, answers)
        scan.judge_later(node, pending)
        return node

    def search(
        self,
        query: str,
        *,
        scopes: Sequence[str] | None = None,
        limit: int = 10,
        roots: Sequence[str] = (),
        context_types: Sequence[str] = (),
        tags: Sequence[str] = (),
        since: str | None = None,
        until: str | None = None,
        min_importance: float | None = None,
        valid_at: str | None = None,
        weights: dict[str, float] | None = None,
        record: bool = True,
        include_archived: bool = False,
        include_expired: bool = False,
        min_relevance: float | None = None,
    ) -> list[Hit]:
        """Hybrid search within `scopes` (None: all); each hit carries its score parts.

        Scopes are enforced in the store's SQL and the vector candidate set.
        Only what is valid now is found: a memory superseded by a newer one, or
        past its `valid_to`, is left out. `valid_at` searches what was valid at
        that time instead (time travel); `include_expired` drops the validity
        filter. Archived memories have no vectors, so `include_archived` finds
        them by words only. `limit` is a maximum: hits below the relevance
        floor are left out (`min_relevance`, a cosine; 0 turns the floor off).
        Returned hits are recorded as accessed (ACT-R feedback) unless `record`
        is False.
        """
        where = NodeFilter(
            scopes=clean_scopes(scopes),
            roots=tuple(clean_id(r, "root id") for r in roots),
            context_types=tuple(context_types),
            tags=tuple(t.lower().lstrip("@") for t in tags),
            created_after=moment(since, "since"),
            created_before=moment(until, "until"),
            min_importance=None if min_importance is None else clean_importance(min_importance),
            valid_at=self.services.valid_at(valid_at, include_expired),
            include_archived=bool(include_archived),
        )
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise InvalidInput(f"limit must be an integer, got {limit!r}", limit)
        chosen = dict(weights or {})
        if min_relevance is not None:
            chosen["min_relevance"] = min_relevance
        with operation("search", {"mnemotree.limit": limit}):
            return self.retriever.search(query, where, limit, self.weights.override(chosen), record)

    def flush(self, progress: Callable[[int], None] | None = None) -> int:
        """Compute pending vectors now; returns how many were embedded."""
        return self.retriever.flush(progress)

    def pending_vectors(self) -> int:
        return self.retriever.pending()

    def prepare_index(self, progress: Callable[[int], None] | None = None) -> int:
        """Load vectors and build the vector graph (extra `ann`, large memories)
        now instead of in the first search; returns the rows in the graph."""
        self.flush()
        return self.retriever.prepare(progress)

    def reindex(self, progress: Callable[[int], None] | None = None) -> int:
        """Drop vectors of other embedders and embed whatever lacks a current vector."""
        identity = self.retriever.embedder.identity
        with self.store.transaction():
            self.store.drop_vectors(keep_embedder=identity)
            self.store.queue_missing_vectors(identity)
        return self.flush(progress)

    # -- structured memory -------------------------------------------------------

    def paths(self, scope: str = DEFAULT_SCOPE) -> PathMemory:
        """Path-addressed entries in `scope` (the path-memory design): save, get, query_heading,
        list, delete; `mnemotree.structured` adds the agent tools over them."""
        return PathMemory(self._tree, lambda: self.retriever, scope, self.weights)


def _spec(
    text: str,
    context_type: str,
    context_name: str,
    context_value: str,
    scope: str | None,
    metadata: dict[str, Any] | None,
) -> NewNode:
    # `metadata or {}` would quietly turn a wrong value such as [] into {}.
    return NewNode(
        text, context_type, context_name, context_value, scope, {} if metadata is None else metadata
    )


def _staging(version: int) -> StagingArea:
    """A backup of an older table format is staged in a temporary SQLite file,
    migrated there, then restored into whichever store this memory uses."""
    return Staging(version, SQLiteStore)


def open_store(location: str | os.PathLike[str]) -> Store:
    """The store a location names: a postgresql:// address (extra `postgres`),
    else a SQLite file."""
    if is_postgres(location):
        from .store.postgres import PostgresStore

        return PostgresStore(str(location))
    scheme = address_scheme(location)
    if scheme is not None:
        raise InvalidInput(
            f"{os.fspath(location)!r} reads as a {scheme}: address, not a file: give a "
            "postgresql://user@host/dbname address (two slashes, as a string, not a Path) "
            "or the path of a SQLite file",
            os.fspath(location),
        )
    return SQLiteStore(Path(location))


attach(Memory)  # the flat names of the last release, each warning of its new home
