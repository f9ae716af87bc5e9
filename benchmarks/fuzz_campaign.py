"""The long fuzzing campaign of issue 16: inputs tried and failures by kind, per target.

    python benchmarks/fuzz_campaign.py                      # 100,000 inputs over the four targets
    python benchmarks/fuzz_campaign.py --scale 0.1          # a tenth of that
    python benchmarks/fuzz_campaign.py --target language --examples 5000

Targets and outcomes are described in `tests/fuzzing.py`: an input is `ok`, `refused` (a
located error), or a failure: `unlocated`, `crash:<Type>` or `hang` (over --seconds of CPU
time, by SIGPROF). The first inputs of each failure kind are written to --failures (JSON
Lines) to reproduce.
Exit status 1 when any failure was seen.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import fuzzing  # noqa: E402

#: Inputs per target for --scale 1 (100,000 in all): the cheap targets take more.
PLAN = {"language": 20_000, "bundle": 5_000, "trajectory": 35_000, "env": 40_000}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=sorted(PLAN), action="append")
    parser.add_argument("--examples", type=int, help="inputs per target (default: the plan)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the plan")
    parser.add_argument("--seconds", type=float, default=10.0, help="time limit per input")
    parser.add_argument("--failures", type=Path, default=Path("fuzz_failures.jsonl"))
    args = parser.parse_args(argv)
    targets = args.target or list(PLAN)
    total: Counter[str] = Counter()
    kept: Counter[str] = Counter()
    rows = []
    started = time.perf_counter()

    def on_failure(outcome: str, value: object, detail: str) -> None:
        kept[outcome] += 1
        if kept[outcome] <= 5:
            with args.failures.open("a", encoding="utf-8") as f:
                f.write(
                    json.dumps({"outcome": outcome, "input": repr(value)[:20000], "detail": detail})
                    + "\n"
                )

    for target in targets:
        n = args.examples or max(1, int(PLAN[target] * args.scale))
        t0 = time.perf_counter()

        def progress(so_far: Counter[str], target: str = target, n: int = n) -> None:
            fails = sum(fuzzing.failures(so_far).values())
            print(f"  {target}: {sum(so_far.values()):,} of {n:,}, failures {fails}", flush=True)

        outcomes = fuzzing.campaign(
            target, n, seconds=args.seconds, on_failure=on_failure, progress=progress
        )
        seconds = time.perf_counter() - t0
        total.update(outcomes)
        fails = fuzzing.failures(outcomes)
        rows.append((target, sum(outcomes.values()), outcomes, fails, seconds))
        print(
            f"{target:<11} {sum(outcomes.values()):>7,} inputs  ok {outcomes['ok']:>6,}  "
            f"refused {outcomes['refused']:>6,}  failures {sum(fails.values()):>4,} "
            f"{dict(fails) or ''}  {seconds:6.0f} s",
            flush=True,
        )
    fails = fuzzing.failures(total)
    print(
        f"\n{sum(total.values()):,} inputs in {time.perf_counter() - started:.0f} s; "
        f"unhandled exceptions {sum(v for k, v in fails.items() if k.startswith('crash:'))}, "
        f"unlocated errors {fails.get('unlocated', 0)}, hangs {fails.get('hang', 0)}"
    )
    if fails:
        print(f"failures by kind: {dict(fails)}; first inputs in {args.failures}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
