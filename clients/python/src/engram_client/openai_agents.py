"""``EngramSession``: engram's memory for the OpenAI Agents SDK.

A session (the SDK's ``Session`` protocol) whose history is an inner session's, by default an
in-memory ``SQLiteSession`` (pass ``history=`` for a persistent one): it holds the exact items of
the conversation, tool calls included, which the SDK replays. Every item added is also recorded in
engram: each user and assistant message as a turn of ``user_id`` in ``session_id`` (tool calls and
reasoning are not turns). Before each model call, ``call_model_input_filter`` recalls for the last
user message of the input and appends engram's context block to the agent's instructions, so the
run sees what engram remembers of this user across sessions:

    session = EngramSession(engram, user_id="laozhou", session_id="s1")
    result = await Runner.run(agent, "我们的数据库是什么？", session=session, run_config=session.run_config())

``pop_item`` and ``clear_session`` act on the history; what engram recorded stays (retract a memory
or forget the user through the client). ``engram`` is an ``AsyncEngram`` (or an ``Engram``, then
called from a worker thread).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Union

from agents import RunConfig
from agents.items import TResponseInputItem
from agents.memory import Session, SessionSettings, SQLiteSession
from agents.run_config import CallModelData, ModelInputData

from ._operations import RecallOptions
from ._steps import Steps, call, run_either
from .client import AsyncEngram, Engram

_TEXT_PARTS = ("input_text", "output_text", "text")


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)


def _message_text(item: Any) -> str:
    """The text of a user or assistant message item, whether ``content`` is a string or parts."""
    content = _field(item, "content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = [_field(part, "text") for part in content if _field(part, "type") in _TEXT_PARTS]
    return "\n".join(text for text in texts if isinstance(text, str) and text)


def _is_message(item: Any, role: str) -> bool:
    return _field(item, "role") == role and _field(item, "type") in (None, "message")


class EngramSession:
    """Implements the SDK's ``Session`` protocol (structurally, as the SDK asks of third parties)."""

    session_settings: Optional[SessionSettings] = None

    def __init__(
        self,
        engram: Union[AsyncEngram, Engram],
        *,
        user_id: str,
        session_id: str,
        history: Optional[Session] = None,
        recall: Optional[RecallOptions] = None,
    ) -> None:
        if not isinstance(engram, (Engram, AsyncEngram)):
            raise TypeError("EngramSession needs an AsyncEngram or an Engram")
        self.engram = engram
        self.user_id = user_id
        self.session_id = session_id
        self.history: Session = history if history is not None else SQLiteSession(session_id)
        self.recall_options: Dict[str, Any] = dict(recall or {})
        # The last recall, reused by the model calls of one run (tool loops ask the same question).
        self._recalled: Optional[tuple] = None

    # --- the Session protocol: the history, with every message also recorded in engram ----------

    async def get_items(self, limit: Optional[int] = None) -> List[TResponseInputItem]:
        return await self.history.get_items(limit)

    async def add_items(self, items: List[TResponseInputItem]) -> None:
        await self.history.add_items(items)
        turns = [
            {"role": role, "text": text}
            for item in items
            for role in ("user", "assistant")
            if _is_message(item, role) and (text := _message_text(item))
        ]
        if turns:
            self._recalled = None
            await run_either(self.engram, self._remember(turns))

    async def pop_item(self) -> Optional[TResponseInputItem]:
        return await self.history.pop_item()

    async def clear_session(self) -> None:
        await self.history.clear_session()

    # --- recall before each model call ---------------------------------------------------------

    async def call_model_input_filter(self, data: CallModelData[Any]) -> ModelInputData:
        """For ``RunConfig(call_model_input_filter=...)``: the model input with engram's context
        block appended to the instructions, recalled for the last user message of the input."""
        model_data = data.model_data
        question = next((_message_text(i) for i in reversed(model_data.input) if _is_message(i, "user")), "")
        if not question:
            return model_data
        if self._recalled is None or self._recalled[0] != question:
            self._recalled = (question, await run_either(self.engram, self._recall(question)))
        context = self._recalled[1]
        if not context:
            return model_data
        instructions = f"{model_data.instructions}\n\n{context}" if model_data.instructions else context
        return ModelInputData(input=model_data.input, instructions=instructions)

    def run_config(self, **options: Any) -> RunConfig:
        """A ``RunConfig`` (with ``options``) whose input filter is this session's recall."""
        return RunConfig(call_model_input_filter=self.call_model_input_filter, **options)

    def _recall(self, question: str) -> Steps[str]:
        recalled = yield call("recall", self.user_id, question, **{"session_id": self.session_id, **self.recall_options})
        return recalled.context

    def _remember(self, turns: List[Dict[str, str]]) -> Steps[None]:
        yield call("remember", self.user_id, self.session_id, turns)
