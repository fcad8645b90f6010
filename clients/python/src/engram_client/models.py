"""The engram API's request and response bodies, one class per schema of docs/openapi.json.

Each class is named after its schema (``RecallResponse``, ``MemoryRecordView``) and holds the same
properties in snake_case (JSON keeps the API's camelCase); a property the schema does not require
is ``Optional`` with default ``None``. tests/test_models_match_openapi.py compares every class with
its schema, property by property, so a change to the API fails the tests until this file follows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Dict, List, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

Kind = Literal["preference", "fact", "task", "decision", "profile", "episode", "insight", "procedure", "summary"]
Role = Literal["user", "assistant", "system", "tool"]
MemoryStatus = Literal["active", "retracted", "archived", "expired"]
# An instant the caller sends: a datetime (serialised RFC 3339) or a string passed on as it is, so
# the server, not this client, judges it (a zone-less time is a 400 naming the field).
Instant = Union[datetime, str]


class ApiModel(BaseModel):
    """snake_case in Python, camelCase on the wire; either spelling is accepted on input."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    def to_json(self) -> dict:
        """The body as the API takes it: camelCase, only the fields that were set (an optional
        field is left out rather than sent as null, which the API refuses)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


# --- errors and status ---------------------------------------------------------------------------


class HealthResponse(ApiModel):
    status: str
    mode: str


class ErrorResponse(ApiModel):
    status_code: int
    error: str
    message: List[str]
    fields: List[str]


# A server engram calls: the embeddings endpoint, the chat model, and in the distributed mode
# its stores' servers (the MongoDB-protocol server, Elasticsearch, Kafka).
Dependency = Literal["embedder", "llm", "mongodb", "elasticsearch", "kafka"]


class StageLagView(ApiModel):
    topic: str
    group: str
    lag: int
    paused_on: Optional[Dependency] = None


class DependencyStateView(ApiModel):
    name: Dependency
    state: Literal["up", "down"]
    since: Optional[datetime] = None
    error: Optional[str] = None


class PipelineStatusResponse(ApiModel):
    scope: Literal["tenant", "deployment"]
    pending: int
    dead_letters: int
    down: List[Dependency]
    ingested: Optional[int] = None
    stages: Optional[List[StageLagView]] = None
    dependencies: Optional[List[DependencyStateView]] = None


# --- turns ---------------------------------------------------------------------------------------


class TurnDto(ApiModel):
    turn_id: str
    role: Role
    speaker: Optional[str] = None
    text: str
    channel: Optional[str] = None
    occurred_at: Instant


class TurnInput(ApiModel):
    """A turn to remember: ``turn_id`` defaults to a fresh UUID (kept across retries),
    ``occurred_at`` to now. Otherwise a ``TurnDto``."""

    turn_id: Optional[str] = None
    role: Role
    speaker: Optional[str] = None
    text: str
    channel: Optional[str] = None
    occurred_at: Optional[Instant] = None


class PostTurnsDto(ApiModel):
    user_id: str
    session_id: str
    turns: List[TurnDto]


class PostTurnsResponse(ApiModel):
    accepted: int
    position: str


# --- recall --------------------------------------------------------------------------------------


class RecallBudgetDto(ApiModel):
    total: Optional[int] = None
    facts: Optional[int] = None
    procedures: Optional[int] = None
    memories: Optional[int] = None
    summary: Optional[int] = None
    recent: Optional[int] = None


class RecallDto(ApiModel):
    user_id: str
    query: str
    session_id: Optional[str] = None
    k: Optional[int] = None
    now: Optional[Instant] = None
    as_of: Optional[Instant] = None
    valid_at: Optional[Instant] = None
    kinds: Optional[List[Kind]] = None
    sessions: Optional[List[str]] = None
    from_: Optional[Instant] = Field(default=None, alias="from")
    to: Optional[Instant] = None
    after: Optional[str] = None
    debug: Optional[bool] = None
    budget: Optional[RecallBudgetDto] = None


class MemoryConflictView(ApiModel):
    previous_version: int
    previous_value: str
    previous_content: str
    previous_from: datetime
    since: datetime


class FactView(ApiModel):
    id: str
    kind: Kind
    attribute: str
    value: str
    content: str
    source_turn_ids: List[str]
    updated_at: datetime
    version: int
    conflict: Optional[MemoryConflictView] = None


class ScoreComponentsView(ApiModel):
    relevance: float
    decay: float
    importance: float
    confidence: float
    age_days: float
    usage: float
    coverage: Optional[float] = None
    prior: float
    steering: float
    session: Optional[float] = None
    bm25_rank: Optional[int] = None
    knn_rank: Optional[int] = None


class MemoryView(ApiModel):
    id: str
    kind: Kind
    content: str
    score: float
    source_turn_ids: List[str]
    sources: Optional[List[str]] = None
    created_at: datetime
    updated_at: datetime
    version: int
    components: Optional[ScoreComponentsView] = None
    conflict: Optional[MemoryConflictView] = None


class SummaryView(ApiModel):
    session_id: str
    previous: bool
    lines: List[str]


class RecentTurnView(ApiModel):
    turn_id: str
    session_id: str
    role: str
    speaker: Optional[str] = None
    text: str
    occurred_at: datetime


class ZoneTokensView(ApiModel):
    facts: float
    procedures: float
    memories: float
    summary: float
    recent: float


class BudgetCutView(ApiModel):
    facts: List[FactView]
    procedures: List[FactView]
    memories: List[MemoryView]
    summary_lines: float
    recent: List[RecentTurnView]


class RecallDebugView(ApiModel):
    zones: ZoneTokensView
    cut: BudgetCutView


class RecallResponse(ApiModel):
    facts: List[FactView]
    procedures: List[FactView]
    memories: List[MemoryView]
    summary: Optional[SummaryView]
    recent: List[RecentTurnView]
    context: str
    tokens: int
    consistent: bool
    debug: Optional[RecallDebugView] = None
    # Present when recall answered without a dependency that was down (["embedder"]: BM25 alone;
    # ["elasticsearch"]: the pinned facts and the session, no search).
    degraded: Optional[List[Literal["embedder", "elasticsearch"]]] = None


# --- users and their memories --------------------------------------------------------------------


class UserListResponse(ApiModel):
    users: List[str]
    next: Optional[str]


class MemoryVersionView(ApiModel):
    version: int
    value: str
    content: str
    valid_from: datetime
    valid_to: Optional[datetime]
    expires_at: Optional[datetime] = None
    recorded_at: datetime
    superseded_at: Optional[datetime]
    source_turn_ids: List[str]


class MemoryRecordView(ApiModel):
    memory_id: str
    merge_key: str
    kind: Kind
    subject: str
    attribute: str
    value: str
    content: str
    status: MemoryStatus
    status_reason: Optional[str] = None
    conflict: Optional[MemoryConflictView] = None
    version: int
    pinned: bool
    sensitive: Optional[bool] = None
    confidence: float
    valid_from: datetime
    valid_to: Optional[datetime]
    updated_at: datetime
    history: List[MemoryVersionView]


class UserMemoriesResponse(ApiModel):
    memories: List[MemoryRecordView]


class TurnListResponse(ApiModel):
    turns: List[RecentTurnView]


class ForgetUserResponse(ApiModel):
    forgotten: Literal[True]
    position: str


class RetractMemoryDto(ApiModel):
    reason: Optional[str] = None


class RevertMemoryDto(ApiModel):
    version: int


class MemoryCommandResponse(ApiModel):
    memory: MemoryRecordView
    changed: bool
    consistent: bool


class ProfileUpdateDto(ApiModel):
    attributes: Dict[str, str]


class ProfileUpdateResponse(ApiModel):
    memories: List[MemoryRecordView]
    consistent: bool


# --- export and import ---------------------------------------------------------------------------
# A bundle goes back to the server as it came: fields this version does not know are kept
# (extra="allow") rather than dropped on the way through.


class _BundleModel(ApiModel):
    model_config = ConfigDict(extra="allow")


class ExportedFactDto(_BundleModel):
    memory_id: str
    attribute: str
    value: str
    content: str


class ExportedVersionDto(_BundleModel):
    version: int
    value: str
    content: str
    valid_from: datetime
    valid_to: Optional[datetime]
    recorded_at: datetime
    superseded_at: Optional[datetime]
    source_turn_ids: List[str]
    sources: Optional[List[str]] = None


class ExportedConflictDto(_BundleModel):
    previous_version: int
    previous_value: str
    previous_content: str
    previous_from: datetime
    since: datetime


class ExportedMemoryDto(_BundleModel):
    memory_id: str
    merge_key: str
    kind: Kind
    subject: str
    attribute: str
    value: str
    content: str
    entities: List[str]
    confidence: float
    importance: float
    ephemeral: bool
    pinned: bool
    sensitive: Optional[bool] = None
    status: MemoryStatus
    version: int
    revision: int
    mention_count: int
    source_turn_ids: List[str]
    speaker: Optional[str] = None
    keys: Optional[List[str]] = None
    sources: Optional[List[str]] = None
    conflict: Optional[ExportedConflictDto] = None
    valid_from: datetime
    valid_to: Optional[datetime]
    expires_at: Optional[datetime] = None
    created_at: datetime
    updated_at: datetime
    last_seen_at: datetime
    history: List[ExportedVersionDto]


class ExportBundleDto(_BundleModel):
    format: Literal["engram.export"]
    version: Literal[1]
    exported_at: datetime
    facts: Optional[List[ExportedFactDto]] = None
    memories: List[ExportedMemoryDto]


class ImportResponse(ApiModel):
    memories: int
    added: int
    consistent: bool


# Names the TypeScript SDK uses for the same shapes.
Turn = TurnDto
RecallRequest = RecallDto
RecordedTurns = PostTurnsResponse
MemoryRecord = MemoryRecordView
ExportBundle = ExportBundleDto
PipelineStatus = PipelineStatusResponse
