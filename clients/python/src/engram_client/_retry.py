"""When to resend: 429 and 503 only (the answers engram means as "later"), honouring Retry-After."""

from __future__ import annotations

import email.utils
import math
import random
import time
from dataclasses import dataclass
from typing import Optional

RETRIED = frozenset({429, 503})


def retry_after_seconds(header: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Retry-After as seconds or an HTTP date → seconds from now; None when absent or unreadable."""
    if not header:
        return None
    try:
        seconds = float(header)
        if math.isfinite(seconds):
            return max(0.0, seconds)
    except ValueError:
        pass
    try:
        at = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, at.timestamp() - (time.time() if now is None else now))


@dataclass(frozen=True)
class RetryPolicy:
    #: Retries after the first attempt.
    retries: int = 3
    #: First backoff when the server gives no Retry-After, doubled each time, with jitter.
    base_delay: float = 0.2
    #: Ceiling of any single wait, Retry-After included.
    max_delay: float = 30.0

    def wait_before_retry(self, attempt: int, status: int, retry_after: Optional[str]) -> Optional[float]:
        """Seconds to wait before resending after ``attempt`` (0-based) was answered ``status``;
        None when the answer stands. Every endpoint is idempotent (turns carry their turnId), so
        resending is safe."""
        if status not in RETRIED or attempt >= self.retries:
            return None
        backoff = self.base_delay * 2**attempt * (0.5 + random.random() / 2)
        asked = retry_after_seconds(retry_after)
        return min(self.max_delay, backoff if asked is None else asked)
