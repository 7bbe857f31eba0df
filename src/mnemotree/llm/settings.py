"""LLM settings: given in code, or read from MNEMOTREE_LLM_* variables."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import InvalidInput

ENV_PREFIX = "MNEMOTREE_LLM_"


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """An OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, llama.cpp server).

    `retries` counts extra tries after a failure that may pass (timeouts,
    connection errors, 429 and 5xx), waiting `backoff`·2^n seconds before
    each; `repairs` counts extra tries when a reply is not the JSON asked for.
    """

    model: str
    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 60.0
    retries: int = 2
    backoff: float = 0.5
    repairs: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.model, str) or not self.model.strip():
            raise InvalidInput(
                f"LLM model name is empty; set {ENV_PREFIX}MODEL or pass model='…'", self.model
            )
        for name in ("timeout", "backoff"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise InvalidInput(f"LLM {name} must be a number >= 0, got {value!r}", value)
        for name in ("retries", "repairs"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10:
                raise InvalidInput(f"LLM {name} must be an integer 0-10, got {value!r}", value)

    @staticmethod
    def configured(env: Mapping[str, str] | None = None) -> bool:
        """Whether the environment names an LLM (nothing is called otherwise)."""
        env = os.environ if env is None else env
        return bool(env.get(f"{ENV_PREFIX}MODEL"))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LLMSettings:
        """MNEMOTREE_LLM_MODEL (required), _BASE_URL (or OPENAI_BASE_URL), _API_KEY
        (or OPENAI_API_KEY), _TIMEOUT, _RETRIES."""
        env = os.environ if env is None else env
        model = env.get(f"{ENV_PREFIX}MODEL", "")
        if not model.strip():
            raise InvalidInput(
                f"no LLM is configured: set {ENV_PREFIX}MODEL (and {ENV_PREFIX}BASE_URL "
                "for a local server)",
                model,
            )
        return cls(
            model=model,
            base_url=env.get(f"{ENV_PREFIX}BASE_URL") or env.get("OPENAI_BASE_URL") or None,
            api_key=env.get(f"{ENV_PREFIX}API_KEY") or env.get("OPENAI_API_KEY") or None,
            timeout=_number(env, "TIMEOUT", 60.0, float),
            retries=int(_number(env, "RETRIES", 2, int)),
        )


def _number(env: Mapping[str, str], name: str, default: float, kind: type) -> float:
    raw = env.get(f"{ENV_PREFIX}{name}")
    if raw is None or raw == "":
        return default
    try:
        return float(kind(raw))
    except ValueError:
        raise InvalidInput(f"{ENV_PREFIX}{name} must be a number, got {raw!r}", raw) from None
