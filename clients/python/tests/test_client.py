"""The client against a real engram: the same tests for Engram and AsyncEngram (``flavour``)."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest

from engram_client import (
    EngramAuthError,
    EngramNotFoundError,
    EngramUnavailableError,
    EngramValidationError,
)
from engram_client._retry import RetryPolicy, retry_after_seconds


async def test_reads_its_own_writes_the_position_goes_to_the_next_recall_of_that_user(make_client, api_key, trace):
    client = make_client(api_key, trace)
    recorded = await client.remember("laozhou", "s1", [{"role": "user", "text": "我们的数据库用 PostgreSQL"}])
    recalled = await client.recall("laozhou", "数据库用什么")
    assert recalled.consistent is True
    assert "PostgreSQL" in "\n".join(m.content for m in recalled.memories)
    assert "PostgreSQL" in recalled.context
    assert [c["path"] for c in trace.calls] == ["/v1/turns", "/v1/recall"]
    assert trace.calls[1]["body"] == {"userId": "laozhou", "query": "数据库用什么", "after": recorded.position}
    # Seen by a consistent recall: the token is not sent again, nor to another user.
    await client.recall("laozhou", "数据库用什么")
    await client.recall("someone-else", "数据库用什么")
    assert ["after" in c["body"] for c in trace.calls[2:]] == [False, False]


async def test_an_explicit_after_is_sent_as_given(make_client, api_key, trace):
    client = make_client(api_key, trace)
    first = await client.remember("u-after", "s1", [{"role": "user", "text": "I prefer tea"}])
    await client.remember("u-after", "s1", [{"role": "user", "text": "I prefer green tea"}])
    await client.recall("u-after", "tea", after=first.position)
    assert trace.calls[-1]["body"]["after"] == first.position
    # The newer write is still pending: the next recall waits for it.
    assert client.client.pending_position("u-after") is not None
    await client.recall("u-after", "tea")
    assert trace.calls[-1]["body"]["after"] != first.position
    assert client.client.pending_position("u-after") is None


async def test_fills_in_turn_ids_and_instants_and_keeps_the_given_ones(make_client, api_key):
    client = make_client(api_key)
    said_at = datetime(2026, 11, 30, 9, 0, tzinfo=timezone(timedelta(hours=8)))
    await client.remember(
        "u-turns",
        "s1",
        [
            {"turnId": "t-given", "role": "user", "text": "I prefer aisle seats", "occurredAt": said_at},
            {"role": "assistant", "text": "Noted: aisle seats."},
        ],
    )
    recalled = await client.recall("u-turns", "which seat", session_id="s1")
    recent = {t.text: t for t in recalled.recent}
    assert recent["I prefer aisle seats"].turn_id == "t-given"
    assert recent["I prefer aisle seats"].occurred_at == said_at
    generated = recent["Noted: aisle seats."]
    assert len(generated.turn_id) == 36 and generated.turn_id.count("-") == 4
    assert abs((datetime.now(timezone.utc) - generated.occurred_at).total_seconds()) < 60
    # The turn id is the idempotency key: sending t-given again stores nothing new.
    await client.remember("u-turns", "s1", [{"turn_id": "t-given", "role": "user", "text": "I prefer aisle seats", "occurred_at": said_at}])
    turns = await client.turns("u-turns", ["t-given"])
    assert [(t.turn_id, t.text) for t in turns] == [("t-given", "I prefer aisle seats")]


async def test_is_scoped_by_its_api_key_and_a_wrong_key_is_an_auth_error(make_client, engram_server, api_key):
    acme = make_client(api_key)
    await acme.remember("shared-id", "s1", [{"role": "user", "text": "I prefer aisle seats"}])
    assert "aisle" in (await acme.recall("shared-id", "which seat")).context
    beta = make_client(engram_server.fresh_key())
    assert await beta.memories("shared-id") == []
    assert "aisle" not in (await beta.recall("shared-id", "which seat")).context
    wrong = make_client("no-such-key")
    with pytest.raises(EngramAuthError) as refused:
        await wrong.recall("shared-id", "which seat")
    assert refused.value.status == 401


async def test_raises_typed_errors_carrying_the_servers_fields(make_client, api_key):
    client = make_client(api_key)
    with pytest.raises(EngramValidationError) as invalid:
        await client.remember("u1", "s1", [{"role": "user", "text": "ok"}, {"role": "user", "text": ""}])
    assert invalid.value.status == 400
    assert invalid.value.fields == ["turns.1.text"]
    assert "400" in str(invalid.value) and invalid.value.messages
    with pytest.raises(EngramValidationError) as zoneless:
        await client.recall("u1", "anything", as_of="2026-11-30T09:00:00")
    assert zoneless.value.fields == ["asOf"]
    with pytest.raises(EngramNotFoundError) as missing:
        await client.revert("u1", "no-such-memory", 1)
    assert missing.value.fields == ["memoryId"]


async def test_lists_retracts_reverts_pins_a_profile_exports_imports_and_forgets(make_client, api_key):
    client = make_client(api_key)
    await client.remember(
        "mei",
        "s1",
        [
            {"turn_id": "t1", "role": "user", "text": "预算控制在三万以内", "occurred_at": "2026-11-30T08:00:00Z"},
            {"turn_id": "t2", "role": "user", "text": "I prefer window seats", "occurred_at": "2026-11-30T08:01:00Z"},
        ],
    )
    await client.remember("mei", "s1", [{"turn_id": "t3", "role": "user", "text": "预算提到五万了", "occurred_at": "2026-12-01T08:00:00Z"}])
    await client.recall("mei", "预算")
    memories = await client.memories("mei")
    budget = next(m for m in memories if "五万" in m.content)
    seat = next(m for m in memories if "window" in m.content)
    assert budget.version == 2
    assert [v.value for v in budget.history] == ["三万"]

    reverted = await client.revert("mei", budget.memory_id, 1)
    assert (reverted.memory.value, reverted.memory.version) == ("三万", 3)
    retracted = await client.retract("mei", seat.memory_id, "说错了")
    assert (retracted.memory.status, retracted.memory.status_reason) == ("retracted", "说错了")
    assert seat.memory_id not in [m.memory_id for m in await client.memories("mei")]
    everything = await client.memories("mei", status="all")
    assert next(m for m in everything if m.memory_id == seat.memory_id).status == "retracted"
    assert [m.value for m in (await client.profile("mei", {"city": "杭州"})).memories] == ["杭州"]

    bundle = await client.export("mei")
    assert bundle.format == "engram.export"
    assert "杭州" in [m.value for m in bundle.memories]
    imported = await client.import_("mei-copy", bundle)
    assert imported.added > 0
    assert (await client.import_("mei-copy", bundle.to_json())).added == 0
    assert {"杭州", "三万"} <= {m.value for m in await client.memories("mei-copy")}
    assert "mei" in (await client.users()).users

    forgotten = await client.forget("mei")
    assert forgotten.forgotten is True
    assert client.client.pending_position("mei") == forgotten.position
    assert await client.memories("mei") == []
    assert "三万" not in (await client.recall("mei", "预算")).context


async def test_pages_through_users(make_client, api_key):
    client = make_client(api_key)
    for user in ("page-a", "page-b", "page-c"):
        await client.profile(user, {"city": "杭州"})
    first = await client.users(limit=2)
    assert first.users == ["page-a", "page-b"] and first.next is not None
    rest = await client.users(limit=2, after=first.next)
    assert rest.users == ["page-c"] and rest.next is None


async def test_retries_a_429_after_the_retry_after_the_server_sent_and_reports_it_once_retries_run_out(make_client, api_key, trace):
    def turns(n: int, start: int):
        return [{"turn_id": f"b{start + i}", "role": "user", "text": f"burst {start + i}"} for i in range(n)]

    # Six turns need 3 s of refill after the burst: refused even on a slow machine.
    impatient = make_client(api_key, retries=0)
    await impatient.remember("bursty", "s1", turns(20, 0))  # the whole burst of a 2 turns/s bucket
    with pytest.raises(EngramUnavailableError) as refused:
        await impatient.remember("bursty", "s1", turns(6, 20))
    assert refused.value.status == 429
    assert refused.value.retry_after_seconds is not None and refused.value.retry_after_seconds >= 1

    # Refused at first too, then let through once the wait the server named is over.
    patient = make_client(api_key, trace)
    started = time.monotonic()
    assert (await patient.remember("bursty", "s1", turns(6, 20))).accepted == 6
    assert [c["status"] for c in trace.calls] == [429, 202]
    assert time.monotonic() - started >= 0.9


async def test_reports_health_and_the_pipeline(make_client, api_key):
    client = make_client(api_key)
    assert (await client.health()).status == "ok"
    status = await client.pipeline_status()
    assert status.scope == "tenant" and status.pending >= 0


def test_reads_retry_after_as_seconds_or_as_an_http_date():
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds("Wed, 21 Oct 2026 07:28:10 GMT", now=1792567680.0) == 10.0
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds(None) is None
    policy = RetryPolicy(retries=2, base_delay=0.2, max_delay=5)
    assert policy.wait_before_retry(0, 429, "120") == 5  # capped
    assert policy.wait_before_retry(0, 503, "1") == 1
    assert policy.wait_before_retry(2, 429, "1") is None  # retries spent
    assert policy.wait_before_retry(0, 500, "1") is None  # only 429 and 503 mean "later"
    assert 0.1 <= policy.wait_before_retry(1, 429, None) <= 0.4
