"""Path memory (the path-memory design): an agent saves JSON under paths such as
`Project/Goals/Phase1`, each with a snapshot of the context it was saved in.

In the tree, a space (one root per scope) holds one node per path segment:
`A/B/C` is the heading nodes A and B with the entry C below them. An entry's
content is JSON kept in its metadata and rendered as its text, so the same
search engine finds it. Its snapshot is a list of copied chunks (text,
source, role, similarity, embedding) that outlives the nodes it came from.
"""

from __future__ import annotations

import builtins
import dataclasses
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import InvalidInput, InvalidOperation, NotFound
from ..ids import new_id
from ..jsonlimits import MAX_DEPTH, plain_json
from ..model import NewNode, Node, NodeFilter, clean_scope
from ..retrieval.rank import Weights
from ..retrieval.search import CONTAINER, Retriever, query_text
from ..store import ContradictionRow, SnapshotRow, Store
from ..timeutil import from_iso, to_iso
from ..tree import Tree
from .changes import changed_values

SPACE_TYPE = "paths"
PATH_TYPE = "path"
PATH_UPDATE = "path_update"  # the kind of update row an entry's changed value makes
MAX_PATH_BYTES = 1024
DEFAULT_CONTEXT_TOKENS = 1000
RECENCY_DAYS = 30.0
RELEVANT_CHUNK = 0.5  # the path-memory design: chunks this close to a heading query are returned
_SNAPSHOT_CANDIDATES = 50  # the path-memory design: topK of the context search


@dataclass
class Chunk:
    """A piece of context kept with an entry."""

    text: str
    source_id: str | None
    role: str
    similarity: float
    tokens: int
    embedding: list[float] | None = None

    def to_dict(self, embedding: bool = False) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        if not embedding:
            del data["embedding"]
        data["similarity"] = round(self.similarity, 4)
        return data


@dataclass
class Entry:
    """A path's node: its content (None for a bare heading), snapshot and times."""

    path: str
    heading: str
    content: Any
    has_content: bool
    node_id: str
    version: int
    created: str
    modified: str
    accessed: str | None
    snapshot: list[Chunk] = field(default_factory=list)
    score: float | None = None
    relevant: list[Chunk] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "path": self.path,
            "heading": self.heading,
            "content": self.content,
            "metadata": {
                "id": self.node_id,
                "version": self.version,
                "created": self.created,
                "modified": self.modified,
                "accessed": self.accessed,
            },
            "contextChunks": [c.to_dict() for c in self.snapshot],
        }
        if self.score is not None:
            data["score"] = round(self.score, 4)
            data["relevantChunks"] = [c.to_dict() for c in self.relevant]
        return data


