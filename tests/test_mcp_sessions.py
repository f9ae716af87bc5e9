"""Which episode an MCP request belongs to, and what happens to episodes nobody finishes.

In-process (no transport): `Serving.episode` is given the request context the SDK would build
(its `_meta`, and over HTTP the request's headers and query), and `Episodes` is driven with an
explicit clock. The real-process tests are in test_mcp_clients.py.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("mcp")

from scn.regenerate import ROOT  # noqa: E402
from scn.runtime.bundle import LoadedBundle  # noqa: E402
from scn.runtime.run import read_trajectories  # noqa: E402
from scn.serve.episodes import EpisodeRefused, Episodes  # noqa: E402
from scn.serve.guard import RateLimit  # noqa: E402
from scn.serve.mcp_server import Serving  # noqa: E402

BUNDLE = ROOT / "multi_mcp-servers"


@pytest.fixture(scope="module")
def bundle() -> LoadedBundle:
    return LoadedBundle.load(BUNDLE)


def ctx(session: str | None = "s1", meta: dict[str, Any] | None = None, **query: str) -> Any:
    """The parts of the SDK's request context `Serving` reads (an HTTP request)."""
    headers = {"mcp-session-id": session} if session else {}
    request = SimpleNamespace(headers=headers, query_params=query)
    return SimpleNamespace(meta=meta or {}, request=request, session=None)


def first_call(bundle: LoadedBundle, task_id: str) -> tuple[str, dict[str, str]]:
    task = bundle.tasks[task_id]
    tool = task["truth"]["layers"][0][0]
    return tool, {p["name"]: task["given"][p["datatype"]] for p in bundle.tools[tool]["params"]}


def text(result: Any) -> str:
    return result.content[0].text


# --------------------------------------------------------------------------- sessions


def test_each_session_plays_its_own_episode_and_cannot_end_anothers(
    bundle: LoadedBundle, tmp_path: Path
) -> None:
    task = next(iter(bundle.tasks))
    tool, args = first_call(bundle, task)
    log = tmp_path / "log.jsonl"
    serving = Serving(bundle, task=task, log=log)

    async def main() -> None:
        first = await serving.call(tool, args, ctx("A", agent="first"))
        assert not first.is_error
        key = first.meta["scn/episode"]
        assert key.startswith("e-") and len(key) > 12  # made up by the server
        # another session, no key: its own episode; its answer ends only that one
        done = await serving.control("scn_submit_answer", {"answer": "x"}, ctx("B", agent="b"))
        assert json.loads(text(done))["calls"] == 0
        assert serving.episodes.find(key) is not None
        # the first session goes on in its episode, under the same key
        again = await serving.call(tool, args, ctx("A", agent="first"))
        assert again.meta["scn/episode"] == key
        # a client given the key joins deliberately; it is not credited
        joined = await serving.call(tool, args, ctx("C", agent="joiner", episode=key))
        assert joined.meta["scn/episode"] == key
        await serving.control("scn_submit_answer", {"answer": "y"}, ctx("A", agent="first"))

    asyncio.run(main())
    b, a = read_trajectories(log)
    assert b["agent"] == "b" and b["steps"][-1]["action"]["type"] == "answer"
    assert a["agent"] == "first" and a["settings"]["episode"] != b["settings"]["episode"]
    assert [r["tool"] for s in a["steps"] for r in s["results"]] == [tool] * 3


def test_the_server_task_is_the_only_task(bundle: LoadedBundle) -> None:
    one, other = list(bundle.tasks)[:2]
    serving = Serving(bundle, task=one)
    with pytest.raises(EpisodeRefused, match="plays task"):
        serving.episode(ctx(task=other))
    with pytest.raises(EpisodeRefused, match="plays task"):
        serving.episode(ctx(meta={"scn/task": other}))
    assert serving.episode(ctx(task=one)).env.task_id == one


