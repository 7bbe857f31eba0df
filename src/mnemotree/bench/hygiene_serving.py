"""What the hygiene benchmark's probes are served: search's top 5, the `ask`
prompt (built offline, no model called) and an 8,000-token context, checked
for replaced, expired or archived memories; and what a context is made of
(memory and document text against ids, headings and framing, counted with
the memory's own tokenizer on the rendered text)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from difflib import SequenceMatcher
from typing import Any

from ..memory import Memory
from ..model import Node
from .hygiene_data import Probe, World
from .hygiene_measure import ended, figure, label_of, share, text_of
from .hygiene_world import SCOPE, Built

SURFACES = ("search_top5", "ask", "context_8k")
CONTEXT_BUDGET = 8000
MIN_BLOCK = 12  # characters of an item that must match its memory's text to count as content
HEADINGS = ("section", "document")
LEVEL = "level"
_REFERENCE = re.compile(r"\[[^\[\]\n]{1,80}\]")


@dataclass
class ContextFacts:
    """One context taken apart."""

    tokens: int = 0
    content_tokens: int = 0
    id_tokens: int = 0
    items: int = 0
    located: int = 0  # items whose text was found in the rendered context
    headings: int = 0  # items that are a document's or section's heading alone
    duplicates: int = 0  # items repeating another item's text
    contradictions: int = 0  # contradiction items in the critical tier
    false_contradictions: int = 0  # ... about a pair that is no planted change
    bare_contradictions: int = 0  # ... that do not show both statements' text
    served: set[str] = field(default_factory=set)  # data ids in the content tiers
    indexed: set[str] = field(default_factory=set)  # data ids only pointed at (index tier)


def stale_now(memory: Memory, built: Built, world: World, now: datetime) -> set[str]:
    """Replaced or expired by the labels, archived, or ended by the engine."""
    stale = world.superseded() | world.expired(now) | ended(memory, built, now)
    return stale | set(built.labels(list(memory.store.archived(list(built.node_of.values())))))


def serve(
    memory: Memory, built: Built, world: World, now: datetime, examples: int
) -> dict[str, Any]:
    """Every probe through the three surfaces."""
    stale = stale_now(memory, built, world, now)
    closure = world.change_closure()
    hit: dict[str, set[str]] = {s: set() for s in (*SURFACES, "any")}
    own: dict[str, set[str]] = {s: set() for s in (*SURFACES, "any")}
    current: dict[str, set[str]] = {s: set() for s in SURFACES}
    facts: list[ContextFacts] = []
    shown: dict[str, list[str]] = {s: [] for s in SURFACES}  # the probe's own stale first
    pointing = 0  # contexts whose index points at a stale memory
    for probe in world.probes:
        served, context = _served(memory, built, world, probe, closure)
        facts.append(context)
        pointing += bool((context.indexed - context.served) & stale)
        for surface, labels in served.items():
            if labels & stale:
                hit[surface].add(probe.id)
                hit["any"].add(probe.id)
                first = sorted(labels & stale, key=lambda label: label not in probe.stale)[0]
                shown[surface].append(f"{probe.question} -> {text_of(world, first, 70)}")
            if labels & set(probe.stale):
                own[surface].add(probe.id)
                own["any"].add(probe.id)
            if labels & set(probe.current):
                current[surface].add(probe.id)
    asked = len(world.probes)
    answerable = sum(bool(p.current) for p in world.probes)
    return {
        "probes": asked,
        "stale_served": {s: figure(len(hit[s]), asked) for s in ("any", *SURFACES)},
        "own_stale_served": {s: figure(len(own[s]), asked) for s in ("any", *SURFACES)},
        "current_served": {s: figure(len(current[s]), answerable) for s in SURFACES},
        "stale_examples": {s: shown[s][:examples] for s in SURFACES},
        "context": {**_context_summary(facts), "index_pointing_at_stale": pointing},
    }


def _served(
    memory: Memory, built: Built, world: World, probe: Probe, closure: set[frozenset[str]]
) -> tuple[dict[str, set[str]], ContextFacts]:
    hits = memory.search(probe.question, scopes=[SCOPE], limit=5, record=False)
    answer = memory.ask(probe.question, scopes=[SCOPE], limit=5, record=False, generate=False)
    asked = [s.node_id for s in answer.sources] + [h.node.id for h in answer.memories]
    context = memory.context(probe.question, budget=CONTEXT_BUDGET, scopes=[SCOPE])
    facts = inspect(memory, built, context, closure)
    served = {
        "search_top5": set(built.labels([h.node.id for h in hits])),
        "ask": set(built.labels(asked)),
        "context_8k": facts.served,
    }
    return served, facts


def inspect(
    memory: Memory, built: Built, context: Any, closure: set[frozenset[str]]
) -> ContextFacts:
    """Take a rendered context apart: which tokens are memory or document
    text, which are references, and what its items are."""
    text = str(context.text)
    flat = " ".join(text.split())
    facts = ContextFacts(tokens=memory.tokenizer.count(text))
    placed = [(tier.name, item) for tier in context.tiers for item in tier.items]
    # Ids in brackets, and the short references that lead lines (e.g. "m3"), if any.
    refs = [str(getattr(item, "ref", "") or "") for _, item in placed]
    shown = _REFERENCE.findall(text) + [r for r in refs if r and not r.startswith("[")]
    facts.id_tokens = memory.tokenizer.count(" ".join(shown))
    sources = _sources(memory, [i for _, item in placed for i in _ids(item)])
    seen: set[str] = set()
    content: list[str] = []
    for tier, item in placed:
        ids = _ids(item)
        own = [sources[i][1] for i in ids if i in sources]
        said = " ".join(str(getattr(item, "text", "")).split())
        facts.items += 1
        facts.located += bool(said) and said[:60] in flat
        facts.headings += any(sources[i][0] in HEADINGS for i in ids[:1] if i in sources)
        if tier != "index":  # the index points at what the tiers hold: not a repeat
            key = own[0][0].lower() if own and own[0] else said.lower()
            facts.duplicates += key in seen
            seen.add(key)
        content += _matched(said, [t for texts in own for t in texts])
        labels = {label_of(built, i) for i in ids}
        if tier == "index":
            facts.indexed |= labels
        else:
            facts.served |= labels
        if tier == "critical" and "contradict" in str(getattr(item, "reason", "")).lower():
            facts.contradictions += 1
            facts.false_contradictions += len(labels) == 2 and frozenset(labels) not in closure
            facts.bare_contradictions += not all(t[0][:25] in said for t in own[:2] if t)
    facts.content_tokens = min(facts.tokens, memory.tokenizer.count(" ".join(content)))
    return facts


def _ids(item: Any) -> list[str]:
    first = str(getattr(item, "node_id", "") or "")
    return [i for i in (first, *getattr(item, "covers", ())) if i]


def _sources(memory: Memory, ids: Sequence[str]) -> dict[str, tuple[str, list[str]]]:
    """Each node's type and its texts (with its compression levels)."""
    nodes: list[Node] = memory.nodes(list(dict.fromkeys(ids)))
    levels: dict[str, list[str]] = {}
    for child in memory.store.children_of([n.id for n in nodes], LEVEL):
        levels.setdefault(child.parent_id or "", []).append(child.text)
    return {
        n.id: (n.context_type, [" ".join(n.text.split()), *levels.get(n.id, [])]) for n in nodes
    }


