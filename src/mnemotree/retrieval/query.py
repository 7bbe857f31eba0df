"""Turning user text into the terms a full-text search looks for.

Only terms leave this module: how a backend quotes them for its query
language (FTS5, tsquery) is its own business, so no input can reach that
language as syntax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_TERMS = 32  # a 100 KB query must not become a 100 KB MATCH expression
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)

# Function words that carry no topic; dropped before matching (the documents-and-chat design).
STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't down during each few for from further had hadn't has hasn't have
    haven't having he he'd he'll he's her here here's hers herself him himself his how how's
    i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my
    myself no nor not of off on once only or other ought our ours ourselves out over own same
    shan't she she'd she'll she's should shouldn't so some such than that that's the their
    theirs them themselves then there there's these they they'd they'll they're they've this
    those through to too under until up very was wasn't we we'd we'll we're we've were weren't
    what what's when when's where where's which while who who's whom why why's with won't would
    wouldn't you you'd you'll you're you've your yours yourself yourselves also just like get
    got would will shall may might must much many really s t
    """.split()
)


@dataclass(frozen=True, slots=True)
class LexicalQuery:
    """The terms kept from a query, for a search of nodes holding any of them."""

    terms: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.terms)


def terms_of(text: str) -> list[str]:
    """Lowercased word terms of `text`, stopwords kept; a possessive is its owner
    ("Caroline's" is "caroline", so it matches her name and her turns)."""
    terms = (m.group(0).lower().replace("’", "'") for m in _WORD.finditer(text))
    return [t[:-2] if t.endswith("'s") and len(t) > 2 else t for t in terms]


def without_terms(text: str, terms: frozenset[str]) -> str:
    """`text` without the words whose terms are `terms` ("What does
    Melanie do to destress?" without "melanie"); `text` itself if no other
    word is left."""
    if not terms:
        return text
    kept: list[str] = []
    last = 0
    for word in _WORD.finditer(text):
        term = terms_of(word.group(0))
        if term and term[0] in terms:
            kept.append(text[last : word.start()])
            last = word.end()
    kept.append(text[last:])
    left = " ".join("".join(kept).split())
    return left if _WORD.search(left) else text


# A term in more documents than this is left out of MATCH: at 1M nodes one
# such OR term costs ~0.7 s, and it says little about relevance. Corpora
# under 200k nodes keep every term found in at most 2,000 of them.
COMMON_MIN_DOCS = 2_000
COMMON_SHARE = 0.01
# BM25 is computed for every row matching any term (~1-3 us a row), so the
# kept terms may match at most this many rows together; the rarest go first.
# Corpora under ~3k nodes never reach it. 3k instead of 10k took a warm 1M
# search from p50 16.9 / p95 33.7 ms to 14.0 / 30.4 ms; LoCoMo is unchanged.
ROW_BUDGET = 3_000


def common_limit(total: int) -> int:
    """A term in more of `total` documents than this is common."""
    return int(max(COMMON_MIN_DOCS, COMMON_SHARE * total))


def without_common(query: LexicalQuery, documents: dict[str, int], total: int) -> LexicalQuery:
    """Drop very common terms and keep the rest within the row budget, rarest
    first. A query of common terms only has no lexical part: its words say
    little, and meaning (the vector side) still answers it."""
    limit = common_limit(total)
    candidates = sorted(
        (t for t in query.terms if documents.get(t, 0) <= limit), key=lambda t: documents.get(t, 0)
    )
    kept: set[str] = set()
    rows = 0
    for term in candidates:
        rows += documents.get(term, 0)
        if kept and rows > ROW_BUDGET:
            break
        kept.add(term)
    return LexicalQuery(tuple(t for t in query.terms if t in kept))


def lexical_query(text: str) -> LexicalQuery:
    """Distinct non-stopword terms in order of appearance (at most MAX_TERMS)."""
    seen: dict[str, None] = {}
    for term in terms_of(text):
        if term not in STOPWORDS and (len(term) > 1 or term.isdigit()):
            seen.setdefault(term, None)
        if len(seen) >= MAX_TERMS:
            break
    return LexicalQuery(tuple(seen))