def test_a_key_keeps_its_task_and_sessionless_requests_name_their_episode(
    bundle: LoadedBundle,
) -> None:
    one, other = list(bundle.tasks)[:2]
    serving = Serving(bundle)
    with pytest.raises(EpisodeRefused, match="no task selected"):
        serving.episode(ctx())
    serving.episode(ctx(task=one, episode="run7"))
    with pytest.raises(EpisodeRefused, match="plays task"):
        serving.episode(ctx(task=other, episode="run7"))
    with pytest.raises(EpisodeRefused, match=r"\?episode=KEY.*a fresh key: e-"):
        serving.episode(ctx(session=None, task=one))
    assert serving.episode(ctx(session=None, task=one, episode="k")).key == "k"
    with pytest.raises(EpisodeRefused, match="no task 'nope'"):
        serving.episode(ctx(task="nope"))


def test_listing_opens_no_episode(bundle: LoadedBundle) -> None:
    task = next(iter(bundle.tasks))
    serving = Serving(bundle, task=task)
    assert serving.episode(ctx(), create=False) is None
    assert not serving.episodes.open


def test_messages_never_name_server_paths(bundle: LoadedBundle) -> None:
    serving = Serving(bundle, task=next(iter(bundle.tasks)))
    root = str(bundle.root.resolve())
    assert root not in serving.public(f"cannot read {root}/data/x.json")
    assert serving.public("a value with no path") == "a value with no path"


# --------------------------------------------------------------------------- lifecycle


def test_idle_episodes_are_logged_as_abandoned_and_the_cap_refuses_new_ones(
    bundle: LoadedBundle, tmp_path: Path
) -> None:
    task = next(iter(bundle.tasks))
    tool, args = first_call(bundle, task)
    log = tmp_path / "log.jsonl"
    episodes = Episodes(bundle, log, "test", max_episodes=2, idle_timeout=10.0)
    a = episodes.get(task, "a", "agent-a")
    a.call(tool, args)
    a.finish_call()
    b = episodes.get(task, "b", "agent-b")
    with pytest.raises(EpisodeRefused, match="limit of 2"):
        episodes.get(task, "c", "agent-c")
    assert episodes.expire(now=a.last_active + 5) == 0
    b.last_active = a.last_active + 8  # b was used later than a
    assert episodes.expire(now=a.last_active + 11) == 1  # a only
    assert episodes.find("a") is None and episodes.find("b") is b
    episodes.get(task, "c", "agent-c")  # room again
    (record,) = read_trajectories(log)
    assert record["agent"] == "agent-a" and record["outcome"]["ended"] == "abandoned"
    assert "idle" in record["outcome"]["abandoned"] and not record["outcome"]["success"]
    assert [r["tool"] for s in record["steps"] for r in s["results"]] == [tool]
    episodes.close()
    assert {r["agent"] for r in read_trajectories(log)} == {"agent-a", "agent-b", "agent-c"}


def test_at_the_cap_an_episode_left_long_enough_makes_room(
    bundle: LoadedBundle, tmp_path: Path
) -> None:
    task = next(iter(bundle.tasks))
    log = tmp_path / "log.jsonl"
    episodes = Episodes(bundle, log, "test", max_episodes=2, idle_timeout=1000.0)
    left = episodes.get(task, "left", "x")
    played = episodes.get(task, "played", "y")
    left.last_active -= 45  # idle longer than EVICT_AFTER, shorter than the idle timeout
    third = episodes.get(task, "third", "z")
    assert set(episodes.open) == {"played", "third"} and third is not played
    (record,) = read_trajectories(log)
    assert record["agent"] == "x" and record["outcome"]["abandoned"].startswith("evicted")
    with pytest.raises(EpisodeRefused):  # both in play: nobody is evicted
        episodes.get(task, "fourth", "w")


def test_an_episode_in_flight_does_not_expire(bundle: LoadedBundle) -> None:
    task = next(iter(bundle.tasks))
    tool, args = first_call(bundle, task)
    episodes = Episodes(bundle, None, "test", idle_timeout=1.0)
    episode = episodes.get(task, "a", "x")
    episode.call(tool, args)
    assert episodes.expire(now=episode.last_active + 100) == 0
    episode.finish_call()
    assert episodes.expire(now=episode.last_active + 100) == 1


