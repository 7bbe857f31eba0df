"""The built-in LLM client, built on first use, and the registry that names LLMs."""

from __future__ import annotations

from collections.abc import Callable

from ..registry import Registry
from .protocol import LLM


def _openai() -> LLM:
    from .openai_compat import OpenAILLM
    from .settings import LLMSettings

    return OpenAILLM(LLMSettings.from_env())


_LLMS: Registry[LLM] = Registry("llm", {"openai": _openai})


def register_llm(name: str, factory: Callable[[], LLM]) -> None:
    """Make an LLM available by name."""
    _LLMS.register(name, factory)


def get_llm(name: str) -> LLM:
    """The shared LLM registered under `name` (built lazily)."""
    return _LLMS.get(name)
