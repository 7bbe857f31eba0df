"""Four-tier context assembly within an exact token budget (the living-memory design).

critical   active decisions for the file or task, unresolved contradictions,
           recent errors and their fixes, memories like the current error;
relevant   predictions from the signals, search hits for the query (hits
           under one summary grouped: the summary stands in for them),
           further related decisions, and open action items (critical
           when due within a day or overdue);
background conventions (constraints, procedures, patterns, preferences),
           history (chat and episode summaries) and workflow hints;
index      "Ask me about: …" topics and pointers to what was left out or
           shortened, for expansion on demand.
The activity rebalances the shares; what a tier leaves unused flows on to
the next. Only memories valid now (and not archived) are used, on every
path: searches, decisions by file, contradictions, the owners of levels and
the summaries standing for hits. The text is content: a line is led by a
short reference (`m3`) that `Context.refs` maps to its node id, items of
one kind share one heading, document headings are never items, and a text
said twice (a memory repeating a document) is shown once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from ..errors import InvalidInput
from ..model import Node, NodeFilter, valid_since
from ..retrieval.hits import CHUNK, citation
from ..retrieval.search import Hit
from ..store import Store
from ..structured.typed import LEVEL
from ..timeutil import Clock, to_iso
from ..tokens import Tokenizer
from . import render
from .dedupe import Seen
from .pack import Candidate, Label, Labels, Tier, marked, order, pack
from .predict import ARTIFACTS, ERROR_HITS, MIN_ERROR_SIMILARITY, Predictor
from .signals import TIERS, Signals, file_parts, situation_text

Search = Callable[[str, NodeFilter, int], list[Hit]]

MAX_BUDGET = 1_000_000
RECENT_ERRORS = timedelta(hours=24)  # the living-memory design: recent_errors(hours=24)
DUE_SOON = timedelta(days=1)  # an open action due this soon (or overdue) is critical
ERROR_EPISODES = ("issue_identified", "problem_solved")
RECENT_EPISODES = 200  # episodes of the last day looked at (errors among them)
CONVENTIONS = ("constraint", "procedure", "pattern", "preference")
TOPICS = 12
QUERY_HITS = 20
PER_KIND = 12  # background memories read per type, newest first
PREDICTIONS = 20
COUNTED = 50_000  # line token counts kept between contexts
_Found = tuple[Node, float, str]


@dataclass
class _Gathered:
    """What each tier may hold: nodes with a priority and a reason, plus
    candidates that are not one node (contradicting pairs, grouped hits)."""

    critical: list[_Found] = field(default_factory=list)
    relevant: list[_Found] = field(default_factory=list)
    background: list[_Found] = field(default_factory=list)
    extra: dict[str, list[Candidate]] = field(default_factory=dict)
    members: list[Node] = field(default_factory=list)  # nodes inside the extra ones

    def nodes(self) -> list[Node]:
        found = (*self.critical, *self.relevant, *self.background)
        return [n for n, _, _ in found if render.is_content(n)] + self.members


@dataclass
class Context:
    """An assembled context: its text, exact token count and tiers."""

    budget: int
    token_count: int
    text: str
    tiers: list[Tier]
    activity: str
    warnings: list[str] = field(default_factory=list)
    refs: dict[str, str] = field(default_factory=dict)  # "m3" -> the node id it stands for

    def node_ids(self) -> list[str]:
        return [i.node_id for t in self.tiers for i in t.items if i.node_id]

    def to_dict(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "token_count": self.token_count,
            "text": self.text,
            "activity": self.activity,
            "tiers": [t.to_dict() for t in self.tiers],
            "refs": self.refs,
            "warnings": self.warnings,
        }


class Assembler:
    """Assembles contexts; one search per distinct question within a context
    (the predictor and the tiers ask some of the same ones)."""

    def __init__(
        self,
        store: Store,
        search: Search,
        tokenizer: Tokenizer,
        clock: Clock,
        counted: dict[str, int] | None = None,
    ) -> None:
        self.store = store
        self._search = search
        self.tokenizer = tokenizer
        self.clock = clock
        self._asked: dict[tuple[str, NodeFilter, int], list[Hit]] = {}
        self._counted = {} if counted is None else counted  # text -> tokens, kept by the caller

    def search(self, text: str, where: NodeFilter, limit: int) -> list[Hit]:
        key = (text, where, limit)
        if key not in self._asked:
            self._asked[key] = self._search(text, where, limit)
        return self._asked[key]

    def assemble(self, budget: int, query: str, signals: Signals, where: NodeFilter) -> Context:
        if isinstance(budget, bool) or not isinstance(budget, int) or not 0 < budget <= MAX_BUDGET:
            raise InvalidInput(
                f"budget must be a whole number of tokens from 1 to {MAX_BUDGET}, got {budget!r}",
                budget,
            )
        if not isinstance(query, str):
            raise InvalidInput(f"query must be text, got {type(query).__name__}", query)
        now = signals.time or self.clock()
        valid = replace(where, valid_at=to_iso(now), include_archived=False)
        self._asked.clear()  # memory may have changed since the last context
        found = self._gather(query.strip(), signals, valid, now)
        nodes = found.nodes()
        levels = render.levels_of(self.store, nodes)
        documents = self._documents(nodes, valid)
        candidates = _once(
            {
                name: self._candidates(getattr(found, name), levels, documents, name)
                + found.extra.get(name, [])
                for name in TIERS[:3]
            }
        )
        label = Labels()  # provisional: numbered again in the order the text shows them
        tiers, left_out = self._tiers(budget, candidates, signals.shares(), label)
        in_full = {item.node_id for t in tiers for item in t.items if item.full}
        index_budget = budget - sum(t.tokens for t in tiers)
        index = self._index(nodes, [(c, d) for c, d in left_out if c.node_id not in in_full])
        tier, _ = pack("index", index_budget, index, self._count, label)
        tiers.append(tier)
        text, used, refs = self._join(tiers, budget)
        warnings = [] if nodes else ["no memories match these scopes and signals"]
        return Context(budget, used, text, tiers, signals.activity or "default", warnings, refs)

    def _tiers(
        self,
        budget: int,
        candidates: dict[str, list[Candidate]],
        shares: Sequence[float],
        label: Label,
    ) -> tuple[list[Tier], list[tuple[Candidate, bool]]]:
        """The first three tiers, and what they left out (and whether entirely)."""
        tiers: list[Tier] = []
        placed: set[str] = set()  # node ids in the context, and those covered
        left_out: list[tuple[Candidate, bool]] = []
        carry = 0
        for name, share in zip(TIERS[:3], shares, strict=False):
            allowed = int(budget * share) + carry
            offered = [c for c in candidates[name] if not _taken(c, placed)]
            tier, dropped = pack(name, allowed, offered, self._count, label)
            placed.update(i for item in tier.items for i in (item.node_id, *item.covers))
            shortened = {item.node_id for item in tier.items if not item.full}
            left_out += [(c, True) for c in dropped]
            left_out += [(c, False) for c in offered if c.node_id in shortened]
            carry = allowed - tier.tokens
            tiers.append(tier)
        return tiers, left_out

    def _hits(self, text: str, where: NodeFilter, limit: int) -> list[Hit]:
        """Search hits that are content: a compression level stands for its
        memory (once, if that is valid too); document headings and titles are
        never items (their chunks are)."""
        found = [h for h in self.search(text, where, limit) if render.is_content(h.node)]
        owners = {h.ancestry[0].id for h in found if h.node.context_type == LEVEL and h.ancestry}
        valid = self.store.visible(sorted(owners), where) if owners else {}
        out: list[Hit] = []
        seen: set[str] = set()
        for hit in found:
            if hit.node.context_type == LEVEL:
                owner = valid.get(hit.ancestry[0].id) if hit.ancestry else None
                if owner is None:
                    continue
                hit = Hit(owner, hit.score, hit.ancestry[1:], hit.parts, hit.covered)
            if hit.node.id not in seen:
                seen.add(hit.node.id)
                out.append(hit)
        return out

    def _count(self, text: str) -> int:
        # The same memories come back context after context: their lines are
        # counted once (a few thousand counts of ~8 us a context otherwise).
        tokens = self._counted.get(text)
        if tokens is None:
            if len(self._counted) >= COUNTED:
                self._counted.clear()
            tokens = self._counted[text] = self.tokenizer.count(text)
        return tokens

    def _join(self, tiers: list[Tier], budget: int) -> tuple[str, int, dict[str, str]]:
        """The whole text, exactly within the budget, and its references,
        numbered in the order they appear. Tiers are counted alone, so a
        merge across their joins (or a longer number) could cost a token:
        the last items go."""
        while True:
            label = Labels()
            for tier in tiers:
                for item in tier.items:
                    item.relabel(label)
                tier.text = tier.compose(label) if tier.items else ""
            text = "\n\n".join(t.text for t in tiers if t.items)
            used = self._count(text) if text else 0
            if used <= budget:
                break
            last = next(t for t in reversed(tiers) if t.items)
            last.items.pop()
        for tier in tiers:
            tier.tokens = self._count(tier.text) if tier.items else 0
            for item in tier.items:
                item.tokens = self._count(item.line(label) + "\n")
        return text, used, label.refs()

    # -- what each tier may hold ---------------------------------------------------

    def _gather(self, query: str, signals: Signals, where: NodeFilter, now: datetime) -> _Gathered:
        found = _Gathered()
        # One search for the task: the question and what the file and branch
        # are about. It serves the decisions (the best are active for this
        # task, the rest related), the query's hits and the predictor.
        situation = situation_text(signals)
        task = " ".join(t for t in (query, situation) if t)
        pooled = self._hits(task, where, QUERY_HITS) if task else []
        self._decisions(signals, pooled, where, found)
        found.extra["critical"] = self._contradictions(where, found)
        self._errors(signals, where, now, found)
        if signals:
            predictor = Predictor(self.store, self.search, self.clock)
            asked = self.search(task, where, QUERY_HITS) if task else []
            for p in predictor.predict(signals, where, PREDICTIONS, situation_hits=asked):
                why = f"predicted: {p.reasons[0]}"
                if render.is_content(p.node):
                    found.relevant.append((p.node, 0.2 + 0.7 * p.confidence, why))
        if task:
            self._query_hits(pooled, query or "", situation, where, found)
        self._background(signals, where, found)
        return found

    def _decisions(
        self, signals: Signals, pooled: list[Hit], where: NodeFilter, found: _Gathered
    ) -> None:
        """Decisions naming the open file (or its folder) are active for it; the
        task's best matching decisions are active for the task, the rest related."""
        if signals.file:
            name, folders, _ = file_parts(signals.file)
            prefixes = [f"{folders[0]}/"] if folders else []
            linked = self.store.artifact_nodes(
                [signals.file], [name], prefixes, ARTIFACTS, where.scopes
            )
            strength = {i: (0.9 if how == "ref" else 0.7) for i, _, _, how in linked}
            decisions = replace(where, context_types=("decision",))
            for node_id, node in self.store.visible(sorted(strength), decisions).items():
                found.critical.append((node, strength[node_id], f"decision for {signals.file}"))
        chosen: dict[str, float] = {}
        best = max((h.score for h in pooled), default=1.0) or 1.0
        for hit in pooled:
            if hit.node.context_type == "decision" and _relevant(hit):
                chosen[hit.node.id] = max(chosen.get(hit.node.id, 0.0), hit.score / best)
        by_id = {h.node.id: h.node for h in pooled}
        for rank, node_id in enumerate(sorted(chosen, key=lambda i: (-chosen[i], i))):
            node, share = by_id[node_id], chosen[node_id]
            if rank < 3:
                found.critical.append((node, 0.55 + 0.3 * share, "decision for this task"))
            else:
                found.relevant.append((node, 0.3 + 0.3 * share, "related decision"))

    def _errors(self, signals: Signals, where: NodeFilter, now: datetime, found: _Gathered) -> None:
        """Errors and fixes of the last day, and memories like the current error."""
        # Newest episodes first along the (type, time) index, read until the
        # window ends (a time filter in SQL could not bound that index range).
        cutoff = to_iso(now - RECENT_ERRORS)
        for node in self.store.typed_nodes(["episode"], where, RECENT_EPISODES):
            if node.created_at < cutoff:
                break
            kind = node.metadata.get("episode_type")
            if kind in ERROR_EPISODES:
                fixed = kind == "problem_solved"
                found.critical.append(
                    (node, 0.85 if fixed else 0.8, "recent fix" if fixed else "recent error")
                )
        if signals.error:
            for hit in self._hits(signals.error, where, ERROR_HITS):
                similarity = hit.parts.get("semantic", 0.0)
                if similarity >= MIN_ERROR_SIMILARITY or hit.parts.get("keyword", 0.0) >= 0.5:
                    found.critical.append((hit.node, 0.6 + 0.3 * similarity, "like this error"))

    def _background(self, signals: Signals, where: NodeFilter, found: _Gathered) -> None:
        """Conventions, history (summaries and episodes) and workflows; and
        the open action items, as relevant (critical when due within a day)."""
        background = found.background
        kinds = (*CONVENTIONS, "summary", "episode", "workflow", "action")
        latest = self.store.latest_of_types(kinds, where, PER_KIND)
        today = self.clock().date().isoformat()
        soon = (self.clock() + DUE_SOON).date().isoformat()
        for node in latest["action"]:
            if node.metadata.get("status", "open") != "open":
                continue
            due = str(node.metadata.get("due") or "")
            if due and due <= soon:
                late = "overdue" if due < today else f"due {due}"
                found.critical.append((node, 0.7, f"open action, {late}"))
            else:
                found.relevant.append((node, 0.45, f"open action{f', due {due}' if due else ''}"))
        for kind in CONVENTIONS:
            for node in latest[kind]:
                background.append((node, 0.2 + 0.4 * node.importance, f"{kind}"))
        for rank, node in enumerate(latest["summary"]):
            background.append((node, 0.35 - 0.01 * rank, "history"))
        for node in latest["episode"]:
            significance = float(node.metadata.get("significance", 0.5))
            background.append((node, 0.25 + 0.2 * significance, "history"))
        for node in latest["workflow"]:
            triggered = bool(signals.activity) and node.metadata.get("trigger") == signals.activity
            background.append((node, 0.75 if triggered else 0.25, "workflow"))

    def _query_hits(
        self, pooled: list[Hit], query: str, situation: str, where: NodeFilter, found: _Gathered
    ) -> None:
        """The task's hits as relevant items; several under one summary (itself
        valid) as one item, the summary standing in for them."""
        hits = [h for h in pooled if _relevant(h)]
        best = max((h.score for h in hits), default=1.0) or 1.0
        under: dict[str, list[Hit]] = {}
        for hit in hits:
            parent = hit.ancestry[0] if hit.ancestry else None
            if parent is not None and parent.is_summary:
                under.setdefault(parent.id, []).append(hit)
        shared = sorted(i for i, members in under.items() if len(members) > 1)
        summaries = self.store.visible(shared, where) if shared else {}
        groups: list[Candidate] = []
        for hit in hits:
            parent = summaries.get(hit.ancestry[0].id) if hit.ancestry else None
            if parent is not None:
                if under[parent.id][0] is hit:
                    top = max(h.score for h in under[parent.id]) / best
                    groups.append(_group(parent, under[parent.id], 0.2 + 0.7 * top))
                    found.members += [parent, *(h.node for h in under[parent.id])]
                continue
            why = "matches the query" if query else f"about {situation}"
            found.relevant.append((hit.node, 0.2 + 0.7 * hit.score / best, why))
        found.extra["relevant"] = groups

    def _contradictions(self, where: NodeFilter, found: _Gathered) -> list[Candidate]:
        """Contradictions waiting for a person, between two memories both valid
        now (and visible): open ones, and memories a person related as
        contradicting that no settled row names (a detector's unsure review
        candidate does not hide what a person said). One item per pair, showing
        both statements and the question. A review candidate, a settled pair,
        an automatic update and a change of one entry are not items."""
        rows = self.store.contradictions("open", where.scopes, 100)
        pairs = [(c.a_id, c.b_id) for c in rows if c.a_id != c.b_id]
        relations = self.store.relations_of_type("contradicts", 100, where.scopes)
        related = [(r.source_id, r.target_id) for r in relations]
        named = sorted({i for pair in related for i in pair})
        settled = (
            {
                frozenset((c.a_id, c.b_id))
                for c in self.store.contradictions_of(named, ("resolved",))
            }
            if named
            else set()
        )
        pairs += [p for p in related if frozenset(p) not in settled]
        seen = self.store.visible(sorted({i for pair in pairs for i in pair}), where)
        out: list[Candidate] = []
        shown: set[frozenset[str]] = set()
        for a_id, b_id in pairs:
            a, b = seen.get(a_id), seen.get(b_id)
            pair = frozenset((a_id, b_id))
            if a is None or b is None or pair in shown:  # found twice, or both ways: one item
                continue
            shown.add(pair)
            found.members += [a, b]
            if b.created_at < a.created_at:  # the earlier statement first
                a, b = b, a
            out.append(
                Candidate(
                    a.id,
                    0.95,
                    "unresolved contradiction",
                    render.contradiction_renderings(a, b),
                    (b.id,),
                    show_id=False,
                    info={"statements": [_info(a), _info(b)]},
                )
            )
        return out

    def _candidates(
        self,
        found: list[_Found],
        levels: dict[str, dict[str, str]],
        documents: dict[str, Node],
        tier: str,
    ) -> list[Candidate]:
        """Nodes as candidates. In the background, conventions are grouped by
        kind; above it items keep the order of their priority."""
        out = []
        for node, priority, reason in found:
            if not render.is_content(node):
                continue
            root = [documents[node.root_id]] if node.root_id in documents else []
            out.append(
                Candidate(
                    node.id,
                    priority,
                    reason,
                    render.renderings(node, levels.get(node.id)),
                    group=render.group_of(node, root, by_kind=tier == "background"),
                    info=_info(node, root),
                )
            )
        return out

    def _documents(self, nodes: Sequence[Node], where: NodeFilter) -> dict[str, Node]:
        """The documents the chunks among `nodes` belong to, by id (for their titles)."""
        roots = sorted({n.root_id for n in nodes if n.context_type == CHUNK})
        return self.store.visible(roots, NodeFilter(scopes=where.scopes)) if roots else {}

    def _index(
        self, nodes: Sequence[Node], left_out: Sequence[tuple[Candidate, bool]]
    ) -> list[Candidate]:
        """The topic line and a pointer to each memory left out or shortened."""
        topics: Counter[str] = Counter()
        for node in nodes:
            meta = node.metadata
            for field_name in ("tags", "topics"):
                listed = meta.get(field_name)
                if isinstance(listed, list):  # plain metadata may hold anything
                    for topic in listed:
                        if isinstance(topic, str) and topic.strip():
                            topics[topic.strip().lower()] += 1
            for key in ("category", "key"):
                if isinstance(meta.get(key), str) and meta[key].strip():
                    topics[meta[key].strip().lower()] += 1
        # The people, places and things the memories name are subjects too.
        written: dict[str, str] = {}
        for node in nodes:
            for name in render.named(node.text):
                written.setdefault(name.lower(), name)
                topics[name.lower()] += 1
        ordered = sorted(topics.items(), key=lambda kv: (-kv[1], kv[0]))
        ranked = [written.get(t, t) for t, _ in ordered][:TOPICS]
        out = []
        if ranked:
            shown = tuple(
                (level, "Ask me about: " + ", ".join(ranked[:n]))
                for level, n in (("full", TOPICS), ("compressed", 6), ("index", 3))
            )
            out.append(Candidate("", 2.0, "topics", shown, tuple(), show_id=False))
        for c, dropped in left_out:
            if c.node_id:
                # A memory left out entirely is pointed to before a shortened one.
                rank = c.priority + (1.0 if dropped else 0.0)
                out.append(
                    Candidate(
                        c.node_id,
                        rank,
                        "expand",
                        (("index", c.renderings[-1][1]),),
                        c.covers,
                        c.show_id,
                        MORE,
                        c.info,
                    )
                )
        return out


