"""Embedders: text to unit vectors, behind one narrow protocol."""

from .openai_compat import OpenAIEmbedder
from .protocol import Embedder, get_embedder, register_embedder

__all__ = ["Embedder", "OpenAIEmbedder", "get_embedder", "register_embedder"]
