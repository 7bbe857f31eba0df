"""The TypeScript compiler's own count of a project's symbols, for `bench
code`: the shipped `data/ts_symbols.js` run by Node.js with the `typescript`
package, which the benchmark does not install (it is a Node package, not a
Python one). Without them the reference is reported missing, with how to
provide it, rather than guessed."""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import InvalidInput

KINDS = ("class", "function", "method", "interface", "enum", "type")
HOW = (
    "install Node.js and the TypeScript compiler (`npm pack typescript`, unpack it) "
    "and pass its folder with --typescript"
)


def typescript_count(files: list[Path], module: Path | None) -> dict[str, Any]:
    """Symbols by kind as the TypeScript compiler parses `files`, with their
    total; or {"missing": why} when Node.js or `typescript` is not at hand."""
    node = shutil.which("node")
    if node is None:
        return {"missing": f"no `node` on PATH: {HOW}"}
    if module is None:
        found = _resolve(node)
        if found is None:
            return {"missing": f"Node.js cannot find the `typescript` package: {HOW}"}
        module = found
    else:
        check_package(module)
    script = resources.files("mnemotree.bench").joinpath("data/ts_symbols.js")
    with resources.as_file(script) as path:
        done = subprocess.run(
            [node, str(path), str(module.resolve())],
            input=json.dumps([str(f) for f in files]),
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1:] or ["(no message)"]
        return {"missing": f"the TypeScript count failed: {last[0]}"}
    counted: dict[str, int] = json.loads(done.stdout)
    counts = {kind: int(counted.get(kind, 0)) for kind in KINDS}
    return {**counts, "total": sum(counts.values())}


def check_package(module: Path) -> None:
    """Refuse a folder that is not the `typescript` package, naming it."""
    if not (module / "package.json").is_file():
        raise InvalidInput(
            f"no TypeScript package at {str(module)!r} (expected its package.json): {HOW}",
            str(module),
        )


def _resolve(node: str) -> Path | None:
    done = subprocess.run(
        [node, "-e", "process.stdout.write(require.resolve('typescript/package.json'))"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    return Path(done.stdout).parent if done.returncode == 0 and done.stdout else None
