"""What each API call sends and what it makes of the answer, without I/O.

Each operation is a generator: it yields the one ``Request`` it needs, receives the decoded JSON of
the 2xx answer and returns the typed result. ``Engram`` drives them with blocking httpx and
``AsyncEngram`` with asyncio, so the two clients cannot behave differently.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Dict, Generator, Iterable, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union
from urllib.parse import quote

from typing_extensions import TypedDict

from .models import (
    ExportBundleDto,
    ForgetUserResponse,
    HealthResponse,
    ImportResponse,
    Instant,
    Kind,
    MemoryCommandResponse,
    MemoryRecordView,
    PipelineStatusResponse,
    PostTurnsDto,
    PostTurnsResponse,
    ProfileUpdateDto,
    ProfileUpdateResponse,
    RecallBudgetDto,
    RecallDto,
    RecallResponse,
    RecentTurnView,
    RetractMemoryDto,
    RevertMemoryDto,
    TurnDto,
    TurnInput,
    TurnListResponse,
    UserListResponse,
    UserMemoriesResponse,
)

T = TypeVar("T")


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    params: Optional[List[Tuple[str, str]]] = None
    json: Any = None


Operation = Generator[Request, Any, T]


class RecallOptions(TypedDict, total=False):
    """Everything recall takes besides the user and the query (``RecallDto``'s other fields)."""

    session_id: str
    k: int
    now: Instant
    as_of: Instant
    valid_at: Instant
    kinds: List[Kind]
    sessions: List[str]
    from_: Instant
    to: Instant
    after: str
    debug: bool
    budget: Union[RecallBudgetDto, Mapping[str, int]]


TurnLike = Union[TurnInput, TurnDto, Mapping[str, Any]]


def _segment(value: str) -> str:
    return quote(value, safe="")


def _complete(turn: TurnLike, now: datetime) -> TurnDto:
    """The turn with a fresh UUID and the current instant where the caller gave none."""
    given = turn.to_json() if isinstance(turn, (TurnInput, TurnDto)) else dict(turn)
    # None means "not given", as for recall's options: the API refuses an optional field sent as null.
    parsed = {k: v for k, v in TurnInput.model_validate(given).model_dump(exclude_unset=True).items() if v is not None}
    parsed.setdefault("turn_id", str(uuid.uuid4()))
    parsed.setdefault("occurred_at", now)
    return TurnDto.model_validate(parsed)


class Operations:
    """The API, one generator per call, and the per-user consistency tokens they share."""

    def __init__(self) -> None:
        # userId → the latest position written for that user and not yet seen by a consistent recall.
        self._pending: Dict[str, str] = {}
        self._lock = threading.Lock()

    def pending(self, user_id: str) -> Optional[str]:
        """The consistency token the next recall of ``user_id`` will send as ``after``, if any."""
        with self._lock:
            return self._pending.get(user_id)

    def health(self) -> Operation[HealthResponse]:
        return HealthResponse.model_validate((yield Request("GET", "/health")))

    def remember(self, user_id: str, session_id: str, turns: Sequence[TurnLike]) -> Operation[PostTurnsResponse]:
        now = datetime.now(timezone.utc)
        body = PostTurnsDto(user_id=user_id, session_id=session_id, turns=[_complete(t, now) for t in turns])
        recorded = PostTurnsResponse.model_validate((yield Request("POST", "/v1/turns", json=body.to_json())))
        with self._lock:
            self._pending[user_id] = recorded.position
        return recorded

    def recall(self, user_id: str, query: str, options: RecallOptions) -> Operation[RecallResponse]:
        written = self.pending(user_id)
        given = {key: value for key, value in options.items() if value is not None}
        if "after" not in given and written is not None:
            given["after"] = written
        body = RecallDto(user_id=user_id, query=query, **given)  # type: ignore[arg-type]
        recalled = RecallResponse.model_validate((yield Request("POST", "/v1/recall", json=body.to_json())))
        # A consistent answer to an older `after` the caller chose says nothing of the newer write.
        if recalled.consistent and written is not None and given["after"] == written:
            with self._lock:
                if self._pending.get(user_id) == written:
                    del self._pending[user_id]
        return recalled

    def memories(self, user_id: str, status: Optional[str]) -> Operation[List[MemoryRecordView]]:
        params = [("status", status)] if status is not None else None
        listed = yield Request("GET", f"/v1/users/{_segment(user_id)}/memories", params=params)
        return UserMemoriesResponse.model_validate(listed).memories

    def turns(self, user_id: str, ids: Iterable[str]) -> Operation[List[RecentTurnView]]:
        params = [("ids", turn_id) for turn_id in ids]
        found = yield Request("GET", f"/v1/users/{_segment(user_id)}/turns", params=params)
        return TurnListResponse.model_validate(found).turns

    def users(self, limit: Optional[int], after: Optional[str]) -> Operation[UserListResponse]:
        params = [(name, str(value)) for name, value in (("limit", limit), ("after", after)) if value is not None]
        return UserListResponse.model_validate((yield Request("GET", "/v1/users", params=params or None)))

    def forget(self, user_id: str) -> Operation[ForgetUserResponse]:
        forgotten = ForgetUserResponse.model_validate((yield Request("DELETE", f"/v1/users/{_segment(user_id)}")))
        with self._lock:
            self._pending[user_id] = forgotten.position
        return forgotten

    def retract(self, user_id: str, memory_id: str, reason: str) -> Operation[MemoryCommandResponse]:
        path = f"/v1/users/{_segment(user_id)}/memories/{_segment(memory_id)}"
        body = RetractMemoryDto(reason=reason).to_json()
        return MemoryCommandResponse.model_validate((yield Request("DELETE", path, json=body)))

    def revert(self, user_id: str, memory_id: str, version: int) -> Operation[MemoryCommandResponse]:
        path = f"/v1/users/{_segment(user_id)}/memories/{_segment(memory_id)}/revert"
        body = RevertMemoryDto(version=version).to_json()
        return MemoryCommandResponse.model_validate((yield Request("POST", path, json=body)))

    def profile(self, user_id: str, attributes: Mapping[str, str]) -> Operation[ProfileUpdateResponse]:
        body = ProfileUpdateDto(attributes=dict(attributes)).to_json()
        path = f"/v1/users/{_segment(user_id)}/profile"
        return ProfileUpdateResponse.model_validate((yield Request("PUT", path, json=body)))

    def export(self, user_id: str) -> Operation[ExportBundleDto]:
        return ExportBundleDto.model_validate((yield Request("GET", f"/v1/users/{_segment(user_id)}/export")))

    def import_(self, user_id: str, bundle: Union[ExportBundleDto, Mapping[str, Any]]) -> Operation[ImportResponse]:
        body = bundle.to_json() if isinstance(bundle, ExportBundleDto) else ExportBundleDto.model_validate(bundle).to_json()
        return ImportResponse.model_validate((yield Request("POST", f"/v1/users/{_segment(user_id)}/import", json=body)))

    def pipeline_status(self) -> Operation[PipelineStatusResponse]:
        return PipelineStatusResponse.model_validate((yield Request("GET", "/v1/pipeline/status")))
