"""How much the run-time constraint checks cost per step, with all twelve built-in kinds active.

    python benchmarks/validation_speed.py            # 20,000 steps and 5,000 answers
    python benchmarks/validation_speed.py --quick    # a tenth of that (a smoke test)

A step is what `Env.guarded` adds to a call: `Checker.call` on one call with arguments (the
checker calls the registered check of every constraint whose scope includes calls, in a round of
one to three calls, and counts the attempt), plus `Checker.end_round` at the end of each round.
A final answer is one `constraints.check_answer` against the three response kinds and the three
lower bounds (rounds, calls, round width) read from the counters. Calls and answers are
synthetic, drawn with a fixed seed so that a share of them break constraints (the slower path
that words messages). Each step is timed alone (`time.perf_counter_ns`) and the median is
reported, so a busy shared machine inflates the figures less than a mean would. Target: a median
under 50 microseconds per step.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scn.runtime import constraints as cons  # noqa: E402
from scn.runtime.calls import Counters  # noqa: E402

#: The scope each kind is declared with in the built-in taxonomy (`domains/cctu/vocab`).
SCOPES = {"rounds": "turn", "parallel_count": "turn"} | dict.fromkeys(
    ("response_length", "response_format", "response_content"), "final"
)

TARGET_US = 50.0
TOOLS = [f"tool_{i}" for i in range(12)]
TYPES = {"City": {"type": "string", "enum": None}, "Amount": {"type": "number", "enum": None}}
SPECS = {
    t: {
        "name": t,
        "params": [
            {"name": "city", "datatype": "City"},
            {"name": "amount", "datatype": "Amount"},
        ],
    }
    for t in TOOLS
}


def constraint(kind: str, **params: Any) -> dict[str, Any]:
    """Return a constraint as a bundle's `scenario.json` holds it."""
    return {
        "name": kind,
        "kind": kind,
        "dimension": "",
        "scope": SCOPES.get(kind, "call"),
        "message": "",
        "params": {k: {"type": "", "default": v} for k, v in params.items()},
    }


CONSTRAINTS = [
    constraint("rounds", min=0, max=15),
    constraint("call_count", min=0, max=30),
    constraint("tool_call_count", tool="tool_3", max=2),
    constraint("sequence", order=[["tool_0", "tool_1"], ["tool_2", "tool_5"]], when_first="tool_0"),
    constraint("parallel", group=[["tool_4", "tool_6"], ["tool_4", "tool_4"]]),
    constraint("parallel_count", min=0, max=3),
    constraint("available_tools", tools=TOOLS[:11]),
    constraint("required_params"),
    constraint("param_types"),
    constraint("response_length", min=5, max=80, unit="words"),
    constraint("response_format", format="json"),
    constraint(
        "response_content",
        must=["paris"],
        identifiers=["ID-"],
        ends_with="}",
        exclude=[";"],
        language="english",
    ),
]


def synthetic_rounds(rng: random.Random, n_steps: int) -> list[list[tuple[str, Any]]]:
    """Return rounds of (tool, args) calls adding up to `n_steps` calls; some args are wrong."""
    rounds: list[list[tuple[str, Any]]] = []
    total = 0
    while total < n_steps:
        size = min(rng.choice((1, 1, 2, 3)), n_steps - total)
        batch = []
        for _ in range(size):
            args: Any = {"city": f"city_{rng.randrange(99)}", "amount": rng.randrange(500)}
            roll = rng.random()
            if roll < 0.1:
                args["amount"] = str(args["amount"])
            elif roll < 0.15:
                del args["city"]
            elif roll < 0.2:
                args["note"] = "extra"
            batch.append((rng.choice(TOOLS), args))
        rounds.append(batch)
        total += size
    return rounds


def synthetic_answers(rng: random.Random, n: int) -> list[str]:
    """Return final answers: mostly compliant JSON, some plain text or with forbidden marks."""
    out = []
    for i in range(n):
        body = {
            "city": "Paris",
            "ticket": f"ID-{i}",
            "notes": " ".join(["word"] * rng.randrange(30)),
        }
        text = json.dumps(body)
        roll = rng.random()
        if roll < 0.2:
            text = f"The answer is Paris; ticket ID-{i}."
        elif roll < 0.3:
            text = text.replace("Paris", "Paris;")
        out.append(text)
    return out


def time_steps(rounds: list[list[tuple[str, Any]]]) -> tuple[list[float], int]:
    """Time each call's check and counters update; return microseconds per step, violations."""
    prepared = cons.prepare(CONSTRAINTS)
    checker = cons.Checker(prepared, TYPES, TOOLS)
    times, violations = [], 0
    clock = time.perf_counter_ns
    for i, batch in enumerate(rounds):
        if i % 10 == 0:  # a new episode every ten rounds keeps the counters episode-sized
            checker = cons.Checker(prepared, TYPES, TOOLS)
        names = [t for t, _ in batch]
        for j, (tool, args) in enumerate(batch):
            start = clock()
            found = checker.call(tool, names, args, SPECS[tool], None)
            if j == len(batch) - 1:
                checker.end_round(names)
            times.append((clock() - start) / 1000)
            violations += bool(found)
    return times, violations


def time_answers(answers: list[str]) -> tuple[list[float], int]:
    """Time each final answer's check; return microseconds per answer and rejected answers."""
    prepared = cons.prepare(CONSTRAINTS)
    counters = Counters(calls=3, rounds=2, widest={"type": 2, "num": 2})
    times, rejected = [], 0
    for answer in answers:
        start = time.perf_counter_ns()
        found = cons.check_answer(prepared, answer, counters)
        times.append((time.perf_counter_ns() - start) / 1000)
        rejected += bool(found)
    return times, rejected


def summary(label: str, times: list[float], broken: int) -> str:
    q = statistics.quantiles(times, n=20)
    return (
        f"{label}: median {statistics.median(times):.1f} us, p95 {q[18]:.1f} us, "
        f"mean {statistics.fmean(times):.1f} us over {len(times):,} ({broken:,} with violations)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the steps")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    n_steps, n_answers = (2_000, 500) if args.quick else (20_000, 5_000)
    rng = random.Random(args.seed)
    kinds = {c["kind"] for c in CONSTRAINTS}
    checked = {k for k, entry in cons.kinds().items() if entry.check and "plan" not in entry.scopes}
    assert kinds == checked, "all twelve kinds active"
    rounds = synthetic_rounds(rng, n_steps)
    answers = synthetic_answers(rng, n_answers)
    time_steps(rounds[:200])  # warm up
    step_times, step_broken = time_steps(rounds)
    answer_times, answer_broken = time_answers(answers)
    print(f"{len(kinds)} constraint kinds active ({len(CONSTRAINTS)} constraints)")
    print(summary("per step (call check + counters)", step_times, step_broken))
    print(summary("per final answer", answer_times, answer_broken))
    median = statistics.median(step_times)
    verdict = "met" if median < TARGET_US else "MISSED"
    print(f"target: median under {TARGET_US:.0f} us per step: {verdict}")
    return 0 if median < TARGET_US else 1


if __name__ == "__main__":
    sys.exit(main())
