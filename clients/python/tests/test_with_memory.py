"""with_memory against a real engram and the chat-model stub: OpenAI with Engram, AsyncOpenAI
with AsyncEngram, each streamed and not."""

from __future__ import annotations

import openai
import pytest

from engram_client import AsyncEngram, Engram, with_memory

from .support import settled


def clients(flavour: str, url: str, api_key: str, chat_url: str):
    if flavour == "sync":
        return Engram(url, api_key), openai.OpenAI(base_url=chat_url, api_key="test", max_retries=0)
    return AsyncEngram(url, api_key), openai.AsyncOpenAI(base_url=chat_url, api_key="test", max_retries=0)


async def recent_turns(engram, user_id: str) -> list:
    recalled = await settled(engram.recall(user_id, "anything", session_id="s1"))
    return [f"{t.role}: {t.text}" for t in recalled.recent]


async def test_recalls_injects_the_context_after_the_callers_system_messages_and_records_both_turns(
    flavour, engram_server, api_key, chat
):
    engram, model = clients(flavour, engram_server.url, api_key, chat.url)
    await settled(engram.remember("zhou", "s1", [{"role": "user", "text": "我们的数据库用 PostgreSQL"}]))
    ai = with_memory(model, engram, user_id="zhou", session_id="s1")
    reply = await settled(
        ai.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "system", "content": "You are terse."}, {"role": "user", "content": "我们的数据库是什么？"}],
        )
    )
    assert reply.choices[0].message.content == chat.reply
    sent = chat.messages()
    assert [m["role"] for m in sent] == ["system", "system", "user"]
    assert sent[0]["content"] == "You are terse."
    assert "PostgreSQL" in sent[1]["content"]
    assert sent[2]["content"] == "我们的数据库是什么？"
    assert {"user: 我们的数据库是什么？", f"assistant: {chat.reply}"} <= set(await recent_turns(engram, "zhou"))


async def test_streams_the_reply_through_unchanged_and_records_it_once_the_stream_ends(flavour, engram_server, api_key, chat):
    engram, model = clients(flavour, engram_server.url, api_key, chat.url)
    await settled(engram.remember("lin", "s1", [{"role": "user", "text": "I prefer window seats"}]))
    ai = with_memory(model, engram, user_id="lin", session_id="s1", recall={"k": 3})
    stream = await settled(
        ai.chat.completions.create(model="gpt-4o-mini", stream=True, messages=[{"role": "user", "content": "Which seat do I like?"}])
    )
    text = ""
    if flavour == "sync":
        with stream:
            for chunk in stream:
                text += (chunk.choices[0].delta.content or "") if chunk.choices else ""
    else:
        async with stream:
            async for chunk in stream:
                text += (chunk.choices[0].delta.content or "") if chunk.choices else ""
    assert text == chat.streamed_reply
    request = chat.requests[0]["body"]
    assert request["stream"] is True
    assert request["messages"][0]["role"] == "system" and "window" in request["messages"][0]["content"]
    assert {"user: Which seat do I like?", f"assistant: {chat.streamed_reply}"} <= set(await recent_turns(engram, "lin"))


async def test_content_parts_are_read_as_text_and_a_call_without_a_user_message_recalls_nothing(
    flavour, engram_server, api_key, chat
):
    engram, model = clients(flavour, engram_server.url, api_key, chat.url)
    await settled(engram.remember("parts", "s1", [{"role": "user", "text": "I prefer aisle seats"}]))
    ai = with_memory(model, engram, user_id="parts", session_id="s1")
    question = [{"type": "text", "text": "Which seat"}, {"type": "text", "text": "do I like?"}]
    await settled(ai.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": question}]))
    assert "aisle" in chat.messages(0)[0]["content"]
    assert "user: Which seat\ndo I like?" in await recent_turns(engram, "parts")

    await settled(ai.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "system", "content": "Say hi."}]))
    assert chat.messages(1) == [{"role": "system", "content": "Say hi."}]


async def test_everything_but_create_is_the_clients_own(engram_server, api_key, chat):
    model = openai.OpenAI(base_url=chat.url, api_key="test", max_retries=0)
    ai = with_memory(model, Engram(engram_server.url, api_key), user_id="u", session_id="s1")
    assert ai.base_url == model.base_url
    assert ai.chat.completions.with_raw_response is not None
    assert ai.embeddings is model.embeddings


async def test_a_sync_engram_with_an_async_chat_client_is_refused(engram_server, api_key, chat):
    ai = with_memory(openai.AsyncOpenAI(base_url=chat.url, api_key="test"), Engram(engram_server.url, api_key), user_id="u", session_id="s1")
    with pytest.raises(TypeError, match="AsyncEngram"):
        ai.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
    ai = with_memory(openai.OpenAI(base_url=chat.url, api_key="test"), AsyncEngram(engram_server.url, api_key), user_id="u", session_id="s1")
    with pytest.raises(TypeError, match="async chat client"):
        await ai.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
