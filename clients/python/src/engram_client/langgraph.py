"""``EngramStore``: LangGraph's long-term memory store (``BaseStore``) over engram.

Namespaces map to engram users and memory kinds, under a fixed ``prefix`` (default ``("memories",)``):

- ``(*prefix, user_id)``: a user's memories. ``put(ns, key, {"content": text})`` records ``text``
  as a turn of the user (``turn_id = key``; optional ``"role"``, default ``user``, and
  ``"session_id"``, default the store's); engram's pipeline decides what it remembers of it.
  ``get(ns, key)`` returns that turn, or the memory whose id is ``key``. ``search(ns, query=q)``
  is a recall: the ranked memories (``score`` set), then the pinned facts and procedures engram
  always injects (``score`` None); without a query, every active memory, newest first.
  ``delete(ns, key)`` retracts the memory ``key``, or every memory drawn from the turn ``key``.
- ``(*prefix, user_id, kind)``: the same, narrowed to one kind (``preference``, ``fact``,
  ``procedure``…). The kind of a memory is engram's decision, so ``put`` here is refused, except
  for ``profile``: ``put((*prefix, user_id, "profile"), "city", {"value": "杭州"})`` pins an
  attribute the application knows (``PUT /v1/users/:id/profile``); ``delete`` retracts it.

A memory comes back as an item keyed by its id, in ``(*prefix, user_id, kind)``, whose value is
``{"content", "kind", "version"}`` plus, from a recall, ``"source_turn_ids"`` and, from a listing,
``"attribute"``, ``"value"``, ``"status"`` and ``"pinned"``. A turn's value is
``{"content", "role", "session_id", "kind": "turn"}``. ``filter`` compares these values
(``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``). ``list_namespaces`` pages through the
tenant's users (and, below ``max_depth``, the kinds each one holds). Reads of a user this store has
just written to wait until engram has processed the write. TTL is engram's own forgetting, so
``ttl`` is not supported; ``index`` is ignored (engram indexes everything).

A namespace label cannot hold a period (LangGraph's rule), so neither can a user id used here.
Give it an ``Engram`` for ``batch`` (``abatch`` then runs it in a thread), or an ``AsyncEngram``
for ``abatch``.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from ._steps import Steps, call, run_async, run_sync
from .client import AsyncEngram, Engram
from .models import FactView, MemoryRecordView, MemoryView, RecentTurnView

KINDS = ("preference", "fact", "task", "decision", "profile", "episode", "insight", "procedure", "summary")
RECALL_MAX_K = 50
USERS_PAGE = 200


class EngramStore(BaseStore):
    supports_ttl = False

    def __init__(
        self,
        engram: Union[Engram, AsyncEngram],
        *,
        prefix: Tuple[str, ...] = ("memories",),
        session_id: str = "langgraph",
        retract_reason: str = "deleted through the LangGraph store",
    ) -> None:
        if not isinstance(engram, (Engram, AsyncEngram)):
            raise TypeError("EngramStore needs an Engram or an AsyncEngram")
        self.engram = engram
        self.prefix = tuple(prefix)
        self.session_id = session_id
        self.retract_reason = retract_reason

    def batch(self, ops: Iterable[Op]) -> List[Result]:
        if not isinstance(self.engram, Engram):
            raise TypeError("EngramStore.batch needs a blocking Engram; with an AsyncEngram use abatch (ainvoke, astream)")
        return [run_sync(self.engram, self._steps(op)) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> List[Result]:
        if isinstance(self.engram, Engram):
            ops = list(ops)
            return await asyncio.get_running_loop().run_in_executor(None, self.batch, ops)
        return [await run_async(self.engram, self._steps(op)) for op in ops]

    # --- one operation -----------------------------------------------------------------------

    def _steps(self, op: Op) -> Steps[Result]:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            return self._delete(op) if op.value is None else self._put(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise TypeError(f"unknown store operation {op!r}")

    def _scope(self, namespace: Tuple[str, ...]) -> Tuple[str, Optional[str]]:
        """(user_id, kind or None) of ``(*prefix, user_id[, kind])``."""
        rest = namespace[len(self.prefix) :]
        if namespace[: len(self.prefix)] != self.prefix or not 1 <= len(rest) <= 2:
            shape = ", ".join([*map(repr, self.prefix), "user_id", "[kind]"])
            raise InvalidNamespaceError(f"EngramStore namespaces are ({shape}); got {namespace!r}")
        if len(rest) == 2 and rest[1] not in KINDS:
            raise InvalidNamespaceError(f"{rest[1]!r} is no engram memory kind (one of {', '.join(KINDS)})")
        return rest[0], rest[1] if len(rest) == 2 else None

    def _settled(self, user_id: str) -> Steps[None]:
        """Waits until engram has processed this store's last write for the user. engram's
        read-your-writes is recall's `after`; a recall narrowed to kind summary (never ranked)
        waits for the write and touches no memory's use count."""
        if self.engram.pending_position(user_id) is not None:
            yield call("recall", user_id, "settle", kinds=["summary"], k=1)

    def _put(self, op: PutOp) -> Steps[None]:
        user_id, kind = self._scope(op.namespace)
        value = op.value or {}
        if kind == "profile":
            text = _text(value, "value", "content")
            yield call("profile", user_id, {op.key: text})
            return None
        if kind is not None:
            raise ValueError(
                "engram decides a memory's kind from what was said: put turns into "
                f"{(*self.prefix, user_id)!r} and profile attributes into {(*self.prefix, user_id, 'profile')!r}"
            )
        turn = {"turn_id": op.key, "role": value.get("role", "user"), "text": _text(value, "content", "text")}
        yield call("remember", user_id, value.get("session_id", self.session_id), [turn])
        return None

    def _get(self, op: GetOp) -> Steps[Optional[Item]]:
        user_id, kind = self._scope(op.namespace)
        yield from self._settled(user_id)
        if kind is None:
            turns: List[RecentTurnView] = yield call("turns", user_id, [op.key])
            if turns:
                return self._turn_item(user_id, turns[0])
        memories: List[MemoryRecordView] = yield call("memories", user_id)
        for memory in memories:
            if kind == "profile" and memory.kind == "profile" and memory.attribute == op.key:
                return self._record_item(user_id, memory)
            if memory.memory_id == op.key and kind in (None, memory.kind):
                return self._record_item(user_id, memory)
        return None

    def _delete(self, op: PutOp) -> Steps[None]:
        user_id, kind = self._scope(op.namespace)
        yield from self._settled(user_id)
        if kind == "profile":
            memories: List[MemoryRecordView] = yield call("memories", user_id)
            doomed = [m.memory_id for m in memories if m.kind == "profile" and m.attribute == op.key]
        else:
            # The export is what lists each memory's source turns, for a key that names a turn.
            bundle = yield call("export", user_id)
            doomed = [
                m.memory_id
                for m in bundle.memories
                if m.status == "active" and kind in (None, m.kind) and (m.memory_id == op.key or op.key in m.source_turn_ids)
            ]
        for memory_id in doomed:
            yield call("retract", user_id, memory_id, self.retract_reason)
        return None

    def _search(self, op: SearchOp) -> Steps[List[SearchItem]]:
        user_id, kind = self._scope(op.namespace_prefix)
        wanted = op.offset + op.limit
        items: List[SearchItem] = []
        if op.query:
            options: Dict[str, Any] = {"k": max(1, min(RECALL_MAX_K, wanted))}
            if kind is not None:
                options["kinds"] = [kind]
            recalled = yield call("recall", user_id, op.query, **options)
            seen = set()
            for memory in recalled.memories:
                seen.add(memory.id)
                items.append(self._recalled_item(user_id, memory))
            for fact in [*recalled.facts, *recalled.procedures]:
                if fact.id not in seen:
                    seen.add(fact.id)
                    items.append(self._fact_item(user_id, fact))
        else:
            yield from self._settled(user_id)
            memories: List[MemoryRecordView] = yield call("memories", user_id)
            chosen = sorted((m for m in memories if kind in (None, m.kind)), key=lambda m: m.updated_at, reverse=True)
            items = [_searchable(self._record_item(user_id, m)) for m in chosen]
        if op.filter:
            items = [item for item in items if _matches(item.value, op.filter)]
        return items[op.offset : wanted]

    def _list_namespaces(self, op: ListNamespacesOp) -> Steps[List[Tuple[str, ...]]]:
        users: List[str] = []
        after: Optional[str] = None
        while True:
            page = yield call("users", limit=USERS_PAGE, after=after)
            users.extend(page.users)
            if page.next is None:
                break
            after = page.next
        depth = len(self.prefix) + 1
        namespaces = set()
        for user_id in users:
            namespaces.add((*self.prefix, user_id))
            if op.max_depth is None or op.max_depth > depth:
                memories: List[MemoryRecordView] = yield call("memories", user_id)
                namespaces.update((*self.prefix, user_id, m.kind) for m in memories)
        conditions = op.match_conditions or ()
        found = {ns[: op.max_depth] if op.max_depth is not None else ns for ns in namespaces if all(_match(c, ns) for c in conditions)}
        return sorted(found)[op.offset : op.offset + op.limit]

    # --- items -----------------------------------------------------------------------------------

    def _record_item(self, user_id: str, memory: MemoryRecordView) -> Item:
        value = {
            "content": memory.content,
            "kind": memory.kind,
            "version": memory.version,
            "attribute": memory.attribute,
            "value": memory.value,
            "status": memory.status,
            "pinned": memory.pinned,
        }
        return Item(
            value=value,
            key=memory.memory_id,
            namespace=(*self.prefix, user_id, memory.kind),
            created_at=_first_recorded(memory),
            updated_at=memory.updated_at,
        )

    def _recalled_item(self, user_id: str, memory: MemoryView) -> SearchItem:
        value = {"content": memory.content, "kind": memory.kind, "version": memory.version, "source_turn_ids": memory.source_turn_ids}
        return SearchItem(
            namespace=(*self.prefix, user_id, memory.kind),
            key=memory.id,
            value=value,
            created_at=memory.created_at,
            updated_at=memory.updated_at,
            score=memory.score,
        )

    def _fact_item(self, user_id: str, fact: FactView) -> SearchItem:
        value = {"content": fact.content, "kind": fact.kind, "version": fact.version, "source_turn_ids": fact.source_turn_ids}
        return SearchItem(
            namespace=(*self.prefix, user_id, fact.kind),
            key=fact.id,
            value=value,
            created_at=fact.updated_at,
            updated_at=fact.updated_at,
            score=None,
        )

    def _turn_item(self, user_id: str, turn: RecentTurnView) -> Item:
        value = {"content": turn.text, "role": turn.role, "session_id": turn.session_id, "kind": "turn"}
        return Item(value=value, key=turn.turn_id, namespace=(*self.prefix, user_id), created_at=turn.occurred_at, updated_at=turn.occurred_at)


def _text(value: Mapping[str, Any], *names: str) -> str:
    for name in names:
        if isinstance(value.get(name), str):
            return value[name]
    raise ValueError(f"EngramStore.put needs the text under {' or '.join(repr(n) for n in names)}; got keys {sorted(value)}")


def _first_recorded(memory: MemoryRecordView) -> datetime:
    return min([memory.updated_at, *(version.recorded_at for version in memory.history)])


def _searchable(item: Item) -> SearchItem:
    return SearchItem(namespace=item.namespace, key=item.key, value=item.value, created_at=item.created_at, updated_at=item.updated_at)


def _match(condition: MatchCondition, namespace: Tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[len(namespace) - len(path) :]
    return all(p == "*" or p == n for p, n in zip(path, part))


_OPERATORS = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b,
    "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b,
    "$lte": lambda a, b: a is not None and a <= b,
}


def _matches(value: Mapping[str, Any], conditions: Mapping[str, Any]) -> bool:
    for key, wanted in conditions.items():
        actual = value.get(key)
        if isinstance(wanted, dict) and wanted and all(op in _OPERATORS for op in wanted):
            if not all(_OPERATORS[op](actual, operand) for op, operand in wanted.items()):
                return False
        elif actual != wanted:
            return False
    return True
