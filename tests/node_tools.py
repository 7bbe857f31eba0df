"""Node.js tools the tests use: the TypeScript client's own dev dependencies
(installed by `npm ci` from the npm registry, as `.ci/run` allows), so a
test needing the TypeScript compiler does not fetch anything else. Without
node and npm a test is skipped, unless MNEMOTREE_REQUIRE_NODE is set (as
`.ci/run` does, after installing them): then it fails."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parent.parent / "clients" / "typescript"
MISSING = "node and npm are not installed (apt-get install nodejs npm)"


def node_and_npm() -> str:
    """npm's path, after skipping (or failing, when required) without them."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        if os.environ.get("MNEMOTREE_REQUIRE_NODE"):
            pytest.fail(MISSING)
        pytest.skip(MISSING)
    return npm


def client_dependencies(env: dict[str, str] | None = None) -> Path:
    """The TypeScript client's node_modules, installed once if missing."""
    npm = node_and_npm()
    if not (CLIENT / "node_modules" / ".bin" / "tsc").exists():
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"], cwd=CLIENT, env=env, check=True, timeout=600
        )
    return CLIENT / "node_modules"
