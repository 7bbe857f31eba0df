"""The steps of a consolidation (the tiered- and living-memory designs), each a pure function from a
snapshot of the memories to the actions it proposes.

Memories are nodes of the typed kinds and plain remembered ones; messages,
document chunks and path entries are records, kept by retention rules, and
never touched here. Similar pairs come from vector neighbours (never from
comparing all pairs); nothing is deleted: forgetting archives.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..conversation.extractive import content_terms
from ..model import Node
from ..store import MemoryStats
from ..structured import typed
from ..timeutil import from_iso, to_iso
from .contradictions import Change, agree, read
from .contradictions import verdict as verdict_of
from .judge import Judge
from .plan import Action, Policy

MEMORY_TYPES = ("memory", *typed.TYPES)
NO_STATS = MemoryStats(0, None, 0, 0, 0)
Summarise = Callable[[str, int], str]  # (text, at most this many sentences) -> summary


@dataclass
class Snapshot:
    """What the steps read, gathered once by the caller."""

    now: datetime
    memories: dict[str, Node]  # live (not archived) memories
    decays: dict[str, float | None]  # as stored by the last run
    stats: dict[str, MemoryStats]  # accesses (ever) and usage since the last run
    neighbours: dict[str, list[tuple[str, float]]]
    related: set[frozenset[str]]  # pairs with any relation already
    contradicted: set[frozenset[str]]  # pairs with a contradiction recorded already
    in_open_contradiction: set[str]
    superseded: set[str]  # targets of supersedes relations from live memories
    levels: dict[str, dict[str, Node]]  # multi-level memory id -> level name -> node
    stale: list[tuple[Node, list[Node]]] = field(default_factory=list)  # summary, children
    co_cited: list[tuple[str, str, int]] = field(default_factory=list)
    cited_ever: set[str] = field(default_factory=set)  # cited in any context, in any run
    linked: set[str] = field(default_factory=set)  # related by a person (not derived_from)
    # Where each note's meaning leans between everyday life and work knowledge
    # (`salience.Topics`), for those disuse may archive; empty without a model
    # that can tell.
    leans: dict[str, float] = field(default_factory=dict)
    under_review: set[frozenset[str]] = field(default_factory=set)  # only review rows
    # Use within the longest disuse age (a first run's "since the last run"
    # is all time: a search a year ago must not keep trivia forever).
    recent: dict[str, MemoryStats] = field(default_factory=dict)

    def stat(self, node_id: str) -> MemoryStats:
        return self.stats.get(node_id, NO_STATS)

    def age_days(self, node: Node) -> float:
        return (self.now - from_iso(node.created_at)).total_seconds() / 86_400

    def valid(self, node: Node) -> bool:
        end = node.metadata.get("valid_to")
        return end is None or str(end) > to_iso(self.now)

    def similar(self, floor: float) -> Iterator[tuple[Node, Node, float]]:
        """Pairs of live memories in one scope with cosine ≥ floor, each once,
        earlier memory first."""
        seen: set[tuple[str, str]] = set()
        for node_id, near in self.neighbours.items():
            a = self.memories.get(node_id)
            if a is None:
                continue
            for other_id, cosine in near:
                b = self.memories.get(other_id)
                if b is None or cosine < floor or b.scope != a.scope:
                    continue
                first, second = sorted((a, b), key=lambda n: (n.created_at, n.id))
                if (first.id, second.id) not in seen:
                    seen.add((first.id, second.id))
                    yield first, second, cosine


def decay_now(snap: Snapshot, node: Node, policy: Policy) -> float:
    stat = snap.stat(node.id)
    since = from_iso(stat.last_access) if stat.last_access else from_iso(node.created_at)
    return round(typed.decay(since, stat.accesses, snap.now, policy.half_life_days), 4)


def decay(snap: Snapshot, policy: Policy) -> list[Action]:
    """The tiered-memory design's decay factor of every memory, written where it changed."""
    values: dict[str, float] = {}
    for node in snap.memories.values():
        value = decay_now(snap, node, policy)
        old = snap.decays.get(node.id)
        if old is None or abs(old - value) >= policy.decay_change:
            values[node.id] = value
    if not values:
        return []
    reason = f"decay factors recomputed (half-life {policy.half_life_days:g} days)"
    return [Action("decay", tuple(values), reason, {"values": values})]


def leaving(planned: Iterable[Action]) -> set[str]:
    """Memories that planned actions archive (merged away or forgotten)."""
    out: set[str] = set()
    for action in planned:
        if action.step in ("dedupe", "merge"):
            out.update(action.nodes[1:])
        elif action.step == "forget":
            out.update(action.nodes)
    return out


