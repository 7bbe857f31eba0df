"""mnemotree: a memory engine for LLM applications, built on one tree of nodes."""

from .consolidate.plan import Plan, Run
from .consolidate.schedule import Schedule
from .context.assemble import Context
from .context.predict import Prediction
from .context.usage import UsageReport
from .context.working import WorkingMemory
from .conversation.retention import PruneReport
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
from .exchange.importers import ImportReport
from .ingest.limits import IngestLimits
from .ingest.pipeline import DocumentInfo, FileResult, IngestReport
from .ingest.plan import DocChunk
from .memory import Memory
from .memory_chat import CaptureReport
from .memory_purge import PurgeReport
from .model import NewNode, Node, NodeVersion, SerializeMode
from .nli import NLI, NLIScores, OnnxNLI
from .rag import Answer, Source
from .retrieval.hits import Hit
from .store import CapturedRow, ContradictionRow, KeyRow, RelationRow, StoreStats
from .structured.paths import PathMemory
from .structured.typed import TypedMemory

__all__ = [
    "NLI",
    "AlreadyExists",
    "Answer",
    "CaptureReport",
    "CapturedRow",
    "Context",
    "ContradictionRow",
    "DocChunk",
    "DocumentInfo",
    "FileResult",
    "Hit",
    "ImportReport",
    "IngestLimits",
    "IngestReport",
    "InvalidInput",
    "InvalidOperation",
    "KeyRow",
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
    "Run",
    "Schedule",
    "SchemaError",
    "ScopeDenied",
    "SerializeMode",
    "Source",
    "StorageError",
    "StoreStats",
    "TypedMemory",
    "Unauthorized",
    "UsageReport",
    "WorkingMemory",
]

__version__ = "0.1.0"
