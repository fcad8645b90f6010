"""A local stand-in for the chat model (the only paid remote API here): an HTTP server on
127.0.0.1 that replays hand-authored answers in the shape OpenAI-compatible servers send
(tests/fixtures), and keeps every request it was sent."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


class ChatStub:
    def __init__(self) -> None:
        self.requests: List[Dict[str, Any]] = []
        self.completion = json.loads((FIXTURES / "chat-completion.json").read_text("utf-8"))
        self.stream = (FIXTURES / "chat-completion-stream.sse").read_text("utf-8")
        self.response = json.loads((FIXTURES / "response.json").read_text("utf-8"))
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                stub.requests.append({"path": self.path, "body": body})
                if self.path.endswith("/chat/completions") and body.get("stream"):
                    self._send(200, "text/event-stream", stub.stream.encode("utf-8"))
                elif self.path.endswith("/chat/completions"):
                    self._send(200, "application/json", json.dumps(stub.completion).encode("utf-8"))
                elif self.path.endswith("/responses"):
                    self._send(200, "application/json", json.dumps(stub.response).encode("utf-8"))
                else:
                    self._send(404, "application/json", b'{"error":{"message":"not served by the stub"}}')

            def _send(self, status: int, content_type: str, payload: bytes) -> None:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def reply(self) -> str:
        """The text of the non-streamed answer."""
        return self.completion["choices"][0]["message"]["content"]

    @property
    def streamed_reply(self) -> str:
        chunks = [json.loads(line[6:]) for line in self.stream.splitlines() if line.startswith("data: {")]
        return "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])

    def messages(self, index: int = 0) -> List[Dict[str, Any]]:
        """The messages of the ``index``-th chat-completions request."""
        chats = [r for r in self.requests if r["path"].endswith("/chat/completions")]
        return chats[index]["body"]["messages"]

    def reset(self) -> None:
        self.requests.clear()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