def _matched(said: str, texts: Sequence[str]) -> list[str]:
    """The stretches of an item's text that are its memories' own text."""
    marked = [False] * len(said)
    for text in texts:
        flat = " ".join(text.split())
        if not flat:
            continue
        for block in SequenceMatcher(None, said, flat, autojunk=False).get_matching_blocks():
            if block.size >= MIN_BLOCK:
                marked[block.a : block.a + block.size] = [True] * block.size
    spans, start = [], None
    for k, mark in enumerate([*marked, False]):
        if mark and start is None:
            start = k
        elif not mark and start is not None:
            spans.append(said[start:k])
            start = None
    return spans


def _context_summary(facts: list[ContextFacts]) -> dict[str, Any]:
    tokens = sum(f.tokens for f in facts)
    shares = [f.content_tokens / f.tokens for f in facts if f.tokens]
    return {
        "contexts": len(facts),
        "tokens": tokens,
        "content_share": share(sum(f.content_tokens for f in facts), tokens),
        "content_share_lowest": round(min(shares), 3) if shares else None,
        "id_share": share(sum(f.id_tokens for f in facts), tokens),
        "items": sum(f.items for f in facts),
        "items_located_in_text": sum(f.located for f in facts),
        "heading_items": sum(f.headings for f in facts),
        "duplicate_items": sum(f.duplicates for f in facts),
        "critical_contradiction_items": sum(f.contradictions for f in facts),
        "false_critical_contradictions": sum(f.false_contradictions for f in facts),
        "contradiction_items_without_both_texts": sum(f.bare_contradictions for f in facts),
    }
