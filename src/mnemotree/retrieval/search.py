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

import numpy as np
import numpy.typing as npt

from ..embed import Embedder, QueryEmbedder
from ..errors import InvalidInput
from ..model import Node, NodeFilter
from ..store import Store, VectorSearch
from ..timeutil import Clock, from_iso, to_iso
from .dates import Interval, intervals
from .embedding import Embedding, queue_for
from .evidence import ASKED, MIN_SEMANTIC, Match, Pool, addressed_role, asks
from .hits import CONTAINER as CONTAINER  # re-exported: callers import these from here
from .hits import Hit as Hit
from .hits import above_floor, distinct_first, fold
from .hits import content_hash as content_hash
from .hits import embed_text as embed_text
from .instructions import is_task, standing_instructions, with_instructions
from .passages import effective_looks, window_words
from .query import (
    LexicalQuery,
    common_limit,
    lexical_query,
    terms_of,
    without_common,
    without_terms,
)
from .rank import ACCESSES_COUNTED, Surprise, Weights, activation, combine, recency, usage
from .shared_lock import SharedLock
from .stored import StoredVectors
from .vectors import ANN_MIN_ROWS, VectorIndex, VectorSource

log = logging.getLogger(__name__)

_CANDIDATES = 60  # per evidence source, before fusion
_DATABASE_SETTING = "database_id"
_NEIGHBOURED = 30  # strongest candidates whose adjacent siblings join the pool
_QUERY_CACHE = 256  # query vectors kept (the embedder's identity is fixed per Retriever)
_PIGGYBACK = 16  # a queue this short is embedded in a search's query batch
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


class Retriever(Embedding):
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
        queue_for(store, embedder, self.window)

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

    def _lexical(self, text: str) -> tuple[LexicalQuery, frozenset[str]]:
        """The query's terms for FTS5 (names and very common words left
        out), and the terms that name speakers of the collection."""
        lexical = lexical_query(text)
        if not lexical:
            return lexical, frozenset()
        total = self.store.document_total()
        # A speaker's name is in half the turns of their chat yet looks rare to
        # the index at large: it would rank "Thanks, Caroline" as a match. Names
        # count through the `name` part instead.
        named = self._term_documents(lexical.terms, total, True, NAME_DOCUMENTS, SPEAKER_TYPE)
        speakers = frozenset(t for t in lexical.terms if named[t] >= NAME_DOCUMENTS)
        topical = tuple(t for t in lexical.terms if t not in speakers)
        if topical:
            lexical = LexicalQuery(topical)
        # Past the common limit a count changes nothing: stop counting there.
        cap = common_limit(total) + 1
        counts = self._term_documents(lexical.terms, total, cap=cap)
        return without_common(lexical, counts, total), speakers

    def lexical_ids(self, text: str, where: NodeFilter, limit: int) -> list[str]:
        """Nodes sharing `text`'s telling words, best BM25 first (no model call)."""
        query, _ = self._lexical(text)
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
        """Drop the cached query vectors (and so the queries' words) and the
        kept samples of stored vectors: a purge leaves nothing of what it
        erased, even in memory."""
        self.forget_query_vectors()
        if isinstance(self.index, StoredVectors):
            self.index.forget()

    def forget_query_vectors(self) -> None:
        """Drop the cached query vectors only: the next search of any text
        embeds it (a benchmark timing each question as a new one)."""
        with self._lock:
            self._queries.clear()

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

    def neighbours(self, node_ids: list[str], k: int) -> dict[str, list[tuple[str, float]]]:
        """Each node's `k` nearest others by cosine (see `VectorIndex.neighbours`)."""
        self._synced()
        with self._index_lock.shared():
            return self.index.neighbours(node_ids, k)

    def prepare(self, progress: Callable[[int], None] | None = None) -> int:
        """Load every vector and build the graph if it will be used (see `VectorIndex.prepare`)."""
        with self._index_lock.exclusive():
            return self.index.prepare(progress)

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
        pool = self._candidates(text, meaning, where, max(_CANDIDATES, 3 * limit))
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

    def _candidates(self, text: str, meaning: str | None, where: NodeFilter, pool: int) -> Pool:
        """The candidates: FTS5's best `pool` and the vector index's nearest,
        read in parallel, each with the other side's score where it has one."""
        lexical, speakers = self._lexical(text)
        # A speaker the query names is credited by the `name` part; left in the
        # query's meaning, the name would also lift every short message led by
        # it ("Melanie: Take care of yourself." for "what does Melanie do to
        # destress?"), since rows are read as "speaker: text".
        cut = query_text(
            meaning if meaning is not None else without_terms(text[:MAX_QUERY_CHARS], speakers)
        )
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
