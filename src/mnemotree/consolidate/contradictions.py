"""Updates and contradictions between memories, found as they are written.

A newer statement about the same subject and attribute as an older valid one
is an *update*: the newer supersedes the older at once (a `supersedes`
relation ends the older's validity), recorded as a resolved row with
resolution `update` and its reason, so it is listed and reversible. Only
when the engine cannot tell which statement holds (the newer one is less
authoritative, or says it became true before the older one) is the pair an
open *contradiction* that waits for a person. A candidate the detectors are
unsure of waits in `review` and never reaches a context.

Found on write: facts of one key and scope with another value (`same_key`,
unless each applies to a different context, `applies_to`), and a statement
that negates or changes a value of a similar valid one (its lexical
neighbours, judged by the offline detectors; the consolidation scan finds
the rest through vector neighbours). Nothing is ever deleted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..errors import InvalidInput
from ..ids import new_id
from ..model import Node, NodeFilter, valid_since
from ..nli import NLI, NLIScores
from ..store import ContradictionRow, Store
from ..structured import typed
from ..timeutil import to_iso
from ..vocabulary import RESOLUTIONS
from .detect import ACT, Finding, compare
from .ended import ended
from .holders import handed_over, moved_on
from .plan import Policy
from .replaced import replaced, retired_value

UPDATE = "update"  # the resolution of an automatic update
STATUSES = ("open", "review", "resolved")
SAME_KEY = "same_key"
SURE = ACT  # detector confidence from which a finding is acted on
QUIET = 0.9  # ... and from which one the newer statement does not announce is
NLI_AGREES = 0.9  # entailment from which an NLI model overrules the rules' finding
NLI_CANDIDATE = 0.5  # contradiction from which an NLI model's finding is kept
MAX_SAME_KEY = 100  # earlier facts with the key looked at
MAX_NEIGHBOURS = 20  # similar statements a new one is compared with on write
# Kinds whose text is a statement; episodes, patterns and workflows are
# titles over levels, compared by the consolidation scan's judge only.
STATEMENTS = ("memory", *(t for t in typed.TYPES if t not in typed.LEVELS))
Neighbours = Callable[[str, NodeFilter, int], list[str]]  # (text, filter, limit) -> ids
Similarity = Callable[[str, list[str]], list[float]]  # (text, others) -> cosines
Reader = Callable[[str, str], "Finding | None"]  # (earlier, later) -> what the rules read
GATE = Policy().contradiction_cosine


def clean_resolution(value: object) -> str:
    if value not in RESOLUTIONS:
        raise InvalidInput(
            f"unknown resolution {value!r}; choose one of {list(RESOLUTIONS)}", value
        )
    return str(value)


@dataclass(frozen=True, slots=True)
class Change:
    """An older memory a new one updates or contradicts."""

    earlier: Node
    kind: str
    reason: str
    confidence: float
    says_changed: bool  # the newer statement itself says the value changed


def same_key(store: Store, fact: Node, now: datetime) -> list[Change]:
    """Valid facts of a new fact's key and scope with another value."""
    key = fact.metadata.get("key")
    if fact.context_type != "fact" or not isinstance(key, str) or not key:
        return []
    where = NodeFilter(scopes=(fact.scope,), valid_at=to_iso(now))
    found = []
    for other in store.facts_with_key(key, where, MAX_SAME_KEY):
        if other.id == fact.id or agree(other.metadata, fact.metadata):
            continue
        was, now_is = other.metadata.get("value"), fact.metadata.get("value")
        reason = f"{key}: {_shown(was)} then {_shown(now_is)}"
        found.append(Change(other, SAME_KEY, reason, 1.0, False))
    return found


def named_values(
    store: Store, fact: Node, changes: list[Change], neighbours: Neighbours, now: datetime
) -> list[Change]:
    """Statements that name, as in use, a value a new fact's value replaced
    ("Alerts page through PagerDuty" when paging_tool goes from PagerDuty to
    Opsgenie): updates too, read by `retired_value`."""
    key, new = fact.metadata.get("key"), fact.metadata.get("value")
    if not isinstance(key, str):
        return []
    where = NodeFilter(scopes=(fact.scope,), context_types=STATEMENTS, valid_at=to_iso(now))
    seen = {fact.id, *(c.earlier.id for c in changes)}
    found = []
    for change in changes:
        old = change.earlier.metadata.get("value")
        if change.kind != SAME_KEY or not isinstance(old, str):
            continue
        ids = [i for i in neighbours(old, where, MAX_NEIGHBOURS) if i not in seen]
        for other in store.get_many(ids):
            if other.context_type == "fact":
                continue  # another key's value: its own fact
            finding = retired_value(other.text, key, old, new)
            if finding is not None:
                seen.add(other.id)
                found.append(Change(other, finding.kind, finding.reason, finding.confidence, True))
    return found


