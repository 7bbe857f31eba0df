"""A real HTTP server on 127.0.0.1 that speaks the OpenAI embeddings and chat
completions APIs with scripted replies, for tests."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def vector_of(text: str, dimensions: int) -> list[float]:
    """Deterministic, and texts sharing words get close vectors (bag of hashed words)."""
    out = [0.0] * dimensions
    for word in text.lower().split():
        digest = hashlib.sha256(word.encode()).digest()
        out[digest[0] % dimensions] += 1.0 + digest[1] / 255
    return out


@dataclass
class Reply:
    """One scripted chat reply: assistant text, or an HTTP status, after a delay."""

    text: str | None = None
    status: int = 200
    delay: float = 0.0
    raw: object = None  # a body to send as it is


@dataclass
class Script:
    dimensions: int = 16
    fail_with: int | None = None  # an HTTP status to answer instead
    raw_reply: object = None  # a 200 reply to send as it is (str: as text, else JSON)
    requests: list[dict[str, Any]] = field(default_factory=list)
    chat: list[Reply | str] = field(default_factory=list)  # replies, first first

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["path"].endswith("/chat/completions")]


@contextmanager
def openai_server(script: Script) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            script.requests.append({"path": self.path, **body})
            if self.path.endswith("/chat/completions"):
                self._chat(body)
                return
            if script.fail_with is not None:
                self._reply(script.fail_with, {"error": {"message": "scripted failure"}})
                return
            if script.raw_reply is not None:
                self._reply(200, script.raw_reply)
                return
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            data = [
                {"object": "embedding", "index": i, "embedding": vector_of(t, script.dimensions)}
                for i, t in reversed(list(enumerate(texts)))  # out of order on purpose
            ]
            self._reply(
                200,
                {
                    "object": "list",
                    "data": data,
                    "model": body["model"],
                    "usage": {"prompt_tokens": 1, "total_tokens": 1},
                },
            )

        def _chat(self, body: dict[str, Any]) -> None:
            reply = script.chat.pop(0) if script.chat else Reply(status=500)
            if isinstance(reply, str):
                reply = Reply(reply)
            time.sleep(reply.delay)
            if reply.raw is not None:
                self._reply(reply.status, reply.raw)
            elif reply.status != 200:
                self._reply(reply.status, {"error": {"message": f"scripted {reply.status}"}})
            else:
                message = {"role": "assistant", "content": reply.text}
                self._reply(
                    200,
                    {
                        "id": "chatcmpl-test",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", ""),
                        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    },
                )

        def _reply(self, status: int, payload: object) -> None:
            text = isinstance(payload, str)
            raw = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "text/html" if text else "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test): nothing to answer

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
