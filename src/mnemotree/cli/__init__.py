"""The `mnemotree` command line."""

from . import (  # noqa: F401  (they register their commands)
    actions,
    bench,
    bench_capture,
    bench_code,
    chat,
    consolidate,
    context,
    documents,
    migrate,
    path_commands,
    purge,
    recall,
    repl,
    scopes,
    serve,
)
from .main import cli, main

__all__ = ["cli", "main"]
