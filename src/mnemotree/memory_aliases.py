"""The flat names `Memory` had before its parts became nouns, kept for one
release: each still works, and warns with the new name (`mem.add_message`
is now `mem.chat.add_message`). They are attached at import time of
`mnemotree.memory` and invisible to type checkers, so new code cannot
start using them.
"""

from __future__ import annotations

import warnings
from typing import Any

# old name -> (part, name there)
MOVED: dict[str, tuple[str, str]] = {
    **{
        name: ("chat", name)
        for name in (
            "start_session",
            "sessions",
            "session",
            "session_turns",
            "set_session_status",
            "add_milestone",
            "add_message",
            "session_messages",
            "build_message_list",
            "wait_for_chat",
            "capture",
            "captured",
            "promote",
            "dismiss",
            "note",
            "clear_memory_log",
            "prune",
            "daily_log",
            "memory_log",
        )
    },
    **{
        name: ("typed", name)
        for name in (
            "fact",
            "episode",
            "pattern",
            "workflow",
            "relate",
            "relations",
            "memories",
            "memory",
            "render",
            "narrative_arc",
        )
    },
    **{
        name: ("consolidation", name)
        for name in (
            "contradictions",
            "updates",
            "revert_update",
            "resolve",
            "apply",
            "undo",
            "runs",
            "archive",
            "unarchive",
            "archived",
        )
    },
    "get_contradiction": ("consolidation", "contradiction"),
    "consolidate": ("consolidation", "run"),
    "schedule_consolidation": ("consolidation", "schedule"),
    "create_key": ("keys", "create"),
    "api_keys": ("keys", "list"),
    "revoke_key": ("keys", "revoke"),
    "verify_key": ("keys", "verify"),
    "check_key": ("keys", "check"),
    "cached_key": ("keys", "cached"),
    "shared_scopes": ("keys", "shared_scopes"),
    "share_scope": ("keys", "share_scope"),
    "documents": ("docs", "list"),
    "forget_document": ("docs", "forget"),
    **{
        name: ("exchange", name)
        for name in (
            "export_markdown",
            "import_markdown",
            "export_jsonl",
            "import_jsonl",
            "import_from",
            "import_notes",
        )
    },
}
# Settings that moved: read and written through the part.
MOVED_SETTINGS: dict[str, tuple[str, str]] = {
    "scan_on_write": ("consolidation", "scan_on_write"),
    "judge_on_write": ("consolidation", "judge_on_write"),
    "half_life_days": ("typed", "half_life_days"),
}


def _warn(old: str, part: str, new: str) -> None:
    warnings.warn(
        f"Memory.{old} is now Memory.{part}.{new}; the old name goes in the next release",
        DeprecationWarning,
        stacklevel=3,
    )


def _method(old: str, part: str, new: str) -> Any:
    def moved(self: Any, *args: Any, **kwargs: Any) -> Any:
        _warn(old, part, new)
        return getattr(getattr(self, part), new)(*args, **kwargs)

    moved.__name__ = old
    moved.__doc__ = f"Deprecated: use `{part}.{new}`."
    return moved


def _setting(old: str, part: str, new: str) -> property:
    def read(self: Any) -> Any:
        _warn(old, part, new)
        return getattr(getattr(self, part), new)

    def write(self: Any, value: Any) -> None:
        _warn(old, part, new)
        setattr(getattr(self, part), new, value)

    return property(read, write, doc=f"Deprecated: use `{part}.{new}`.")


def attach(cls: type) -> None:
    """Give `cls` (Memory) the old names, each forwarding to its part."""
    for old, (part, new) in MOVED.items():
        setattr(cls, old, _method(old, part, new))
    for old, (part, new) in MOVED_SETTINGS.items():
        setattr(cls, old, _setting(old, part, new))
