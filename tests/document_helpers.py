"""Shared helpers for the document tests: real files and tree walks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import docx

from mnemotree import Memory
from mnemotree.bench.pdfgen import Bookmark, write_pdf
from mnemotree.model import Node


def squash(text: str) -> str:
    """Whitespace collapsed (PDF text extraction decides its own line breaks)."""
    return " ".join(text.split())


def shape(memory: Memory, node_id: str, *, flat: bool = False) -> list[tuple[Any, ...]]:
    """(context_type, text, children) of every child, walked with `children`."""
    return [
        (c.context_type, squash(c.text) if flat else c.text, shape(memory, c.id, flat=flat))
        for c in memory.children(node_id)
    ]


def subtree(memory: Memory, root_id: str) -> list[Node]:
    found = [memory.get(root_id)]
    for child in memory.children(root_id):
        found.extend(subtree(memory, child.id))
    return found


def chunks(memory: Memory, root_id: str) -> list[Node]:
    return [n for n in subtree(memory, root_id) if n.context_type == "chunk"]


def by_title(memory: Memory, root_id: str, context_type: str) -> dict[str, Node]:
    """Nodes of one type by the last element of their section path (or text)."""
    found = {}
    for node in subtree(memory, root_id):
        if node.context_type == context_type:
            path = node.metadata.get("section_path") or [node.context_name]
            found[path[-1]] = node
    return found


def ingest_one(memory: Memory, path: Path, scope: str = "kb") -> str:
    report = memory.ingest(path, scope=scope)
    [result] = report.files
    assert result.status in ("added", "changed"), result
    assert result.root_id is not None
    return result.root_id


GUIDE_MD = """\
---
title: Field Guide
tags:
  - birds
  - hiking
version: "2"
---
Read this first.

# Install

Download the kit.

```bash
# not a heading
pip install kit
```

## Linux

Use apt.

Windows
-------

Use the installer.

# Usage

Run it with care.
"""

REPORT_PAGES = [
    ["Introduction", "This survey covers alpine meadows."],
    ["Methods", "Soil was sampled at ten sites.", "Sampling", "Cores were taken monthly."],
    ["The cores were frozen at once.", "Results", "Moss cover increased sharply."],
]
REPORT_OUTLINE = [
    Bookmark("Introduction", 0),
    Bookmark("Methods", 1, [Bookmark("Sampling", 1)]),
    Bookmark("Results", 2),
]


def write_report(folder: Path, name: str = "report.pdf") -> Path:
    path = folder / name
    path.write_bytes(write_pdf(REPORT_PAGES, REPORT_OUTLINE))
    return path


def write_plan_docx(folder: Path) -> Path:
    document = docx.Document()
    document.add_paragraph("Quarterly Plan", style="Title")
    document.add_paragraph("Opening words.")
    document.add_heading("Goals", 1)
    document.add_paragraph("Grow revenue.")
    document.add_heading("Stretch", 2)
    document.add_paragraph("Expand abroad.")
    table = document.add_table(rows=2, cols=2)
    for (row, col), text in {
        (0, 0): "region",
        (0, 1): "target",
        (1, 0): "EU",
        (1, 1): "10",
    }.items():
        table.cell(row, col).text = text
    document.add_heading("Details", 3)
    document.add_paragraph("Deep detail.")
    document.add_heading("Risks", 1)
    document.add_paragraph("Supply chain.")
    path = folder / "plan.docx"
    document.save(str(path))
    return path
