"""``Engram`` (blocking) and ``AsyncEngram`` (asyncio): the engram HTTP API over httpx.

A ``remember`` returns a consistency token that the next ``recall`` of the same user sends as
``after``, so an application reads its own writes; 429 and 503 are retried honouring Retry-After;
any other answer than 2xx raises the ``EngramError`` of its meaning, carrying the server's ``fields``.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Union

import httpx
from typing_extensions import Unpack

from ._operations import Operation, Operations, RecallOptions, Request, T, TurnLike
from ._retry import RetryPolicy, retry_after_seconds
from .errors import error_for
from .models import (
    ExportBundleDto,
    ForgetUserResponse,
    HealthResponse,
    ImportResponse,
    MemoryCommandResponse,
    MemoryRecordView,
    PipelineStatusResponse,
    PostTurnsResponse,
    ProfileUpdateResponse,
    RecallResponse,
    RecentTurnView,
    UserListResponse,
)

__version__ = "0.1.0"
DEFAULT_URL = "http://127.0.0.1:3000"


class _Base:
    def __init__(
        self,
        url: Optional[str],
        api_key: Optional[str],
        retries: int,
        base_delay: float,
        max_delay: float,
    ) -> None:
        self.url = (url or os.environ.get("ENGRAM_URL") or DEFAULT_URL).rstrip("/")
        key = api_key if api_key is not None else os.environ.get("ENGRAM_API_KEY")
        self._headers: Dict[str, str] = {"user-agent": f"engram-client-python/{__version__}"}
        if key:
            self._headers["authorization"] = f"Bearer {key}"
        self._retry = RetryPolicy(retries=retries, base_delay=base_delay, max_delay=max_delay)
        self._ops = Operations()

    def pending_position(self, user_id: str) -> Optional[str]:
        """The position of this client's last write for ``user_id`` that no consistent recall has seen yet."""
        return self._ops.pending(user_id)

    def _request_args(self, request: Request) -> Dict[str, Any]:
        args: Dict[str, Any] = {"headers": self._headers}
        if request.params:
            args["params"] = request.params
        if request.json is not None:
            args["json"] = request.json
        return args

    @staticmethod
    def _result(response: httpx.Response) -> Any:
        if response.is_success:
            return response.json() if response.content else None
        try:
            body = response.json()
        except ValueError:
            body = None
        raise error_for(response.status_code, body, retry_after_seconds(response.headers.get("retry-after")))

    @staticmethod
    def _finish(operation: Operation[T], data: Any) -> T:
        try:
            operation.send(data)
        except StopIteration as done:
            return done.value
        raise RuntimeError("an engram operation sends exactly one request")


