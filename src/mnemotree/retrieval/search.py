"""Hybrid search: lexical and vector candidates, fused, filtered, traced up the tree."""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..embed import Embedder, QueryEmbedder
from ..errors import InvalidInput, StorageError
from ..model import Node, NodeFilter
from ..store import Store, VectorSearch
from ..timeutil import Clock, from_iso, to_iso
from .dates import Interval, intervals
from .evidence import ASKED, MIN_SEMANTIC, Match, Pool, addressed_role, asks
from .hits import CONTAINER as CONTAINER  # re-exported: callers import these from here
from .hits import Hit as Hit
from .hits import above_floor, distinct_first, fold
from .hits import content_hash as content_hash
from .hits import embed_text as embed_text
from .instructions import is_task, standing_instructions, with_instructions
from .passages import effective_looks, later_rows, window_words
from .query import LexicalQuery, common_limit, lexical_query, terms_of, without_common
from .rank import ACCESSES_COUNTED, Surprise, Weights, activation, combine, recency, usage
from .shared_lock import SharedLock
from .stored import StoredVectors
from .vectors import ANN_MIN_ROWS, VectorIndex, VectorSource

log = logging.getLogger(__name__)

_CANDIDATES = 60  # per evidence source, before fusion
_EMBEDDER_SETTING = "embedder"
_DATABASE_SETTING = "database_id"
_PASSAGE_SETTING = "passage_words"
_TWO_SENTENCES_CHARS = 24  # "I moved. It was hard." is 21: shorter texts hold one
_NEIGHBOURED = 30  # strongest candidates whose adjacent siblings join the pool
# Nodes read per flush step. The model sorts each step by length so a batch pads
# little: 1,024 gave ~335 embeddings/s on 15-word texts where 256 gave ~300, and
# a stop request (closing with a background worker) waits at most one step.
_EMBED_BATCH = 1024
_PROGRESS_SLICE = 128  # nodes embedded between two reports of progress
_QUERY_CACHE = 256  # query vectors kept (the embedder's identity is fixed per Retriever)
_PIGGYBACK = 16  # a queue this short is embedded in a search's query batch
_MADE_KEPT = 1024  # vectors searches made, kept in memory until stored
MAX_LIMIT = 10_000  # hits per search; more is a scan, not a search
MAX_QUERY_CHARS = 2000  # beyond this a query is cut (the model reads 256 tokens anyway)
# A query term in the name of this many messages is a speaker's name. Only
# messages count: a heading repeated over a document's chunks is a topic.
NAME_DOCUMENTS = 3
SPEAKER_TYPE = "message"
# Texts a query's cosines must be read against before their spread says what
# chance scores; in a smaller collection meaning and words are weighed raw.
MIN_BACKGROUND = 64
Pending = dict[str, "npt.NDArray[np.float32]"]  # node id -> its rows, not in the index yet


