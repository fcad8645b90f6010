"""``with_memory``: an OpenAI-compatible chat client with engram's memory.

Before each ``chat.completions.create`` it recalls for the last user message and adds the context
block as a system message after the caller's own system messages; after the answer (streamed or
not) it records the user's message and the reply as turns. Every other attribute is the client's
own. Written against the shape of the ``openai`` package's clients, not the package: any object
with ``chat.completions.create`` works. Engram errors are not swallowed: an application that
wants to answer without memory catches them.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, TypeVar, Union

from ._operations import RecallOptions
from .client import AsyncEngram, Engram

C = TypeVar("C")


def _field(obj: Any, name: str) -> Any:
    """A message or chunk field, whether the SDK gave an object or a dict."""
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def _text_of(content: Any) -> str:
    """A message's text, whether it is a string or a list of content parts."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = [_field(part, "text") for part in content if _field(part, "type") == "text"]
    return "\n".join(text for text in texts if isinstance(text, str) and text)


def _last_user_text(messages: List[Any]) -> str:
    for message in reversed(messages):
        if _field(message, "role") == "user":
            return _text_of(_field(message, "content"))
    return ""


def _with_context(messages: List[Any], context: str) -> List[Any]:
    """The messages with the context block as a system message after the leading system messages."""
    if not context:
        return list(messages)
    at = next((i for i, m in enumerate(messages) if _field(m, "role") not in ("system", "developer")), len(messages))
    return [*messages[:at], {"role": "system", "content": context}, *messages[at:]]


def _reply_of(completion: Any) -> str:
    choices = _field(completion, "choices") or []
    content = _field(_field(choices[0], "message"), "content") if choices else None
    return content if isinstance(content, str) else ""


def _delta_of(chunk: Any) -> str:
    choices = _field(chunk, "choices") or []
    content = _field(_field(choices[0], "delta"), "content") if choices else None
    return content if isinstance(content, str) else ""


def _turns(question: str, reply: str) -> List[Dict[str, str]]:
    turns = [{"role": "user", "text": question}] if question else []
    return turns + ([{"role": "assistant", "text": reply}] if reply else [])


class _Overlay:
    """``target`` with some attributes replaced; every other attribute is the target's own."""

    def __init__(self, target: Any, **replaced: Any) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_replaced", replaced)

    def __getattr__(self, name: str) -> Any:
        replaced = object.__getattribute__(self, "_replaced")
        return replaced[name] if name in replaced else getattr(object.__getattribute__(self, "_target"), name)

    def __repr__(self) -> str:
        return f"with_memory({object.__getattribute__(self, '_target')!r})"


class _RecordingStream:
    """The stream as the model sends it; once it ends, the assembled reply is recorded."""

    def __init__(self, stream: Any, record: Callable[[str], None]) -> None:
        self._stream = stream
        self._iterator = iter(stream)
        self._record = record
        self._parts: List[str] = []
        self._recorded = False

    def __iter__(self) -> "_RecordingStream":
        return self

    def __next__(self) -> Any:
        try:
            chunk = next(self._iterator)
        except StopIteration:
            if not self._recorded:
                self._recorded = True
                self._record("".join(self._parts))
            raise
        self._parts.append(_delta_of(chunk))
        return chunk

    def __enter__(self) -> "_RecordingStream":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stream.__exit__(*exc_info)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _AsyncRecordingStream:
    """``_RecordingStream`` for ``AsyncOpenAI``'s streams."""

    def __init__(self, stream: Any, record: Callable[[str], Awaitable[None]]) -> None:
        self._stream = stream
        self._iterator = stream.__aiter__()
        self._record = record
        self._parts: List[str] = []
        self._recorded = False

    def __aiter__(self) -> "_AsyncRecordingStream":
        return self

    async def __anext__(self) -> Any:
        try:
            chunk = await self._iterator.__anext__()
        except StopAsyncIteration:
            if not self._recorded:
                self._recorded = True
                await self._record("".join(self._parts))
            raise
        self._parts.append(_delta_of(chunk))
        return chunk

    async def __aenter__(self) -> "_AsyncRecordingStream":
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self._stream.__aexit__(*exc_info)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def with_memory(
    client: C,
    engram: Union[Engram, AsyncEngram],
    *,
    user_id: str,
    session_id: str,
    recall: Optional[RecallOptions] = None,
) -> C:
    """``client`` (``openai.OpenAI`` with an ``Engram``, ``openai.AsyncOpenAI`` with an
    ``AsyncEngram``) with memory for ``user_id``, its turns recorded in ``session_id``;
    ``recall`` is passed on to every recall (``k``, ``budget``, ``kinds``…)."""
    completions = client.chat.completions  # type: ignore[attr-defined]
    options: Dict[str, Any] = {"session_id": session_id, **(recall or {})}

    if isinstance(engram, AsyncEngram):

        async def create_async(*args: Any, **params: Any) -> Any:
            messages = list(params.get("messages") or [])
            question = _last_user_text(messages)
            recalled = await engram.recall(user_id, question, **options) if question else None
            sent = {**params, "messages": _with_context(messages, recalled.context if recalled else "")}
            answer = completions.create(*args, **sent)
            if not hasattr(answer, "__await__"):
                raise TypeError("with_memory: an AsyncEngram goes with an async chat client (openai.AsyncOpenAI)")
            answer = await answer

            async def record(reply: str) -> None:
                turns = _turns(question, reply)
                if turns:
                    await engram.remember(user_id, session_id, turns)

            if params.get("stream"):
                return _AsyncRecordingStream(answer, record)
            await record(_reply_of(answer))
            return answer

        create: Any = create_async
    elif isinstance(engram, Engram):

        def create_sync(*args: Any, **params: Any) -> Any:
            messages = list(params.get("messages") or [])
            question = _last_user_text(messages)
            recalled = engram.recall(user_id, question, **options) if question else None
            sent = {**params, "messages": _with_context(messages, recalled.context if recalled else "")}
            answer = completions.create(*args, **sent)
            if hasattr(answer, "__await__"):
                answer.close()
                raise TypeError("with_memory: an async chat client (openai.AsyncOpenAI) goes with an AsyncEngram")

            def record(reply: str) -> None:
                turns = _turns(question, reply)
                if turns:
                    engram.remember(user_id, session_id, turns)

            if params.get("stream"):
                return _RecordingStream(answer, record)
            record(_reply_of(answer))
            return answer

        create = create_sync
    else:
        raise TypeError("with_memory: engram must be an Engram or an AsyncEngram")

    chat = _Overlay(client.chat, completions=_Overlay(completions, create=create))  # type: ignore[attr-defined]
    return _Overlay(client, chat=chat)  # type: ignore[return-value]
