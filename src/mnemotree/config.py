"""Settings that come from the environment, in one place.

Every setting has one precedence: the value given in code (or on the
command line), else its environment variable, else the default. Nothing is
read at import time; each function reads the environment when called.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

ENV_DB = "MNEMOTREE_DB"
ENV_EMBEDDER = "MNEMOTREE_EMBEDDER"
ENV_LLM = "MNEMOTREE_LLM"
ENV_HOST = "MNEMOTREE_HOST"
ENV_PORT = "MNEMOTREE_PORT"
ENV_CACHE = "MNEMOTREE_CACHE"
# "full": queries are embedded by the documents' model, not the faster int8
# graph this machine may choose by timing it: the same scores on every machine.
ENV_QUERY_GRAPH = "MNEMOTREE_QUERY_GRAPH"


def from_env(name: str) -> str | None:
    """The variable's value, or None when it is unset or blank."""
    value = os.environ.get(name, "").strip()
    return value or None


def default_db_path() -> Path:
    """`$MNEMOTREE_DB`, else `memory.db` in the user data directory."""
    configured = from_env(ENV_DB)
    if configured:
        return Path(configured).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("mnemotree", appauthor=False)) / "memory.db"


POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres(location: object) -> bool:
    """Whether a database location names a Postgres server, not a file."""
    return isinstance(location, str) and location.startswith(POSTGRES_SCHEMES)


# `scheme:/...`: what an address looks like once a path has folded its `//`.
_ADDRESS = re.compile(r"([A-Za-z][A-Za-z0-9+.-]+):/")


def address_scheme(location: str | os.PathLike[str]) -> str | None:
    """The scheme of a location that reads as an address but names no store
    mnemotree opens (`postgresql:/host/db` with one slash, `mysql://...`, a
    postgresql:// address that went through `Path` and lost a slash), else
    None. Such a location must not become a SQLite file of that name."""
    if is_postgres(location):
        return None
    found = _ADDRESS.match(os.fspath(location))
    return found.group(1) if found else None


def default_location() -> str:
    """`$MNEMOTREE_DB` (a file, or a postgresql:// address), else the default file."""
    configured = from_env(ENV_DB)
    if configured and is_postgres(configured):
        return configured
    return str(default_db_path())


def default_embedder() -> str | None:
    """`$MNEMOTREE_EMBEDDER` (a registered name), else None: the built-in default."""
    return from_env(ENV_EMBEDDER)


def default_llm() -> str | None:
    """`$MNEMOTREE_LLM` (a registered name, or "offline"), else None: an
    OpenAI-compatible endpoint when MNEMOTREE_LLM_MODEL names one, else none."""
    return from_env(ENV_LLM)
