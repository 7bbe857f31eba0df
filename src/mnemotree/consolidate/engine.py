"""Planning a consolidation: gather one snapshot of the memories, then run
the steps over it in order (later steps see what earlier ones propose)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta

from ..conversation.extractive import Said
from ..conversation.extractive import summarize as extractive
from ..conversation.summarize import Summarizer
from ..errors import InvalidInput
from ..model import Node
from ..retrieval.search import Retriever
from ..store import ContradictionRow, MemoryStats, RelationRow, Store
from ..structured.typed import LEVEL, LEVELS
from ..timeutil import to_iso
from . import dedupe, forget, steps
from .judge import Judge
from .plan import STEPS, Action, Plan, Policy
from .salience import Topics

CO_CITED_DAYS = 90  # co-citation links look this far back
MAX_PAIRS = 10_000
MAX_RUNS = 100_000  # runs read back to tell their own links from a person's


def clean_steps(chosen: Sequence[str] | None) -> tuple[str, ...]:
    if chosen is None:
        return STEPS
    unknown = [s for s in chosen if s not in STEPS]
    if unknown or isinstance(chosen, str):
        bad = unknown[0] if unknown else chosen
        raise InvalidInput(f"unknown consolidation step {bad!r}; choose from {list(STEPS)}", bad)
    return tuple(chosen)


def summariser(summarizer: Summarizer | None) -> steps.Summarise:
    """Texts summarised by the LLM's summariser when there is one, else by
    picking their own key sentences."""

    def summarise(text: str, sentences: int) -> str:
        if summarizer is not None:
            return summarizer.summarize([Said("", text)]).text
        picked = extractive([Said("", text)], max_sentences=sentences)
        return picked or text[:300]

    return summarise


def gather(store: Store, retriever: Retriever, now: datetime, policy: Policy) -> steps.Snapshot:
    """One read of everything the steps look at."""
    rows = store.live_memories(steps.MEMORY_TYPES)
    memories = {n.id: n for n, _ in rows}
    ids = list(memories)
    last = next((r for r in store.runs(10) if r.undone_at is None), None)
    retriever.flush()
    relations = store.relations(ids)
    contradictions = store.contradictions(None, None, 10**9)
    multi = [i for i, n in memories.items() if n.context_type in LEVELS]
    levels: dict[str, dict[str, object]] = {}
    for level in store.children_of(multi, LEVEL):
        levels.setdefault(level.parent_id or "", {})[level.context_name] = level
    stale = []
    summaries = store.stale_summaries()
    archived = store.archived([n.id for n in summaries])
    for summary in summaries:
        if summary.id not in archived:
            kids = [c for c in store.children(summary.id) if c.id not in archived]
            stale.append((summary, kids))
    since = to_iso(now - timedelta(days=CO_CITED_DAYS))
    ever = _with_merged(store.memory_stats(""), memories.values())
    return steps.Snapshot(
        now=now,
        memories=memories,
        decays={n.id: d for n, d in rows},
        stats=_with_merged(store.memory_stats(last.applied_at if last else ""), memories.values()),
        neighbours=retriever.neighbours(ids, policy.neighbours),
        related={frozenset((r.source_id, r.target_id)) for r in relations},
        contradicted={frozenset((c.a_id, c.b_id)) for c in contradictions},
        in_open_contradiction={
            i for c in contradictions if c.status == "open" for i in (c.a_id, c.b_id)
        },
        superseded={r.target_id for r in relations if r.type == "supersedes"},
        levels=levels,  # type: ignore[arg-type]
        stale=stale,
        co_cited=store.co_cited_pairs(since, policy.co_cited_min, MAX_PAIRS),
        cited_ever={i for i, s in ever.items() if s.cited},
        linked=_linked(
            store,
            relations,
            {frozenset((c.a_id, c.b_id)) for c in contradictions if c.resolution == "update"},
        ),
        under_review=_under_review(contradictions),
        recent=store.memory_stats(to_iso(now - timedelta(days=_disuse_window(policy)))),
        leans=_leans(retriever, memories, policy),
    )


def _with_merged(stats: dict[str, MemoryStats], nodes: Iterable[Node]) -> dict[str, MemoryStats]:
    """A memory carries the use of those merged into it (`merged_from`): a
    merge keeps one wording, and must not make the knowledge look unused."""
    out = dict(stats)
    for node in nodes:
        merged = node.metadata.get("merged_from")
        parts = [stats[i] for i in merged or () if isinstance(i, str) and i in stats]
        if parts and isinstance(merged, list):
            every = (stats.get(node.id, steps.NO_STATS), *parts)
            last = max((p.last_access for p in every if p.last_access), default=None)
            out[node.id] = MemoryStats(
                sum(p.accesses for p in every),
                last,
                sum(p.retrieved for p in every),
                sum(p.cited for p in every),
                sum(p.ignored for p in every),
            )
    return out


def _linked(store: Store, relations: list[RelationRow], updates: set[frozenset[str]]) -> set[str]:
    """Memories related to another by a person: every relation counts but a
    merge's provenance (derived_from), the links consolidation found itself
    (by similarity, shared tags or co-citation) and the supersessions the
    engine applied as updates: none of those says a person cared."""
    times = {r.created_at for r in relations if r.type == "related_to"}
    found: set[frozenset[str]] = set()
    if times:
        for run in store.runs(MAX_RUNS):
            if run.undone_at is None and run.applied_at in times:
                found.update(frozenset(a["nodes"]) for a in run.actions if a["step"] == "link")
    out: set[str] = set()
    for r in relations:
        pair = frozenset((r.source_id, r.target_id))
        if r.type == "derived_from" or (r.type == "related_to" and pair in found):
            continue
        if r.type == "supersedes" and pair in updates:
            continue
        out.update(pair)
    return out


def _under_review(rows: list[ContradictionRow]) -> set[frozenset[str]]:
    """Pairs whose only rows are candidates waiting in review (a detector was
    unsure; no person nor rule found them in conflict)."""
    states: dict[frozenset[str], set[str]] = {}
    for row in rows:
        states.setdefault(frozenset((row.a_id, row.b_id)), set()).add(row.status)
    return {pair for pair, seen in states.items() if seen == {"review"}}


def _disuse_window(policy: Policy) -> float:
    """Days back a retrieval keeps a memory in use: the longest disuse age."""
    return max([policy.forget_after_days, *policy.disuse_days.values()])


def _leans(retriever: Retriever, memories: dict[str, Node], policy: Policy) -> dict[str, float]:
    """Where the meaning of each memory disuse may archive leans (see
    `salience.Topics`); empty when the embedder cannot tell."""
    ids = [i for i, n in memories.items() if policy.disuse_after(n.context_type) is not None]
    if not ids:
        return {}
    embedder = retriever.embedder
    topics = Topics.of(embedder.identity, lambda texts: embedder.embed_batch(texts))
    if topics is None:
        return {}
    return {i: topics.lean(v) for i, v in retriever.vectors(ids).items()}


def build_plan(
    snap: steps.Snapshot,
    policy: Policy,
    summarise: steps.Summarise,
    chosen: Sequence[str],
    progress: Callable[[str], None] | None = None,
    judge: Judge | None = None,
) -> Plan:
    """Run the chosen steps over a snapshot; nothing is changed."""
    started = time.perf_counter()
    actions: list[Action] = []
    # Forgetting comes before the steps that would write to what it archives.
    runs: list[tuple[str, Callable[[], list[Action]]]] = [
        ("decay", lambda: steps.decay(snap, policy)),
        ("dedupe", lambda: dedupe.dedupe(snap, policy)),
        ("merge", lambda: steps.merge_episodes(snap)),
        ("contradiction", lambda: steps.contradictions(snap, policy, judge)),
        ("forget", lambda: forget.forget(snap, policy, actions)),
        ("summarise", lambda: steps.compress(snap, policy, summarise, actions, "summarise")),
        ("compress", lambda: steps.compress(snap, policy, summarise, actions, "compress")),
        ("refresh", lambda: steps.refresh(snap, summarise)),
        ("promote", lambda: steps.rerank(snap, policy, actions, "promote")),
        ("demote", lambda: steps.rerank(snap, policy, actions, "demote")),
        ("link", lambda: steps.links(snap, policy, actions)),
    ]
    for name, run in runs:
        if name in chosen:
            if progress is not None:
                progress(name)
            actions.extend(run())
    return Plan(to_iso(snap.now), tuple(actions), len(snap.memories), time.perf_counter() - started)
