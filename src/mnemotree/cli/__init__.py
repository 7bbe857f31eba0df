"""The `mnemotree` command line."""

from . import bench, documents, paths, recall  # noqa: F401  (they register their commands)
from .main import cli, main

__all__ = ["cli", "main"]
