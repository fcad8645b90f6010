"""Fixtures every test shares: one real engram for the session (a tenant key per test), the
chat-model stub, and the two clients (``Engram``, ``AsyncEngram``) behind one awaitable face so the
same test runs against both."""

from __future__ import annotations

import inspect
import json
import os
from typing import Any, AsyncIterator, Callable, Dict, Iterator, List

import httpx
import pytest

from engram_client import AsyncEngram, Engram

from .support.chat_stub import ChatStub
from .support.engram_server import EngramServer, start_engram

# Nothing here may reach a real model or a tracing service: every OpenAI-compatible client the
# tests (and the README examples they run) build points at the stub.
os.environ["OPENAI_API_KEY"] = "test"
os.environ["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
os.environ["LANGSMITH_TRACING"] = "false"
os.environ.pop("ENGRAM_URL", None)
os.environ.pop("ENGRAM_API_KEY", None)


@pytest.fixture(scope="session")
def engram_server() -> Iterator[EngramServer]:
    # A token bucket of 2 turns/s (bursts of 20) per tenant, for real 429s; `after` waits up to
    # 30 s, so a loaded machine slows a read-your-writes test down rather than failing it.
    server = start_engram({"ENGRAM_TENANT_RATE_LIMIT": "2", "ENGRAM_AFTER_TIMEOUT_MS": "30000"})
    yield server
    server.stop()


@pytest.fixture(scope="session")
def chat() -> Iterator[ChatStub]:
    stub = ChatStub()
    os.environ["OPENAI_BASE_URL"] = stub.url
    os.environ["OPENAI_API_BASE"] = stub.url  # LlamaIndex's name for it
    yield stub
    stub.stop()


@pytest.fixture(autouse=True)
def _fresh_chat(request: pytest.FixtureRequest) -> None:
    if "chat" in request.fixturenames:
        request.getfixturevalue("chat").reset()


@pytest.fixture
def api_key(engram_server: EngramServer) -> str:
    """A tenant of this test's own."""
    return engram_server.fresh_key()


class Uniform:
    """An ``Engram`` or an ``AsyncEngram`` whose every method is awaited the same way."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.client, name)
        if not callable(attribute):
            return attribute

        async def call(*args: Any, **kwargs: Any) -> Any:
            result = attribute(*args, **kwargs)
            return await result if inspect.isawaitable(result) else result

        return call


class Trace:
    """What went over the wire: each request's path, JSON body and the status it was answered."""

    def __init__(self) -> None:
        self.calls: List[Dict[str, Any]] = []

    def note(self, response: httpx.Response) -> None:
        content = response.request.content
        self.calls.append(
            {
                "path": response.request.url.path,
                "body": json.loads(content) if content else None,
                "status": response.status_code,
            }
        )


@pytest.fixture(params=["sync", "async"])
def flavour(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
async def make_client(engram_server: EngramServer, flavour: str) -> AsyncIterator[Callable[..., Uniform]]:
    """``make_client(api_key, trace=None, **options)``: a client of this test's flavour."""
    made: List[Any] = []

    def make(api_key: str, trace: "Trace | None" = None, **options: Any) -> Uniform:
        if flavour == "sync":
            if trace is not None:
                options["http_client"] = httpx.Client(timeout=30, event_hooks={"response": [trace.note]})
            client: Any = Engram(engram_server.url, api_key, **options)
        else:
            if trace is not None:

                async def note(response: httpx.Response) -> None:
                    trace.note(response)

                options["http_client"] = httpx.AsyncClient(timeout=30, event_hooks={"response": [note]})
            client = AsyncEngram(engram_server.url, api_key, **options)
        made.append((client, options.get("http_client")))
        return Uniform(client)

    yield make
    for client, http_client in made:
        if isinstance(client, Engram):
            client.close()
            if http_client is not None:
                http_client.close()
        else:
            await client.aclose()
            if http_client is not None:
                await http_client.aclose()


@pytest.fixture
def trace() -> Trace:
    return Trace()
