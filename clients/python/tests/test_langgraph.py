"""EngramStore (LangGraph's BaseStore) and EngramRetriever (LangChain) with the real packages,
against a real engram; the graph's chat model is the stub. Store tests run with an Engram through
``batch`` and with an AsyncEngram through ``abatch`` (``flavour``)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_openai import ChatOpenAI
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.store.base import BaseStore, InvalidNamespaceError

from engram_client import AsyncEngram, Engram
from engram_client.langchain import EngramRetriever
from engram_client.langgraph import EngramStore

from .support import settled


class StoreFace:
    """The store's blocking methods, or their async twins, awaited the same way."""

    def __init__(self, store: EngramStore, flavour: str) -> None:
        self.store = store
        self.flavour = flavour

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.store, name if self.flavour == "sync" else f"a{name}")

        async def call(*args: Any, **kwargs: Any) -> Any:
            result = method(*args, **kwargs)
            return await result if self.flavour == "async" else result

        return call


@pytest.fixture
def store(engram_server, api_key, flavour) -> StoreFace:
    engram = Engram(engram_server.url, api_key) if flavour == "sync" else AsyncEngram(engram_server.url, api_key)
    return StoreFace(EngramStore(engram), flavour)


async def test_a_put_is_a_turn_get_returns_it_and_search_recalls_what_engram_made_of_it(store):
    await store.put(("memories", "zhou"), "t1", {"content": "我们的数据库用 PostgreSQL"})
    item = await store.get(("memories", "zhou"), "t1")
    assert item.key == "t1" and item.namespace == ("memories", "zhou")
    assert item.value == {"content": "我们的数据库用 PostgreSQL", "role": "user", "session_id": "langgraph", "kind": "turn"}

    found = await store.search(("memories", "zhou"), query="数据库用什么")
    assert found, "recall found nothing"
    assert "PostgreSQL" in found[0].value["content"] and found[0].score is not None
    assert found[0].namespace == ("memories", "zhou", found[0].value["kind"])
    assert "t1" in found[0].value["source_turn_ids"]

    listed = await store.search(("memories", "zhou"))
    assert {item.value["kind"] for item in listed} >= {"fact", "episode"}
    facts = await store.search(("memories", "zhou", "fact"))
    assert [item.value["value"] for item in facts] == ["PostgreSQL"]
    by_id = await store.get(("memories", "zhou", "fact"), facts[0].key)
    assert by_id.value["content"] == "我们的数据库用 PostgreSQL"
    assert await store.get(("memories", "zhou", "preference"), facts[0].key) is None
    assert await store.get(("memories", "zhou"), "no-such-key") is None


async def test_search_pages_and_filters(store):
    await store.put(("memories", "mei"), "t1", {"content": "I prefer window seats"})
    await store.put(("memories", "mei"), "t2", {"content": "我们的数据库用 PostgreSQL", "role": "user", "session_id": "s2"})
    everything = await store.search(("memories", "mei"), limit=50)
    assert len(everything) >= 3
    assert [i.key for i in await store.search(("memories", "mei"), limit=1, offset=1)] == [everything[1].key]
    episodes = await store.search(("memories", "mei"), filter={"kind": "episode"}, limit=50)
    assert episodes and all(i.value["kind"] == "episode" for i in episodes)
    assert await store.search(("memories", "mei"), filter={"version": {"$gt": 1}}) == []


async def test_profile_attributes_are_put_got_and_deleted_under_the_profile_kind(store):
    await store.put(("memories", "lin", "profile"), "city", {"value": "杭州"})
    city = await store.get(("memories", "lin", "profile"), "city")
    assert (city.value["attribute"], city.value["value"], city.value["pinned"]) == ("city", "杭州", True)
    found = await store.search(("memories", "lin"), query="where do I live")
    assert "city: 杭州" in [i.value["content"] for i in found]
    await store.delete(("memories", "lin", "profile"), "city")
    assert await store.get(("memories", "lin", "profile"), "city") is None


async def test_delete_retracts_what_engram_drew_from_a_turn_or_one_memory(store):
    await store.put(("memories", "wu"), "t1", {"content": "I prefer aisle seats"})
    await store.put(("memories", "wu"), "t2", {"content": "我们的数据库用 PostgreSQL"})
    await store.delete(("memories", "wu"), "t1")
    remaining = [i.value["content"] for i in await store.search(("memories", "wu"), limit=50)]
    assert remaining and not any("aisle" in c for c in remaining)
    fact = (await store.search(("memories", "wu", "fact")))[0]
    await store.delete(("memories", "wu"), fact.key)
    assert await store.search(("memories", "wu", "fact")) == []
    assert await store.get(("memories", "wu"), fact.key) is None
    await store.delete(("memories", "wu"), "never-put")  # nothing to delete: no error


async def test_lists_users_and_kinds_as_namespaces(store):
    await store.put(("memories", "ns-a"), "t1", {"content": "I prefer window seats"})
    await store.put(("memories", "ns-b", "profile"), "city", {"value": "杭州"})
    await store.search(("memories", "ns-a"), query="seat")  # waits until engram processed the turn
    assert await store.list_namespaces(max_depth=2) == [("memories", "ns-a"), ("memories", "ns-b")]
    everything = await store.list_namespaces()
    assert ("memories", "ns-b", "profile") in everything and ("memories", "ns-a", "preference") in everything
    assert await store.list_namespaces(suffix=("profile",)) == [("memories", "ns-b", "profile")]
    assert await store.list_namespaces(prefix=("memories", "ns-b")) == [("memories", "ns-b"), ("memories", "ns-b", "profile")]
    assert await store.list_namespaces(prefix=("memories", "*", "preference")) == [("memories", "ns-a", "preference")]
    assert len(await store.list_namespaces(limit=1, offset=1)) == 1


async def test_refuses_what_engram_cannot_hold(store):
    with pytest.raises(ValueError, match="engram decides a memory's kind"):
        await store.put(("memories", "u", "preference"), "k", {"content": "I prefer tea"})
    with pytest.raises(ValueError, match="'content' or 'text'"):
        await store.put(("memories", "u"), "k", {"food": "pizza"})
    with pytest.raises(InvalidNamespaceError, match="user_id"):
        await store.search(("documents",), query="anything")
    with pytest.raises(InvalidNamespaceError, match="no engram memory kind"):
        await store.get(("memories", "u", "notes"), "k")


def test_batch_needs_a_blocking_client_and_abatch_takes_either(engram_server, api_key):
    with pytest.raises(TypeError, match="abatch"):
        EngramStore(AsyncEngram(engram_server.url, api_key)).put(("memories", "u"), "k", {"content": "hi"})
    assert isinstance(EngramStore(Engram(engram_server.url, api_key)), BaseStore)


async def test_a_graph_reads_and_writes_memories_through_the_store(engram_server, api_key, chat):
    engram = AsyncEngram(engram_server.url, api_key)
    store = EngramStore(engram)
    await store.aput(("memories", "laozhou"), "t0", {"content": "我们的数据库用 PostgreSQL"})
    model = ChatOpenAI(model="gpt-4o-mini", base_url=chat.url, api_key="test", max_retries=0)

    async def respond(state: MessagesState, config, *, store: BaseStore):
        namespace = ("memories", config["configurable"]["user_id"])
        question = state["messages"][-1]
        found = await store.asearch(namespace, query=question.content)
        system = "What you know of the user:\n" + "\n".join(item.value["content"] for item in found)
        reply = await model.ainvoke([{"role": "system", "content": system}, *state["messages"]])
        await store.aput(namespace, question.id, {"content": question.content})
        return {"messages": [reply]}

    graph = StateGraph(MessagesState).add_node(respond).add_edge(START, "respond").compile(store=store)
    config = {"configurable": {"user_id": "laozhou"}}
    result = await graph.ainvoke({"messages": [{"role": "user", "content": "我们的数据库是什么？"}]}, config)

    assert result["messages"][-1].content == chat.reply
    assert "PostgreSQL" in chat.messages()[0]["content"]
    asked = result["messages"][0]
    assert (await store.aget(("memories", "laozhou"), asked.id)).value["content"] == "我们的数据库是什么？"


async def test_the_retriever_returns_memories_as_documents(flavour, engram_server, api_key):
    engram = Engram(engram_server.url, api_key) if flavour == "sync" else AsyncEngram(engram_server.url, api_key)
    turns = [
        {"role": "user", "text": "我叫老周，我们的数据库用 PostgreSQL"},
        {"role": "user", "text": "以后报价先给区间再给明细"},
    ]
    await settled(engram.remember("laozhou", "s1", turns))
    retriever = EngramRetriever(engram=engram, user_id="laozhou", k=3)
    documents = await retriever.ainvoke("数据库用什么") if flavour == "async" else retriever.invoke("数据库用什么")
    ranked = [d for d in documents if not d.metadata["pinned"]]
    pinned = [d for d in documents if d.metadata["pinned"]]
    assert "PostgreSQL" in ranked[0].page_content and ranked[0].metadata["score"] > 0 and ranked[0].id
    assert len(ranked) <= 3
    assert {d.metadata["kind"] for d in pinned} == {"profile", "procedure"}
    assert "以后报价先给区间再给明细" in [d.page_content for d in pinned]

    # Recall options pass through: narrowed to procedures, which are pinned and never ranked.
    procedures = EngramRetriever(engram=engram, user_id="laozhou", recall={"kinds": ["procedure"]})
    found = await procedures.ainvoke("报价") if flavour == "async" else procedures.invoke("报价")
    assert [(d.metadata["kind"], d.metadata["pinned"]) for d in found] == [("procedure", True)]
    unpinned = EngramRetriever(engram=engram, user_id="laozhou", pinned=False, recall={"kinds": ["procedure"]})
    assert await unpinned.ainvoke("报价") == []
    if flavour == "sync":
        assert [d.page_content for d in await retriever.ainvoke("数据库用什么")] == [d.page_content for d in documents]
    else:
        with pytest.raises(TypeError, match="ainvoke"):
            retriever.invoke("数据库用什么")
