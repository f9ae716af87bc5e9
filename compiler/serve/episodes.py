"""Episodes played over a protocol: calls that arrive one by one, grouped into turns.

In-process agents hand `Env` a whole turn at once (`{"type": "parallel", "calls": [...]}`). A
client speaking MCP sends one request per call instead, so the server has to decide which calls
form a turn. The rule, in order:

1. a call carrying `_meta["scn/turn"]` belongs to the turn of that label (a new label opens a
   new turn), so a client can state its schedule exactly;
2. otherwise a call that arrives while another call of the episode is still in flight joins
   that call's turn, and one that arrives when nothing is in flight opens a new turn. A client
   that waits for each answer before the next call is therefore strictly sequential, and one
   that sends several requests together is parallel. Each call stays in flight for its tool's
   latency times `latency_scale` (0 answers at once), which is what makes concurrent requests
   overlap;
3. with a turn window (`turn_window` seconds, `scn serve --turn-window MS`), a call that arrives
   within the window after the open turn's last call was answered still joins that turn. Some
   frameworks (openai-agents) send the calls a model asked for in one message one after
   another, each awaited; they arrive milliseconds apart, while a model's next message takes
   far longer than any sensible window, so the window restores the model's own grouping.

Every call of a turn is checked against what the agent held when the turn opened, exactly as
`Env` checks a parallel batch: a dependent call sent in the same turn as its producer fails
visibly ("input ... is not held yet"). Outputs become usable from the next turn on. When the
episode ends (final answer, or the server stops) its trajectory is one `scn-trajectory/1` record
with one step per turn, so `scn score` reads it like any in-process run.

A bundle's blockers apply per turn exactly as `Env.step` applies them per action (`--blocker
NAME --blocks N`): at the planned turn the effect acts before each arriving call (with the turn's
calls so far) and after the turn closes (a ban fails the turn's first call, a server outage fails
every call of the turn to that server, a slowed tool answers later from then on), and the ground
truth is re-solved after it.
"""

from __future__ import annotations

import json
import math
import secrets
import threading
import time
from pathlib import Path
from typing import Any

from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.results import CallResult
from scn.runtime.run import SCHEMA, bundle_record, settings

#: Turns an MCP episode may take before further calls are refused.
MAX_TURNS = 200
#: Live episodes one server keeps at most (`scn serve --max-episodes`): each holds an `Env`.
MAX_EPISODES = 1000
#: Seconds without a call after which an episode is logged as abandoned (`--idle-timeout`).
IDLE_TIMEOUT = 300.0
#: At the cap, the episode idle longest is evicted (logged as abandoned) once idle this long.
EVICT_AFTER = 30.0


class EpisodeRefused(Exception):
    """A request that cannot have an episode (the message is safe to show the client)."""


def new_key() -> str:
    """An episode key nobody can guess: only a client it was given to can join the episode."""
    return "e-" + secrets.token_urlsafe(12)


