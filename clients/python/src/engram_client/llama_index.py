"""``EngramMemoryBlock``: engram as a long-term memory block of LlamaIndex's ``Memory``.

``Memory`` keeps the recent chat itself and hands its blocks what it flushes out of that window
(``token_limit`` × ``chat_history_token_ratio``; ``token_flush_size`` at a time). This block
records those user and assistant messages as turns of ``user_id`` in engram, and on every
``memory.aget()`` recalls for the last user message and returns engram's context block, which
``Memory`` puts into the system message. ``session_id`` defaults to the ``Memory``'s own.

    memory = Memory.from_defaults(session_id="s1", memory_blocks=[EngramMemoryBlock(engram=engram, user_id="laozhou")])

``engram`` is an ``AsyncEngram`` (or an ``Engram``, then called from a worker thread); ``recall``
passes recall options on (``k``, ``budget``, ``kinds``…).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory import BaseMemoryBlock

from ._steps import Steps, call, run_either
from .client import AsyncEngram, Engram


class EngramMemoryBlock(BaseMemoryBlock[str]):
    name: str = "engram"
    description: Optional[str] = "What engram remembers of the user across sessions."
    engram: Union[AsyncEngram, Engram]
    user_id: str
    session_id: Optional[str] = None
    recall: Dict[str, Any] = {}

    async def _aget(self, messages: Optional[List[ChatMessage]] = None, **block_kwargs: Any) -> str:
        question = next((m.content for m in reversed(messages or []) if m.role == MessageRole.USER and m.content), "")
        if not question:
            return ""
        session_id = self.session_id or block_kwargs.get("session_id")
        return await run_either(self.engram, self._recall(question, session_id))

    async def _aput(self, messages: List[ChatMessage]) -> None:
        turns = [
            {"role": m.role.value, "text": m.content}
            for m in messages
            if m.role in (MessageRole.USER, MessageRole.ASSISTANT) and m.content and m.content.strip()
        ]
        if not turns:
            return
        session_id = self.session_id or next((m.additional_kwargs.get("session_id") for m in messages), None) or "llama-index"
        await run_either(self.engram, self._remember(turns, session_id))

    def _recall(self, question: str, session_id: Optional[str]) -> Steps[str]:
        options = {**({"session_id": session_id} if session_id else {}), **self.recall}
        recalled = yield call("recall", self.user_id, question, **options)
        return recalled.context

    def _remember(self, turns: List[Dict[str, str]], session_id: str) -> Steps[None]:
        yield call("remember", self.user_id, session_id, turns)
