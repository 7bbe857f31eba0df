"""Prompts that answer from memory and documents, with citations (the documents-and-chat design).

`build_answer` turns search hits into the memory system prompt (base prompt,
`## Memory`, `## Relevant documents` with `--- [file > section, p. X] ---`
headers, one per section and pages, over all its chunks) and the standalone
RAG prompt (sources in the user message, then the question). A memory that
repeats a document's text is left out: the document says it, with its
source. Calling an LLM with them is the caller's choice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .context.dedupe import Seen
from .retrieval.hits import CHUNK, DOCUMENT, SECTION, Citation
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
    header: str  # "file > section > subsection, p. X": where it is, as cited
    file: str
    text: str
    score: float
    page_start: int | None = None
    page_end: int | None = None
    section: list[str] = field(default_factory=list)
    path: str = ""  # the file as it was read
    title: str = ""  # the document's title

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.node_id,
            "header": self.header,
            "file": self.file,
            "path": self.path,
            "title": self.title,
            "page_start": self.page_start,
            "page_end": self.page_end,
            "section": self.section,
            "score": round(self.score, 6),
            "text": self.text,
        }


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
    cited = hit.citation() or Citation("", hit.node.context_name)
    pages = cited.pages
    header = cited.location or cited.breadcrumb() + (f", {pages}" if pages else "")
    return Source(
        hit.node.id,
        header,
        cited.file or cited.title,
        hit.node.text,
        hit.score,
        cited.page_start,
        cited.page_end,
        list(cited.section),
        cited.path,
        cited.title,
    )


def _blocks(sources: list[Source]) -> list[str]:
    """A block per header: chunks of one section and pages share it."""
    grouped: dict[str, list[str]] = {}
    for source in sources:
        grouped.setdefault(source.header, []).append(source.text)
    return [f"--- [{header}] ---\n" + "\n\n".join(texts) for header, texts in grouped.items()]


def build_answer(
    question: str, hits: list[Hit], limit: int = 5, base_prompt: str = BASE_PROMPT
) -> Answer:
    """Split hits into document sources and memories (at most `limit` of each)
    and build both prompts. Headings and document titles are not evidence:
    their chunks are."""
    sources = [source_of(h) for h in hits if h.node.context_type == CHUNK][:limit]
    seen: Seen[str] = Seen()
    for source in sources:
        seen.keep(source.text, source.node_id)
    memories: list[Hit] = []
    for hit in hits:
        if hit.node.context_type in (CHUNK, SECTION, DOCUMENT) or len(memories) == limit:
            continue
        repeated = seen.match(hit.node.text)
        if repeated is None or repeated[1]:  # new, or saying more than what it holds
            seen.keep(hit.node.text, hit.node.id)
            memories.append(hit)
    noted = "\n".join(f"- {h.node.text}" for h in memories)
    blocks = _blocks(sources)
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
