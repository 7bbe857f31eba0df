"""Passages of a long text, so a model that reads a few hundred tokens judges
all of it: a node's vector is made from its text's start, and a longer text
gets one more vector per passage after it. Search scores the node by its best
look (max-sim), less the log of how many looks it had: the best of many
draws is higher by chance alone (see `rank.Surprise.looked`)."""

from __future__ import annotations

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
