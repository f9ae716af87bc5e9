"""A bound on the model requests in flight per endpoint, shared by every worker of a cluster.

One `EndpointLimiter` actor per endpoint (named after its base URL in the `scn` namespace, so
two jobs on one cluster that name the same endpoint share it too) holds an asyncio semaphore;
`LimitedClient` wraps an `OpenAI` client so that each request (`client.post`, which the agent
sends every chat completion through) takes a permit first and gives it back when the reply (or
the error) is in. The actor also measures: the most requests it ever let through at once, and
how long it held each in-flight count, so a run can report its real concurrency.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from scn.distributed.cluster import import_ray

NAMESPACE = "scn"


class EndpointLimiter:
    """Counts permits for one endpoint (a Ray async actor; see `limiter`)."""

    def __init__(self, limit: int) -> None:
        self.limit = max(1, int(limit))
        self.semaphore = asyncio.Semaphore(self.limit)
        self.in_flight = 0
        self.max_in_flight = 0
        self.requests = 0
        self.since = time.perf_counter()
        self.occupancy: dict[int, float] = {}

    def _tick(self) -> None:
        now = time.perf_counter()
        self.occupancy[self.in_flight] = self.occupancy.get(self.in_flight, 0.0) + now - self.since
        self.since = now

    async def acquire(self) -> None:
        await self.semaphore.acquire()
        self._tick()
        self.in_flight += 1
        self.requests += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)

    async def release(self) -> None:
        self._tick()
        self.in_flight -= 1
        self.semaphore.release()

    async def stats(self) -> dict[str, Any]:
        """Requests let through, the most at once, and seconds spent at each in-flight count."""
        self._tick()
        return {
            "limit": self.limit,
            "requests": self.requests,
            "max_in_flight": self.max_in_flight,
            "occupancy": dict(self.occupancy),
        }


def limiter(endpoint: str, limit: int) -> Any:
    """Return the limiter actor of `endpoint`, creating it with `limit` permits if none exists."""
    ray = import_ray()
    actor = ray.remote(num_cpus=0, max_concurrency=10_000)(EndpointLimiter)
    return actor.options(
        name=f"endpoint:{endpoint}", namespace=NAMESPACE, get_if_exists=True
    ).remote(limit)


class LimitedClient:
    """An `OpenAI` client whose `post` waits for a permit from the endpoint's limiter."""

    def __init__(self, client: Any, limiter_actor: Any) -> None:
        self._client = client
        self._limiter = limiter_actor

    def post(self, *args: Any, **kwargs: Any) -> Any:
        ray = import_ray()
        ray.get(self._limiter.acquire.remote())
        try:
            return self._client.post(*args, **kwargs)
        finally:
            self._limiter.release.remote()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)
