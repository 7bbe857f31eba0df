"""The HTTP API (FastAPI) over one `Memory`: `create_app`, and `serve` to run it.

Needs the `server` extra (`pip install 'mnemotree[server]'`)."""

from .app import create_app

__all__ = ["create_app"]
