"""The README's command-line transcripts run verbatim and print what the
README says they print. Each ```text block with `$ ` lines is run in a new
folder with a new database, the `mnemotree` command on PATH; ids differ from
run to run, so an id the README shows stands for the one this run printed in
the same place. The files a transcript reads are made here (`handbook/`)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mnemotree.bench.pdfgen import write_pdf
from tests.cli_runner import ENV

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"^```text\n(.*?)^```", re.S | re.M)
# A node's id, or a document chunk's (made from the file's absolute path).
ULID = re.compile(r"\b0[0-9A-HJKMNP-TV-Z]{25}\b|\bdoc:[0-9a-f]{24}\b")
TRANSCRIPTS = [b for b in BLOCK.findall(README.read_text(encoding="utf-8")) if "\n$ " in "\n" + b]


def _handbook(folder: Path) -> None:
    """What the documents transcript ingests: a Markdown handbook and a PDF."""
    handbook = folder / "handbook"
    handbook.mkdir()
    (handbook / "deploys.md").write_text(
        "# Deploy handbook\n\n## Schedule\n\nDeploys run on Fridays.\n\n"
        "## Freeze\n\nNo deploys after 3pm on Fridays. Hotfixes need two approvals.\n",
        encoding="utf-8",
    )
    pages = [
        ["Security policy", "Passwords are rotated every 90 days."],
        ["Access", "Production access needs a ticket."],
        ["Incidents", "Report incidents within one hour to security@example.com."],
    ]
    (handbook / "security.pdf").write_bytes(write_pdf(pages))


def _steps(block: str) -> list[tuple[str, list[str]]]:
    """(command, the lines the README shows after it) for each `$ ` line."""
    steps: list[tuple[str, list[str]]] = []
    for line in block.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    return steps


@pytest.mark.parametrize("number", range(1, len(TRANSCRIPTS) + 1))
def test_a_readme_transcript_prints_what_the_readme_shows(number: int, tmp_path: Path) -> None:
    block = TRANSCRIPTS[number - 1]
    if "ingest handbook" in block:
        _handbook(tmp_path)
    env = {k: v for k, v in ENV.items() if k != "MNEMOTREE_EMBEDDER"}
    env["MNEMOTREE_DB"] = str(tmp_path / "memory.db")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "200"  # rich wraps nothing
    # Scores to three places must not hang on which query graph this machine
    # chose by timing (a fresh cache per test session, a loaded machine).
    env["MNEMOTREE_QUERY_GRAPH"] = "full"
    ids: dict[str, str] = {}  # README id -> this run's
    for command, shown in _steps(block):
        ran = subprocess.run(
            ["bash", "-c", ULID.sub(lambda m: ids.get(m[0], m[0]), command)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        printed = (ran.stdout + ran.stderr).rstrip("\n")
        got = printed.split("\n") if printed else []
        if ran.returncode:
            got.append(f"(exit {ran.returncode})")
        for readme_line, line in zip(shown, got, strict=False):
            for theirs, ours in zip(ULID.findall(readme_line), ULID.findall(line), strict=False):
                ids.setdefault(theirs, ours)
        expected = [ULID.sub(lambda m: ids.get(m[0], m[0]), s) for s in shown]
        assert got == expected, f"README transcript {number}: $ {command}"