def compress(
    snap: Snapshot, policy: Policy, summarise: Summarise, planned: list[Action], step: str
) -> list[Action]:
    """Episodes older than 7 days gain a summary level (step "summarise");
    older than 30, a compressed and an index level, and their full narrative
    is archived (step "compress")."""
    actions = []
    gone = leaving(planned)
    for node in snap.memories.values():
        if node.context_type != "episode" or node.id in gone:
            continue
        age = snap.age_days(node)
        levels = snap.levels.get(node.id, {})
        full = levels.get("full")
        source = full.text if full is not None else node.text
        if step == "summarise" and (
            age >= policy.summarise_after_days and "summary" not in levels and full is not None
        ):
            text = summarise(source, 3)
            reason = f"episode {age:.0f} days old has no summary level"
            actions.append(Action("summarise", (node.id,), reason, {"levels": {"summary": text}}))
        # `levels` holds live levels only: an archived full narrative is done.
        if step == "compress" and (
            age >= policy.compress_after_days and ("compressed" not in levels or full is not None)
        ):
            add = {}
            if "compressed" not in levels:
                shorter = summarise(levels["summary"].text if "summary" in levels else source, 1)
                add["compressed"] = _with_outcome(shorter, node)
            if "index" not in levels:
                add["index"] = _index_line(node)
            archive = [full.id] if full is not None else []
            reason = f"episode {age:.0f} days old: compressed, its full narrative archived"
            actions.append(
                Action("compress", (node.id,), reason, {"levels": add, "archive": archive})
            )
    return actions


def _with_outcome(text: str, node: Node) -> str:
    """A compressed episode keeps how it ended: its outcome, unless its
    sentence already says it."""
    outcome = node.metadata.get("outcome")
    if not isinstance(outcome, str) or not outcome.strip():
        return text
    said = set(content_terms(text))
    told = set(content_terms(outcome))
    if told and len(told & said) >= 0.6 * len(told):
        return text
    return f"{text.rstrip()} → {outcome.strip()}"


def _index_line(node: Node) -> str:
    outcome = node.metadata.get("outcome")
    return f"{node.text} → {outcome}" if outcome else node.text