class Episode:
    """One task played by one MCP client (or several clients sharing an episode key)."""

    def __init__(
        self,
        bundle: LoadedBundle,
        task_id: str,
        key: str,
        agent: str,
        blocker: str | None = None,
        blocks: int = 0,
        turn_window: float = 0.0,
    ) -> None:
        self.bundle = bundle
        self.key = key
        self.agent = agent
        self.turn_window = turn_window
        self.last_active = self.last_answered = time.monotonic()
        self.ended: str | None = None  #: why the episode was abandoned ("answered" if not)
        self.env = Env(bundle, task_id, max_steps=MAX_TURNS, blocker=blocker, blocks=blocks)
        self.env.reset()
        self.firing = False  #: the open turn is the one the next blocker event fires at
        self.snapshot = self.env.state()  #: what was held when the open turn began
        self.pending: list[tuple[str, str]] = []  #: what the open turn's calls returned
        self.turn_calls: list[dict[str, Any]] = []
        self.turn_results: list[CallResult] = []
        self.turn_checked: list[CallResult] = []  #: the open turn's calls as checked
        self.turn_label: Any = None
        self.in_flight = 0
        self.closed = False

    # ------------------------------------------------------------ turns
    def _close_turn(self) -> None:
        """Record the open turn as one step and make its outputs usable."""
        if not self.turn_calls:
            return
        calls = self.turn_calls
        action = (
            {"type": "call", **calls[0]}
            if len(calls) == 1
            else {"type": "parallel", "calls": calls}
        )
        results = self.turn_results
        env = self.env
        env.end_round(results)
        env.down = None
        env.end_swaps()
        env.segments[-1]["calls"] += sum(1 for r in results if r.valid and r.ok and r.trusted)
        env.call_steps += 1
        env.restore(self.snapshot)
        for datatype, value in self.pending:
            env.hold(datatype, value)
        self.pending = []
        if self.firing:  # as Env.step does: the event applies after its turn, then re-plans
            env.fire(results)
            self.firing = False
        self.snapshot = env.state()  # an event may change the task and what is held
        self.env.steps.append(
            {
                "index": len(self.env.steps),
                "action": action,
                "results": [self._result_dict(r) for r in results],
                "cost": round(sum(r.cost for r in results), 6),
                "error": None,
                "violations": [],
                "feedback": None,
                "time_ms": 0.0,
            }
        )
        self.turn_calls, self.turn_results, self.turn_label = [], [], None
        self.turn_checked = []

    def _result_dict(self, r: CallResult) -> dict[str, Any]:
        out = r.to_dict()
        if r.valid and "latency_ms" not in out:
            latency = self.bundle.tools[r.tool].get("latency_ms")
            if isinstance(latency, int | float):
                out["latency_ms"] = latency
        return out

    def _in_window(self) -> bool:
        """Whether an unlabelled call arriving now still joins the open turn (see rule 3)."""
        return (
            self.turn_window > 0
            and bool(self.turn_calls)
            and time.monotonic() - self.last_answered <= self.turn_window
        )

    def call(
        self, tool: str, args: Any, label: Any = None, refused: str | None = None
    ) -> CallResult:
        """Run one call in the right turn and return its result (never raises).

        `refused` records a call the server turned down before the runtime saw it (an unknown
        tool on that endpoint, arguments over the size limit): it is logged as an invalid call
        with that message, without its arguments. The caller must call `finish_call()` once the
        call's simulated latency has passed.
        """
        self.last_active = time.monotonic()
        if self.closed or self.env.done:
            return CallResult(str(tool), False, False, error="the episode is over")
        if label is not None:
            if self.turn_calls and label != self.turn_label:
                self._close_turn()
        elif self.in_flight == 0 and not self._in_window():
            self._close_turn()
        env = self.env
        first = not self.turn_calls
        if first:
            if len(env.steps) >= MAX_TURNS:
                return CallResult(str(tool), False, False, error=f"more than {MAX_TURNS} turns")
            self.turn_label = label
            self.firing = env.firing()  # the turn a planned blocker event fires at
        if refused is not None:
            return self._refused(str(tool), refused)
        env.restore(self.snapshot)  # every call of a turn sees the turn's start state
        checked = env.check(tool, args)
        self.turn_checked.append(checked)
        index = len(self.turn_checked) - 1
        replaced = env.before_calls(self.turn_checked) if self.firing else {}
        if index in replaced:
            result = replaced[index]
        else:
            result = env.guarded(checked, [checked], [], args) if checked.valid else checked
        if result.ok and result.trusted and result.output is not None:
            self.pending.append((result.output, result.value or ""))
        self.env.restore(self.snapshot)
        self.turn_calls.append({"tool": str(tool), "args": args if isinstance(args, dict) else {}})
        self.turn_results.append(result)
        self.in_flight += 1
        return result

    def _refused(self, tool: str, error: str) -> CallResult:
        result = CallResult(tool, False, False, error=error)
        self.turn_checked.append(result)
        self.turn_calls.append({"tool": tool, "args": {}})
        self.turn_results.append(result)
        self.in_flight += 1
        return result

    def latency_ms(self, tool: str) -> float:
        """The call's latency in this episode (a `slow` blocker may have stretched it)."""
        base = self.bundle.tools[tool].get("latency_ms") or 0.0
        return base * self.env.slowed.get(tool, 1.0)

    def settle(self) -> None:
        """End the open turn if it is unlabelled and none of its calls is in flight (the next
        call would open a new turn anyway): a tool listing asks what holds now, so the turn's
        blocker events must have been applied. A labelled turn ends only with its label."""
        if (
            self.in_flight == 0
            and self.turn_label is None
            and not self.closed
            and not self._in_window()
        ):
            self._close_turn()

    def finish_call(self) -> None:
        self.in_flight = max(0, self.in_flight - 1)
        self.last_active = self.last_answered = time.monotonic()

    def answer(self, text: str) -> dict[str, Any]:
        """End the episode with a final answer; return its outcome."""
        self._close_turn()
        self.env.step({"type": "answer", "answer": str(text)})
        self.closed = True
        self.ended = "answered"
        return self.env.outcome()

    def record(self, bundle_path: str, transport: str) -> dict[str, Any]:
        """Return the episode's trajectory record (closing an open turn first).

        Its outcome says how the episode ended: `ended` is "answered" or "abandoned", and an
        abandoned one names why (`abandoned`: idle, the server stopped, the client left)."""
        self._close_turn()
        self.closed = True
        reason = None if self.ended == "answered" else (self.ended or "never answered")
        return {
            "schema": SCHEMA,
            "bundle": bundle_record(self.bundle, bundle_path),
            "task": self.env.task_id,
            "agent": self.agent,
            "settings": {
                **settings(MAX_TURNS, 0, self.env.blocker, self.env.blocks),
                "transport": transport,
                "episode": self.key,
            },
            "steps": self.env.steps,
            "outcome": {
                **self.env.outcome(),
                "ended": "abandoned" if reason else "answered",
                "abandoned": reason,
            },
        }


