"""Embedders: text to unit vectors, behind one narrow protocol."""

from .protocol import Embedder, get_embedder, register_embedder

__all__ = ["Embedder", "get_embedder", "register_embedder"]
