"""The TypeScript client (clients/typescript): built with tsc and tested with
node's own test runner against a real `mnemotree serve` its test starts.
Without node and npm the test is skipped, unless MNEMOTREE_REQUIRE_NODE is
set (as `.ci/run` does, after installing them): then it fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_runner import ENV

PACKAGE = Path(__file__).resolve().parent.parent / "clients" / "typescript"


def test_the_typescript_client_passes_its_tests_against_a_real_server() -> None:
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        if os.environ.get("MNEMOTREE_REQUIRE_NODE"):
            pytest.fail("node and npm are not installed (apt-get install nodejs npm)")
        pytest.skip("node and npm are not installed (apt-get install nodejs npm)")
    env = {**ENV, "MNEMOTREE_BIN": str(Path(sys.executable).parent / "mnemotree")}
    if not (PACKAGE / "node_modules" / ".bin" / "tsc").exists():
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"], cwd=PACKAGE, env=env, check=True, timeout=600
        )
    done = subprocess.run(
        [npm, "test"], cwd=PACKAGE, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "# fail 0" in done.stdout and "# pass 3" in done.stdout
