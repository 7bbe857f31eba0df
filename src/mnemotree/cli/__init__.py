"""The `mnemotree` command line."""

from . import (  # noqa: F401  (they register their commands)
    actions,
    bench,
    bench_capture,
    bench_code,
    bench_workflows,
    chat,
    consolidate,
    context,
    documents,
    events,
    merge,
    migrate,
    path_commands,
    patterns,
    purge,
    recall,
    repl,
    scopes,
    serve,
)
from .main import cli, main

__all__ = ["cli", "main"]
