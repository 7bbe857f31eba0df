"""The `mnemotree` command line."""

from . import bench, chat, context, documents, paths, recall, repl  # noqa: F401  (they register their commands)
from .main import cli, main

__all__ = ["cli", "main"]
