"""mnemotree: a memory engine for LLM applications, built on one tree of nodes."""

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
from .consolidate.contradictions import RESOLUTIONS
from .consolidate.judge import Judge
from .consolidate.plan import STEPS as CONSOLIDATION_STEPS
from .consolidate.plan import Action, Plan, Run
from .consolidate.schedule import Schedule
from .context.assemble import Context
from .context.predict import Prediction
from .context.signals import ACTIVITIES
from .context.usage import UsageReport
from .context.working import WorkingMemory
from .conversation.chat import CaptureReport, Chat
from .conversation.retention import PruneReport, Retention
from .conversation.session import ROLES as CHAT_ROLES
from .conversation.session import STATUSES as SESSION_STATUSES
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
from .ingest.documents import Documents
from .ingest.limits import IngestLimits
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
from .structured.typed import RELATIONS as RELATION_TYPES
from .structured.typed import TYPES as MEMORY_TYPES
from .structured.typed import TypedMemory

__all__ = [
    "ACTIVITIES",
    "CHAT_ROLES",
    "CONSOLIDATION_STEPS",
    "DEFAULT_SCOPE",
    "ENV_DB",
    "ENV_EMBEDDER",
    "ENV_HOST",
    "ENV_LLM",
    "ENV_PORT",
    "EVERY_SCOPE",
    "LLM",
    "MEMORY_TYPES",
    "NLI",
    "PATH_TOOLS",
    "RELATION_TYPES",
    "RESOLUTIONS",
    "SESSION_STATUSES",
    "Action",
    "AlreadyExists",
    "Answer",
    "ApiKeys",
    "CaptureReport",
    "CapturedRow",
    "Chat",
    "Consolidation",
    "Context",
    "ContradictionRow",
    "DocChunk",
    "DocumentInfo",
    "Documents",
    "Embedder",
    "Entry",
    "Exchange",
    "FileResult",
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
    "Plan",
    "Prediction",
    "ProviderError",
    "PruneReport",
    "PurgeReport",
    "RelationRow",
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
    "allowed_scopes",
    "call_path_tool",
    "check_json",
    "clean_scope",
    "clean_scopes",
    "default_db_path",
    "default_location",
    "get_embedder",
    "get_llm",
    "parse_json",
    "register_embedder",
    "register_llm",
]

__version__ = "0.1.0"
