"""mnemotree: a memory engine for LLM applications, built on one tree of nodes.

Names are imported when first used (`mnemotree.Memory` loads the engine;
`mnemotree.InvalidInput` only the errors), so a command that needs little
starts fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .activity.events import Activity, Detected
    from .async_memory import AsyncMemory
    from .client import AsyncClient, Client, RemoteContext, RemoteHit
    from .config import (
        ENV_DB,
        ENV_EMBEDDER,
        ENV_HOST,
        ENV_LLM,
        ENV_PORT,
        default_db_path,
        default_location,
    )
    from .consolidate.consolidation import Consolidation
    from .consolidate.judge import Judge
    from .consolidate.plan import Action, Plan, Run
    from .consolidate.promote import Promotion
    from .consolidate.schedule import Schedule
    from .context.assemble import Context
    from .context.predict import Prediction
    from .context.signals import ACTIVITIES
    from .context.usage import UsageReport
    from .context.working import WorkingMemory
    from .conversation.chat import CaptureReport, Chat
    from .conversation.retention import PruneReport, Retention
    from .embed import Embedder, get_embedder, register_embedder
    from .errors import (
        AlreadyExists,
        InvalidInput,
        InvalidOperation,
        MissingExtra,
        MnemotreeError,
        NotFound,
        ParseError,
        ProviderError,
        SchemaError,
        ScopeDenied,
        StorageError,
        Unauthorized,
    )
    from .exchange.erasure import PurgeReport
    from .exchange.importers import ImportReport
    from .exchange.transfer import Exchange
    from .ingest.documents import GENERATED_FILES, Documents
    from .ingest.limits import IngestLimits
    from .ingest.pattern_memory import CodePatterns, PatternReport
    from .ingest.pipeline import DocumentInfo, FileResult, IngestReport
    from .ingest.plan import DocChunk
    from .jsonlimits import check_json, parse_json
    from .keys import EVERY_SCOPE, ApiKeys, allowed_scopes
    from .llm import LLM, LLMSettings, get_llm, register_llm
    from .memory import Memory
    from .model import (
        DEFAULT_SCOPE,
        NewNode,
        Node,
        NodeVersion,
        SerializeMode,
        clean_scope,
        clean_scopes,
    )
    from .nli import NLI, NLIScores, OnnxNLI
    from .rag import Answer, Source
    from .retrieval.hits import Hit
    from .store import CapturedRow, ContradictionRow, KeyRow, RelationRow, StoreStats
    from .structured.memories import TypedMemories
    from .structured.path_memory import Entry, PathMemory
    from .structured.tools import TOOLS as PATH_TOOLS
    from .structured.tools import dispatch as call_path_tool
    from .structured.typed import TypedMemory, action_state
    from .telemetry import DURATION_BUCKETS, Histogram, Histograms, operation_durations
    from .vocabulary import (
        CHAT_ROLES,
        CONSOLIDATION_STEPS,
        MEMORY_TYPES,
        RELATION_TYPES,
        RESOLUTIONS,
        SESSION_STATUSES,
    )

# Each exported name: (the module defining it, its name there).
_EXPORTS: dict[str, tuple[str, str]] = {
    "AsyncMemory": (".async_memory", "AsyncMemory"),
    "AsyncClient": (".client", "AsyncClient"),
    "Client": (".client", "Client"),
    "RemoteContext": (".client", "RemoteContext"),
    "RemoteHit": (".client", "RemoteHit"),
    "DURATION_BUCKETS": (".telemetry", "DURATION_BUCKETS"),
    "Histogram": (".telemetry", "Histogram"),
    "Histograms": (".telemetry", "Histograms"),
    "operation_durations": (".telemetry", "operation_durations"),
    "ACTIVITIES": (".context.signals", "ACTIVITIES"),
    "Action": (".consolidate.plan", "Action"),
    "Activity": (".activity.events", "Activity"),
    "AlreadyExists": (".errors", "AlreadyExists"),
    "Answer": (".rag", "Answer"),
    "ApiKeys": (".keys", "ApiKeys"),
    "CHAT_ROLES": (".vocabulary", "CHAT_ROLES"),
    "CONSOLIDATION_STEPS": (".vocabulary", "CONSOLIDATION_STEPS"),
    "CaptureReport": (".conversation.chat", "CaptureReport"),
    "CapturedRow": (".store", "CapturedRow"),
    "Chat": (".conversation.chat", "Chat"),
    "CodePatterns": (".ingest.pattern_memory", "CodePatterns"),
    "Consolidation": (".consolidate.consolidation", "Consolidation"),
    "Context": (".context.assemble", "Context"),
    "Detected": (".activity.events", "Detected"),
    "ContradictionRow": (".store", "ContradictionRow"),
    "DEFAULT_SCOPE": (".model", "DEFAULT_SCOPE"),
    "DocChunk": (".ingest.plan", "DocChunk"),
    "DocumentInfo": (".ingest.pipeline", "DocumentInfo"),
    "Documents": (".ingest.documents", "Documents"),
    "GENERATED_FILES": (".ingest.documents", "GENERATED_FILES"),
    "ENV_DB": (".config", "ENV_DB"),
    "ENV_EMBEDDER": (".config", "ENV_EMBEDDER"),
    "ENV_HOST": (".config", "ENV_HOST"),
    "ENV_LLM": (".config", "ENV_LLM"),
    "ENV_PORT": (".config", "ENV_PORT"),
    "EVERY_SCOPE": (".keys", "EVERY_SCOPE"),
    "Embedder": (".embed", "Embedder"),
    "Entry": (".structured.path_memory", "Entry"),
    "Exchange": (".exchange.transfer", "Exchange"),
    "FileResult": (".ingest.pipeline", "FileResult"),
    "Hit": (".retrieval.hits", "Hit"),
    "ImportReport": (".exchange.importers", "ImportReport"),
    "IngestLimits": (".ingest.limits", "IngestLimits"),
    "IngestReport": (".ingest.pipeline", "IngestReport"),
    "InvalidInput": (".errors", "InvalidInput"),
    "InvalidOperation": (".errors", "InvalidOperation"),
    "Judge": (".consolidate.judge", "Judge"),
    "KeyRow": (".store", "KeyRow"),
    "LLM": (".llm", "LLM"),
    "LLMSettings": (".llm", "LLMSettings"),
    "MEMORY_TYPES": (".vocabulary", "MEMORY_TYPES"),
    "action_state": (".structured.typed", "action_state"),
    "Memory": (".memory", "Memory"),
    "MissingExtra": (".errors", "MissingExtra"),
    "MnemotreeError": (".errors", "MnemotreeError"),
    "NLI": (".nli", "NLI"),
    "NLIScores": (".nli", "NLIScores"),
    "NewNode": (".model", "NewNode"),
    "Node": (".model", "Node"),
    "NodeVersion": (".model", "NodeVersion"),
    "NotFound": (".errors", "NotFound"),
    "OnnxNLI": (".nli", "OnnxNLI"),
    "PATH_TOOLS": (".structured.tools", "TOOLS"),
    "ParseError": (".errors", "ParseError"),
    "PathMemory": (".structured.path_memory", "PathMemory"),
    "PatternReport": (".ingest.pattern_memory", "PatternReport"),
    "Plan": (".consolidate.plan", "Plan"),
    "Prediction": (".context.predict", "Prediction"),
    "Promotion": (".consolidate.promote", "Promotion"),
    "ProviderError": (".errors", "ProviderError"),
    "PruneReport": (".conversation.retention", "PruneReport"),
    "PurgeReport": (".exchange.erasure", "PurgeReport"),
    "RELATION_TYPES": (".vocabulary", "RELATION_TYPES"),
    "RESOLUTIONS": (".vocabulary", "RESOLUTIONS"),
    "RelationRow": (".store", "RelationRow"),
    "Retention": (".conversation.retention", "Retention"),
    "Run": (".consolidate.plan", "Run"),
    "SESSION_STATUSES": (".vocabulary", "SESSION_STATUSES"),
    "Schedule": (".consolidate.schedule", "Schedule"),
    "SchemaError": (".errors", "SchemaError"),
    "ScopeDenied": (".errors", "ScopeDenied"),
    "SerializeMode": (".model", "SerializeMode"),
    "Source": (".rag", "Source"),
    "StorageError": (".errors", "StorageError"),
    "StoreStats": (".store", "StoreStats"),
    "TypedMemories": (".structured.memories", "TypedMemories"),
    "TypedMemory": (".structured.typed", "TypedMemory"),
    "Unauthorized": (".errors", "Unauthorized"),
    "UsageReport": (".context.usage", "UsageReport"),
    "WorkingMemory": (".context.working", "WorkingMemory"),
    "allowed_scopes": (".keys", "allowed_scopes"),
    "call_path_tool": (".structured.tools", "dispatch"),
    "check_json": (".jsonlimits", "check_json"),
    "clean_scope": (".model", "clean_scope"),
    "clean_scopes": (".model", "clean_scopes"),
    "default_db_path": (".config", "default_db_path"),
    "default_location": (".config", "default_location"),
    "get_embedder": (".embed", "get_embedder"),
    "get_llm": (".llm", "get_llm"),
    "parse_json": (".jsonlimits", "parse_json"),
    "register_embedder": (".embed", "register_embedder"),
    "register_llm": (".llm", "register_llm"),
}

__all__ = [
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

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    try:
        module, original = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'mnemotree' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module, __name__), original)
    globals()[name] = value  # asked once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
