"""What was used (the living-memory design's usage tracker): retrieved, cited or ignored.

A memory counts as cited when its id is given, when the answer names its
id or its short reference in the context (`m3`, with the context's `refs`),
or when most of its words are in the answer (at least 60% of at least three
distinct content words). Every retrieved memory that was not cited was
ignored. Citations are recorded as accesses too (the ACT-R boost); the
ranking's `usage` part rises with citations and falls with ignores since
the last citation, and predictions learn from the log.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidInput, NotFound
from ..ids import new_id
from ..model import clean_id
from ..retrieval.query import STOPWORDS, terms_of
from ..store import Store, UsageRow
from ..timeutil import Clock, to_iso
from .signals import Signals, utc_hour

OVERLAP = 0.6
MIN_WORDS = 3
MAX_IDS = 10_000
_ID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")
_REF = re.compile(r"\bm\d+\b")


@dataclass
class UsageReport:
    batch: str
    retrieved: list[str] = field(default_factory=list)
    cited: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "batch": self.batch,
            "retrieved": self.retrieved,
            "cited": self.cited,
            "ignored": self.ignored,
        }


def record_usage(
    store: Store,
    clock: Clock,
    retrieved: Sequence[str],
    cited: Sequence[str] = (),
    answer: str | None = None,
    signals: Signals | None = None,
    refs: Mapping[str, str] | None = None,
) -> UsageReport:
    """Log one context's usage; returns what was taken as cited and ignored.
    `refs` (a context's short references -> node ids) reads references the
    answer names."""
    given = [*_ids(retrieved, "retrieved"), *_ids(cited, "cited")]
    if answer is not None and not isinstance(answer, str):
        raise InvalidInput(f"answer must be text, got {type(answer).__name__}", answer)
    named = sorted(set(_ID.findall(answer or "")) | _referenced(answer or "", refs))
    nodes = {n.id: n for n in store.get_many(sorted(set(given) | set(named)))}
    missing = [i for i in given if i not in nodes]
    if missing:
        raise NotFound(f"no memory {missing[0]!r} to record usage of", missing[0])
    shown = list(dict.fromkeys(clean_id(i) for i in retrieved))
    used = set(_ids(cited, "cited")) | {i for i in named if i in nodes}
    if answer:
        words = _content_words(answer)
        for node_id in shown:
            own = _content_words(nodes[node_id].text)
            if len(own) >= MIN_WORDS and len(own & words) >= OVERLAP * len(own):
                used.add(node_id)
    report = UsageReport(new_id(), shown, sorted(used), [i for i in shown if i not in used])
    now = (signals.time if signals and signals.time else None) or clock()
    at, hour = to_iso(now), utc_hour(now)
    where = signals or Signals()
    rows = [
        UsageRow(report.batch, node_id, event, at, hour, where.file, where.branch, where.activity)
        for event, ids in (
            ("retrieved", shown),
            ("cited", report.cited),
            ("ignored", report.ignored),
        )
        for node_id in ids
    ]
    with store.transaction():
        store.put_usage(rows)
        if report.cited:
            store.record_accesses(report.cited, at)
    return report


def _referenced(answer: str, refs: Mapping[str, str] | None) -> set[str]:
    """Node ids of the short references the answer names."""
    if refs is None:
        return set()
    if not isinstance(refs, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in refs.items()
    ):
        raise InvalidInput(f"refs must map references to node ids, got {refs!r}", refs)
    return {clean_id(refs[r], "ref node id") for r in _REF.findall(answer) if r in refs}


def _ids(values: Sequence[str], what: str) -> list[str]:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise InvalidInput(f"{what} must be a list of node ids, got {values!r}", values)
    if len(values) > MAX_IDS:
        raise InvalidInput(f"{what} lists {len(values)} ids; the limit is {MAX_IDS}", len(values))
    return [clean_id(v, f"{what} id") for v in values]


def _content_words(text: str) -> set[str]:
    return {t for t in terms_of(text) if len(t) > 2 and t not in STOPWORDS}
