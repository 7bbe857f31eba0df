"""Running the real `mnemotree` command in a subprocess, for CLI tests."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

# No inherited database or embedder; rich's default width (80) for reproducible stderr.
ENV = {
    k: v
    for k, v in os.environ.items()
    if k not in {"MNEMOTREE_DB", "MNEMOTREE_EMBEDDER", "COLUMNS", "LINES"}
}
# Cache bytecode outside the source tree even where PYTHONDONTWRITEBYTECODE is set:
# every test starts the interpreter many times.
ENV.pop("PYTHONDONTWRITEBYTECODE", None)
ENV["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "mnemotree-test-pycache")


def run_cli(
    db: Path | str,
    *args: str | bytes,
    input: str | bytes | None = None,
    cwd: Path | None = None,
    embedder: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """`python -m mnemotree --db DB [--embedder E] ARGS...`; output decoded as UTF-8."""
    stdin: dict[str, Any] = (
        {"stdin": subprocess.DEVNULL}
        if input is None
        else {"input": input.encode("utf-8") if isinstance(input, str) else input}
    )
    chosen = ["--embedder", embedder] if embedder else []
    proc = subprocess.run(
        [sys.executable, "-m", "mnemotree", "--db", str(db), *chosen, *args],
        capture_output=True,
        env=ENV,
        cwd=cwd,
        timeout=120,
        check=False,
        **stdin,
    )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )
