"""EngramSession with the real OpenAI Agents SDK: an agent run against the chat-model stub,
recall before each model call, turns recorded after, history replayed by the SDK."""

from __future__ import annotations

import openai
import pytest
from agents import Agent, OpenAIChatCompletionsModel, Runner, Session, SQLiteSession

from engram_client import AsyncEngram, Engram
from engram_client.openai_agents import EngramSession


def agent(chat_url: str) -> Agent:
    client = openai.AsyncOpenAI(base_url=chat_url, api_key="test", max_retries=0)
    return Agent(name="Assistant", instructions="Answer briefly.", model=OpenAIChatCompletionsModel("gpt-4o-mini", client))


@pytest.mark.parametrize("client", ["async", "sync"])
async def test_a_run_sees_what_engram_remembers_and_its_turns_are_recorded(client, engram_server, api_key, chat):
    engram = AsyncEngram(engram_server.url, api_key) if client == "async" else Engram(engram_server.url, api_key)
    setup = AsyncEngram(engram_server.url, api_key)
    await setup.remember("laozhou", "earlier", [{"role": "user", "text": "我们的数据库用 PostgreSQL"}])
    await setup.recall("laozhou", "数据库")  # processed before the run asks

    session = EngramSession(engram, user_id="laozhou", session_id="s1")
    result = await Runner.run(agent(chat.url), "我们的数据库是什么？", session=session, run_config=session.run_config())

    assert result.final_output == chat.reply
    system = chat.messages()[0]
    assert system["role"] == "system"
    assert system["content"].startswith("Answer briefly.\n\n") and "PostgreSQL" in system["content"]
    recalled = await setup.recall("laozhou", "数据库", session_id="s1")
    assert {("user", "我们的数据库是什么？"), ("assistant", chat.reply)} <= {(t.role, t.text) for t in recalled.recent}
    assert [item.get("role") for item in await session.get_items()] == ["user", "assistant"]

    # The next run replays the history from the session, and recalls again for its own question.
    await Runner.run(agent(chat.url), "Which seat do I like?", session=session, run_config=session.run_config())
    second = chat.messages(1)
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[1]["content"] == "我们的数据库是什么？" and second[-1]["content"] == "Which seat do I like?"


async def test_history_is_the_inner_sessions_and_engram_keeps_what_was_recorded(engram_server, api_key, chat):
    engram = AsyncEngram(engram_server.url, api_key)
    history = SQLiteSession("s1")
    session = EngramSession(engram, user_id="mei", session_id="s1", history=history)
    assert isinstance(session, Session)
    await Runner.run(agent(chat.url), "I prefer window seats", session=session, run_config=session.run_config())
    assert len(await history.get_items()) == 2
    assert (await session.pop_item())["role"] == "assistant"
    await session.clear_session()
    assert await session.get_items() == []
    recalled = await engram.recall("mei", "seat", session_id="s1")
    assert "I prefer window seats" in [t.text for t in recalled.recent]


async def test_tool_calls_stay_in_the_history_and_only_messages_become_turns(engram_server, api_key):
    engram = AsyncEngram(engram_server.url, api_key)
    session = EngramSession(engram, user_id="tools", session_id="s1")
    await session.add_items(
        [
            {"role": "user", "content": [{"type": "input_text", "text": "What is the weather?"}]},
            {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
            {
                "type": "message",
                "role": "assistant",
                "id": "m1",
                "status": "completed",
                "content": [{"type": "output_text", "text": "It is sunny.", "annotations": []}],
            },
        ]
    )
    assert len(await session.get_items()) == 4
    recalled = await engram.recall("tools", "weather", session_id="s1")
    assert [(t.role, t.text) for t in recalled.recent] == [("user", "What is the weather?"), ("assistant", "It is sunny.")]
