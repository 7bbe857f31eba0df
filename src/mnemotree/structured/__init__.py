"""Structured memory: path-addressed entries (seed 001) and the agent tools over them."""

from .paths import Chunk, Entry, PathMemory
from .tools import TOOLS, Injected, dispatch, inject, outline

__all__ = ["TOOLS", "Chunk", "Entry", "Injected", "PathMemory", "dispatch", "inject", "outline"]
