"""Long work tells how far it is: embedding reports each slice it embeds,
a restore reports its rows against the backup's total."""

from __future__ import annotations

import io
from pathlib import Path

from mnemotree import Memory


def test_flush_reports_progress_while_a_batch_is_embedded(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing") as mem:
        root = mem.add("Log")
        mem.append_many(root.id, [f"entry {i} of the log" for i in range(300)])
        steps: list[int] = []
        assert mem.flush(steps.append) == 301
    assert len(steps) >= 3 and sum(steps) == 301 and max(steps) <= 128


def test_a_restore_reports_its_rows_against_the_backups_total(tmp_path: Path) -> None:
    with Memory(tmp_path / "a.db", embedder="hashing") as mem:
        root = mem.add("Log")
        mem.append_many(root.id, [f"entry {i}" for i in range(2500)])
        out = io.StringIO()
        mem.exchange.export_jsonl(out)
    seen: list[tuple[int, int]] = []
    with Memory(tmp_path / "b.db", embedder="hashing") as restored:
        restored.exchange.import_jsonl(
            out.getvalue().split("\n"), progress=lambda done, total: seen.append((done, total))
        )
        assert restored.stats().nodes == 2501
    totals = {total for _, total in seen}
    assert len(totals) == 1 and seen[-1][0] == seen[-1][1] == totals.pop()
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and len(seen) >= 3
