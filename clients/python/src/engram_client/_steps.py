"""Adapter logic written once for both clients: a generator yields the engram calls it needs
(``call("recall", user_id, query, k=5)``), receives each result, and returns its own. ``run_sync``
drives it with an ``Engram``, ``run_async`` with an ``AsyncEngram``."""

from __future__ import annotations

import asyncio
from typing import Any, Dict, Generator, Tuple, TypeVar

T = TypeVar("T")
Call = Tuple[str, Tuple[Any, ...], Dict[str, Any]]
Steps = Generator[Call, Any, T]


def call(method: str, *args: Any, **kwargs: Any) -> Call:
    return (method, args, kwargs)


def run_sync(engram: Any, steps: Steps[T]) -> T:
    try:
        method, args, kwargs = next(steps)
        while True:
            method, args, kwargs = steps.send(getattr(engram, method)(*args, **kwargs))
    except StopIteration as done:
        return done.value


async def run_async(engram: Any, steps: Steps[T]) -> T:
    try:
        method, args, kwargs = next(steps)
        while True:
            method, args, kwargs = steps.send(await getattr(engram, method)(*args, **kwargs))
    except StopIteration as done:
        return done.value


async def run_either(engram: Any, steps: Steps[T]) -> T:
    """For adapters whose framework is async only: an ``AsyncEngram`` is awaited, a blocking
    ``Engram`` runs in a worker thread so the event loop is not held up."""
    from .client import AsyncEngram

    if isinstance(engram, AsyncEngram):
        return await run_async(engram, steps)
    return await asyncio.get_running_loop().run_in_executor(None, run_sync, engram, steps)
