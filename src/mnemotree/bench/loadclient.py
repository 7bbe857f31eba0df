"""A lean HTTP/1.1 client for load generation: one keep-alive connection,
requests written as bytes, responses read by Content-Length.

A general client (httpx) spent ~4 ms of CPU per request here, so on two
shared cores the load generator took a third of the machine from the server
it measured. This one does only what the benchmark needs.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any


class LoadConnection:
    """One connection to `host:port`, sending requests one after another."""

    def __init__(self, host: str, port: int, headers: dict[str, str]) -> None:
        self.host, self.port = host, port
        fixed = {"host": f"{host}:{port}", "content-type": "application/json", **headers}
        self._head = "".join(f"{k}: {v}\r\n" for k, v in fixed.items())
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        return self._reader, self._writer

    async def post(self, path: str, body: Any) -> tuple[int, bytes]:
        """POST `body` as JSON; returns the status and the response body."""
        payload = json.dumps(body).encode()
        request = (
            f"POST {path} HTTP/1.1\r\n{self._head}content-length: {len(payload)}\r\n\r\n"
        ).encode() + payload
        reader, writer = await self._open()
        try:
            writer.write(request)
            return await _response(reader)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            await self.close()  # the next request opens a fresh connection
            raise

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None


async def _response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    length = None
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length is None:
        raise ValueError(f"a response without content-length: {lines[0]!r}")
    return status, await reader.readexactly(length)
