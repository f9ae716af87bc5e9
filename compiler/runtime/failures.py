"""Infrastructure failures: an episode the endpoint could not play is not a result.

A model that answers badly scores zero; a model server that cannot be reached, refuses the key,
does not know the model or keeps rate-limiting after every retry says nothing about the model.
Such an episode is recorded as *failed to run*: its record carries `run_error`
(`{"message", "status", "retries", "fatal"}`), scoring leaves it out of every metric and counts it
(`failed_to_run`), and a rerun with the same output file plays it again (`scn.runtime.run`
does not count it as done).

`EndpointError` is what an agent raises for such a failure; `FailFast` watches the first
episodes of a run and stops it at once when they all fail on the same error (a wrong model name,
a wrong port, a missing key), so a typo costs seconds, not a results file.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["EndpointError", "FailFast", "RunAborted", "failed_to_run"]

#: Statuses that are the request's fault and would fail the same way on every episode.
FATAL_STATUS = {401, 403, 404, 405, 422}

#: Words of a 400 reply that mean the *model's* conversation outgrew it (a result, not a failure).
_CONTEXT_WORDS = ("context length", "context_length", "maximum context", "too many tokens")


class EndpointError(Exception):
    """The endpoint failed a request after every retry: the episode failed to run.

    Args:
        message: What failed, as the client said it (type, HTTP status, server message).
        status: The HTTP status, when there was a reply.
        retries: How many times the request was tried again.
    """

    def __init__(self, message: str, *, status: int | None = None, retries: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retries = retries

    @property
    def fatal(self) -> bool:
        """Whether every other request of the run would fail the same way (key, model, route)."""
        return self.status in FATAL_STATUS or self.status == 400

    def record(self) -> dict[str, Any]:
        """The record's `run_error` block."""
        return {
            "message": self.message,
            "status": self.status,
            "retries": self.retries,
            "fatal": self.fatal,
        }


def is_infrastructure(status: int | None, message: str) -> bool:
    """Whether a request that failed with `status` is the endpoint's failure, not the model's.

    Everything is, except a 400 saying the conversation no longer fits the model's context
    (the multi-day trip-planning paper counts an overlong conversation against the model)."""
    if status == 400:
        lowered = message.lower()
        return not any(word in lowered for word in _CONTEXT_WORDS)
    return True


def failed_to_run(record: Any) -> bool:
    """Whether a trajectory record is an episode that failed to run (see the module doc)."""
    return isinstance(record, dict) and bool(record.get("run_error"))


class RunAborted(Exception):
    """The first episodes of a run all failed on the same endpoint error: the run stopped."""

    def __init__(self, error: dict[str, Any], failed: int) -> None:
        super().__init__(
            f"the endpoint failed {failed} episode(s) in a row and the run stopped: "
            f"{error.get('message')}"
        )
        self.error = error
        self.failed = failed


class FailFast:
    """Watches episodes as they end; says when the run must stop.

    The run stops when, before any episode has run, `window` episodes in a row failed with the
    same message, or at the first one whose error is fatal (a status every request would get:
    401, 403, 404, a bad request). After one episode ran, failures are recorded and left for a
    rerun: a server that fails now and then should not end a long run.
    """

    def __init__(self, window: int = 3) -> None:
        self.window = max(1, window)
        self.lock = threading.Lock()
        self.ran = False
        self.failures: list[dict[str, Any]] = []

    def stop(self, record: dict[str, Any]) -> RunAborted | None:
        """Note an ended episode; return why the run stops now (None: it goes on)."""
        with self.lock:
            if self.ran:
                return None
            error = record.get("run_error")
            if not error:
                self.ran = True
                return None
            self.failures.append(error)
            same = all(f.get("message") == error.get("message") for f in self.failures)
            if error.get("fatal") or (same and len(self.failures) >= self.window):
                return RunAborted(error, len(self.failures))
            if not same:
                self.ran = True  # mixed errors: a flaky server, not a wrong setting
            return None
