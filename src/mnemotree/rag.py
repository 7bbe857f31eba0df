"""Prompts that answer from memory and documents, with citations (seed 002 §4).

`build_answer` turns search hits into the memory system prompt (base prompt,
`## Memory`, `## Relevant documents` with `--- [file, page X] ---` headers)
and the standalone RAG prompt (sources in the user message, then the
question). Calling an LLM with them is the caller's choice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .ingest.plan import CHUNK, DOCUMENT, SECTION, DocChunk
from .retrieval.search import Hit

BASE_PROMPT = (
    "You are a helpful assistant with a long-term memory. Answer from the memories and "
    "documents below. Cite sources by their bracketed headers. If they do not contain "
    "the answer, say so clearly."
)


@dataclass
class Source:
    """A document chunk given to the model, and how it is cited."""

    node_id: str
    header: str  # "filename, page X" or "filename, Section"
    file: str
    text: str
    score: float
    page_start: int | None = None
    page_end: int | None = None
    section: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.node_id, "header": self.header, "file": self.file,
            "page_start": self.page_start, "page_end": self.page_end,
            "section": self.section, "score": round(self.score, 6), "text": self.text,
        }  # fmt: skip


@dataclass
class Answer:
    """The prompts built for a question, what they cite, and the model's answer if any."""

    question: str
    system_prompt: str
    rag_messages: list[dict[str, str]]
    sources: list[Source]
    memories: list[Hit]
    answer: str | None = None
    error: str | None = None  # why there is no answer although a model is configured

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer,
            "error": self.error,
            "system_prompt": self.system_prompt,
            "rag_messages": self.rag_messages,
            "sources": [s.to_dict() for s in self.sources],
            "memories": [{"id": h.node.id, "text": h.node.text} for h in self.memories],
        }


def source_of(hit: Hit) -> Source:
    """A chunk hit as a cited source."""
    chunk = DocChunk.of(hit.node)
    file = chunk.file_path.replace("\\", "/").rsplit("/", 1)[-1] or hit.node.context_name
    first, last = chunk.page_start, chunk.page_end
    if first is not None:
        where = f"page {first}" if last in (None, first) else f"pages {first}-{last}"
    else:
        document = next((a.text for a in hit.ancestry if a.parent_id is None), "")
        where = chunk.section_path[-1] if chunk.section_path else document or chunk.name
    return Source(
        hit.node.id, f"{file}, {where}" if where else file, file, hit.node.text, hit.score,
        first, last, [str(s) for s in chunk.section_path],
    )  # fmt: skip


def _block(source: Source) -> str:
    return f"--- [{source.header}] ---\n{source.text}"


def build_answer(
    question: str, hits: list[Hit], limit: int = 5, base_prompt: str = BASE_PROMPT
) -> Answer:
    """Split hits into document sources and memories (at most `limit` of each)
    and build both prompts. Headings and document titles are not evidence:
    their chunks are."""
    sources = [source_of(h) for h in hits if h.node.context_type == CHUNK][:limit]
    skip = (CHUNK, SECTION, DOCUMENT)
    memories = [h for h in hits if h.node.context_type not in skip][:limit]
    noted = "\n".join(f"- {h.node.text}" for h in memories)
    blocks = [_block(s) for s in sources]
    parts = [base_prompt]
    if memories:
        parts.append(f"## Memory\n{noted}")
    if sources:
        parts.append("## Relevant documents\n" + "\n\n".join(blocks))
    # The standalone prompt carries the same evidence in the user message.
    if memories:
        blocks.append(f"--- [memory] ---\n{noted}")
    user = "\n\n".join([*blocks, f"---\nQuestion: {question}"]) if blocks else question
    return Answer(
        question,
        "\n\n".join(parts),
        [{"role": "system", "content": base_prompt}, {"role": "user", "content": user}],
        sources,
        memories,
    )
