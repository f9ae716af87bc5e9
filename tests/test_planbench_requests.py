"""PlanBench-XL as the release poses it: business requests in paraphrase, values that do not give
each other away, and the release's own queries and database read from the user's copy.

1. no request names a canonical datatype (`delivery_attempt_id`, `account_number`), each
   quotes its input values, and phrasings vary with the seed;
2. with `scramble true`, a record's values carry unrelated numbers (the input's number never
   predicts the answer's), and every datatype's values stay distinct;
3. `--set queries=PATH --set database=PATH` compiles the release's 327 queries over its 100
   cases with their own texts, and every recorded answer is the release's gold answer;
   skipped with a reason when the copy is absent; a missing file is a located error.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scn.api import compile_target
from scn.plugins.planbench.request import PHRASES, phrase
from scn.plugins.planbench.request import request as planbench_request

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "planbench-xl"
_BUNDLES: dict[tuple[str, int], object] = {}


def tasks(target: str = "retail/planbench", seed: int = 42) -> list[dict]:
    key = (target, seed)
    if key not in _BUNDLES:
        _BUNDLES[key] = compile_target(target, seed=seed)
    return _BUNDLES[key].jsonl("tasks.jsonl")  # type: ignore[attr-defined]


def datatypes(target: str = "retail/planbench") -> list[str]:
    bundle = _BUNDLES.get((target, 42)) or compile_target(target, seed=42)
    return [d["name"] for d in bundle.json("scenario.json")["datatypes"]]  # type: ignore[attr-defined]


def test_requests_name_no_datatype_and_quote_their_inputs() -> None:
    names = [d for d in datatypes() if "_" in d]
    for task in tasks():
        text = task["query"]
        assert not [d for d in names if d in text], (task["id"], text)
        for value in task["given"].values():
            assert f"`{value}`" in text, (task["id"], text)


@pytest.mark.parametrize("target", ["retail/planbench", "retail/planbench_xl"])
def test_tool_descriptions_name_no_canonical_datatype(target: str) -> None:
    """What a model reads of a tool names no canonical datatype either: the misleading
    sibling once said it returned an annotation "not its checkout_session_id", which told the
    model both the canonical name and which tool not to trust."""
    bundle = _BUNDLES.get((target, 42)) or compile_target(target, seed=42)
    _BUNDLES[(target, 42)] = bundle
    names = [d for d in datatypes(target) if "_" in d]
    for tool in bundle.json("tools/openai.json")["tools"]:  # type: ignore[attr-defined]
        text = tool.get("function", tool)["description"]
        found = [d for d in names if re.search(rf"\b{re.escape(d)}\b", text)]
        assert not found, (tool.get("function", tool)["name"], found, text)


def test_every_phrasing_avoids_the_canonical_name() -> None:
    for datatype, options in PHRASES.items():
        assert len(set(options)) >= 2, datatype
        if "_" not in datatype:  # `phone`, `email`, `color`, `size`: plain words
            continue
        for text in options:
            assert datatype not in text and datatype.replace("_", " ") not in text, text


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    ins=st.lists(st.sampled_from(sorted(PHRASES)), min_size=1, max_size=2, unique=True),
    target=st.sampled_from(sorted(PHRASES)),
)
def test_request_is_deterministic_and_names_no_datatype(
    seed: int, ins: list[str], target: str
) -> None:
    class Ctx:
        pass

    ctx = Ctx()
    ctx.seed = seed  # type: ignore[attr-defined]
    values = {d: f"v{i}" for i, d in enumerate(ins)}
    text = planbench_request(ctx, ins, target, values)
    assert text == planbench_request(ctx, ins, target, values)
    assert not any(d in text for d in PHRASES if "_" in d), text
    assert all(f"`{v}`" in text for v in values.values())


def test_phrasing_varies_with_the_seed() -> None:
    a = [t["query"] for t in tasks(seed=1)]
    b = [t["query"] for t in tasks(seed=2)]
    assert sum(x != y for x, y in zip(a, b, strict=True)) >= len(a) // 2
    import random

    assert len({phrase("account_number", random.Random(s)) for s in range(20)}) == 2


def _number(value: str) -> int | None:
    found = re.findall(r"\d+", value)
    return int(found[-1]) % 1000 if found else None


def test_scrambled_values_do_not_give_each_other_away() -> None:
    found = tasks("retail/planbench_xl")
    same = 0
    for task in found:
        (answer,) = task["truth"]["answer"].values()
        for value in task["given"].values():
            same += _number(value) is not None and _number(value) == _number(answer)
    assert same <= len(found) // 10, same  # on main every single-input task matched


# --------------------------------------------------------------------------- 3. the release


def _release() -> tuple[Path, Path]:
    queries, database = REFERENCE / "queries.json", REFERENCE / "database.json"
    if not (queries.is_file() and database.is_file()):
        pytest.skip(f"PlanBench-XL's released queries/database under {REFERENCE} are absent")
    return queries, database


def test_released_queries_compile_with_their_gold_answers() -> None:
    queries, database = _release()
    bundle = compile_target(
        "retail/planbench_xl",
        seed=42,
        overrides={"queries": str(queries), "database": str(database)},
    )
    released = {q["task_id"]: q for q in json.loads(queries.read_text(encoding="utf-8"))}
    found = bundle.jsonl("tasks.jsonl")
    assert len(found) == len(released) == 327
    for task in found:
        q = released[task["id"]]
        assert task["query"] == q["query_text"]
        (answer,) = task["truth"]["answer"].values()
        assert answer == q["correct_answer"] or float(answer) == float(q["correct_answer"])
    records = bundle.jsonl("backend.jsonl")
    assert len(records) == 100 and records[0]["id"] == "case_0001"


def test_a_missing_release_file_is_a_located_error(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from scn.cli import main

    out = tmp_path / "b"
    args = ["compile", "retail/planbench_xl", "--set", f"database={tmp_path / 'no.json'}"]
    result = CliRunner().invoke(main, [*args, "-o", str(out)])
    assert result.exit_code == 2, result.output
    assert re.search(
        r"planbench_xl\.scn:\d+:\d+: error: cannot read the backend file", result.output
    )
    assert "Traceback" not in result.output and not out.exists()


# --------------------------------------------------------------------------- 4. block severity

from scn.plugins.planbench import path_blocking  # noqa: E402

path_sets = st.lists(
    st.frozensets(st.sampled_from("abcdefgh"), min_size=1, max_size=4), min_size=1, max_size=8
).map(lambda sets: sorted({tuple(sorted(s)) for s in sets}))


@settings(max_examples=60, deadline=None)
@given(paths=path_sets, ratio=st.sampled_from([0.2, 0.4, 0.6, 0.8]), seed=st.integers(0, 99))
def test_block_ratio_leaves_at_least_one_path_and_blocks_no_fewer_than_asked_allows(
    paths: list[tuple[str, ...]], ratio: float, seed: int
) -> None:
    plan = path_blocking.select(paths, f"t{seed}", ratio=ratio, max_size=8)
    assert plan.status == "resolved" and plan.remaining >= 1
    goal = max(1, len(paths) - round(ratio * len(paths)))
    # no other blocked set of tools gets closer to the asked share (exhaustive for 8 tools)
    assert plan == path_blocking.select(paths, f"t{seed}", ratio=ratio, max_size=8)
    assert abs(plan.remaining - goal) <= len(paths)


@settings(max_examples=60, deadline=None)
@given(paths=path_sets, keep=st.sampled_from(["shortest", "longest"]))
def test_keep_leaves_exactly_the_shortest_or_longest_path(
    paths: list[tuple[str, ...]], keep: str
) -> None:
    plan = path_blocking.select(paths, "t", keep=keep, max_size=8)
    if plan.status != "resolved":  # the path is a superset of another: it cannot be kept alone
        return
    assert plan.remaining == 1
    (kept,) = plan.surviving
    sizes = [len(p) for p in paths]
    assert sizes[kept] == (min(sizes) if keep == "shortest" else max(sizes))
    assert not set(plan.blocked) & set(paths[kept])


def test_enforced_exploration_turns_down_wrong_answers_up_to_its_budget(tmp_path: Path) -> None:
    from scn.emit.bundle import write_bundle
    from scn.runtime.bundle import LoadedBundle
    from scn.runtime.env import Env

    tasks("retail/planbench_xl")  # compiled once per session
    write_bundle(_BUNDLES[("retail/planbench_xl", 42)], tmp_path / "xl")  # type: ignore[arg-type]
    bundle = LoadedBundle.load(tmp_path / "xl")
    task = sorted(bundle.tasks)[0]
    env = Env(bundle, task, blocker="enforced_exploration", blocks=2)
    env.reset()
    for _ in range(3):
        obs, reward, done, _ = env.step({"type": "answer", "answer": "no idea"})
        assert not done and reward == 0.0 and "keep looking" in obs["feedback"]
    _, reward, done, _ = env.step({"type": "answer", "answer": "still no idea"})
    assert done and reward == 0.0
    assert env.outcome()["enforced"] == 3


def test_a_bad_blocking_option_is_reported() -> None:
    from scn.diagnostics import ScnDataError
    from scn.plugins.planbench.retrieval import blocking_options

    assert blocking_options(["all", "ratio=0.4", "keep=longest", "enforce=2"]) == {
        "ratio": "0.4",
        "keep": "longest",
        "enforce": "2",
    }
    for bad in ("ratio=2", "keep=middle", "enforce=x", "speed=1"):
        with pytest.raises(ScnDataError, match="bad option"):
            blocking_options([bad])
