"""The engine's fixed vocabularies, in a module that imports nothing, so a
command line can offer them as choices without loading the engine."""

from __future__ import annotations

# Kinds of typed memory, with the importance a new one starts at.
DEFAULT_IMPORTANCE = {
    "fact": 0.5,
    "decision": 0.7,
    "preference": 0.6,
    "entity": 0.5,
    "procedure": 0.5,
    "constraint": 0.6,
    "goal": 0.8,
    "action": 0.7,
    "episode": 0.5,
    "pattern": 0.5,
    "workflow": 0.5,
}
MEMORY_TYPES = tuple(DEFAULT_IMPORTANCE)
RELATION_TYPES = ("related_to", "depends_on", "contradicts", "supersedes", "derived_from")
# The tag of a standing instruction to the assistant ("keep answers short"):
# a preference every task given to the assistant is carried out under.
INSTRUCTION_TAG = "instruction"
# Node types of a chat: a session and its messages.
SESSION_TYPE = "chat_session"
MESSAGE_TYPE = "message"
CHAT_ROLES = ("user", "assistant", "system", "tool")
SESSION_STATUSES = ("active", "paused", "ended")
CONSOLIDATION_STEPS = (
    "decay",
    "dedupe",
    "summarise",
    "compress",
    "refresh",
    "promote",
    "demote",
    "forget",
    "merge",
    "link",
    "contradiction",
    "patterns",
)
# How a person settles a contradiction.
RESOLUTIONS = ("a_wins", "b_wins", "both_valid", "merged")
