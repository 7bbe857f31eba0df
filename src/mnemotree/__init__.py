"""mnemotree: a memory engine for LLM applications, built on one tree of nodes."""

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
from .memory_purge import PurgeReport
from .model import NewNode, Node, NodeVersion, SerializeMode
from .nli import NLI, NLIScores, OnnxNLI
from .rag import Answer, Source

__all__ = [
    "NLI",
    "AlreadyExists",
    "Answer",
    "DocChunk",
    "DocumentInfo",
    "FileResult",
    "ImportReport",
    "IngestLimits",
    "IngestReport",
    "InvalidInput",
    "InvalidOperation",
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
    "ProviderError",
    "PurgeReport",
    "SchemaError",
    "ScopeDenied",
    "SerializeMode",
    "Source",
    "StorageError",
    "Unauthorized",
]

__version__ = "0.1.0"
