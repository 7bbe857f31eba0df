"""The `mnemotree` command line."""

from . import bench, documents, recall  # noqa: F401  (they register their commands)
from .main import cli, main

__all__ = ["cli", "main"]
