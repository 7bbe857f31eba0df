"""What `mnemotree` exports is what a user needs: every type a `Memory`
method returns can be named from the package (as httpx pins its exports)."""

from __future__ import annotations

import inspect
import typing
from pathlib import Path

import mnemotree
from mnemotree import Memory


def _our_classes(hint: object) -> set[type]:
    found: set[type] = set()
    ours = inspect.isclass(hint) and hint.__module__.startswith("mnemotree")
    if typing.get_origin(hint) is None and ours:
        found.add(hint)  # type: ignore[arg-type]
    for argument in typing.get_args(hint):
        found |= _our_classes(argument)
    return found


def test_every_export_is_there_once() -> None:
    names = mnemotree.__all__
    assert len(names) == len(set(names))
    for name in names:
        assert getattr(mnemotree, name) is not None, name


PARTS = (
    Memory,
    mnemotree.Chat,
    mnemotree.Documents,
    mnemotree.TypedMemories,
    mnemotree.Consolidation,
    mnemotree.ApiKeys,
    mnemotree.Exchange,
    mnemotree.PathMemory,
    mnemotree.Activity,
    mnemotree.CodePatterns,
)


def test_every_type_a_memory_method_returns_is_exported() -> None:
    """Memory's methods, its parts' (mem.chat, ...), and what they return."""
    missing: dict[str, list[str]] = {}
    for part in PARTS:
        for name, method in inspect.getmembers(part, callable):
            if name.startswith("_") or getattr(method, "__module__", "") == "typing":
                continue
            hints = typing.get_type_hints(method) if inspect.isfunction(method) else {}
            for cls in _our_classes(hints.get("return")):
                if getattr(mnemotree, cls.__name__, None) is not cls:
                    missing.setdefault(cls.__name__, []).append(f"{part.__name__}.{name}")
    assert missing == {}


def test_every_part_of_a_memory_is_exported(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", llm="offline") as mem:
        for name in (
            "chat",
            "docs",
            "typed",
            "consolidation",
            "keys",
            "exchange",
            "activity",
            "code",
        ):
            part = type(getattr(mem, name))
            assert getattr(mnemotree, part.__name__) is part, name


# Changing what the package exports is a decision: this pin makes it a visible one.
EXPORTED = [
    "ACTIVITIES",
    "CHAT_ROLES",
    "CONSOLIDATION_STEPS",
    "DEFAULT_SCOPE",
    "DURATION_BUCKETS",
    "ENV_DB",
    "ENV_EMBEDDER",
    "ENV_HOST",
    "ENV_LLM",
    "ENV_PORT",
    "EVERY_SCOPE",
    "GENERATED_FILES",
    "LLM",
    "MEMORY_TYPES",
    "NLI",
    "PATH_TOOLS",
    "RELATION_TYPES",
    "RESOLUTIONS",
    "SESSION_STATUSES",
    "Action",
    "Activity",
    "AlreadyExists",
    "Answer",
    "ApiKeys",
    "AsyncClient",
    "AsyncMemory",
    "CaptureReport",
    "CapturedRow",
    "Chat",
    "Client",
    "CodePatterns",
    "Consolidation",
    "Context",
    "ContradictionRow",
    "Detected",
    "DocChunk",
    "DocumentInfo",
    "Documents",
    "Embedder",
    "Entry",
    "Exchange",
    "FileResult",
    "Histogram",
    "Histograms",
    "Hit",
    "ImportReport",
    "IngestLimits",
    "IngestReport",
    "InvalidInput",
    "InvalidOperation",
    "Judge",
    "KeyRow",
    "LLMSettings",
    "Memory",
    "MissingExtra",
    "MnemotreeError",
    "NLIScores",
    "NewNode",
    "Node",
    "NodeVersion",
    "NotFound",
    "OnnxNLI",
    "ParseError",
    "PathMemory",
    "PatternReport",
    "Plan",
    "Prediction",
    "Promotion",
    "ProviderError",
    "PruneReport",
    "PurgeReport",
    "RelationRow",
    "RemoteContext",
    "RemoteHit",
    "Retention",
    "Run",
    "Schedule",
    "SchemaError",
    "ScopeDenied",
    "SerializeMode",
    "Source",
    "StorageError",
    "StoreStats",
    "TypedMemories",
    "TypedMemory",
    "Unauthorized",
    "UsageReport",
    "WorkingMemory",
    "action_state",
    "allowed_scopes",
    "call_path_tool",
    "check_json",
    "clean_scope",
    "clean_scopes",
    "default_db_path",
    "default_location",
    "get_embedder",
    "get_llm",
    "operation_durations",
    "parse_json",
    "register_embedder",
    "register_llm",
]


def test_exports_are_pinned_and_sorted() -> None:
    assert mnemotree.__all__ == EXPORTED
    order = sorted(EXPORTED, key=lambda n: (0 if n.isupper() else 1 if n[0].isupper() else 2, n))
    assert order == EXPORTED  # constants, then classes, then functions (as ruff sorts)
