"""Embedders: text to unit vectors, behind one narrow protocol."""

from .openai_compat import OpenAIEmbedder
from .protocol import Embedder, QueryEmbedder, get_embedder, register_embedder

__all__ = ["Embedder", "OpenAIEmbedder", "QueryEmbedder", "get_embedder", "register_embedder"]
