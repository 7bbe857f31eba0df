"""Structured memory: path-addressed entries (the path-memory design), the
agent tools over them, and typed memories."""

from .path_memory import Chunk, Entry, PathMemory
from .tools import TOOLS, Injected, dispatch, inject, outline

__all__ = ["TOOLS", "Chunk", "Entry", "Injected", "PathMemory", "dispatch", "inject", "outline"]
