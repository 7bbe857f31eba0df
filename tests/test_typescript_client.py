"""The TypeScript client (clients/typescript): built with tsc and tested with
node's own test runner against a real `mnemotree serve` its test starts.
Without node and npm the test is skipped, unless MNEMOTREE_REQUIRE_NODE is
set (as `.ci/run` does, after installing them): then it fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.cli_runner import ENV
from tests.node_tools import CLIENT, client_dependencies, node_and_npm


def test_the_typescript_client_passes_its_tests_against_a_real_server() -> None:
    npm = node_and_npm()
    env = {**ENV, "MNEMOTREE_BIN": str(Path(sys.executable).parent / "mnemotree")}
    client_dependencies(env)
    done = subprocess.run(
        [npm, "test"], cwd=CLIENT, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "# fail 0" in done.stdout and "# pass 3" in done.stdout
