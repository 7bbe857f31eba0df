"""Pattern mining on a real project (`mnemotree bench patterns`): the
project's code (Python, TypeScript, ...) is ingested, its functions' shapes mined, and each pattern
found judged against the list of patterns expected in that project
(`data/code_patterns.json`), written before the miner existed. A pattern
is correct when its features include every feature of one of an entry's
alternatives; precision is correct patterns over patterns found. A real
pattern nobody listed counts against precision: the figure is a floor.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..memory import Memory
from .code import shipped


def expected(project: str) -> list[dict[str, Any]]:
    return shipped("code_patterns.json", project, "expected patterns")


def run(
    folders: list[Path], project: str, progress: Callable[[str], None] = lambda _: None
) -> dict[str, Any]:
    listed = expected(project)
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "patterns.db", embedder="hashing") as memory,
    ):
        started = time.perf_counter()
        memory.ingest([str(f) for f in folders], scope="code")
        ingested = time.perf_counter() - started
        progress(f"ingested {', '.join(map(str, folders))} in {ingested:.1f} s; mining…")
        started = time.perf_counter()
        report = memory.code.mine_patterns(scope="code")
        mined = time.perf_counter() - started
    judged = []
    for pattern in report.patterns:
        features = set(pattern["mined_features"])
        entries = [e["name"] for e in listed if any(set(a) <= features for a in e["any_of"])]
        judged.append(
            {
                "pattern": pattern["name"],
                "functions": pattern["functions"],
                "files": pattern["files"],
                "area": pattern["trigger_area"],
                "examples": pattern["examples"],
                "listed_as": entries,
            }
        )
    correct = sum(bool(j["listed_as"]) for j in judged)
    covered = {name for j in judged for name in j["listed_as"]}
    return {
        "project": project,
        "functions": report.functions,
        "files": report.files,
        "patterns": len(judged),
        "precision": round(correct / len(judged), 4) if judged else None,
        "listed": len(listed),
        "listed_found": len(covered),
        "listed_missed": [e["name"] for e in listed if e["name"] not in covered],
        "ingest_s": round(ingested, 2),
        "mine_s": round(mined, 3),
        "found": judged,
    }
