"""Requests to a Chat Completions endpoint: sending, retrying, and what a failure means.

Requests are retried here, not by the client (which gets `max_retries=0`): timeouts, connection
errors, HTTP 408, 429 and 5xx, with exponential backoff and jitter (a server's `Retry-After` is
honoured up to `max_backoff`). A request that still fails raises `RequestFailed`; its
`endpoint_error()` is the infrastructure failure it is (`scn.runtime.failures`), or None when the
model itself is to blame (a context overflow, say).

The body is plain JSON, sent with the client's `post` (what `chat.completions.create` does after
it walks every message and tool schema through its TypedDict transform, which is most of the
client's CPU time per request and would throttle concurrent episodes); auth, timeouts, error
types and the typed `ChatCompletion` reply are the SDK's. `Requester` is the part of the LLM
agent (`scn.runtime.llm.OpenAIAgent`) that does this.
"""

from __future__ import annotations

import os
import time
from typing import Any

import openai
from openai import OpenAI
from openai.types.chat import ChatCompletion

from scn.runtime.failures import EndpointError, is_infrastructure

__all__ = ["RequestFailed", "Requester", "make_client", "ms"]

#: HTTP statuses worth another try: request timeout, rate limit, server errors.
_RETRY_STATUS = {408, 429}


def _retryable(error: BaseException) -> bool:
    if isinstance(error, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code in _RETRY_STATUS or error.status_code >= 500
    return False


def _retry_after(error: BaseException) -> float | None:
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for header, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = headers.get(header)
        if raw is None:
            continue
        try:
            return max(0.0, float(raw) / divisor)
        except ValueError:
            continue
    return None


def _describe(error: BaseException) -> str:
    if isinstance(error, openai.APIStatusError):
        return f"{type(error).__name__}: HTTP {error.status_code}: {error.message}"
    return f"{type(error).__name__}: {error}"


class RequestFailed(Exception):
    """A request that still failed after its retries (`endpoint_error` says whether the
    endpoint, not the model, is to blame)."""

    def __init__(self, error: BaseException, retries: int) -> None:
        super().__init__(_describe(error))
        self.error = error
        self.retries = retries
        self.status: int | None = getattr(error, "status_code", None)

    def endpoint_error(self) -> EndpointError | None:
        """The infrastructure failure this is (None: the model's own, e.g. context overflow)."""
        if not is_infrastructure(self.status, str(self)):
            return None
        return EndpointError(
            f"request failed after {self.retries} retries: {self}",
            status=self.status,
            retries=self.retries,
        )


def make_client(
    base_url: str | None, *, api_key_env: str = "OPENAI_API_KEY", timeout: float = 60
) -> OpenAI:
    """Return an `OpenAI` client that does not retry on its own (the agent does)."""
    return OpenAI(
        base_url=base_url,
        api_key=os.environ.get(api_key_env) or "EMPTY",
        timeout=timeout,
        max_retries=0,
    )


def ms(started: float) -> float:
    """Milliseconds since `started` (a `time.perf_counter()`), rounded for the step log."""
    return round((time.perf_counter() - started) * 1000, 3)


class Requester:
    """Sending with retries, mixed into the LLM agent: it reads the agent's `client`, `model`,
    `body`, `max_retries`, `backoff`, `max_backoff` and `rng`."""

    client: OpenAI
    model: str
    body: dict[str, Any]
    max_retries: int
    backoff: float
    max_backoff: float
    rng: Any

    def _ask(self, prompt: str) -> tuple[Any, int, float]:
        """Send one request of a single user message (the selection and planner phases);
        return (response, retries, latency). An endpoint that cannot serve is raised as its
        `EndpointError` (the episode failed to run); any other failure as `RequestFailed`,
        for the caller to note."""
        request = {"model": self.model, "messages": [{"role": "user", "content": prompt}]}
        request.update(self.body)
        try:
            return self._create(request)
        except RequestFailed as failed:
            endpoint = failed.endpoint_error()
            if endpoint is not None:
                raise endpoint from None
            raise

    def _create(self, request: dict[str, Any]) -> tuple[Any, int, float]:
        """Send one request, retrying what is worth it; return (reply, retries, latency ms)."""
        retries = 0
        while True:
            started = time.perf_counter()
            try:
                response = self._send(request)
                return response, retries, ms(started)
            except Exception as error:  # noqa: BLE001 - every failure is reported, none raised
                if not _retryable(error) or retries >= self.max_retries:
                    raise RequestFailed(error, retries) from error
                time.sleep(self._delay(retries, error))
                retries += 1

    def _send(self, request: dict[str, Any]) -> ChatCompletion:
        """POST the request through the client, as `chat.completions.create` does.

        The body is plain JSON already, so it goes through the client's documented `post` for
        custom requests: that skips the SDK's per-request TypedDict walk of every message and
        tool schema (most of the client's CPU time, which grows with the conversation and stalls
        concurrent episodes), while auth, timeouts, error types and the typed `ChatCompletion`
        reply stay the SDK's.
        """
        return self.client.post(
            "/chat/completions",
            body=request,
            cast_to=ChatCompletion,
            options={"security": {"bearer_auth": True}},
        )

    def _delay(self, retries: int, error: BaseException) -> float:
        """Exponential backoff with equal jitter; a longer Retry-After wins (up to the cap)."""
        base = min(self.max_backoff, self.backoff * (2**retries))
        delay = base / 2 + self.rng.uniform(0, base / 2)
        hinted = _retry_after(error)
        if hinted is not None:
            delay = max(delay, min(hinted, self.max_backoff))
        return delay