MORE = "More, by reference"  # the heading of pointers to what was shortened or left out


def _group(summary: Node, hits: list[Hit], priority: float) -> Candidate:
    """Hits under one summary as one candidate: the summary can stand in for them."""
    shown = render.group_renderings(summary, [h.node for h in hits])
    covers = tuple(h.node.id for h in hits)
    return Candidate(
        summary.id,
        priority,
        "matches the query (grouped)",
        shown,
        covers,
        info=_info(summary),
    )


def _info(node: Node, ancestry: Sequence[Node] = ()) -> dict[str, Any]:
    """What an item's dict says of its node: its type, which version of the
    truth it is (version, valid from, valid until), and a document's source."""
    meta = node.metadata
    info: dict[str, Any] = {
        "type": node.context_type,
        "version": node.version,
        "valid_from": valid_since(node) or None,
        "valid_to": meta.get("valid_to"),
    }
    cited = citation(node, ancestry)
    if cited is not None:
        info["source"] = cited.to_dict()
    return info


def _once(tiers: dict[str, list[Candidate]]) -> dict[str, list[Candidate]]:
    """Each text once. A candidate repeating one before it (in an earlier
    tier, or with a higher priority), nearly word for word or inside it, is
    left out and covered by it; one that holds an earlier one whole takes its
    place (at its tier and priority) and covers it. The same node offered
    again is kept (a tier that cannot hold it leaves it to the next)."""
    seen: Seen[tuple[str, int]] = Seen()
    out: dict[str, list[Candidate]] = {}
    for name, offered in tiers.items():
        kept = out[name] = []
        for candidate in order(offered):
            text = candidate.renderings[0][1]
            if not candidate.node_id or marked(text):
                kept.append(candidate)
                continue
            found = seen.match(text)
            first = out[found[0][0]][found[0][1]] if found else None
            if found is None or first is None or first.node_id == candidate.node_id:
                seen.keep(text, (name, len(kept)))
                kept.append(candidate)
                continue
            (tier, at), says_more = found
            if says_more:  # it stands for both, where the first stood
                covers = (*candidate.covers, first.node_id, *first.covers)
                out[tier][at] = replace(candidate, priority=first.priority, covers=covers)
                seen.keep(text, (tier, at))
            else:
                out[tier][at] = replace(first, covers=(*first.covers, candidate.node_id))
    return out


def _taken(candidate: Candidate, placed: set[str]) -> bool:
    return candidate.node_id in placed or any(i in placed for i in candidate.covers)


def _relevant(hit: Hit) -> bool:
    return hit.parts.get("keyword", 0.0) > 0 or hit.parts.get("semantic", 0.0) >= 0.3