class Retriever:
    """Owns the vector index of one embedder and answers searches over a store."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        clock: Clock,
        *,
        ann_min_rows: int | None = ANN_MIN_ROWS,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.clock = clock
        # A backend with a vector index of its own answers what is asked of
        # vectors itself; else an index kept here in memory does.
        self.index: VectorSource = (
            StoredVectors(store, embedder.identity, embedder.dimensions)
            if isinstance(store, VectorSearch)
            else VectorIndex(
                store,
                embedder.identity,
                embedder.dimensions,
                ann_path=_graph_path(store.location, embedder.identity),
                database=_database_id(store),
                ann_min_rows=ann_min_rows,
            )
        )
        self.window = window_words(embedder)  # words a passage holds (None: reads any length)
        self._documents: dict[tuple[bool, str | None], dict[str, int]] = {}
        self._queries: dict[str, npt.NDArray[np.float32]] = {}
        # Vectors searches made for queued nodes, kept until flush or close store them.
        self._made: dict[str, tuple[Node, str, npt.NDArray[np.float32]]] = {}
        # Pending nodes a search embeds in its query's batch. With a background
        # worker (the server) it is 0: concurrent searches would each embed
        # the same new nodes again; the worker embeds them once, and until it
        # has, they are found by their words.
        self.piggyback = _PIGGYBACK
        # Whether a search embeds its query on another thread while it reads FTS5.
        self.parallel = True
        # Guards the query cache and the making of the query threads: the
        # server searches on several threads at once.
        self._lock = threading.Lock()
        self._documents_total = 0
        self._pool: ThreadPoolExecutor | None = None
        # Searches (on query threads and the server's readers) share the index;
        # a sync that loads new vectors takes it alone.
        self._index_lock = SharedLock()
        # A query's vector may come from a faster path than documents' (close,
        # never stored); `exact_queries` says whether it is the same computation.
        self.exact_queries = not isinstance(embedder, QueryEmbedder)
        self._embed_one: Callable[[str], npt.NDArray[np.float32]] = (
            embedder.embed_query
            if isinstance(embedder, QueryEmbedder)
            else lambda text: embedder.embed_batch([text])[0]
        )
        if store.get_setting(_EMBEDDER_SETTING) != embedder.identity:
            # A new model: every node without its vector must be (re)embedded.
            with store.transaction():
                store.queue_missing_vectors(embedder.identity)
                store.set_setting(_EMBEDDER_SETTING, embedder.identity)
        passage = f"{self.window or 0} sentences"
        if self.window and store.get_setting(_PASSAGE_SETTING) != passage:
            # Vectors made before every part of a text got its row: texts of
            # one row are embedded again if they may need passages (fewer
            # characters than twice the window's words fit in it) or have a
            # sentence break (one without would come out the same).
            with store.transaction():
                row = 4 * embedder.dimensions
                store.queue_single_vectors(embedder.identity, row, 2 * self.window)
                store.queue_single_vectors(
                    embedder.identity, row, _TWO_SENTENCES_CHARS, broken=True
                )
                store.set_setting(_PASSAGE_SETTING, passage)

    def _term_documents(
        self,
        terms: tuple[str, ...],
        total: int,
        in_names: bool = False,
        cap: int | None = None,
        context_type: str | None = None,
    ) -> dict[str, int]:
        """Document counts per term (in names only, or anywhere; at most `cap`),
        cached: counting costs up to milliseconds, and the counts only matter
        to within a few percent, so the cache lives until the corpus grows 5%."""
        if not self._documents_total <= total <= self._documents_total * 1.05:
            self._documents.clear()
            self._documents_total = total
        cache = self._documents.setdefault((in_names, context_type), {})
        unknown = [t for t in terms if t not in cache]
        if unknown:
            found = self.store.term_documents(
                unknown, in_names=in_names, cap=cap, context_type=context_type
            )
            cache.update(found)
        return {t: cache[t] for t in terms}

    def _lexical(self, text: str) -> LexicalQuery:
        """The query's terms for FTS5: names and very common words left out."""
        lexical = lexical_query(text)
        if not lexical:
            return lexical
        total = self.store.document_total()
        # A speaker's name is in half the turns of their chat yet looks rare to
        # the index at large: it would rank "Thanks, Caroline" as a match. Names
        # count through the `name` part instead.
        named = self._term_documents(lexical.terms, total, True, NAME_DOCUMENTS, SPEAKER_TYPE)
        topical = tuple(t for t in lexical.terms if named[t] < NAME_DOCUMENTS)
        if topical:
            lexical = LexicalQuery(topical)
        # Past the common limit a count changes nothing: stop counting there.
        cap = common_limit(total) + 1
        return without_common(lexical, self._term_documents(lexical.terms, total, cap=cap), total)

    def lexical_ids(self, text: str, where: NodeFilter, limit: int) -> list[str]:
        """Nodes sharing `text`'s telling words, best BM25 first (no model call)."""
        query = self._lexical(text)
        return [i for i, _ in self.store.lexical(query.terms, where, limit)] if query else []

    def close(self) -> None:
        """Store the vectors searches made, keep the vector graph on disk and
        stop the query thread."""
        self.store_made()
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        self.index.save()

    def forget_queries(self) -> None:
        """Drop the cached query vectors (and so the queries' words): a purge
        leaves nothing of what it erased, even in memory."""
        with self._lock:
            self._queries.clear()
        if isinstance(self.index, StoredVectors):
            self.index.forget()

    def _query_vector(self, text: str) -> npt.NDArray[np.float32]:
        """Agents repeat queries; the model costs ~1 ms a query, a lookup nothing."""
        with self._lock:
            vector = self._queries.pop(text, None)
        if vector is None:
            vector = self._embed_one(text)
        self._remember_query(text, vector)
        return vector

    def _remember_query(self, text: str, vector: npt.NDArray[np.float32]) -> None:
        with self._lock:
            self._queries[text] = vector  # most recent last
            if len(self._queries) > _QUERY_CACHE:
                del self._queries[next(iter(self._queries))]

    def _surprise(self, vector: npt.NDArray[np.float32], where: NodeFilter) -> Surprise | None:
        """The null a query's cosines are read against: how it scores the
        searched collection at large (an evenly spaced sample); None when
        the collection is too small to tell chance from match."""
        with self._index_lock.shared():
            mean, spread, sampled = self.index.background(vector, where)
        return Surprise(mean, spread) if sampled >= MIN_BACKGROUND else None

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        """A query's vector (cached: agents repeat themselves)."""
        return self._query_vector(query_text(text))

    def keep_vector(self, node: Node, text: str, vector: npt.NDArray[np.float32]) -> bool:
        """Store `vector`, computed from `text`, as `node`'s own if `text` is what
        its vector is made from (saves embedding it again) and it has no later
        passages to embed; False otherwise."""
        if embed_text(node) != text or later_rows(text, self.window, node.context_name):
            return False
        self._store_vectors([node], [text], [vector])
        return True

    def vectors(self, node_ids: list[str]) -> dict[str, npt.NDArray[np.float32]]:
        """Current vectors of these nodes (archived ones have none). Those still
        waiting for theirs are embedded now, and kept if the write lock is
        free: the cost grows with the nodes asked for, never with the queue."""
        self._synced()
        with self._index_lock.shared():
            found = self.index.vectors(node_ids)
        waiting = self.store.visible([i for i in node_ids if i not in found], NodeFilter())
        if waiting:
            nodes = list(waiting.values())
            texts, made, _ = self._embed(nodes)
            self._keep_vectors(nodes, texts, made)
            found.update({n.id: v[0] for n, v in zip(nodes, made, strict=True)})
        return found

    def _embed(
        self, nodes: list[Node], also: list[str] | None = None
    ) -> tuple[list[str], list[npt.NDArray[np.float32]], npt.NDArray[np.float32]]:
        """Each node's text and rows (its own vector, then its passages' or sentences'),
        and the vectors of the texts `also`, made in one batch."""
        texts = [embed_text(n) for n in nodes]
        later = [
            later_rows(t, self.window, n.context_name) for t, n in zip(texts, nodes, strict=True)
        ]
        extra = also or []
        made = self.embedder.embed_batch([*texts, *(p for ps in later for p in ps), *extra])
        rows, cursor = [], len(texts)
        for own, more in zip(made, later, strict=False):
            rows.append(np.vstack([own, made[cursor : cursor + len(more)]]))
            cursor += len(more)
        return texts, rows, made[cursor:]

    def _synced(self) -> None:
        """Bring the index up to the store: alone, and only when it is behind."""
        if not self.index.current():
            with self._index_lock.exclusive():
                self.index.sync()

    def neighbours(self, node_ids: list[str], k: int) -> dict[str, list[tuple[str, float]]]:
        """Each node's `k` nearest others by cosine (see `VectorIndex.neighbours`)."""
        self._synced()
        with self._index_lock.shared():
            return self.index.neighbours(node_ids, k)

    def prepare(self, progress: Callable[[int], None] | None = None) -> int:
        """Load every vector and build the graph if it will be used (see `VectorIndex.prepare`)."""
        with self._index_lock.exclusive():
            return self.index.prepare(progress)

    def pending(self) -> int:
        return self.store.count_pending_vectors()

    def flush(
        self,
        progress: Callable[[int], None] | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> int:
        """Embed every node that lacks a vector (until `stop()` says so, checked
        between batches); returns how many were embedded."""
        done = self.store_made()
        with self.index.bulk(self.store.count_pending_vectors()):
            while stop is None or not stop():
                nodes = self.store.pending_vectors(_EMBED_BATCH)
                if not nodes:
                    return done
                texts: list[str] = []
                rows: list[npt.NDArray[np.float32]] = []
                # Embedded a slice at a time so progress moves while a batch is made.
                for start in range(0, len(nodes), _PROGRESS_SLICE):
                    part = nodes[start : start + _PROGRESS_SLICE]
                    made_texts, made_rows, _ = self._embed(part)
                    texts += made_texts
                    rows += made_rows
                    if progress is not None:
                        progress(len(part))
                self._store_vectors(nodes, texts, rows)
                done += len(nodes)
        return done

    def _vector_rows(self, nodes: list[Node], texts: list[str], vectors: Any) -> list[Any]:
        # Each vector carries the text it was computed from: a node edited
        # meanwhile (by another thread or process) keeps its place in the queue.
        return [
            (n.id, content_hash(t), v.astype(np.float32).tobytes(), n.text, n.context_name)
            for n, t, v in zip(nodes, texts, vectors, strict=True)
        ]

    def _store_vectors(self, nodes: list[Node], texts: list[str], vectors: Any) -> None:
        rows = self._vector_rows(nodes, texts, vectors)
        with self.store.transaction():
            self.store.put_vectors(self.embedder.identity, rows)
            self.store.prune_tombstones()

    def _keep_vectors(self, nodes: list[Node], texts: list[str], vectors: Any) -> None:
        """Keep vectors a read computed in memory: a search never writes. The
        next search uses them as they are, and `flush` (or closing) stores them."""
        with self._lock:
            for node, text, rows in zip(nodes, texts, vectors, strict=True):
                self._made[node.id] = (node, text, rows)
            while len(self._made) > _MADE_KEPT:  # the oldest go first
                self._made.pop(next(iter(self._made)))

    def _made_for(self, nodes: list[Node]) -> dict[str, npt.NDArray[np.float32]]:
        """Rows a read made earlier for these nodes, where their text is the same."""
        with self._lock:
            kept = [(n, self._made.get(n.id)) for n in nodes]
        return {
            node.id: found[2]
            for node, found in kept
            if found is not None and found[1] == embed_text(node)
        }

    def store_made(self) -> int:
        """Store the vectors searches made for nodes whose text is still what
        they were made from (the write a search does not do); returns how many.
        A file that cannot be written keeps them in memory."""
        with self._lock:
            made = list(self._made.values())
            self._made.clear()
        current = {n.id: n for n in self.store.get_many([node.id for node, _, _ in made])}
        kept = [
            (current[node.id], text, rows)
            for node, text, rows in made
            if node.id in current and embed_text(current[node.id]) == text
        ]
        if not kept:
            return 0
        nodes, texts, rows = (list(column) for column in zip(*kept, strict=True))
        try:
            self._store_vectors(nodes, texts, rows)
        except StorageError as exc:  # a read-only file: the work is kept for later
            log.warning("vectors not stored: %s", exc)
            self._keep_vectors(nodes, texts, rows)
            return 0
        return len(kept)

    def _query_with_pending(self, text: str) -> tuple[npt.NDArray[np.float32] | None, Pending]:
        """The query's vector (None: embed it) and, if at most `piggyback` nodes
        wait for theirs, their vectors, made in the query's batch (an agent
        wrote, then searches) and kept in memory, never written here: `flush`
        or closing stores them. A longer queue is left to the worker or flush,
        its nodes found by their words: even 16 texts cost MiniLM ~20 queries,
        so a search never embeds part of it."""
        cached = text in self._queries
        nodes = self.store.pending_vectors(self.piggyback + 1) if self.piggyback > 0 else []
        if not nodes or len(nodes) > self.piggyback:
            return (self._query_vector(text) if cached else None), {}
        known = self._made_for(nodes)
        fresh = [n for n in nodes if n.id not in known]
        if not fresh:
            return (self._query_vector(text) if cached else None), known
        # The query joins the batch only where a batch computes it as a lone
        # query would be: else its vector, and so its scores, would change
        # with what happened to be queued.
        joins = self.exact_queries and not cached
        texts, rows, made = self._embed(fresh, [text] if joins else None)
        self._keep_vectors(fresh, texts, rows)
        pending = {**known, **{n.id: r for n, r in zip(fresh, rows, strict=True)}}
        if not joins:
            return (self._query_vector(text) if cached else None), pending
        self._remember_query(text, made[-1])
        return made[-1], pending

    def _semantic(
        self, vector: npt.NDArray[np.float32] | None, text: str, where: NodeFilter, k: int
    ) -> tuple[npt.NDArray[np.float32], list[tuple[str, float]]]:
        """The query's vector (embedded now if None) and its `k` nearest nodes."""
        if vector is None:
            vector = self._embed_one(text)
        with self._index_lock.shared():
            return vector, self.index.search(vector, where, k)

    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                # One per core: concurrent searches (the server) embed side by side.
                threads = min(4, os.cpu_count() or 1)
                self._pool = ThreadPoolExecutor(threads, thread_name_prefix="mnemotree-query")
            return self._pool

    def search(
        self,
        query: str,
        where: NodeFilter,
        limit: int,
        weights: Weights,
        record: bool,
        meaning: str | None = None,
    ) -> list[Hit]:
        """Hits for `query`; `meaning`, if given, is the text whose vector
        stands for the query on the semantic side."""
        text = _clean_query(query)
        if limit <= 0 or limit > MAX_LIMIT:
            raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}, got {limit}", limit)
        cut = text[:MAX_QUERY_CHARS] if meaning is None else query_text(meaning)
        pool = self._candidates(text, cut, where, max(_CANDIDATES, 3 * limit))
        nodes = pool.nodes()
        if not nodes:
            return []
        ordered = terms_of(text)
        query_terms, addressed = set(ordered), addressed_role(ordered)
        keyword = {i: v for i, v in pool.keyword.items() if i in nodes}
        semantic, pending = pool.semantic, pool.pending

        with self._index_lock.shared():
            stored = self.index.looks_of([i for i in nodes if i not in pending])

        def looks(node_id: str) -> float:  # the draws a node's rows are worth
            rows = pending.get(node_id)
            return effective_looks(rows) if rows is not None else stored.get(node_id, 1.0)

        surprise = self._surprise(pool.vector, where)
        match = Match(surprise, weights, semantic, keyword, nodes, looks)
        relevance = self._relevance(nodes, match, query_terms, addressed, weights)
        # The tree is evidence too: a node next to a strong match (the answer after
        # the question) and nodes under a parent with strong matches rise with them.
        strongest = sorted(relevance, key=lambda i: (-relevance[i][0], i))[:_NEIGHBOURED]
        adjacent = self._neighbours([nodes[i] for i in strongest], where, nodes)
        with self._index_lock.shared():
            unseen = [i for i in nodes if i not in semantic]
            semantic.update(self.index.similarity(pool.vector, unseen))
        rest = {i: n for i, n in nodes.items() if i not in relevance}
        relevance.update(self._relevance(rest, match, query_terms, addressed, weights))
        now = self.clock()
        hits = self._hits(nodes, relevance, adjacent, intervals(text, now), now, weights)
        # `limit` is a maximum: what is not about the query is left out.
        terms = pool.lexical.terms if pool.lexical else ()
        hits = above_floor(
            hits, weights, terms, weights.min_relevance, chance_known=match.surprise is not None
        )
        hits = distinct_first(hits, limit * 2)
        top = fold(self._trace(hits[: limit * 2], where))[:limit]
        standing = standing_instructions(self.store, where) if is_task(text) else []
        if standing:
            with self._index_lock.shared():
                closeness = self.index.similarity(pool.vector, [n.id for n in standing])
            top = with_instructions(top, standing, closeness, limit)
        if record and top:  # never waits for (or fails on) another writer's lock
            self.store.record_accesses_soon([h.node.id for h in top], to_iso(now))
        return top

    def _candidates(self, text: str, cut: str, where: NodeFilter, pool: int) -> Pool:
        """The candidates: FTS5's best `pool` and the vector index's nearest,
        read in parallel, each with the other side's score where it has one."""
        vector, pending = self._query_with_pending(cut)
        self._synced()
        # The index masks scopes and roots only; other filters apply in SQL
        # afterwards, so a selective filter needs a deeper vector pool. Validity
        # is not one: it drops only superseded memories, and a 20x pool made a
        # search at 100k 5x slower (21 vs 4 ms; every context search asks it).
        narrow = (
            bool(where.context_types or where.tags or where.created_after or where.created_before)
            or where.min_importance is not None
        )
        # The model and the vector index run on a worker thread while this one
        # asks FTS5: both release the GIL, so on two cores the query's
        # embedding costs little more than the lexical side (~1.5 ms saved at 100k).
        # With many concurrent callers (`parallel` False) the cores are busy
        # already, and the hop to another thread only adds work.
        depth = pool * 20 if narrow else pool
        job = (
            self._executor().submit(self._semantic, vector, cut, where, depth)
            if self.parallel
            else None
        )
        lexical = self._lexical(text)
        keyword = dict(self.store.lexical(lexical.terms, where, pool)) if lexical else {}
        found = self.store.visible(sorted(keyword), where)  # while the model runs
        vector, nearest = (
            job.result() if job is not None else self._semantic(vector, cut, where, depth)
        )
        self._remember_query(cut, vector)
        semantic = dict(nearest)
        missing = [i for i in keyword if i not in semantic]
        with self._index_lock.shared():
            semantic.update(self.index.similarity(vector, missing))
        # Nodes embedded in the query's batch count even if their vectors
        # could not be stored yet (`visible` below applies the filter).
        semantic.update({i: float((v @ vector).max()) for i, v in pending.items()})
        # Only candidates close enough to be kept are read.
        close = [i for i, v in semantic.items() if v >= MIN_SEMANTIC and i not in keyword]
        found.update(self.store.visible(sorted(close), where))
        kept = sum(1 for i in close if i in found)
        if where.valid_at is not None and not narrow and 2 * kept < len(close):
            # Validity dropped most of the pool (memories superseded many
            # times look alike): look again, as deep as a narrow filter does.
            deeper = dict(self._semantic(vector, cut, where, pool * 20)[1])
            semantic.update(deeper)
            more = [i for i, v in deeper.items() if v >= MIN_SEMANTIC and i not in found]
            found.update(self.store.visible(sorted(more), where))
        return Pool(vector, pending, lexical, keyword, semantic, found)

    def _hits(
        self,
        nodes: dict[str, Node],
        relevance: dict[str, tuple[float, dict[str, float]]],
        adjacent: dict[str, set[str]],
        named_times: list[Interval],
        now: datetime,
        w: Weights,
    ) -> list[Hit]:
        """Each candidate's score: its own match, its neighbours' and parent's,
        the times the query names, recency, importance, accesses and usage."""
        # A parent's evidence: its best child, or its own match (a heading
        # that matches lends it to the chunks under it).
        best_under: dict[str | None, float] = {}
        for node_id, node in nodes.items():
            value = relevance[node_id][0]
            best_under[node.parent_id] = max(best_under.get(node.parent_id, 0.0), value)
        for node_id in nodes:
            if node_id in best_under:
                best_under[node_id] = max(best_under[node_id], relevance[node_id][0])
        accesses = self.store.access_ages(list(nodes), to_iso(now), ACCESSES_COUNTED)
        used = self.store.usage_counts(list(nodes))
        hits = []
        for node_id, node in nodes.items():
            own, parts = relevance[node_id]
            near = adjacent.get(node_id)
            neighbours = max((relevance[n][0] for n in near), default=0.0) if near else 0.0
            # Roots have no parent to share evidence through.
            parent = best_under[node.parent_id] if node.parent_id else 0.0
            created = from_iso(node.created_at)
            time = float(any(t.holds(created) for t in named_times)) if named_times else 0.0
            fresh = recency(created, now)
            seen = accesses.get(node_id)
            access = activation(seen) if seen else 0.0
            parts["neighbours"], parts["parent"], parts["time"] = neighbours, parent, time
            parts["recency"], parts["importance"], parts["access"] = fresh, node.importance, access
            counts = used.get(node_id)
            feedback = usage(counts.cited, counts.ignored_since_cited) if counts else 0.0
            parts["usage"] = feedback
            score = combine(own, parts, w)
            hits.append(Hit(node, score, [], parts))
        hits.sort(key=lambda h: (-h.score, h.node.id))
        return hits

    @staticmethod
    def _relevance(
        nodes: dict[str, Node],
        match: Match,
        query_terms: set[str],
        addressed: frozenset[str],
        weights: Weights,
    ) -> dict[str, tuple[float, dict[str, float]]]:
        """Each node's own match: its meaning and words fused (`Match`), and
        whether its name (a speaker) is named in the query. The parts shown
        are the raw cosine, BM25 over the best BM25, the fused `match`,
        `name` and `speaker` (a chat role the query names by pronoun: "my"
        for the user's messages)."""
        named: dict[str, float] = {}  # few distinct names (speakers) per candidate set
        out: dict[str, tuple[float, dict[str, float]]] = {}
        for node_id, node in nodes.items():
            name = named.get(node.context_name)
            if name is None:
                name_terms = set(terms_of(node.context_name))
                name = named[node.context_name] = float(
                    bool(name_terms) and name_terms <= query_terms
                )
            speaker = float(node.context_type == SPEAKER_TYPE and node.context_name in addressed)
            fused = match.of(node_id)
            # A message that only asks names the topic, not what is known of
            # it: a statement that answers it must rank above it. Not where the
            # query asks what that role said ("what did I ask about...").
            if (
                node.context_type == SPEAKER_TYPE
                and node.context_value not in addressed
                and asks(node.text)
            ):
                fused *= ASKED
            own = (weights.semantic + weights.keyword) * fused + weights.name * max(name, speaker)
            parts = {
                "semantic": match.cosine(node_id),
                "keyword": match.keyword(node_id),
                "match": fused,
                "name": name,
                "speaker": speaker,
            }
            out[node_id] = (own, parts)
        return out

    def _neighbours(
        self, anchors: list[Node], where: NodeFilter, nodes: dict[str, Node]
    ) -> dict[str, set[str]]:
        """Adjacent siblings of `anchors` (added to `nodes` if visible): id -> neighbour ids."""
        pairs = [
            (anchor, other)
            for anchor, before, after in self.store.adjacent([a.id for a in anchors])
            for other in (before, after)
            if other is not None
        ]
        extra = self.store.visible(sorted({b for _, b in pairs} - set(nodes)), where)
        found = {**extra, **nodes}
        adjacent: dict[str, set[str]] = {}
        for a, b in pairs:
            other = found.get(b)
            # Only siblings of one kind: a heading beside a chunk is not its context.
            if other is None or other.metadata.get(CONTAINER):
                continue
            if other.context_type == nodes[a].context_type:
                nodes.setdefault(b, other)
                adjacent.setdefault(a, set()).add(b)
                adjacent.setdefault(b, set()).add(a)
        return adjacent

    def _trace(self, hits: list[Hit], where: NodeFilter) -> list[Hit]:
        """Give each hit its visible ancestors, parent first (the tree design's trace-up)."""
        links = self.store.ancestor_links([h.node.id for h in hits])
        # Ancestry obeys the scopes (a hard boundary), not the other filters: a
        # note found by type still shows the section and document it sits in.
        allowed = self.store.visible(sorted(links), NodeFilter(scopes=where.scopes))
        for hit in hits:
            chain: list[Node] = []
            cursor = hit.node.parent_id
            while cursor is not None and cursor in links:
                if cursor in allowed:
                    chain.append(allowed[cursor])
                cursor = links[cursor]
            hit.ancestry = chain
        return hits


def _database_id(store: Store) -> str:
    """A random id made once per database, so files beside it can tell it apart
    from an earlier database at the same path."""
    found = store.get_setting(_DATABASE_SETTING)
    if found is None:
        found = uuid.uuid4().hex
        with store.transaction():
            store.set_setting(_DATABASE_SETTING, found)
    return found


def _graph_path(location: str, identity: str) -> Path | None:
    """Where the vector graph is kept: beside the database file, one per embedder."""
    if location == ":memory:" or not location:
        return None
    slug = "".join(c if c.isalnum() or c in "-_." else "_" for c in identity)
    return Path(f"{location}.{slug}.usearch")


def query_text(query: object) -> str:
    """What a query's vector is computed from: the cleaned query, cut."""
    return _clean_query(query)[:MAX_QUERY_CHARS]


def _clean_query(query: object) -> str:
    if isinstance(query, bytes):
        try:
            query = query.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInput("query is not valid UTF-8", query[:40]) from None
    if not isinstance(query, str):
        raise InvalidInput(f"query must be a string, got {type(query).__name__}", query)
    text = query.encode("utf-8", "replace").decode("utf-8").strip()
    if not text:
        raise InvalidInput("query is empty; give some words to search for", query)
    return text
