"""What the tests share besides fixtures (conftest.py)."""

from typing import Any


async def settled(value: Any) -> Any:
    """``value`` awaited if it is awaitable: the same line serves ``Engram`` and ``AsyncEngram``."""
    return await value if hasattr(value, "__await__") else value
