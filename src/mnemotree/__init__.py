"""mnemotree: a memory engine for LLM applications, built on one tree of nodes."""

from .errors import (
    AlreadyExists,
    InvalidInput,
    InvalidOperation,
    MissingExtra,
    MnemotreeError,
    NotFound,
    ProviderError,
    SchemaError,
    ScopeDenied,
    StorageError,
)
from .memory import Memory
from .model import NewNode, Node, NodeVersion, SerializeMode

__all__ = [
    "AlreadyExists",
    "InvalidInput",
    "InvalidOperation",
    "Memory",
    "MissingExtra",
    "MnemotreeError",
    "NewNode",
    "Node",
    "NodeVersion",
    "NotFound",
    "ProviderError",
    "SchemaError",
    "ScopeDenied",
    "SerializeMode",
    "StorageError",
]

__version__ = "0.1.0"
