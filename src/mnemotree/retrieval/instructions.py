"""A task given to the assistant is carried out under the user's standing
instructions ("keep your answers short", "use metric units", "TypeScript
for code"), so they join the task's hits whatever its words.

"What should I pack for a weekend of camping?" shares nothing with "put
your answers in bullet points", yet an assistant that answers it without
that instruction has forgotten the user. A question about the past ("what
did I ask you to...") is no task: it is searched for its words as any other.
The instructions come after the task's best few matches (the topic first),
the closest in meaning first, at most a few of them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..model import Node, NodeFilter
from ..store import Memories
from ..vocabulary import INSTRUCTION_TAG
from .hits import Hit

INSTRUCTED_AFTER = 3  # a task's best matches before its standing instructions
MOST_INSTRUCTIONS = 3
STANDING_READ = 50  # standing instructions read per task (newest first)
INSTRUCTION = "instruction"  # the score part that marks a joined instruction
PREFERENCE = "preference"  # the memory type of a standing instruction
# How a request to the assistant opens: asked ("can you", "please"), or
# told ("give me", "write", "plan", "what should I...").
_TASK = re.compile(
    r"^\W*(?:(?:hey|hi|ok|okay|so|now)\W+)?"
    r"(?:(?:can|could|would|will) you|please|pls|help me|i need (?:a|an|some|help|ideas|tips|"
    r"advice)|i'?d like|i want (?:a|an|some|you)|what should i|how should i|how do i|"
    r"give me|show me|tell me|write|draft|plan|make|create|suggest|recommend|explain|list|"
    r"summari[sz]e|translate|find|compose|generate|outline|describe|compare|prepare|"
    r"design|put together|come up with|walk me through)\b",
    re.I,
)


def is_task(text: str) -> bool:
    """Whether a query asks the assistant to do something now."""
    return bool(_TASK.match(text.strip()))


def standing_instructions(store: Memories, where: NodeFilter) -> list[Node]:
    """The standing instructions a search in `where` may see (newest first),
    none when it was narrowed to some roots, kinds or tags that leave them out."""
    narrowed = where.context_types and PREFERENCE not in where.context_types
    if where.roots or where.tags or narrowed:
        return []
    asked = replace(where, context_types=(), tags=(INSTRUCTION_TAG,))
    return store.typed_nodes((PREFERENCE,), asked, STANDING_READ)


def with_instructions(
    top: Sequence[Hit], standing: Sequence[Node], closeness: Mapping[str, float], limit: int
) -> list[Hit]:
    """`top` with the closest `standing` instructions it lacks placed after
    its best INSTRUCTED_AFTER hits, scored as the hit before them, cut to
    `limit`."""
    shown = {h.node.id for h in top}
    chosen = sorted(
        (n for n in standing if n.id not in shown),
        key=lambda n: (-closeness.get(n.id, 0.0), n.id),
    )[:MOST_INSTRUCTIONS]
    if not chosen:
        return list(top)
    at = min(INSTRUCTED_AFTER, len(top))
    score = top[at - 1].score if at else 1.0
    joined = [Hit(n, score, [], {INSTRUCTION: 1.0}) for n in chosen]
    return [*top[:at], *joined, *top[at:]][:limit]
