"""engram-client: the engram memory service from Python (see the repository's README)."""

from ._operations import RecallOptions
from .client import AsyncEngram, Engram, __version__
from .errors import (
    EngramAuthError,
    EngramConflictError,
    EngramError,
    EngramNotFoundError,
    EngramUnavailableError,
    EngramValidationError,
)
from .with_memory import with_memory

__all__ = [
    "AsyncEngram",
    "Engram",
    "EngramAuthError",
    "EngramConflictError",
    "EngramError",
    "EngramNotFoundError",
    "EngramUnavailableError",
    "EngramValidationError",
    "RecallOptions",
    "__version__",
    "with_memory",
]
