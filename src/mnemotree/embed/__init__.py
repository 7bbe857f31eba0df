"""Embedders: text to unit vectors, behind one narrow protocol."""

from .builtin import get_embedder, register_embedder
from .openai_compat import OpenAIEmbedder
from .protocol import Embedder, QueryEmbedder

__all__ = ["Embedder", "OpenAIEmbedder", "QueryEmbedder", "get_embedder", "register_embedder"]
