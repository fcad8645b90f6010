"""An answer other than 2xx, one class per meaning, carrying what the server said."""

from __future__ import annotations

from typing import Any, List, Optional


class EngramError(Exception):
    """engram answered ``status``. ``fields`` name every offending field (``turns.1.text``, ``memoryId``)."""

    def __init__(self, status: int, body: Any = None, retry_after_seconds: Optional[float] = None) -> None:
        body = body if isinstance(body, dict) else {}
        message = body.get("message")
        messages: List[str] = [] if message is None else [str(m) for m in message] if isinstance(message, list) else [str(message)]
        fields = body.get("fields")
        error = body.get("error")
        text = f"engram answered {status}"
        if error:
            text += f" {error}"
        if messages:
            text += ": " + "; ".join(messages)
        super().__init__(text)
        self.status = status
        self.messages = messages
        self.fields: List[str] = [str(f) for f in fields] if isinstance(fields, list) else []
        #: Seconds the server asked to wait (429/503), when it said so.
        self.retry_after_seconds = retry_after_seconds


class EngramValidationError(EngramError):
    """400: nothing was stored; ``fields`` says what to fix."""


class EngramAuthError(EngramError):
    """401/403: a missing or unknown API key (or admin key)."""


class EngramNotFoundError(EngramError):
    """404: a memory the user does not hold (``fields == ['memoryId']``)."""


class EngramConflictError(EngramError):
    """409: the command conflicts with the memory's state."""


class EngramUnavailableError(EngramError):
    """429/503 still answered after every retry."""


def error_for(status: int, body: Any = None, retry_after_seconds: Optional[float] = None) -> EngramError:
    if status == 400:
        return EngramValidationError(status, body, retry_after_seconds)
    if status in (401, 403):
        return EngramAuthError(status, body, retry_after_seconds)
    if status == 404:
        return EngramNotFoundError(status, body, retry_after_seconds)
    if status == 409:
        return EngramConflictError(status, body, retry_after_seconds)
    if status in (429, 503):
        return EngramUnavailableError(status, body, retry_after_seconds)
    return EngramError(status, body, retry_after_seconds)
