"""The README's ```sh blocks, as a newcomer reads them.

They are menus, not scripts (`serve` and `serve --workers 2` are two ways of
doing one thing, and `serve` runs until stopped), so each line is checked for
what it promises: every `mnemotree` command exists with the options shown
(parsed by the real CLI, `--help` appended), every extra an install line
names exists, `make` knows the targets; and the serving block runs end to
end: the key made as shown, `mnemotree serve` on its default address, and
the curl line verbatim with `$KEY` set to that key."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tests.cli_runner import ENV
from tests.server_helpers import wait_until_serving

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BLOCK = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)
EXTRA = re.compile(r"\[([a-z0-9,-]+)\]")
SERVED = "http://127.0.0.1:8765"


def _lines(block: str) -> list[str]:
    """A block's commands: continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", block)
    commands = [re.split(r"\s+#\s", line, maxsplit=1)[0].strip() for line in joined.split("\n")]
    return [c for c in commands if c]


BLOCKS = [_lines(b) for b in BLOCK.findall(README.read_text(encoding="utf-8"))]
COMMANDS = [line for block in BLOCKS for line in block]


def _env(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in ENV.items() if k != "MNEMOTREE_DB"}
    env["MNEMOTREE_DB"] = str(folder / "memory.db")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _bash(command: str, folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True, timeout=120
    )


def test_the_readme_has_shell_blocks_of_each_kind() -> None:
    kinds = {line.split()[0] for line in COMMANDS}
    assert {"mnemotree", "pipx", "make", "curl"} <= kinds


@pytest.mark.parametrize("line", [c for c in COMMANDS if c.startswith("mnemotree ")])
def test_every_mnemotree_command_exists_with_the_options_shown(line: str, tmp_path: Path) -> None:
    parsed = _bash(f"{line} --help", tmp_path, _env(tmp_path))
    assert parsed.returncode == 0, f"$ {line}\n{parsed.stderr}"
    assert parsed.stdout.startswith("Usage: mnemotree")


def test_every_extra_an_install_line_names_exists() -> None:
    declared = set(metadata.metadata("mnemotree").get_all("Provides-Extra") or [])
    installs = [c for c in COMMANDS if re.match(r"(pipx|uv tool|pip) install ", c)]
    named = {e for line in installs for group in EXTRA.findall(line) for e in group.split(",")}
    assert installs and named
    assert named <= declared, f"extras the README installs but pyproject lacks: {named - declared}"


def test_make_knows_every_target_the_readme_runs(tmp_path: Path) -> None:
    targets = [c.split()[1] for c in COMMANDS if c.startswith("make ")]
    assert targets
    for target in targets:
        dry = subprocess.run(
            ["make", "-n", target], cwd=ROOT, capture_output=True, text=True, timeout=60
        )
        assert dry.returncode == 0, f"make {target}: {dry.stderr}"


def _port_is_free(url: str) -> None:
    """The README serves on a fixed port: a server left there by another run
    would answer in this one's place, with another database."""
    host, port = url.removeprefix("http://").split(":")
    with socket.socket() as probe:
        taken = probe.connect_ex((host, int(port))) == 0
    assert not taken, f"{url} already answers: stop the server on port {port} and run again"


def test_the_serving_block_runs_as_written(tmp_path: Path) -> None:
    (block,) = [b for b in BLOCKS if any(c.startswith("curl ") for c in b)]
    make_key = next(c for c in block if c.startswith("mnemotree keys create"))
    serve = next(c for c in block if c == "mnemotree serve")
    curl = next(c for c in block if c.startswith("curl "))
    _port_is_free(SERVED)
    env = {**_env(tmp_path), "MNEMOTREE_EMBEDDER": "hashing"}
    made = _bash(make_key, tmp_path, env)
    assert made.returncode == 0, made.stderr
    env["KEY"] = made.stdout.split()[0]
    stored = _bash('mnemotree remember "The deploy freeze starts Friday" --scope kb', tmp_path, env)
    assert stored.returncode == 0, stored.stderr
    server = subprocess.Popen(
        ["bash", "-c", f"exec {serve}"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_until_serving(server, SERVED)
        answered = _bash(curl, tmp_path, env)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert answered.returncode == 0, answered.stderr
    hits = json.loads(answered.stdout)
    assert [h["text"] for h in hits][:1] == ["The deploy freeze starts Friday"]
