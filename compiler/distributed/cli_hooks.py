"""The few lines `scn run` and `scn compile` need from the Ray backend, kept out of `cli.py`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scn.diagnostics import ScnError


def ray_runner(
    agent_name: str,
    seed: int,
    base_url: str | None,
    api_key_env: str,
    timeout: float,
    address: str | None,
    workers: int | None,
    max_in_flight: int | None,
    llm: dict[str, Any] | None = None,
) -> Callable[..., tuple[int, int]]:
    """Return a function with `run_concurrent`'s signature that plays the run on Ray.

    The local agent factory it is handed is ignored: workers build their own from the spec.
    """
    if workers is not None and workers < 1:
        raise ScnError("--workers must be at least 1", path="--workers", code="usage")
    if max_in_flight is not None and max_in_flight < 1:
        raise ScnError("--max-in-flight must be at least 1", path="--max-in-flight", code="usage")
    from scn.distributed.cluster import reachable
    from scn.distributed.runs import AgentSpec, run_ray

    if address is not None:
        reachable(address)

    options = None
    if agent_name.startswith("openai:") and llm is not None:
        from scn.llm_cli import agent_options

        options = {**agent_options(llm), "max_retries": llm.get("max_retries", 3)}
    spec = AgentSpec(agent_name, seed, base_url, api_key_env, timeout, max_in_flight, options)

    def runner(bundle: Any, _factory: Any, _name: str, out: Any, **options: Any) -> tuple[int, int]:
        return run_ray(bundle, spec, out, workers=workers, address=address, **options)

    return runner