def stated(
    store: Store,
    node: Node,
    neighbours: Neighbours,
    now: datetime,
    nli: NLI | None = None,
    similarity: Similarity | None = None,
    reader: Reader | None = None,
) -> list[Change]:
    """Similar valid statements of a new statement's scope that it negates or
    changes a value of: the offline detectors (on pairs at least
    `Policy.contradiction_cosine` alike in meaning, as the consolidation scan
    judges them, when `similarity` is given), and an NLI model when given.
    `reader` reads a pair as `read` does (a scan may keep its readings)."""
    reader = reader or read
    if node.context_type not in STATEMENTS:
        return []
    where = NodeFilter(scopes=(node.scope,), context_types=STATEMENTS, valid_at=to_iso(now))
    others = [i for i in neighbours(node.text, where, MAX_NEIGHBOURS + 1) if i != node.id]
    key = _key(node)
    candidates = [o for o in store.get_many(others[:MAX_NEIGHBOURS]) if not key or key != _key(o)]
    judged = nli.scores([(o.text, node.text) for o in candidates]) if nli and candidates else []
    found: list[tuple[Node, Finding]] = []
    for i, other in enumerate(candidates):
        finding = reader(other.text, node.text)
        if judged:
            finding = _with_nli(finding, judged[i], nli.identity if nli else "")
        if finding is not None:
            found.append((other, finding))
    if similarity is not None and found:
        # Shared words found these; two statements about different things
        # (a paging tool, a screen size) cannot contradict, whatever the rules read.
        alike = similarity(node.text, [o.text for o, _ in found])
        found = [f for f, cosine in zip(found, alike, strict=True) if cosine >= GATE]
    return [Change(o, f.kind, f.reason, f.confidence, f.update) for o, f in found]


def _with_nli(finding: Finding | None, scores: NLIScores, identity: str) -> Finding | None:
    """The rules' finding weighed by the model: a pair the model reads as one
    following from the other is no contradiction; a contradiction the rules
    missed counts at the model's confidence (a review below `SURE`)."""
    if scores.entailment >= NLI_AGREES:
        return None
    if finding is not None:
        sure = max(finding.confidence, scores.contradiction)
        return dataclasses.replace(finding, confidence=sure)
    if scores.contradiction < NLI_CANDIDATE:
        return None
    reason = f"{identity} reads a contradiction ({scores.contradiction:.2f})"
    return Finding(kind="nli", reason=reason, confidence=scores.contradiction, update=False)


def read(earlier: str, later: str, parsed: dict[str, Any] | None = None) -> Finding | None:
    """How `later` changes or denies `earlier`: the comparison detectors, and
    a retirement the later statement announces ("we switched from X to Y"), a
    new holder it names ("Kim owns the pipeline now"), a person's move ("Sam
    moved to the data team") or a state it says is over ("the trial ended"),
    which also say the comparison's change is one."""
    found = compare(earlier, later, parsed)
    gone = (
        replaced(earlier, later)
        or handed_over(earlier, later)
        or moved_on(earlier, later)
        or ended(earlier, later)
    )
    if found is None or gone is None:
        return found or gone
    return dataclasses.replace(
        found, update=True, confidence=max(found.confidence, gone.confidence)
    )


def verdict(finding: Change, later: Node) -> str:
    """What a finding about `later` is: an `update` (the newer statement
    holds), an `open` contradiction (which holds is for a person to say), or
    a candidate to `review` (the detectors are unsure)."""
    if finding.confidence < SURE:
        return "review"
    if not finding.says_changed and finding.kind != SAME_KEY and finding.confidence < QUIET:
        # Hiding a memory on a reading nobody stated ("now", "no longer") needs
        # more certainty than flagging it: below that, a person looks first.
        return "review"
    earlier = finding.earlier
    if valid_since(later) <= valid_since(earlier):
        return "open"  # not newer: it says it became true first, or at the same time
    if not finding.says_changed and _authority(later) < _authority(earlier):
        return "open"  # a guess does not overrule what a person wrote
    return UPDATE


def _authority(node: Node) -> tuple[int, float]:
    """Written by a person outranks captured from a chat; then confidence."""
    meta = node.metadata
    confidence = meta.get("confidence", 1.0)
    weight = float(confidence) if isinstance(confidence, (int, float)) else 1.0
    return (0 if meta.get("captured_id") else 1, weight)


def row(finding: Change, later: Node, status: str, at: str) -> ContradictionRow:
    """The row that records a finding: an update is recorded resolved."""
    done = status == UPDATE
    return ContradictionRow(
        new_id(),
        finding.earlier.id,
        later.id,
        finding.kind,
        finding.reason,
        later.scope,
        at,
        "resolved" if done else status,
        UPDATE if done else None,
        "",
        at if done else None,
    )


def _key(node: Node) -> str:
    key = node.metadata.get("key") if node.context_type == "fact" else None
    return key if isinstance(key, str) else ""


def agree(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Same value, or values for different contexts (`applies_to`)."""
    if a.get("applies_to") and b.get("applies_to") and a["applies_to"] != b["applies_to"]:
        return True
    return _norm(a.get("value")) == _norm(b.get("value"))


def _norm(value: object) -> object:
    return " ".join(value.casefold().split()) if isinstance(value, str) else value


def _shown(value: object) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
