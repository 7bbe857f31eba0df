"""Where the default database lives."""

from __future__ import annotations

import os
from pathlib import Path

ENV_DB = "MNEMOTREE_DB"


def default_db_path() -> Path:
    """`$MNEMOTREE_DB`, else `memory.db` in the user data directory."""
    configured = os.environ.get(ENV_DB)
    if configured:
        return Path(configured).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("mnemotree", appauthor=False)) / "memory.db"
