"""The built-in embedders, each built on first use, and the registry that names them."""

from __future__ import annotations

from collections.abc import Callable

from ..registry import Registry
from .protocol import DEFAULT_EMBEDDER, Embedder


def _minilm() -> Embedder:
    from .minilm import MiniLMEmbedder

    return MiniLMEmbedder()


def _hashing() -> Embedder:
    from .hashing import HashingEmbedder

    return HashingEmbedder()


def _openai() -> Embedder:
    from .openai_compat import from_environment

    return from_environment()


_EMBEDDERS: Registry[Embedder] = Registry(
    "embedder", {"minilm": _minilm, "hashing": _hashing, "openai": _openai}
)


def register_embedder(name: str, factory: Callable[[], Embedder]) -> None:
    """Make an embedder available by name."""
    _EMBEDDERS.register(name, factory)


def get_embedder(name: str = DEFAULT_EMBEDDER) -> Embedder:
    """The shared embedder registered under `name` (built lazily)."""
    return _EMBEDDERS.get(name)
