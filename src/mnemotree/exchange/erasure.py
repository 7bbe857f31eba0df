"""Erasure that really erases, behind `Memory.purge`: what a delete keeps as
history, a purge removes, then the file is rewritten (see
`store.sqlite.purge` for every place a memory's words live)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import InvalidInput, NotFound
from ..model import Node, clean_id, clean_scope
from ..retrieval.hits import MIN_RELEVANCE, Hit
from ..retrieval.query import lexical_query, terms_of
from ..retrieval.search import MAX_LIMIT
from ..services import Part, Search, Services
from ..timeutil import to_iso

MAX_SUBJECT_CHARS = 200


@dataclass(frozen=True, slots=True)
class PurgeReport:
    """What a purge removed (or, in a dry run, would remove)."""

    selector: str  # ids | scope | subject | query
    dry_run: bool
    node_ids: list[str] = field(default_factory=list)
    nodes: int = 0
    versions: int = 0
    other_rows: int = 0
    compacted: bool = False  # the file was rewritten and the WAL emptied

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Erasure(Part):
    """Finds what a purge selects and removes it everywhere."""

    def __init__(self, services: Services, search: Search) -> None:
        super().__init__(services)
        self.search = search

    def purge(
        self,
        ids: Sequence[str] = (),
        *,
        scope: str | None = None,
        subject: str | None = None,
        query: str | None = None,
        scopes: Sequence[str] | None = None,
        dry_run: bool = False,
        everything: bool = False,
        key_id: str = "",
        allowed: Callable[[Node], object] | None = None,
    ) -> PurgeReport:
        """Erase memories for good: the nodes named by `ids` (with their
        subtrees), every node of `scope`, every node whose own text names
        `subject` (its words in order), or what a search for `query` finds
        that is itself about it (a telling word, or close in meaning; not
        its neighbours: review it with `dry_run` first); the last two within
        `scopes` if given. With
        them the memories captured from them, their history, the summaries
        and snapshots that quoted them. Exactly one selector; a selection
        of the whole memory needs `everything=True`. `dry_run` lists what
        would go and changes nothing. `allowed` is called with every selected
        memory first and refuses the whole purge by raising (a key that may
        not change one). An audit row records that a purge happened, by
        `key_id`, and how much went, never what."""
        kind, chosen = self._purge_selection(ids, scope, subject, query, scopes)
        closure = self.store.purge_closure(chosen)
        if closure and len(closure) >= self.store.node_count() and not everything:
            raise InvalidInput(
                f"this {kind} selects every memory ({len(closure)}); pass everything=True "
                "(--all --yes) to erase them all",
                kind,
            )
        if allowed is not None:
            for node in self.store.get_many(closure):
                allowed(node)
        if dry_run:
            return PurgeReport(kind, dry_run, closure)
        if not closure:  # erased before, perhaps while a reader kept old pages
            return PurgeReport(kind, False, [], compacted=self.store.compact())
        record = (uuid.uuid4().hex, to_iso(self.clock()), key_id, kind)
        counts = self.store.purge(closure, record)
        self.retriever.forget_queries()
        compacted = self.store.compact()
        return PurgeReport(kind, False, closure, *counts, compacted=compacted)

    def _purge_selection(
        self,
        ids: Sequence[str],
        scope: str | None,
        subject: str | None,
        query: str | None,
        scopes: Sequence[str] | None,
    ) -> tuple[str, list[str]]:
        named = (("ids", ids), ("scope", scope), ("subject", subject), ("query", query))
        given = [k for k, v in named if v]
        if len(given) != 1:
            raise InvalidInput(
                "name exactly one thing to erase: node ids, a scope, a subject or a query "
                f"(got {', '.join(given) or 'none'})",
                given,
            )
        if ids:
            if isinstance(ids, str):
                ids = [ids]
            wanted = [clean_id(i) for i in ids]
            missing = sorted(set(wanted) - {n.id for n in self.store.get_many(wanted)})
            if missing:
                raise NotFound(f"no node {missing[0]}", missing[0])
            return "ids", wanted
        if scope:
            return "scope", self.store.scope_ids(clean_scope(scope))
        kind = "subject" if subject else "query"
        text = " ".join(str(subject or query).split())
        if not text or len(text) > MAX_SUBJECT_CHARS:
            raise InvalidInput(
                f"a {kind} is 1 to {MAX_SUBJECT_CHARS} characters of words, got {text!r}", text
            )
        chosen = None if scopes is None else [clean_scope(s) for s in scopes]
        if kind == "query":
            found = self.search(text, scopes=chosen, limit=MAX_LIMIT, record=False)
            hits = [h for top in found for h in (top, *top.covered)]
            telling = set(lexical_query(text).terms)
            return kind, [h.node.id for h in hits if _itself_about(h, telling)]
        return kind, self.store.phrase_ids(text, chosen)


def _itself_about(hit: Hit, telling: set[str]) -> bool:
    """Whether a hit is about the query by its own text: one of the query's
    telling words in it, or a meaning as close as the relevance floor asks.
    A search also ranks a note beside a match or under one; an erasure must
    not take it."""
    return (
        bool(telling & set(terms_of(hit.node.text)))
        or hit.parts.get("semantic", 0.0) >= MIN_RELEVANCE
    )
