"""Connect to a Ray cluster, or start a local one, for the length of one command.

`address` is what `ray.init` takes: None starts a local instance (with at least `workers` CPUs,
so the actors fit), `auto` joins the cluster this machine is part of (`ray start`), and
`HOST:PORT` or `ray://HOST:10001` joins a given one. When Ray is already initialised in this
process (a test session, a notebook) it is reused and left running.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from scn.diagnostics import ScnError

#: Where a local instance listens: this machine's loopback, never its network address.
LOOPBACK = "127.0.0.1"


def import_ray() -> Any:
    """Return the `ray` module, or raise a usage error that says how to install it."""
    try:
        import ray
    except ImportError:
        raise ScnError(
            "--backend ray needs Ray: pip install 'scn-compiler[ray]'",
            path="--backend",
            code="usage",
        ) from None
    return ray


@contextmanager
def connected(address: str | None, workers: int) -> Iterator[Any]:
    """Yield the `ray` module connected to a cluster; shut down only what this call started."""
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    options: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "configure_logging": True,
        "logging_level": "warning",
    }
    if address is None:
        options["num_cpus"] = max(workers, os.cpu_count() or 1)
        options["_node_ip_address"] = LOOPBACK  # a local instance listens on loopback only
    else:
        reachable(address)
        options["address"] = address
    try:
        ray.init(**options)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise ScnError(
            f"cannot reach a Ray cluster at {address}: {e}", path="--address", code="usage"
        ) from None
    try:
        yield ray
    finally:
        ray.shutdown()


def reachable(address: str) -> None:
    """Fail at once (not after Ray's minute of retries) when a HOST:PORT head does not answer."""
    if address in ("auto", "local") or "://" in address:
        return
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ScnError(
            f"--address {address!r}: expected auto, HOST:PORT or ray://HOST:PORT",
            path="--address",
            code="usage",
        )
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as e:
        raise ScnError(
            f"no Ray head answers at {address} ({e.strerror or e})", path="--address", code="usage"
        ) from None


def cpus(ray: Any) -> float:
    """The CPUs the cluster offers (1 when it reports none)."""
    return float(ray.cluster_resources().get("CPU", 1.0)) or 1.0
