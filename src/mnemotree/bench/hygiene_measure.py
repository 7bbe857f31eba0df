"""The hygiene benchmark's measurements on a written store: what the
contradiction rows flag against the planted changes, and what consolidation
archived and merged against the labels."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..consolidate.plan import Action
from ..memory import Memory
from ..store import ContradictionRow
from ..timeutil import from_iso
from .hygiene_data import World
from .hygiene_world import SCOPE, Built

BUCKETS = ("open", "review", "update", "settled")
MAX_LISTED = 10_000
MERGING = ("dedupe", "merge")


def share(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def figure(part: int, whole: int) -> dict[str, Any]:
    return {"count": part, "of": whole, "share": share(part, whole)}


def text_of(world: World, label: str, width: int = 90) -> str:
    entry = world.by_id().get(label)
    text = entry.text if entry is not None and entry.text else label
    if entry is not None and entry.op == "fact":
        text = f"{entry.fields.get('key')}: {entry.fields.get('value')}"
    return text if len(text) <= width else text[: width - 1] + "…"


# -- contradictions and updates -----------------------------------------------------------


def bucket(row: ContradictionRow) -> str:
    """open, review, update (an automatic update) or settled (an open one
    resolved since, e.g. closed when one of the pair superseded the other)."""
    if row.status == "resolved":
        return "update" if row.resolution == "update" else "settled"
    return row.status


def rows(memory: Memory) -> list[ContradictionRow]:
    return memory.consolidation.contradictions(status=None, scopes=[SCOPE], limit=MAX_LISTED)


def detection(
    found: Sequence[ContradictionRow], built: Built, world: World, examples: int
) -> dict[str, Any]:
    """Precision and recall of flagged pairs against the planted changes: a
    planted change is found when a row links its two memories (open, review,
    an automatic update, or an open one settled since); a flagged pair that
    is no (chained) change is a false positive."""
    planted, closure = world.changes(), world.change_closure()
    by_bucket: dict[str, set[frozenset[str]]] = {b: set() for b in BUCKETS}
    backwards = 0
    for row in found:
        if row.a_id == row.b_id:
            continue  # one path entry's two versions: no pair of memories
        a, b = label_of(built, row.a_id), label_of(built, row.b_id)
        pair = frozenset((a, b))
        by_bucket[bucket(row)].add(pair)
        if bucket(row) == "update" and pair in closure and _older(world, b, a):
            backwards += 1  # the update made the older statement win
    flagged = set().union(*(by_bucket[b] for b in BUCKETS))
    report: dict[str, Any] = {"rows": len(found)}
    for name in BUCKETS:
        pairs = by_bucket[name]
        report[name] = {
            "pairs": len(pairs),
            "true": len(pairs & closure),
            "false": len(pairs - closure),
        }
    report["flagged"] = _scores(flagged, planted, closure)
    report["open_or_update"] = _scores(by_bucket["open"] | by_bucket["update"], planted, closure)
    report["updates_backwards"] = backwards
    report["planted_in_effect"] = _in_effect(found, built, world, by_bucket)
    false = sorted(flagged - closure, key=sorted)
    report["false_positives_by_kind"] = _kinds(world, false)
    report["recall_by_change"] = _recall_by_change(world, flagged)
    report["false_examples"] = [_pair_text(world, p) for p in false[:examples]]
    acted = sorted((by_bucket["open"] | by_bucket["update"]) - closure, key=sorted)
    report["false_acted_on_examples"] = [_pair_text(world, p) for p in acted[:examples]]
    missed = sorted(planted - flagged, key=sorted)
    report["missed_examples"] = [_pair_text(world, p) for p in missed[:examples]]
    return report


def _in_effect(
    found: Sequence[ContradictionRow],
    built: Built,
    world: World,
    by_bucket: dict[str, set[frozenset[str]]],
) -> dict[str, Any]:
    """A planted change is in effect when its older memory was retired by a
    right update, through its planted successor or another statement that
    makes it outdated (a fact's new value written before the planted note)."""
    planted, closure = world.changes(), world.change_closure()
    retired = {
        a
        for row in found
        if bucket(row) == "update"
        for a, b in [(label_of(built, row.a_id), label_of(built, row.b_id))]
        if frozenset((a, b)) in closure
    }
    in_effect = {p for p in planted if p in by_bucket["update"] or _older_of(world, p) in retired}
    return {
        "count": len(in_effect),
        "of": len(planted),
        "share": share(len(in_effect), len(planted)),
    }


def _kinds(world: World, false: list[frozenset[str]]) -> dict[str, int]:
    """False positives by what the pair is: a paraphrase, a hard negative, a
    near paraphrase with another value, or other."""
    paraphrases, negatives, distinct = world.paraphrases(), world.hard_negatives(), world.distinct()
    return dict(
        Counter(
            "paraphrase"
            if p in paraphrases
            else "hard_negative"
            if p in negatives
            else "near_paraphrase_other_value"
            if p in distinct
            else "other"
            for p in false
        )
    )


def _scores(
    flagged: set[frozenset[str]], planted: set[frozenset[str]], closure: set[frozenset[str]]
) -> dict[str, Any]:
    true = len(flagged & closure)
    return {
        "pairs": len(flagged),
        "precision": share(true, len(flagged)),
        "recall": share(len(planted & flagged), len(planted)),
        "planted_found": len(planted & flagged),
        "planted": len(planted),
        "false_positives": len(flagged) - true,
    }


def _recall_by_change(world: World, flagged: set[frozenset[str]]) -> dict[str, str]:
    found: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for e in world.entries:
        for old in e.supersedes:
            total[e.change] += 1
            found[e.change] += frozenset((old, e.id)) in flagged
    return {k: f"{found[k]}/{total[k]}" for k in sorted(total)}


def label_of(built: Built, node_id: str) -> str:
    """A node's data id (a document's node: the document's id and the node's)."""
    if node_id in built.label_of:
        return built.label_of[node_id]
    doc = built.documents.get(node_id)
    return f"{doc}:{node_id}" if doc else f"node:{node_id}"


def _older_of(world: World, pair: frozenset[str]) -> str:
    a, b = sorted(pair)
    return a if _older(world, a, b) else b


def _older(world: World, a: str, b: str) -> bool:
    found = world.by_id()
    return a in found and b in found and a in _chain_before(world, b)


def _chain_before(world: World, label: str) -> set[str]:
    """Everything `label` replaces, directly or through a chain."""
    found = world.by_id()
    todo, seen = [*found[label].supersedes, *found[label].outdates], set()
    while todo:
        node = todo.pop()
        if node not in seen and node in found:
            seen.add(node)
            todo += [*found[node].supersedes, *found[node].outdates]
    return seen


def _pair_text(world: World, pair: Iterable[str]) -> str:
    return " <> ".join(text_of(world, label, 70) for label in sorted(pair))


# -- forgetting and merging ----------------------------------------------------------------


@dataclass(frozen=True)
class Cause:
    step: str  # forget, dedupe, merge, compress, ...
    why: str  # the forget action's reason kind, or the keeper's data id
    keeper: str = ""


def causes(actions: Iterable[Action], built: Built) -> dict[str, Cause]:
    """What archived each memory (by data id), from the runs' actions."""
    out: dict[str, Cause] = {}
    for action in actions:
        if action.step in MERGING:
            keeper = built.label_of.get(action.nodes[0], action.nodes[0])
            for node in action.nodes[1:]:
                out.setdefault(label_of(built, node), Cause(action.step, "duplicate", keeper))
        elif action.step == "forget":
            why = str(action.data.get("why", "unused"))
            for node in action.nodes:
                out.setdefault(label_of(built, node), Cause("forget", why))
        else:  # compress (and any step that archives what it names in its data)
            for node in action.data.get("archive", []) or []:
                out.setdefault(label_of(built, str(node)), Cause(action.step, "archived"))
    return out


def ended(memory: Memory, built: Built, now: datetime) -> set[str]:
    """Memories (data ids) whose validity the engine has ended by `now`."""
    out = set()
    for node in memory.nodes(list(built.node_of.values())):
        end = node.metadata.get("valid_to")
        if isinstance(end, str) and from_iso(end) <= now:
            out.add(built.label_of[node.id])
    return out


def groups(world: World) -> dict[str, str]:
    """Each memory's paraphrase group (the earliest wording's id)."""
    root = {e.id: e.id for e in world.entries}
    for e in world.entries:  # written in order: the original's group is known
        if e.paraphrase_of:
            root[e.id] = root[e.paraphrase_of]
    return root


def forgetting(
    memory: Memory,
    built: Built,
    world: World,
    cause: dict[str, Cause],
    now: datetime,
    examples: int,
) -> dict[str, Any]:
    """Useful memories that are still true but archived (false forgetting)
    or no longer valid by the engine's account (false supersessions: not
    served any more either), trivia archived, and replaced memories archived."""
    archived = set(built.labels(list(memory.store.archived(list(built.node_of.values())))))
    stale = world.superseded() | world.expired(now)
    group = groups(world)
    useful = {e.id for e in world.entries if e.label == "useful" and e.id not in stale}
    trivia = {e.id for e in world.entries if e.label == "trivia"}
    lost = sorted(
        label
        for label in useful & archived
        if not (
            label in cause
            and cause[label].step in MERGING
            and group.get(cause[label].keeper) == group[label]
        )
    )
    found = world.by_id()
    gone = ended(memory, built, now)
    kept = {group[label] for label in group if label not in gone | archived}
    # Newer wording of the same statement standing in for it loses nothing.
    retired = sorted(label for label in useful & gone if group[label] not in kept)
    return {
        "archived": len(archived),
        "false_forgetting": figure(len(lost), len(useful)),
        "false_supersessions": figure(len(retired), len(useful)),
        "false_by_type": dict(Counter(found[label].op for label in lost)),
        "false_by_cause": dict(Counter(_cause_name(cause.get(label)) for label in lost)),
        "trivia_archived": figure(len(trivia & archived), len(trivia)),
        "replaced_archived": figure(len(stale & archived), len(stale)),
        "false_examples": [
            f"{text_of(world, label, 80)} ({_cause_name(cause.get(label))})"
            for label in lost[:examples]
        ],
        "false_supersession_examples": [text_of(world, label, 80) for label in retired[:examples]],
    }


def _cause_name(cause: Cause | None) -> str:
    if cause is None:
        return "unknown"
    return f"{cause.step}:{cause.why}" if cause.step == "forget" else cause.step


def merges(cause: dict[str, Cause], world: World, examples: int) -> dict[str, Any]:
    """Merged pairs against the labels: paraphrases should merge, pairs of
    another value or subject never."""
    group = groups(world)
    distinct = world.distinct()
    pairs = [(label, c.keeper) for label, c in cause.items() if c.step in MERGING]
    wrong = [p for p in pairs if frozenset(p) in distinct]
    right = [p for p in pairs if group.get(p[0]) == group.get(p[1])]
    unlabelled = [p for p in pairs if p not in wrong and p not in right]
    merged = {a for a, _ in right}
    paraphrases = [e for e in world.entries if e.paraphrase_of]
    done = [e for e in paraphrases if e.id in merged or e.paraphrase_of in merged]
    return {
        "merged_pairs": len(pairs),
        "wrong_merges": len(wrong),
        "paraphrases_merged": figure(len(done), len(paraphrases)),
        "same_type_paraphrases_merged": figure(
            sum(not e.cross_type for e in done), sum(not e.cross_type for e in paraphrases)
        ),
        "unlabelled_merges": len(unlabelled),
        "wrong_examples": [_pair_text(world, p) for p in wrong[:examples]],
        "unlabelled_examples": [_pair_text(world, p) for p in unlabelled[:examples]],
    }
