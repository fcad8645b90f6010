"""EngramMemoryBlock in the real LlamaIndex Memory: what the short-term window flushes is
recorded in engram, and engram's context reaches the model's system message (a chat engine on
LlamaIndex's OpenAI LLM, answered by the chat-model stub)."""

from __future__ import annotations

import pytest
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms import ChatMessage
from llama_index.core.memory import Memory
from llama_index.llms.openai import OpenAI

from engram_client import AsyncEngram, Engram
from engram_client.llama_index import EngramMemoryBlock


@pytest.mark.parametrize("client", ["async", "sync"])
async def test_what_leaves_the_window_is_recorded_and_recalled_into_the_system_message(client, engram_server, api_key):
    engram = AsyncEngram(engram_server.url, api_key) if client == "async" else Engram(engram_server.url, api_key)
    block = EngramMemoryBlock(engram=engram, user_id="laozhou")
    # A small window: the first exchange is flushed to the blocks when the second arrives.
    memory = Memory.from_defaults(session_id="s1", token_limit=40, chat_history_token_ratio=0.5, token_flush_size=10, memory_blocks=[block])
    await memory.aput_messages(
        [
            ChatMessage(role="user", content="我们的数据库用 PostgreSQL，部署在阿里云上"),
            ChatMessage(role="assistant", content="好的，记住了：PostgreSQL，阿里云。"),
            ChatMessage(role="user", content="I prefer window seats when I fly to Shanghai"),
            ChatMessage(role="assistant", content="Noted, window seats."),
        ]
    )
    reader = AsyncEngram(engram_server.url, api_key)
    recalled = await reader.recall("laozhou", "数据库", session_id="s1")
    assert [t.text for t in recalled.recent][:2] == ["我们的数据库用 PostgreSQL，部署在阿里云上", "好的，记住了：PostgreSQL，阿里云。"]

    await memory.aput(ChatMessage(role="user", content="数据库用什么？"))
    messages = await memory.aget()
    assert messages[0].role.value == "system"
    assert "<engram>" in messages[0].content and "我们的数据库用 PostgreSQL" in messages[0].content
    assert messages[-1].content == "数据库用什么？"


async def test_a_chat_engine_answers_with_engrams_context(engram_server, api_key, chat):
    engram = AsyncEngram(engram_server.url, api_key)
    await engram.remember("mei", "earlier", [{"role": "user", "text": "我们的数据库用 PostgreSQL"}])
    memory = Memory.from_defaults(session_id="s1", memory_blocks=[EngramMemoryBlock(engram=engram, user_id="mei")])
    llm = OpenAI(model="gpt-4o-mini", api_base=chat.url, api_key="test", max_retries=0)
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory)
    answer = await engine.achat("我们的数据库是什么？")
    assert str(answer) == chat.reply
    sent = chat.messages()
    assert sent[0]["role"] == "system" and "PostgreSQL" in sent[0]["content"]
    assert sent[-1] == {"role": "user", "content": "我们的数据库是什么？"}


async def test_a_session_id_of_its_own_and_nothing_to_recall(engram_server, api_key):
    engram = AsyncEngram(engram_server.url, api_key)
    block = EngramMemoryBlock(engram=engram, user_id="lin", session_id="fixed")
    assert await block.aget([ChatMessage(role="assistant", content="Hello")]) == ""
    await block.aput([ChatMessage(role="user", content="I prefer aisle seats"), ChatMessage(role="tool", content="ignored")], session_id="other")
    recalled = await engram.recall("lin", "seat", session_id="fixed")
    assert [(t.role, t.text) for t in recalled.recent] == [("user", "I prefer aisle seats")]
