"""What an update to a path entry takes back (a path update, the living-memory design's
contradiction by update): values it changes or removes. Added keys, appended
list items and text that extends the old text are additions, not changes."""

from __future__ import annotations

from typing import Any

MAX_SHOWN = 60


def changed_values(old: Any, new: Any, where: str = "") -> list[str]:
    """Each value of `old` that `new` changes or removes, as "where: old then new"."""
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key, value in old.items():
            inner = f"{where}.{key}" if where else str(key)
            if key not in new:
                found.append(f"{inner}: {_shown(value)} removed")
            else:
                found.extend(changed_values(value, new[key], inner))
        return found
    if isinstance(old, list) and isinstance(new, list):
        gone = [item for item in old if item not in new]
        return [f"{where or 'list'}: {_shown(item)} removed" for item in gone]
    if isinstance(old, str) and isinstance(new, str) and _norm(old) in _norm(new):
        return []  # the same words, or more of them
    if old == new and type(old) is type(new):
        return []
    return [f"{where or 'value'}: {_shown(old)} then {_shown(new)}"]


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."
