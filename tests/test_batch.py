"""Every write of nodes goes through one batch writer, which keeps history:
whatever path changed a node, each of its earlier versions can be read back."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from mnemotree import InvalidOperation, Memory
from mnemotree.batch import NodeBatch


def _versions_missing(mem: Memory) -> dict[str, list[int]]:
    """{node id: versions below its current one that history does not hold}."""
    missing: dict[str, list[int]] = {}
    for node in mem.store.iter_nodes():
        kept = {v.version for v in mem.store.versions(node.id)}
        gaps = [v for v in range(1, node.version) if v not in kept]
        if gaps:
            missing[node.id] = gaps
    return missing


def test_every_earlier_version_is_kept_whatever_wrote_the_node(tmp_path: Path) -> None:
    doc = tmp_path / "notes.md"
    with Memory(tmp_path / "m.db", embedder="hashing") as mem:
        root = mem.add("Plans")
        a, b, c = (mem.append_child(root.id, t) for t in ("alpha", "beta", "gamma"))
        mem.update(a.id, "alpha, revised")
        mem.move(c.id, after=a.id)
        summary = mem.add_summary([a.id, c.id], "alpha and gamma")
        mem.update(summary.id, "alpha and gamma, summarised again")
        mem.restore(a.id, 1)
        mem.delete(b.id)
        mem.restore(b.id, 1)
        doc.write_text("# Notes\n\nFirst paragraph.\n\n## Later\n\nSecond paragraph.\n")
        mem.ingest(doc, scope="docs")
        doc.write_text("# Notes, retitled\n\nFirst paragraph, changed.\n\n## Later\n\nSecond.\n")
        mem.ingest(doc, scope="docs")
        assert any(n.version > 1 for n in mem.store.iter_nodes() if n.scope == "docs")
        assert _versions_missing(mem) == {}


def test_a_merged_backup_keeps_the_history_it_brings(tmp_path: Path) -> None:
    with Memory(tmp_path / "a.db", embedder="hashing") as source:
        root = source.add("Kept")
        child = source.append_child(root.id, "one")
        source.update(child.id, "two")
        source.update(child.id, "three")
        with (tmp_path / "dump.jsonl").open("w") as out:
            source.exchange.export_jsonl(out)
    with Memory(tmp_path / "b.db", embedder="hashing") as target:
        target.add("Already here")
        with (tmp_path / "dump.jsonl").open() as lines:
            target.exchange.import_jsonl(lines, merge=True)  # the loader's path, not a restore
        assert [v.node.text for v in target.history(child.id)] == ["one", "two", "three"]
        assert _versions_missing(target) == {}


def test_touching_a_file_annotates_its_document_without_a_version(tmp_path: Path) -> None:
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\nText.\n")
    with Memory(tmp_path / "m.db", embedder="hashing") as mem:
        document_id = mem.ingest(doc, scope="docs").files[0].root_id
        assert document_id is not None
        before = mem.get(document_id)
        os.utime(doc, (1_000_000_000, 1_000_000_000))
        mem.ingest(doc, scope="docs")
        after = mem.get(document_id)
        assert after.version == before.version and after.metadata != before.metadata
        assert mem.store.versions(document_id) == []


def test_annotating_refuses_what_would_be_a_new_version(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing") as mem:
        node = mem.add("Original")
        batch = NodeBatch(mem.store, "change", "2026-01-01T00:00:00Z")
        with mem.store.transaction():
            batch.annotate(dataclasses.replace(node, metadata={"seen": 1}))
        assert mem.get(node.id).metadata == {"seen": 1}
        refusal = pytest.raises(InvalidOperation, match="change its text")
        with refusal as refused, mem.store.transaction():
            batch.annotate(dataclasses.replace(node, text="Rewritten"))
        assert refused.value.value == node.id
        assert mem.get(node.id).text == "Original"
        assert mem.store.versions(node.id) == []


def test_a_batch_deletes_children_first_and_keeps_parents_first(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing") as mem:
        root = mem.add("Root")
        parent = mem.append_child(root.id, "parent")
        child = mem.append_child(parent.id, "child")
        batch = NodeBatch(mem.store, "gone", "2026-01-01T00:00:00Z")
        with mem.store.transaction():
            batch.delete([mem.get(parent.id), mem.get(child.id)])
        kept = mem.store.versions_of_change("gone")
        assert [v.node_id for v in kept] == [parent.id, child.id]
        restored = mem.restore(parent.id, 1)
        assert [n.id for n in mem.children(restored.id)] == [child.id]