def clean_path(path: object, *, allow_empty: bool = False) -> str:
    """`A/B/C`: non-empty segments, no `.` or `..`, at most 1 KB."""
    if not isinstance(path, str):
        raise InvalidInput(f"a path must be a string such as 'Goals/Phase1', got {path!r}", path)
    try:
        size = len(path.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidInput(f"path {path!r} is not valid UTF-8 text", path[:80]) from None
    if size > MAX_PATH_BYTES:
        raise InvalidInput(f"a path is at most {MAX_PATH_BYTES} bytes, got {size}", path[:80])
    if any(ord(c) < 32 or ord(c) == 127 for c in path):
        raise InvalidInput(f"path {path!r} contains a control character", path)
    text = path.strip().strip("/") if allow_empty else path.strip()
    if not text:
        if allow_empty:
            return ""
        raise InvalidInput("the path is empty; give one such as 'Goals/Phase1'", path)
    segments = [s.strip() for s in text.split("/")]
    for segment in segments:
        if not segment:
            raise InvalidInput(f"path {path!r} has an empty segment ('//' or an end '/')", path)
        if segment in (".", ".."):
            raise InvalidInput(f"path {path!r} may not contain {segment!r}", path)
    return "/".join(segments)


def render(content: Any) -> str:
    """An entry's content as text (what search and the model read)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return "\n".join(f"{k}: {_inline(v)}" for k, v in content.items())
    if isinstance(content, list):
        return "\n".join(f"- {_inline(v)}" for v in content)
    return json.dumps(content)


def _inline(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class PathMemory:
    """Path-addressed entries in one scope's space (the path-memory design's tool interface)."""

    def __init__(
        self,
        tree: Tree,
        retriever: Callable[[], Retriever],
        scope: str,
        weights: Weights | None = None,
    ) -> None:
        self.tree = tree
        self.store: Store = tree.store
        self._retriever = retriever
        self.scope = clean_scope(scope)
        self.weights = weights or Weights()
        self._root: str | None = None

    # -- the space -----------------------------------------------------------------

    def _space(self, create: bool) -> str | None:
        if self._root is not None and self.store.get(self._root) is not None:
            return self._root
        found = self.store.roots_of_type(SPACE_TYPE, [self.scope])
        if found:
            self._root = found[0].id
        elif create:
            new = NewNode(
                f"Structured memory ({self.scope})",
                SPACE_TYPE,
                context_value=self.scope,
                scope=self.scope,
                metadata={CONTAINER: True},
            )
            self._root = self.tree.create_root(new).id
        else:
            self._root = None
        return self._root

    def _find(self, path: str) -> Node | None:
        root = self._space(create=False)
        return None if root is None else self.store.find_path(root, path)

    def _require(self, path: str) -> Node:
        node = self._find(path)
        if node is None:
            raise NotFound(f"no memory at path {path!r}", path)
        return node

    # -- writes --------------------------------------------------------------------

    def save(
        self,
        path: str,
        content: Any,
        *,
        context_tokens: int = DEFAULT_CONTEXT_TOKENS,
        conversation: Sequence[dict[str, str]] | None = None,
    ) -> Entry:
        """Create or update the entry at `path` (version + 1 on update), with a
        snapshot of the most relevant context within `context_tokens`: from
        `conversation` (chat messages) when given, else from memory."""
        path = clean_path(path)
        # One level less than metadata allows: the content is kept inside it.
        content = plain_json(content, "content", max_depth=MAX_DEPTH - 1)
        if (
            isinstance(context_tokens, bool)
            or not isinstance(context_tokens, int)
            or not (0 <= context_tokens <= 100_000)
        ):
            raise InvalidInput(
                f"context_tokens must be an integer from 0 to 100000, got {context_tokens!r}",
                context_tokens,
            )
        text = render(content).strip() or path.rsplit("/", 1)[-1]
        heading = path.rsplit("/", 1)[-1]
        query = f"{heading} {json.dumps(content, ensure_ascii=False)[:200]}"
        # The entry's own vector text (heading and content) is the snapshot
        # query's meaning: one model call serves the search and the new entry.
        meaning = f"{heading}: {text}"
        chunks, vector = (
            self._snapshot(query, meaning, context_tokens, conversation)
            if context_tokens
            else ([], None)
        )
        with self.store.transaction():
            parent = self._headings(path)
            node = self.store.find_path(self._space(create=True) or "", path)
            meta = {"content": content, "entry": True}
            if node is None:
                new = NewNode(text, PATH_TYPE, heading, path, metadata=meta)
                node = self.tree.append_child(parent, new)
            else:
                earlier = node
                node = self.tree.update(node.id, text, metadata={**node.metadata, **meta})
                self._updated(earlier, node, path)
            self.store.put_snapshot(node.id, [_row(c, self._identity()) for c in chunks])
        if vector is not None:
            self._retriever().keep_vector(node, meaning, vector)
        return self._entry(node, chunks)

    def _updated(self, earlier: Node, now: Node, path: str) -> None:
        """Record an update that changes or removes a value: an ordinary update
        (a status going from open to done), listed with the updates and
        reversible (`revert_update` brings the earlier content back)."""
        changes = changed_values(earlier.metadata.get("content"), now.metadata.get("content"))
        if not changes:
            return
        reason = f"{path}: " + "; ".join(changes[:3]) + ("; ..." if len(changes) > 3 else "")
        self.store.put_contradiction(
            ContradictionRow(
                new_id(),
                now.id,
                now.id,
                PATH_UPDATE,
                reason,
                now.scope,
                now.updated_at,
                "resolved",
                "update",
                "",
                now.updated_at,
                earlier.version,
                now.version,
            )
        )

    def _headings(self, path: str) -> str:
        """Make the headings above `path` (bare path nodes); returns its parent's id."""
        parent = self._space(create=True)
        assert parent is not None
        segments = path.split("/")
        for depth in range(1, len(segments)):
            prefix = "/".join(segments[:depth])
            node = self.store.find_path(self._root or "", prefix)
            if node is None:
                new = NewNode(segments[depth - 1], PATH_TYPE, segments[depth - 1], prefix)
                node = self.tree.append_child(parent, new)
            parent = node.id
        return parent

    def delete(self, path: str, *, recursive: bool = False) -> int:
        """Delete the entry (kept in history); a path with children only when
        `recursive`. Returns the number of nodes deleted."""
        node = self._require(clean_path(path))
        if not recursive and self.store.child_count(node.id):
            raise InvalidOperation(
                f"{path!r} has entries below it; delete them first or pass recursive=True",
                path,
            )
        return self.tree.delete(node.id)

    # -- reads ---------------------------------------------------------------------

    def get(self, path: str, *, record: bool = True) -> Entry:
        """The entry at `path` with its snapshot; counts as an access."""
        node = self._require(clean_path(path))
        rows = self.store.snapshots([node.id]).get(node.id, [])
        if record:  # a read never waits for the write lock for this
            self.store.record_accesses_soon([node.id], to_iso(self.tree.clock()))
        return self._entry(node, [_chunk(r) for r in rows])

    def list(self, prefix: str = "") -> builtins.list[Entry]:
        """Every path at or below `prefix`, in path order."""
        root = self._space(create=False)
        if root is None:
            return []
        nodes = self.store.paths_under(root, clean_path(prefix, allow_empty=True))
        # Tree order: "Project/Goals" before "Project Notes" (a space sorts before "/").
        nodes.sort(key=lambda n: n.context_value.split("/"))
        accessed = self.store.access_times([n.id for n in nodes])  # one query, not one each
        return [self._entry(n, [], accessed.get(n.id, [])) for n in nodes]

    def children(self, path: str = "") -> builtins.list[Node]:
        path = clean_path(path, allow_empty=True)
        parent = self._require(path).id if path else self._space(create=False)
        if parent is None:
            return []
        return [n for n in self.store.children(parent) if n.context_type == PATH_TYPE]

    def query_heading(
        self, path: str = "", query: str | None = None, *, recency_bias: float = 0.3
    ) -> builtins.list[Entry]:
        """The entries under a heading: newest first, or with a query ranked by
        `(1-b)·best similarity (content or snapshot) + b·exp(-age/30 d)`."""
        if not isinstance(recency_bias, (int, float)) or not 0 <= recency_bias <= 1:
            raise InvalidInput(
                f"recency_bias must be from 0 to 1, got {recency_bias!r}", recency_bias
            )
        if query is not None and not isinstance(query, str):
            raise InvalidInput(f"query must be text, got {query!r}", query)
        nodes = self.children(path)
        if path and not nodes:
            self._require(clean_path(path))  # NotFound for a missing heading
        snapshots = self.store.snapshots([n.id for n in nodes])
        accessed = self.store.access_times([n.id for n in nodes])
        entries = [
            self._entry(n, [_chunk(r) for r in snapshots.get(n.id, [])], accessed.get(n.id, []))
            for n in nodes
        ]
        if not query or not query.strip():
            return sorted(entries, key=lambda e: (e.modified, e.path), reverse=True)
        retriever = self._retriever()
        vector = retriever.embed_query(query)
        own = retriever.vectors([n.id for n in nodes])
        now = self.tree.clock()
        identity = retriever.embedder.identity
        for entry, node in zip(entries, nodes, strict=True):
            # Only embeddings from the current model compare with the query.
            rows = snapshots.get(node.id, [])
            scored = [
                (c, _cosine(vector, c.embedding) if r.embedder == identity else 0.0)
                for c, r in zip(entry.snapshot, rows, strict=True)
            ]
            best = max((s for _, s in scored), default=0.0)
            if entry.node_id in own:
                best = max(best, float(own[entry.node_id] @ vector))
            entry.relevant = [
                dataclasses.replace(c, similarity=s) for c, s in scored if s > RELEVANT_CHUNK
            ]
            fresh = math.exp(-age_days(entry.modified, now) / RECENCY_DAYS)
            entry.score = (1 - recency_bias) * max(0.0, best) + recency_bias * fresh
        return sorted(entries, key=lambda e: (-(e.score or 0.0), e.path))

    # -- helpers -------------------------------------------------------------------

    def _identity(self) -> str:
        return self._retriever().embedder.identity

    def _snapshot(
        self,
        query: str,
        meaning: str,
        budget: int,
        conversation: Sequence[dict[str, str]] | None,
    ) -> tuple[builtins.list[Chunk], npt.NDArray[np.float32] | None]:
        """The most relevant chunks that fit `budget` tokens, best first, and
        the vector of `meaning` that ranked them (None if it was of a cleaned text)."""
        retriever = self._retriever()
        candidates: builtins.list[Chunk] = []
        exact = True
        if conversation is not None:
            texts = [_message(m, i) for i, m in enumerate(conversation)]
            texts = [(role, text) for role, text in texts if text.strip()]
            # The messages and the query in one model call.
            vectors = retriever.embedder.embed_batch([*(t for _, t in texts), meaning])
            vector = vectors[-1]
            for (role, text), v in zip(texts, vectors[:-1], strict=True):
                candidates.append(Chunk(text, None, role, float(v @ vector), 0, v.tolist()))
        else:
            where = NodeFilter(scopes=(self.scope,))
            hits = retriever.search(
                query, where, _SNAPSHOT_CANDIDATES, self.weights, False, meaning=meaning
            )
            vector = retriever.embed_query(meaning)  # cached by the search
            # The search cleans and cuts; a faster query path is not the node's own.
            exact = query_text(meaning) == meaning and retriever.exact_queries
            hits = [h for h in hits if h.node.context_type != PATH_TYPE]  # not entries themselves
            own = retriever.vectors([h.node.id for h in hits])
            for hit in hits:
                v = own.get(hit.node.id)
                similarity = float(v @ vector) if v is not None else hit.parts.get("semantic", 0.0)
                role = hit.node.context_name or hit.node.context_type
                candidates.append(
                    Chunk(
                        hit.node.text,
                        hit.node.id,
                        role,
                        similarity,
                        0,
                        v.tolist() if v is not None else None,
                    )
                )
        candidates.sort(key=lambda c: -c.similarity)
        counts = self.tree.tokenizer.count_many([c.text for c in candidates])
        chosen, used = [], 0
        for chunk, tokens in zip(candidates, counts, strict=True):
            if used + tokens <= budget:
                chosen.append(dataclasses.replace(chunk, tokens=tokens))
                used += tokens
        return chosen, vector if exact else None

    def _entry(
        self, node: Node, snapshot: builtins.list[Chunk], accessed: builtins.list[str] | None = None
    ) -> Entry:
        has = bool(node.metadata.get("entry"))
        if accessed is None:
            accessed = self.store.access_times([node.id]).get(node.id, [])
        return Entry(
            node.context_value,
            node.context_name,
            node.metadata.get("content") if has else None,
            has,
            node.id,
            node.version,
            node.created_at,
            node.updated_at,
            max(accessed) if accessed else None,
            snapshot,
        )


def _message(message: object, index: int) -> tuple[str, str]:
    if not isinstance(message, dict) or not isinstance(message.get("content", ""), str):
        raise InvalidInput(
            f"conversation message {index} must be {{'role': ..., 'content': '...'}}", message
        )
    return str(message.get("role", "")), message.get("content", "")


def _cosine(query: npt.NDArray[np.float32], embedding: list[float] | None) -> float:
    if not embedding or len(embedding) != len(query):
        return 0.0
    return float(np.asarray(embedding, dtype=np.float32) @ query)


def _row(chunk: Chunk, embedder: str) -> SnapshotRow:
    blob = None if chunk.embedding is None else np.asarray(chunk.embedding, np.float32).tobytes()
    return SnapshotRow(
        chunk.text, chunk.source_id, chunk.role, chunk.similarity, chunk.tokens, embedder, blob
    )


def _chunk(row: SnapshotRow) -> Chunk:
    vector = None if row.embedding is None else np.frombuffer(row.embedding, np.float32).tolist()
    return Chunk(row.text, row.source_id, row.role, row.similarity, row.tokens, vector)


def age_days(modified: str, now: datetime) -> float:
    return max(0.0, (now - from_iso(modified)).total_seconds() / 86_400)
