"""The README's Python runs verbatim: a newcomer copies it first. Blocks
that talk to a server find one where the README says it is
(`mnemotree serve --no-auth` on 127.0.0.1:8765)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

from tests.cli_runner import ENV
from tests.server_helpers import wait_until_serving

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def test_every_python_block_of_the_readme_runs(tmp_path: Path) -> None:
    blocks = BLOCK.findall(README.read_text(encoding="utf-8"))
    assert blocks, "the README shows no Python"
    handbook = tmp_path / "handbook"  # what the first block ingests
    handbook.mkdir()
    (handbook / "hotfixes.md").write_text(
        "# Hotfixes\n\nHotfixes are approved by the on-call lead.\n", encoding="utf-8"
    )
    with _served_at_8765(tmp_path) if any(SERVED in b for b in blocks) else nullcontext():
        for number, code in enumerate(blocks, 1):
            _run_block(number, code, tmp_path)


def _run_block(number: int, code: str, folder: Path) -> None:
    ran = subprocess.run(
        [sys.executable, "-c", code],
        cwd=folder,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0, f"block {number}:\n{ran.stderr[-3000:]}"


SERVED = "http://127.0.0.1:8765"


@contextmanager
def _served_at_8765(folder: Path) -> Iterator[None]:
    """`mnemotree serve --no-auth` on the README's address, for its client blocks."""
    command = [sys.executable, "-m", "mnemotree", "--db", str(folder / "served.db")]
    server = subprocess.Popen(
        [*command, "--embedder", "hashing", "serve", "--no-auth", "--no-access-log"],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_until_serving(server, SERVED)
        yield
    finally:
        server.terminate()
        server.wait(timeout=30)
