"""Score parts and how they combine (`combine`).

Each part is scaled to [0, 1] before weighting, so weights mean what they
say. A node's own match is the evidence; the tree (neighbours, parent) and
the priors scale it. The parts: a node's own match (meaning and words, each
read as how unlikely it is by chance for this query, `Surprise`, over the
best candidate's), recency `exp(-age / 30 d)` (the path-memory design),
importance, and ACT-R activation `B = ln(1 + sum t_j^-0.5)` over the last 50
accesses (the documents-and-chat design), squashed by `1 - exp(-B)`. The
tiered-memory design's weights are the defaults (see docs/design.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from datetime import datetime

from ..errors import InvalidInput

RECENCY_DAYS = 30.0


@dataclass(frozen=True, slots=True)
class Weights:
    """The tiered-memory design's weights, plus three structural ones.

    `name`: the node's name (speaker, heading) is named in the query, or a
    message's role by pronoun ("I" for the user, "you" for the assistant).
    `time`: the node was made in a time the query names ("in May 2023").
    `neighbours` and `parent` scale the own relevance (semantic + keyword +
    name) of the best adjacent sibling and of the best node under the same
    parent: the tree's trace-up as ranking evidence.
    `usage`: the context engine's feedback, in [-1, 1]: up with citations,
    down with repeated ignores (the living-memory design's usage tracker).
    `min_relevance` is no weight but the relevance floor's cosine (see
    `hits.above_floor`; 0 turns the floor off): calibrated for MiniLM.
    """

    semantic: float = 0.4
    keyword: float = 0.3
    recency: float = 0.2
    importance: float = 0.1
    access: float = 0.0
    name: float = 0.3
    neighbours: float = 0.3
    parent: float = 0.5
    time: float = 0.3
    usage: float = 0.1
    min_relevance: float = 0.35

    def override(self, changes: dict[str, float] | None) -> Weights:
        """These weights with some replaced; unknown names and negatives are errors."""
        if not changes:
            return self
        names = {f.name for f in fields(self)}
        for name, value in changes.items():
            if name not in names:
                raise InvalidInput(f"unknown weight {name!r}; choose from {sorted(names)}", name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or value < 0
            ):
                raise InvalidInput(
                    f"weight {name} must be a finite number >= 0, got {value!r}", value
                )
        return replace(self, **{k: float(v) for k, v in changes.items()})


def usage(cited: int, ignored_since_cited: int) -> float:
    """In [-1, 1]: up with citations, down with ignores since the last one
    (the first ignore is free: not every memory shown is needed)."""
    boost = 1.0 - math.exp(-cited / 3.0)
    demote = min(1.0, max(0, ignored_since_cited - 1) / 4.0)
    return boost - demote


def recency(created_at: datetime, now: datetime) -> float:
    age_days = max(0.0, (now - created_at).total_seconds() / 86400)
    return math.exp(-age_days / RECENCY_DAYS)


ACCESSES_COUNTED = 50  # the newest accesses activation sums (older ones add little)


def activation(ages: list[float]) -> float:
    """ACT-R base-level activation from the newest accesses' ages in seconds
    (each counted as at least 1 s), squashed to [0, 1)."""
    if not ages:
        return 0.0
    total = sum(max(age, 1.0) ** -0.5 for age in ages[:ACCESSES_COUNTED])
    return 1.0 - math.exp(-math.log1p(total))


@dataclass(frozen=True, slots=True)
class Surprise:
    """How unlikely a candidate's match is by chance, for one query, in nats.

    Scores of different kinds are made comparable per query, not by constants
    fitted to one collection. A cosine is read against the query's cosines
    with the searched collection (`mean`, `spread`: what text at large
    scores) as the tail of a Laplace law, -ln P(text at large scores at least
    this): similarity scores have heavy tails, so the evidence grows with the
    number of spreads, not with its square. BM25 is already a sum of the
    matched words' log-odds of rarity. The two add as independent evidence:
    a long message sharing two common words with the query gets little, a
    short one that means the same gets much, an exact rare identifier much.
    """

    mean: float
    spread: float

    def meaning(self, cosine: float, looks: float = 1.0) -> float:
        """The nats of a cosine that is the best of `looks` independent draws
        (a text's passages or sentences, as many draws as they are worth):
        the best of n draws is as likely as one draw n times as rare, so it
        has ln(n) nats less."""
        if self.spread <= 0.0:
            return 0.0  # nothing to tell one text from another by
        spreads = (cosine - self.mean) / self.spread
        nats = math.sqrt(2.0) * spreads - math.log(max(1.0, looks))
        return nats if spreads > 0.0 and nats > 0.0 else 0.0

    def clear(self) -> float:
        """The cosine two spreads above the mean: a match that stands out."""
        return self.mean + CLEAR * self.spread

    def above(self, cosine: float) -> float:
        """The share of text at large this cosine beats (the Laplace law's
        distribution function): 0.5 at the mean, 0.88 one spread above."""
        if self.spread <= 0.0:
            return 1.0
        spreads = (cosine - self.mean) / self.spread
        tail = 0.5 * math.exp(-math.sqrt(2.0) * abs(spreads))
        return 1.0 - tail if spreads >= 0.0 else tail

    def evidence(self, cosine: float, bm25: float, weights: Weights, looks: float = 1.0) -> float:
        """The weighted nats of meaning and of words. Words count as far as
        the text's meaning stands above the crowd: a long answer that shares
        the query's words but means less than most of the collection shares
        them by coincidence (assistants restate the user's words)."""
        words = bm25 * self.above(cosine)
        return weights.semantic * self.meaning(cosine, looks) + weights.keyword * words


def combine(own: float, parts: dict[str, float], weights: Weights) -> float:
    """A hit's score from its own match and its other parts.

    The tree's evidence (the best adjacent sibling's own match, the best
    under the same parent) scales the node's own match, and the priors
    (recency, importance, accesses, usage) scale the result: a node beside
    or under a strong match rises only as far as it matches itself, and no
    prior makes a hit relevant. Added instead, they lifted the whole session
    of a long answer that restates the query's words above the message that
    answers it (bench longchat dev R@10 0.644 -> 0.679 with the chance floor;
    LoCoMo dev 0.796 -> 0.783).
    A time the query names is evidence of its own: "where did I travel in
    May?" names no word of the trip.
    """
    p, w = parts.get, weights
    supported = own * (1.0 + w.neighbours * p("neighbours", 0.0) + w.parent * p("parent", 0.0))
    prior = (
        w.recency * p("recency", 0.0)
        + w.importance * p("importance", 0.0)
        + w.access * p("access", 0.0)
        + w.usage * p("usage", 0.0)
    )
    return (supported + w.time * p("time", 0.0)) * max(0.0, 1.0 + prior)


CLEAR = 2.0  # spreads above the mean from which a match stands out (p < 0.03)