def refresh(snap: Snapshot, summarise: Summarise) -> list[Action]:
    """Stale summaries (docmem: their children changed) written again."""
    actions = []
    for summary, children in snap.stale:
        if not children:
            continue
        sentences = max(1, min(5, len(children) // 3 + 1))
        text = summarise("\n".join(c.text for c in children), sentences)
        if text.strip() and text != summary.text:
            reason = f"summary of {len(children)} nodes is stale (they changed since)"
            actions.append(Action("refresh", (summary.id,), reason, {"text": text}))
    return actions


def rerank(snap: Snapshot, policy: Policy, planned: list[Action], step: str) -> list[Action]:
    """Promote memories cited in contexts; demote those retrieved often and
    never cited (usage since the last run)."""
    actions = []
    gone = leaving(planned)
    for node in snap.memories.values():
        stat = snap.stat(node.id)
        if node.id in gone:
            continue
        if step == "promote" and stat.cited >= policy.promote_cited and stat.cited >= stat.ignored:
            to = min(1.0, round(node.importance + policy.importance_step, 4))
            if to > node.importance:
                reason = f"cited in {stat.cited} contexts since the last run"
                actions.append(
                    Action("promote", (node.id,), reason, {"from": node.importance, "to": to})
                )
        elif step == "demote" and stat.retrieved >= policy.demote_retrieved and stat.cited == 0:
            to = max(0.1, round(node.importance - policy.importance_step, 4))
            if to < node.importance:
                reason = f"retrieved {stat.retrieved} times since the last run, never cited"
                actions.append(
                    Action("demote", (node.id,), reason, {"from": node.importance, "to": to})
                )
    return actions


def merge_episodes(snap: Snapshot) -> list[Action]:
    """Episodes of one scope whose turn ranges overlap, with a participant in
    common (or none named), merge into the more significant one."""
    episodes = sorted(
        (
            n
            for n in snap.memories.values()
            if n.context_type == "episode" and n.metadata.get("turns")
        ),
        key=lambda n: (n.scope, _turns(n), n.id),
    )
    actions = []
    used: set[str] = set()
    for i, a in enumerate(episodes):
        if a.id in used:
            continue
        first, last = _turns(a)
        group = [a]
        for b in episodes[i + 1 :]:
            start, end = _turns(b)
            if b.scope != a.scope or start > last:
                break
            if b.id not in used and _share_people(a, b):
                group.append(b)
                last = max(last, end)
        if len(group) < 2:
            continue
        keeper = max(
            group,
            key=lambda n: (
                n.metadata.get("significance", 0.5),
                n.importance,
                -from_iso(n.created_at).timestamp(),
            ),
        )
        others = [n for n in group if n.id != keeper.id]
        used.update(n.id for n in group)
        people = sorted({p for n in group for p in n.metadata.get("participants") or []})
        reason = f"{len(group)} episodes overlap in turns {first}-{last}"
        actions.append(
            Action(
                "merge",
                (keeper.id, *(n.id for n in others)),
                reason,
                {"turns": [first, last], "participants": people},
            )
        )
    return actions


def _turns(node: Node) -> tuple[int, int]:
    turns = node.metadata.get("turns")
    if isinstance(turns, list) and len(turns) == 2:
        return int(turns[0]), int(turns[1])
    return (0, 0)


def _share_people(a: Node, b: Node) -> bool:
    left = set(a.metadata.get("participants") or [])
    right = set(b.metadata.get("participants") or [])
    return not left or not right or bool(left & right)


def links(snap: Snapshot, policy: Policy, planned: list[Action]) -> list[Action]:
    """related_to links by similarity (below duplicates), shared rare @tags
    and co-citation; at most `max_links` new ones per memory."""
    gone = leaving(planned)
    found: dict[frozenset[str], tuple[str, str, float, str]] = {}

    def offer(a: Node, b: Node, strength: float, why: str) -> None:
        pair = frozenset((a.id, b.id))
        if a.id in gone or b.id in gone or pair in snap.related or a.id == b.id:
            return
        if a.scope != b.scope or (pair in found and found[pair][2] >= strength):
            return
        found[pair] = (a.id, b.id, strength, why)

    for a, b, cosine in snap.similar(policy.related_cosine):
        if cosine < policy.duplicate_cosine or a.context_type != b.context_type:
            offer(a, b, round(cosine, 3), f"similar (cosine {cosine:.3f})")
    by_tag: dict[tuple[str, str], list[Node]] = defaultdict(list)
    for node in snap.memories.values():
        for tag in node.tags:
            by_tag[(node.scope, tag)].append(node)
    for (_, tag), members in sorted(by_tag.items()):
        if 2 <= len(members) <= policy.tag_group_max:
            for i, a in enumerate(members):
                for b in members[i + 1 :]:
                    offer(a, b, 0.5, f"share @{tag}")
    for a_id, b_id, together in snap.co_cited:
        left, right = snap.memories.get(a_id), snap.memories.get(b_id)
        if left is not None and right is not None and together >= policy.co_cited_min:
            offer(left, right, min(1.0, together / 5), f"cited together in {together} contexts")
    per_node: dict[str, int] = defaultdict(int)
    actions = []
    for a_id, b_id, strength, why in sorted(found.values(), key=lambda f: (-f[2], f[0], f[1])):
        if per_node[a_id] >= policy.max_links or per_node[b_id] >= policy.max_links:
            continue
        per_node[a_id] += 1
        per_node[b_id] += 1
        actions.append(Action("link", (a_id, b_id), why, {"strength": strength}))
    return actions


def contradictions(snap: Snapshot, policy: Policy, judge: Judge | None = None) -> list[Action]:
    """Pairs of valid memories that contradict: facts of one key with other
    values, and similar statements that negate each other or change a value
    (by the offline detectors, or by the LLM `judge` when given: up to
    `judge_max` similar pairs a run; where it fails, the detectors decide).
    Each is an update, an open contradiction or a candidate to review, as on
    write (`contradictions.verdict`)."""
    actions: list[Action] = []
    recorded = set(snap.contradicted)

    def offer(
        a: Node, b: Node, kind: str, reason: str, confidence: float, changed: bool = False
    ) -> None:
        pair = frozenset((a.id, b.id))
        if pair not in recorded:
            recorded.add(pair)
            status = verdict_of(Change(a, kind, reason, confidence, changed), b)
            data = {"kind": kind, "status": status}
            actions.append(Action("contradiction", (a.id, b.id), reason, data))

    facts: dict[tuple[str, str], list[Node]] = defaultdict(list)
    for node in snap.memories.values():
        key = node.metadata.get("key")
        if node.context_type == "fact" and isinstance(key, str) and snap.valid(node):
            facts[(node.scope, key)].append(node)
    for (_, key), group in sorted(facts.items()):
        group.sort(key=lambda n: (n.created_at, n.id))
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if not agree(a.metadata, b.metadata):
                    offer(
                        a,
                        b,
                        "same_key",
                        f"{key}: {a.metadata.get('value')!r} then {b.metadata.get('value')!r}",
                        1.0,
                    )
    asked = 0
    parsed: dict[str, Any] = {}
    for a, b, _ in snap.similar(policy.contradiction_cosine):
        if a.context_type in typed.LEVELS or b.context_type in typed.LEVELS:
            continue
        if not (snap.valid(a) and snap.valid(b)) or frozenset((a.id, b.id)) in recorded:
            continue
        found = read(a.text, b.text, parsed)
        verdict, who = None, ""
        if judge is not None and asked < policy.judge_max:
            asked += 1
            verdict, who = judge.contradicts(a.text, b.text), judge.identity
        if verdict is True:
            offer(a, b, "judge", found.reason if found else f"{who} judged so", 1.0)
        elif verdict is None and found is not None:
            offer(a, b, found.kind, found.reason, found.confidence, found.update)
    return actions
