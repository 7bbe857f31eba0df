"""Document ingestion benchmark: a 120-page PDF with an outline, 1,000
Markdown files, and an unchanged re-scan of those files.

The texts are generated from the scale benchmark's Zipfian vocabulary, so
sections have realistic lengths (a few hundred words) and chunking works.
Vectors stay pending (writes never wait for the model), as the issue asks.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..memory import Memory
from .pdfgen import Bookmark, write_pdf
from .scale import corpus

PDF_PAGES = 120
MD_FILES = 1000


def _pdf(rng: random.Random, sentences: list[str]) -> bytes:
    """12 chapters of 10 pages; each chapter has 3 sections (bookmarks) inside."""
    pages: list[list[str]] = []
    outline: list[Bookmark] = []
    for chapter in range(PDF_PAGES // 10):
        first = len(pages)
        children = []
        for page in range(10):
            lines = []
            if page == 0:
                lines.append(f"Chapter {chapter + 1}")
            if page in (1, 4, 7):
                title = f"Section {chapter + 1}.{page // 3 + 1}"
                lines.append(title)
                children.append(Bookmark(title, first + page))
            while len(lines) < 45:
                lines.append(rng.choice(sentences)[:90])
            pages.append(lines)
        outline.append(Bookmark(f"Chapter {chapter + 1}", first, children))
    return write_pdf(pages, outline)


def _markdown(rng: random.Random, sentences: list[str], number: int) -> str:
    parts = [f"---\ntitle: Note {number}\ntags:\n  - bench\n---\n# Note {number}\n"]
    for section in range(rng.randint(2, 5)):
        parts.append(f"## Topic {number}.{section + 1}\n")
        for _ in range(rng.randint(1, 3)):
            parts.append(" ".join(rng.choice(sentences) for _ in range(rng.randint(2, 6))) + "\n")
    return "\n".join(parts)


def run(progress: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    rng = random.Random(5)
    sentences = [s + "." for s in corpus(5000, seed=3)]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pdf = root / "manual.pdf"
        pdf.write_bytes(_pdf(rng, sentences))
        notes = root / "notes"
        notes.mkdir()
        for number in range(MD_FILES):
            folder = notes / f"group{number // 100:02d}"
            folder.mkdir(exist_ok=True)
            (folder / f"note{number:04d}.md").write_text(
                _markdown(rng, sentences, number), encoding="utf-8"
            )
        with Memory(root / "docs.db", embedder="hashing") as memory:
            memory.tokenizer.count("warm up")  # load the tokenizer outside the timings
            started = time.perf_counter()
            report = memory.ingest(pdf, scope="bench")
            pdf_s = time.perf_counter() - started
            pdf_chunks = report.summary()["chunks"]
            progress(f"PDF: {report.summary()} in {pdf_s:.2f} s")
            started = time.perf_counter()
            report = memory.ingest(notes, scope="bench")
            md_s = time.perf_counter() - started
            progress(f"Markdown: {report.summary()} in {md_s:.2f} s")
            md_chunks = report.summary()["chunks"]
            started = time.perf_counter()
            again = memory.ingest(notes, scope="bench")
            rescan_s = time.perf_counter() - started
            progress(f"re-scan: {again.summary()} in {rescan_s:.2f} s")
            one = next(iter(sorted(notes.rglob("*.md"))))
            one.write_text(one.read_text("utf-8") + "\nOne more line.\n", encoding="utf-8")
            started = time.perf_counter()
            changed = memory.ingest(notes, scope="bench")
            change_s = time.perf_counter() - started
            pending = memory.pending_vectors()
        return {
            "pdf": {"pages": PDF_PAGES, "chunks": pdf_chunks, "seconds": round(pdf_s, 3)},
            "markdown": {"files": MD_FILES, "chunks": md_chunks, "seconds": round(md_s, 3)},
            "rescan_unchanged": {
                "files": again.summary()["unchanged"],
                "seconds": round(rescan_s, 3),
            },
            "rescan_one_changed": {
                "changed": changed.summary()["changed"],
                "written": changed.summary()["written"],
                "seconds": round(change_s, 3),
            },
            "vectors_pending": pending,
        }