class Episodes:
    """Every live episode of one server process, keyed by episode key, and the log they go to.

    An episode is logged exactly once: when it is answered, and otherwise as abandoned when it
    has been idle for `idle_timeout` seconds (`expire`), or when the server stops (`close`).
    At most `max_episodes` live at once, so a client that opens episodes and walks away cannot
    exhaust memory: past the cap the episode idle longest makes room if it has been idle for a
    while (it is logged as abandoned, never dropped), else a new episode is refused.
    """

    def __init__(
        self,
        bundle: LoadedBundle,
        log: Path | None,
        transport: str,
        blocker: str | None = None,
        blocks: int = 0,
        *,
        max_episodes: int = MAX_EPISODES,
        idle_timeout: float = IDLE_TIMEOUT,
        turn_window: float = 0.0,
    ) -> None:
        self.bundle = bundle
        self.log = log
        self.transport = transport
        self.blocker = blocker
        self.blocks = blocks
        self.max_episodes = max_episodes
        self.idle_timeout = idle_timeout
        self.turn_window = turn_window
        self.open: dict[str, Episode] = {}
        self.lock = threading.Lock()
        if log is not None:
            log.parent.mkdir(parents=True, exist_ok=True)

    def find(self, key: str) -> Episode | None:
        """The live episode of `key`, if any."""
        return self.open.get(key)

    def get(self, task_id: str, key: str, agent: str) -> Episode:
        """Return the live episode of `key`, starting it (for `task_id`, credited to `agent`) on
        first use. A later user of the key joins it and is never credited.

        Raises:
            EpisodeRefused: the key's episode plays another task, or too many are live.
            ScnDataError: the bundle has no such task.
        """
        found = self.open.get(key)
        if found is not None:
            if found.env.task_id != task_id:
                raise EpisodeRefused(
                    f"episode {key!r} plays task {found.env.task_id!r}, not {task_id!r}"
                )
            found.last_active = time.monotonic()
            return found
        if len(self.open) >= self.max_episodes:
            self.make_room()
        found = self.open[key] = Episode(
            self.bundle, task_id, key, agent, self.blocker, self.blocks, self.turn_window
        )
        return found

    def make_room(self) -> None:
        """At the cap: expire idle episodes; else log the one idle longest as abandoned if it
        has been idle for `EVICT_AFTER` seconds (or the idle timeout, if shorter), so a flood
        of episodes opened and left cannot lock out new clients for long while an episode
        that is being played (a call within that time) is never evicted.

        Raises:
            EpisodeRefused: every live episode was used within that time.
        """
        self.expire()
        if len(self.open) < self.max_episodes:
            return
        now = time.monotonic()
        idle = [e for e in self.open.values() if e.in_flight == 0]
        oldest = min(idle, key=lambda e: e.last_active, default=None)
        if oldest is not None and now - oldest.last_active > min(EVICT_AFTER, self.idle_timeout):
            self.abandon(oldest, f"evicted: the server held its limit of {self.max_episodes}")
            return
        raise EpisodeRefused(
            f"the server holds its limit of {self.max_episodes} live episodes; "
            "finish one (scn_submit_answer) or try again later"
        )

    def finish(self, episode: Episode) -> None:
        """Write a finished episode and forget it (a later call with its key starts anew)."""
        if self.open.get(episode.key) is episode:
            del self.open[episode.key]
        self._write(episode)

    def abandon(self, episode: Episode, reason: str) -> None:
        """Log a live episode as abandoned (`reason`) and forget it."""
        episode.ended = reason
        self.finish(episode)

    def expire(self, now: float | None = None) -> int:
        """Log every episode idle for longer than the timeout as abandoned; return how many."""
        now = time.monotonic() if now is None else now
        idle = [
            e
            for e in self.open.values()
            if e.in_flight == 0 and now - e.last_active > self.idle_timeout
        ]
        for episode in idle:
            self.abandon(episode, f"idle for more than {self.idle_timeout:g} s")
        return len(idle)

    def _write(self, episode: Episode) -> None:
        record = episode.record(str(self.bundle.root), self.transport)
        if self.log is None:
            return
        try:
            line = json.dumps(record, sort_keys=True, separators=(",", ":"), allow_nan=False)
        except ValueError:  # a client sent Infinity or NaN: written as text, never as bad JSON
            line = json.dumps(_finite(record), sort_keys=True, separators=(",", ":"))
        line += "\n"
        with self.lock, self.log.open("a", encoding="utf-8") as f:
            f.write(line)
            f.flush()

    def close(self, reason: str = "the server stopped") -> None:
        """Log every episode still live as abandoned (the server is stopping)."""
        for episode in list(self.open.values()):
            self.abandon(episode, reason)
        self.open.clear()


def _finite(value: Any) -> Any:
    """`value` with every non-finite number replaced by its text ("inf", "nan"): a trajectory
    line is strict JSON, which `scn score` reads back."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value
