"""Language models behind one narrow protocol; used only when configured."""

from .builtin import get_llm, register_llm
from .jsonout import extract_json, validate
from .protocol import LLM, Completion
from .settings import LLMSettings

__all__ = [
    "LLM",
    "Completion",
    "LLMSettings",
    "extract_json",
    "get_llm",
    "register_llm",
    "validate",
]
