"""mnemotree: a memory engine for LLM applications, built on one tree of nodes."""

from .errors import (
    AlreadyExists,
    InvalidInput,
    InvalidOperation,
    MissingExtra,
    MnemotreeError,
    NotFound,
    SchemaError,
    ScopeDenied,
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
    "SchemaError",
    "ScopeDenied",
    "SerializeMode",
]

__version__ = "0.1.0"
