"""The TypeScript client's type generator, a script beside the client (not a
package module), loaded from its file for the tests that use its lists."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

PACKAGE = Path(__file__).resolve().parent.parent / "clients" / "typescript"
GENERATOR = PACKAGE / "generate_types.py"


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate_types", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
