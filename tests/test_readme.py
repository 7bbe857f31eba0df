"""The README's Python runs verbatim: a newcomer copies it first."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.cli_runner import ENV

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
    for number, code in enumerate(blocks, 1):
        ran = subprocess.run(
            [sys.executable, "-c", code],
            cwd=tmp_path,
            env=ENV,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert ran.returncode == 0, f"block {number}:\n{ran.stderr[-3000:]}"
