"""What keeps `scn serve` serving when some clients are careless or hostile.

A server that anyone on the machine can connect to meets clients that open connections and
send nothing, send a request a byte at a time (slowloris), or open hundreds of connections and
leave them half open. Without limits each costs a file descriptor forever, the process runs
out of them, legitimate clients are refused, and every failed `accept()` prints a warning. So:

- `GuardedH11` (uvicorn's h11 protocol with two limits): a request must arrive complete (its
  headers and body) within `request_timeout` seconds of its first byte, or of the connection's
  opening, else the connection is closed; and a client (a peer address) holds about
  `per_client` connections, the process at most `total` (below its file-descriptor limit). A
  connection over the client's cap evicts that client's connection whose request has been
  arriving longest (else the one idle longest), so a newcomer is served even while a flood of
  half-open connections holds the cap; no connection is evicted in its first second (a burst
  behind a newcomer cannot close it before its request is read), nor within a second of its
  last answer (a client sends its next request on the connection it was just answered on, and
  closing it while that request is in flight fails the request), so during a burst a client
  may briefly hold more. Over the process's cap a newcomer evicts anyone's such connection or
  is refused with 503. Responses, including long event streams, are never cut.
- `RateLimit`: a logging filter that lets through a few records of each kind per window and
  then counts the rest, reporting how many were held back, so a flood of bad requests cannot
  fill the disk through stderr.

On loopback every local client has the same address (127.0.0.1), so there `per_client` caps
the local clients together; a client on another loopback address (127.0.0.2) is counted apart.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from dataclasses import dataclass
from typing import Any

#: Default limits (`scn serve --request-timeout --max-connections`).
REQUEST_TIMEOUT = 10.0
PER_CLIENT = 256

log = logging.getLogger("scn.serve")


@dataclass(frozen=True)
class Limits:
    request_timeout: float = REQUEST_TIMEOUT
    per_client: int = PER_CLIENT
    total: int = 0  #: 0: from the process's file-descriptor limit (`connection_budget`)


def connection_budget() -> int:
    """How many connections the process can hold: its file-descriptor limit (raised to the hard
    limit first) less a reserve for the log, the bundle and the event loop."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY:
        soft = 65536
    return max(16, min(soft - 64, 16384))


def guarded_protocol(limits: Limits) -> type[Any]:
    """Return a uvicorn HTTP protocol class enforcing `limits` (one registry per class)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    total = limits.total or connection_budget()
    grace = min(1.0, limits.request_timeout / 2)
    by_peer: dict[str, list[GuardedH11]] = {}
    count = [0]
    done = (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR)

    class GuardedH11(H11Protocol):  # type: ignore[misc]
        _began: float | None = None  #: when the request now arriving began (None: none is)
        _idle_since = 0.0  #: when the last request arrived in full, then when it was answered
        _timer: asyncio.TimerHandle | None = None
        _peer = ""

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._peer = str(self.client[0]) if self.client else "?"
            peers = by_peer.setdefault(self._peer, [])
            if len(peers) >= limits.per_client:  # soft: a burst may pass it for a second
                self._evict(peers)
            if count[0] >= total and not self._evict(None):  # hard: file descriptors
                log.warning(
                    "refused a connection from %s: %d open, all being answered",
                    self._peer,
                    len(peers),
                )
                transport.write(
                    b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n"
                    b"connection: close\r\n\r\n"
                )
                transport.close()
                self._peer = ""
                return
            peers.append(self)
            count[0] += 1
            self._arm()

        def _evict(self, peers: list[GuardedH11] | None) -> bool:
            """Close the connection of `peers` (else of anyone) whose request has been arriving
            longest, if for more than `grace`; else the one idle longest, if for more than
            `grace`. A connection is never closed in its first `grace` seconds, so a newcomer's
            request gets read even when a burst of connections arrives behind it, nor in the
            `grace` seconds after an answer, when its client's next request may be on the way
            (not yet read, it would look idle)."""
            pools = [peers] if peers is not None else list(by_peer.values())
            now = time.monotonic()
            incomplete = idle = None
            for pool in pools:
                for p in pool:
                    if p is self or p._busy():
                        continue
                    if p._began is None:
                        if now - p._idle_since >= grace and (
                            idle is None or p._idle_since < idle._idle_since
                        ):
                            idle = p
                    elif now - p._began >= grace and (
                        incomplete is None or p._began < incomplete._began  # type: ignore[operator]
                    ):
                        incomplete = p
            victim = incomplete or idle
            if victim is None:
                return False
            log.warning("closed an idle or incomplete connection from %s (cap)", victim._peer)
            victim._drop()
            return True

        def _busy(self) -> bool:
            """A request read in full and not yet answered (or a stream being sent)."""
            cycle = self.cycle
            return self._began is None and cycle is not None and not cycle.response_complete

        def _arm(self) -> None:
            self._began = time.monotonic()
            self._timer = self.loop.call_later(limits.request_timeout, self._expired)

        def _disarm(self) -> None:
            self._began = None
            self._idle_since = time.monotonic()
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _expired(self) -> None:
            if self._began is not None and not self.transport.is_closing():
                log.warning(
                    "closed a connection from %s: no complete request within %g s",
                    self._peer,
                    limits.request_timeout,
                )
                self._drop()

        def _drop(self) -> None:
            self._disarm()
            self._began = None
            self._unregister()
            self.transport.abort()

        def _unregister(self) -> None:
            peers = by_peer.get(self._peer)
            if peers is not None and self in peers:
                peers.remove(self)
                count[0] -= 1
                if not peers:
                    del by_peer[self._peer]

        def data_received(self, data: bytes) -> None:
            if self._began is None:
                self._arm()
            super().data_received(data)
            if self.conn.their_state in done:  # the whole request has arrived
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._idle_since = time.monotonic()  # idle from now: see `_evict`
            # uvicorn's keep-alive timer now closes the connection if no request follows;
            # a request that starts arrives through data_received, which arms ours again

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            self._unregister()
            super().connection_lost(exc)

    return GuardedH11


class RateLimit(logging.Filter):
    """Let through at most `burst` records of each kind (logger and message template) per
    `window` seconds; the first record of a kind let through after some were held back says
    how many. At most `kinds` kinds are tracked (a flood of distinct messages counts as one)."""

    def __init__(
        self, burst: int = 5, window: float = 60.0, kinds: int = 256, clock: Any = None
    ) -> None:
        super().__init__()
        self.burst, self.window, self.kinds = burst, window, kinds
        self.clock = clock or time.monotonic
        self.seen: dict[tuple[str, str], list[float]] = {}  #: kind: [window start, let, held]

    def filter(self, record: logging.LogRecord) -> bool:
        now = self.clock()
        key = (record.name, str(record.msg)[:120])
        if key not in self.seen and len(self.seen) >= self.kinds:
            key = ("", "(other)")
        state = self.seen.setdefault(key, [now, 0, 0])
        if now - state[0] >= self.window:
            held = int(state[2])
            state[:] = [now, 0, 0]
            if held:
                record.msg = f"{record.getMessage()} [{held} more like this held back]"
                record.args = ()
        if state[1] < self.burst:
            state[1] += 1
            return True
        state[2] += 1
        return False


def quiet_logging(level: int = logging.WARNING) -> logging.Handler:
    """Send every log record of the process to stderr through one rate-limited handler."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("scn serve: %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RateLimit())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "asyncio", "mcp"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    return handler
