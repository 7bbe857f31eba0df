"""The later rows of a node's vector, so a model judges every part of a text.

A node's own vector is made from its text's start. A text longer than the
model reads gets one more vector per passage after it; a shorter text of
several sentences gets one per sentence, so "BTW, I had a setback last
month" is not averaged away by the thanks and the news around it. Search
scores the node by its best row (max-sim), less the log of how many
independent looks its rows were (see `effective_looks`): the best of many
draws is higher by chance alone, but a text's sentences are not
independent of the text.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..conversation.chat_text import prose
from ..embed.protocol import Embedder

# Words per passage, as a share of the tokens the model reads: English runs
# ~1.3 word pieces a word, so 0.6 of the window leaves room for rarer words.
WORDS_PER_TOKEN = 0.6
OVERLAP = 0.25  # of a passage repeated in the next, so no sentence is only cut
# At most this many passages: a 1 MB message would make ~1,000, each costing
# a model call per write. Beyond it passages are spread evenly over the
# text; what falls between them is still found by its words (FTS5 reads all).
MAX_PASSAGES = 32


def window_words(embedder: Embedder) -> int | None:
    """Words one passage holds for `embedder`, or None if it reads any length
    (it says how many tokens it reads with a `max_tokens` attribute)."""
    tokens = getattr(embedder, "max_tokens", None)
    if not isinstance(tokens, int) or tokens <= 0:
        return None
    return max(16, int(tokens * WORDS_PER_TOKEN))


def passages(text: str, window: int | None) -> list[str]:
    """The passages of `text` after its first window (which the node's own
    vector reads), overlapping by a quarter; [] for a text that fits."""
    if window is None:
        return []
    words = text.split()
    if len(words) <= window:
        return []
    step = max(1, int(window * (1.0 - OVERLAP)))
    starts = list(range(step, len(words) - window + step, step))
    if len(starts) > MAX_PASSAGES:
        spread = (len(starts) - 1) / (MAX_PASSAGES - 1)
        starts = [starts[round(i * spread)] for i in range(MAX_PASSAGES)]
    return [" ".join(words[s : s + window]) for s in starts]


# A sentence of fewer words ("Wow!", "Thanks so much.") is no topic of its own.
SENTENCE_MIN_WORDS = 3


def later_rows(text: str, window: int | None, name: str = "") -> list[str]:
    """The texts of a node's rows after its own: a long text's passages, or
    the sentences of a text of two or more (each led by the node's `name`,
    as the own row is: `text` is "name: ..." then); [] for one sentence."""
    if window is None:
        return []
    long = passages(text, window)
    if long:
        return long
    lead = f"{name}: " if name else ""
    body = text[len(lead) :] if lead and text.startswith(lead) else text
    parts = [p for p in prose(body).sentences if len(p.split()) >= SENTENCE_MIN_WORDS]
    if len(parts) < 2:
        return []
    if len(parts) > MAX_PASSAGES:
        spread = (len(parts) - 1) / (MAX_PASSAGES - 1)
        parts = [parts[round(i * spread)] for i in range(MAX_PASSAGES)]
    return [lead + p for p in parts]


def effective_looks(rows: npt.NDArray[np.float32]) -> float:
    """How many independent draws a node's unit rows are worth: n rows of
    mean pairwise cosine r are n / (1 + (n - 1) r) draws (the design effect
    of correlated samples), which for unit vectors is n^2 / |sum of rows|^2.
    One row, or n identical rows, is one draw; n orthogonal rows are n."""
    count = len(rows)
    if count <= 1:
        return 1.0
    total = rows.sum(axis=0, dtype=np.float64)
    return effective_looks_of(count, float(total @ total))


def effective_looks_of(count: int, squared_sum: float) -> float:
    """`effective_looks` from the row count and the squared norm of the rows' sum."""
    if count <= 1 or squared_sum <= 0.0:
        return 1.0
    return min(float(count), max(1.0, count * count / squared_sum))