class Engram(_Base):
    """The engram API, blocking. ``url`` defaults to ``ENGRAM_URL`` (else http://127.0.0.1:3000),
    ``api_key`` to ``ENGRAM_API_KEY``; pass ``http_client`` to configure httpx yourself (it is then yours to close)."""

    def __init__(
        self,
        url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        retries: int = 3,
        base_delay: float = 0.2,
        max_delay: float = 30.0,
        timeout: float = 30.0,
        http_client: Optional[httpx.Client] = None,
    ) -> None:
        super().__init__(url, api_key, retries, base_delay, max_delay)
        self._owns_http = http_client is None
        self._http = http_client if http_client is not None else httpx.Client(timeout=timeout)

    def _run(self, operation: Operation[T]) -> T:
        request = next(operation)
        for attempt in range(self._retry.retries + 1):
            response = self._http.request(request.method, self.url + request.path, **self._request_args(request))
            wait = self._retry.wait_before_retry(attempt, response.status_code, response.headers.get("retry-after"))
            if wait is None:
                break
            response.close()
            time.sleep(wait)
        return self._finish(operation, self._result(response))

    def remember(self, user_id: str, session_id: str, turns: Sequence[TurnLike]) -> PostTurnsResponse:
        """Records turns (idempotent per turn_id within the user); returns once they are on the log."""
        return self._run(self._ops.remember(user_id, session_id, turns))

    def recall(self, user_id: str, query: str, **options: Unpack[RecallOptions]) -> RecallResponse:
        """The memories that matter for ``query`` and a context block; waits for this client's own
        writes for that user unless ``after`` is given."""
        return self._run(self._ops.recall(user_id, query, options))

    def memories(self, user_id: str, *, status: Optional[Literal["active", "all"]] = None) -> List[MemoryRecordView]:
        """The user's memories with their version history; ``status="all"`` includes retracted and archived ones."""
        return self._run(self._ops.memories(user_id, status))

    def turns(self, user_id: str, ids: Sequence[str]) -> List[RecentTurnView]:
        """The user's turns by id (a memory's ``source_turn_ids``), as stored (masked)."""
        return self._run(self._ops.turns(user_id, ids))

    def users(self, *, limit: Optional[int] = None, after: Optional[str] = None) -> UserListResponse:
        """The tenant's users holding memories, sorted, a page at a time (``after=page.next``)."""
        return self._run(self._ops.users(limit, after))

    def forget(self, user_id: str) -> ForgetUserResponse:
        """Forgets the user in every store and projection (stays forgotten after rebuilds)."""
        return self._run(self._ops.forget(user_id))

    def retract(self, user_id: str, memory_id: str, reason: str) -> MemoryCommandResponse:
        """Retracts one memory, the reason kept as its ``status_reason``."""
        return self._run(self._ops.retract(user_id, memory_id, reason))

    def revert(self, user_id: str, memory_id: str, version: int) -> MemoryCommandResponse:
        """Brings back one memory's earlier version as a new version."""
        return self._run(self._ops.revert(user_id, memory_id, version))

    def profile(self, user_id: str, attributes: Mapping[str, str]) -> ProfileUpdateResponse:
        """Pins attributes the application knows for certain (``{"city": "杭州"}``)."""
        return self._run(self._ops.profile(user_id, attributes))

    def export(self, user_id: str) -> ExportBundleDto:
        """A versioned bundle of the user's memories with their history."""
        return self._run(self._ops.export(user_id))

    def import_(self, user_id: str, bundle: Union[ExportBundleDto, Mapping[str, Any]]) -> ImportResponse:
        """Imports an export bundle for this user (idempotent)."""
        return self._run(self._ops.import_(user_id, bundle))

    def pipeline_status(self) -> PipelineStatusResponse:
        return self._run(self._ops.pipeline_status())

    def health(self) -> HealthResponse:
        return self._run(self._ops.health())

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> "Engram":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class AsyncEngram(_Base):
    """The engram API for asyncio: ``Engram``'s methods, awaited. Same options as ``Engram``."""

    def __init__(
        self,
        url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        retries: int = 3,
        base_delay: float = 0.2,
        max_delay: float = 30.0,
        timeout: float = 30.0,
        http_client: Optional[httpx.AsyncClient] = None,
    ) -> None:
        super().__init__(url, api_key, retries, base_delay, max_delay)
        self._owns_http = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient(timeout=timeout)

    async def _run(self, operation: Operation[T]) -> T:
        request = next(operation)
        for attempt in range(self._retry.retries + 1):
            response = await self._http.request(request.method, self.url + request.path, **self._request_args(request))
            wait = self._retry.wait_before_retry(attempt, response.status_code, response.headers.get("retry-after"))
            if wait is None:
                break
            await response.aclose()
            await asyncio.sleep(wait)
        return self._finish(operation, self._result(response))

    async def remember(self, user_id: str, session_id: str, turns: Sequence[TurnLike]) -> PostTurnsResponse:
        """Records turns (idempotent per turn_id within the user); returns once they are on the log."""
        return await self._run(self._ops.remember(user_id, session_id, turns))

    async def recall(self, user_id: str, query: str, **options: Unpack[RecallOptions]) -> RecallResponse:
        """The memories that matter for ``query`` and a context block; waits for this client's own
        writes for that user unless ``after`` is given."""
        return await self._run(self._ops.recall(user_id, query, options))

    async def memories(self, user_id: str, *, status: Optional[Literal["active", "all"]] = None) -> List[MemoryRecordView]:
        """The user's memories with their version history; ``status="all"`` includes retracted and archived ones."""
        return await self._run(self._ops.memories(user_id, status))

    async def turns(self, user_id: str, ids: Sequence[str]) -> List[RecentTurnView]:
        """The user's turns by id (a memory's ``source_turn_ids``), as stored (masked)."""
        return await self._run(self._ops.turns(user_id, ids))

    async def users(self, *, limit: Optional[int] = None, after: Optional[str] = None) -> UserListResponse:
        """The tenant's users holding memories, sorted, a page at a time (``after=page.next``)."""
        return await self._run(self._ops.users(limit, after))

    async def forget(self, user_id: str) -> ForgetUserResponse:
        """Forgets the user in every store and projection (stays forgotten after rebuilds)."""
        return await self._run(self._ops.forget(user_id))

    async def retract(self, user_id: str, memory_id: str, reason: str) -> MemoryCommandResponse:
        """Retracts one memory, the reason kept as its ``status_reason``."""
        return await self._run(self._ops.retract(user_id, memory_id, reason))

    async def revert(self, user_id: str, memory_id: str, version: int) -> MemoryCommandResponse:
        """Brings back one memory's earlier version as a new version."""
        return await self._run(self._ops.revert(user_id, memory_id, version))

    async def profile(self, user_id: str, attributes: Mapping[str, str]) -> ProfileUpdateResponse:
        """Pins attributes the application knows for certain (``{"city": "杭州"}``)."""
        return await self._run(self._ops.profile(user_id, attributes))

    async def export(self, user_id: str) -> ExportBundleDto:
        """A versioned bundle of the user's memories with their history."""
        return await self._run(self._ops.export(user_id))

    async def import_(self, user_id: str, bundle: Union[ExportBundleDto, Mapping[str, Any]]) -> ImportResponse:
        """Imports an export bundle for this user (idempotent)."""
        return await self._run(self._ops.import_(user_id, bundle))

    async def pipeline_status(self) -> PipelineStatusResponse:
        return await self._run(self._ops.pipeline_status())

    async def health(self) -> HealthResponse:
        return await self._run(self._ops.health())

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> "AsyncEngram":
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