def test_a_turn_window_groups_calls_sent_one_after_another(bundle: LoadedBundle) -> None:
    task = max(bundle.tasks.values(), key=lambda t: len(t["truth"]["layers"][0]))
    layer = [s for s in task["subtasks"] if not s["depends_on"]]
    assert len(layer) > 1
    for window, turns in ((3600.0, 1), (0.0, len(layer))):
        episodes = Episodes(bundle, None, "test", turn_window=window)
        episode = episodes.get(task["id"], "k", "x")
        for s in layer:  # each answered before the next is sent
            assert episode.call(s["tool"], s["args"]).ok
            episode.finish_call()
        record = episode.record("b", "test")
        assert len(record["steps"]) == turns


# --------------------------------------------------------------------------- logging


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.floats(0, 40)), max_size=200))
def test_rate_limited_logging_counts_every_record(events: list[tuple[int, float]]) -> None:
    """Per kind: at most `burst` records let through per window, and every record is either
    let through or counted (reported with the next one let through, or still pending)."""
    now = [0.0]
    limit = RateLimit(burst=3, window=60.0, clock=lambda: now[0])
    let: dict[int, list[float]] = {}
    reported = 0
    for kind, step in events:
        now[0] += step
        record = logging.LogRecord("x", logging.WARNING, "f", 1, f"kind {kind}", (), None)
        if limit.filter(record):
            let.setdefault(kind, []).append(now[0])
            if "held back" in record.getMessage():
                reported += int(record.getMessage().split("[")[1].split()[0])
    pending = sum(int(s[2]) for s in limit.seen.values())
    assert sum(map(len, let.values())) + reported + pending == len(events)
    for times in let.values():
        for t in times:
            assert sum(1 for u in times if t <= u < t + 60.0) <= 2 * 3  # two windows at most


# --------------------------------------------------------------------------- fuzzing

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=int(os.environ.get("SCN_FUZZ_EXAMPLES", "60")), deadline=None)
@given(data=st.data())
def test_any_call_is_answered_as_a_tool_result_and_logged(
    bundle: LoadedBundle, tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    """Whatever a client sends as tool name, arguments and `_meta`, the server answers with a
    tool result (never raises), names no server path, and logs every call that reached an
    episode."""
    names = sorted(bundle.tools)[:20] + ["scn_submit_answer", "scn_get_task"]
    tasks = list(bundle.tasks)[:2]
    log = tmp_path_factory.mktemp("fuzz") / "log.jsonl"
    serving = Serving(bundle, log=log)
    root = str(bundle.root.resolve())
    calls = data.draw(
        st.lists(
            st.tuples(
                st.sampled_from(names) | st.text(max_size=30),
                st.dictionaries(st.text(max_size=10), JSON, max_size=5) | JSON,
                st.fixed_dictionaries(
                    {},
                    optional={
                        "scn/task": st.sampled_from(tasks) | st.text(max_size=5) | JSON,
                        "scn/episode": st.sampled_from(["a", "b"]) | JSON,
                        "scn/turn": JSON,
                    },
                ),
                st.sampled_from(["s1", "s2", None]),
            ),
            max_size=8,
        )
    )

    async def main() -> int:
        reached = 0
        for tool, args, meta, session in calls:
            context = ctx(session=session, meta=meta, task=tasks[0])
            if tool in ("scn_submit_answer", "scn_get_task"):
                result = await serving.control(
                    tool, args if isinstance(args, dict) else {}, context
                )
            else:
                result = await serving.call(tool, args, context)
            assert result.content and root not in result.content[0].text
            if result.meta and "scn/episode" in result.meta and tool != "scn_get_task":
                reached += tool != "scn_submit_answer" or result.is_error
        return reached

    reached = asyncio.run(main())
    serving.episodes.close()
    records = read_trajectories(log) if log.exists() else []
    logged = [r for rec in records for s in rec["steps"] for r in s["results"]]
    assert len(logged) == reached
