"""Run the benchmark scripts of two checkouts side by side and print one Markdown table.

Why: the machine is shared, so its load drifts by more than the 10 % a speed requirement allows
(CPU time moves by about 15 % under contention). Running all of BEFORE and then all of AFTER
would turn that drift into a fake regression or a fake gain. Here every benchmark command runs
in both checkouts back to back, alternately (before, after, before, after, ... for N rounds), so
a slow minute hits both sides alike, and each side's figure is the median of its rounds.

Each checkout is a directory with `.venv/bin/python` and `benchmarks/`; a script runs from its
own checkout (the BEFORE side may predate a package rename, so it uses its own copies of the
scripts). A benchmark here is a name, the script and its arguments, and a few regexes for the
figure lines it prints: nothing is imported from either checkout. A figure whose label has `/s`
is a rate (higher is better); every other figure is a time or a size (lower is better).

    .venv/bin/python benchmarks/side_by_side.py --before ../base --after . --rounds 3
    .venv/bin/python benchmarks/side_by_side.py --before ../base --after . --only validation \\
        --substitute compile_speed.py=compile_speed_onegroup.py

`--substitute A=B` runs script B instead of A on the AFTER side (a temporary, adapted copy for a
like-for-like figure). Times are never asserted: the table flags figures more than 10 % worse
and the script exits 0, also when a command fails (its error is printed under the table).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

#: A figure may be this much worse (ratio) and still count as "no regression".
TOLERANCE = 0.10

FLOAT = r"([\d,]+(?:\.\d+)?)"


@dataclass(frozen=True)
class Pattern:
    """One kind of figure line: `label` is formatted with the match's groups ({0}, {1}, ...)."""

    regex: str
    label: str
    value: int  # the group holding the figure


@dataclass(frozen=True)
class Bench:
    name: str
    script: str
    args: tuple[str, ...]
    patterns: tuple[Pattern, ...]
    timeout: float = 600.0


@dataclass
class Outcome:
    values: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


_ROW = r"\s+" + FLOAT
_MCP = r"^([\w-]+)\s+(\d+) \| "
_STEPS = r"steps/s \(CPU\): best " + FLOAT + r", median " + FLOAT
_ANSWER = r"per (step|final answer).*?"
_RUNTIME = (
    Pattern(_STEPS, "env.step steps/s CPU (median)", 2),
    Pattern(_STEPS, "env.step steps/s CPU (best)", 1),
    Pattern(r"^\s+(read_trajectories|score_records):\s+" + FLOAT, "score 10k: {0} s CPU", 2),
    Pattern(r"^\s+total:\s+" + FLOAT + " s CPU", "score 10k: total s CPU", 1),
    Pattern(r"with truth from the bundle.*: " + FLOAT, "score 10k with truth: s CPU", 1),
)
_VALIDATION = (
    Pattern(_ANSWER + ": median " + FLOAT + " us", "{0}: median us", 2),
    Pattern(_ANSWER + ", mean " + FLOAT + " us", "{0}: mean us", 2),
)
BENCHES: tuple[Bench, ...] = (
    Bench(
        "compile",
        "compile_speed.py",
        ("--quick",),
        (  # parse rows: scn MB, lines, items, tree s, tree MB/s, parse s, ...
            Pattern(r"^(\d+\.\d\d)\s+\d+\s+\d+" + _ROW * 3, "parse {0} MB: parse s CPU", 4),
            Pattern(r"^(\d+\.\d\d)\s+\d+\s+\d+" + _ROW, "parse {0} MB: tree s CPU", 2),
            # compile rows: tools, tasks, 8 stages, total s, wall s, setup s, ...
            Pattern(r"^(\d+)\s+(\d+)" + _ROW * 9, "compile {0} tools + {1} tasks: total s CPU", 11),
            Pattern(r"^(\d+)\s+(\d+)" + _ROW * 11, "compile setup s wall (registry + grammar)", 13),
            Pattern(r"s setup, " + FLOAT + " s imports", "compile imports s wall", 1),
        ),
    ),
    Bench("runtime", "runtime_speed.py", ("--quick",), _RUNTIME),
    Bench("runtime-steps", "runtime_speed.py", ("--only", "steps"), _RUNTIME),
    Bench(  # issue 16: price redraws and bundle loads (the BEFORE side runs the AFTER's copy)
        "redraw",
        "redraw_speed.py",
        (),
        (
            Pattern(r"^price redraw: " + FLOAT, "price redraw us CPU", 1),
            Pattern(r"^bundle load: " + FLOAT, "bundle load ms CPU", 1),
        ),
    ),
    Bench("validation", "validation_speed.py", ("--quick",), _VALIDATION),
    Bench("validation-full", "validation_speed.py", (), _VALIDATION),
    Bench(
        "retrieval",
        "retrieval_speed.py",
        (),
        (
            Pattern(r"compiled retail/planbench_xl in " + FLOAT, "compile planbench_xl s wall", 1),
            # | path | phrases | requests | wall med / p95 | CPU med / p95 | verdict |
            Pattern(
                r"^\| ([^|]+?) \| (\w+) \| \d+ \| \d+ / \d+ \| " + FLOAT,
                "{0}, {1}: CPU us median",
                3,
            ),
        ),
    ),
    Bench(
        "mcp",
        "mcp_serve.py",
        ("--mode", "both", "--calls", "400", "--clients", "1,8", "--rounds", "1"),
        (
            Pattern(_MCP + r"bare\s+" + FLOAT + "/s", "{0} {1} clients: bare SDK calls/s", 3),
            Pattern(_MCP + r".*\| scn\s+" + FLOAT + "/s", "{0} {1} clients: scn calls/s", 3),
            Pattern(_MCP + r".*\| scn .*p50\s+" + FLOAT, "{0} {1} clients: scn p50 ms", 3),
            Pattern(
                _MCP + r".*server \d+ vs (\d+) us", "{0} {1} clients: scn server CPU us/call", 3
            ),
        ),
    ),
    Bench(
        "travel",
        "travel_compile.py",
        ("--quick",),
        (
            Pattern(r"^\s*(\d)\s+\d+\s+" + FLOAT, "compile length {0}: s wall", 2),
            Pattern(r"^length (\d): solve stage " + FLOAT, "solve length {0}: ms/task", 2),
            Pattern(
                r"^re-solve after a (\w+) event, length 8: " + FLOAT, "re-solve after {0}: ms", 2
            ),
        ),
    ),
)


def run(
    bench: Bench, checkout: Path, script: str, log: Path | None
) -> tuple[dict[str, float], str]:
    """Run one benchmark in `checkout`; return its figures and an error text ("" if none)."""
    command = [str(checkout / ".venv/bin/python"), str(Path("benchmarks") / script), *bench.args]
    try:
        done = subprocess.run(
            command, cwd=checkout, capture_output=True, text=True, timeout=bench.timeout
        )
    except subprocess.TimeoutExpired:
        return {}, f"{bench.name} in {checkout}: timed out after {bench.timeout:.0f} s"
    if log is not None:
        with log.open("a") as out:
            out.write(f"\n### {checkout} $ {' '.join(command)}\n{done.stdout}{done.stderr}")
    figures = parse(bench, done.stdout)
    error = ""
    if done.returncode != 0 or not figures:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        error = f"{bench.name} in {checkout}: exit {done.returncode}: " + " / ".join(tail)
    return figures, error


def parse(bench: Bench, text: str) -> dict[str, float]:
    """Every figure the bench's patterns find in `text`, by label (a later line wins)."""
    figures: dict[str, float] = {}
    for pattern in bench.patterns:
        for match in re.finditer(pattern.regex, text, re.MULTILINE):
            label = pattern.label.format(*(g or "" for g in match.groups()))
            figures[label] = float(match.group(pattern.value).replace(",", ""))
    return figures


def higher_is_better(label: str) -> bool:
    return "/s" in label.replace("s/task", "")


def verdict(label: str, ratio: float) -> str:
    worse = ratio < 1 / (1 + TOLERANCE) if higher_is_better(label) else ratio > 1 + TOLERANCE
    better = ratio > 1 + TOLERANCE if higher_is_better(label) else ratio < 1 / (1 + TOLERANCE)
    return "**over 10 % worse**" if worse else "yes (better)" if better else "yes"


def fmt(value: float) -> str:
    if value >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}" if value < 10 else f"{value:.1f}"


def spread(values: list[float]) -> str:
    if len(values) < 2 or not statistics.median(values):
        return "-"
    return f"±{(max(values) - min(values)) / 2 / statistics.median(values) * 100:.0f} %"


def table(benches: list[Bench], before: dict[str, Outcome], after: dict[str, Outcome]) -> str:
    lines = [
        "| benchmark | figure | before | after | after/before | within 10 % | spread b / a |",
        "|---|---|---:|---:|---:|---|---|",
    ]
    for bench in benches:
        b, a = before[bench.name].values, after[bench.name].values
        for label in list(dict.fromkeys([*b, *a])):
            if label not in b or label not in a:
                mb, ma = _median(b, label), _median(a, label)
                lines.append(f"| {bench.name} | {label} | {mb} | {ma} | - | - | - |")
                continue
            mb, ma = statistics.median(b[label]), statistics.median(a[label])
            ratio = ma / mb if mb else float("nan")
            lines.append(
                f"| {bench.name} | {label} | {fmt(mb)} | {fmt(ma)} | {ratio:.2f} | "
                f"{verdict(label, ratio)} | {spread(b[label])} / {spread(a[label])} |"
            )
    return "\n".join(lines)


def _median(values: dict[str, list[float]], label: str) -> str:
    return fmt(statistics.median(values[label])) if label in values else "missing"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--only", help="comma-separated benchmark names: " + ", ".join(b.name for b in BENCHES)
    )
    parser.add_argument("--substitute", action="append", default=[], metavar="A=B")
    parser.add_argument("--log", type=Path, help="append every command's full output here")
    args = parser.parse_args()
    wanted = set(args.only.split(",")) if args.only else {b.name for b in BENCHES}
    benches = [b for b in BENCHES if b.name in wanted]
    substitutes = dict(item.split("=", 1) for item in args.substitute)
    sides = {"before": args.before.resolve(), "after": args.after.resolve()}
    outcomes = {side: {b.name: Outcome() for b in benches} for side in sides}
    started = time.monotonic()
    for round_ in range(1, args.rounds + 1):
        for bench in benches:
            for side, checkout in sides.items():
                script = (
                    substitutes.get(bench.script, bench.script) if side == "after" else bench.script
                )
                t0 = time.monotonic()
                figures, error = run(bench, checkout, script, args.log)
                print(
                    f"round {round_}/{args.rounds} {bench.name:<10} {side:<6} "
                    f"{time.monotonic() - t0:6.1f} s, {len(figures)} figures",
                    file=sys.stderr,
                    flush=True,
                )
                outcome = outcomes[side][bench.name]
                for label, value in figures.items():
                    outcome.values.setdefault(label, []).append(value)
                if error:
                    outcome.errors.append(error)
    print(table(benches, outcomes["before"], outcomes["after"]))
    print(
        f"\n{args.rounds} rounds, before = {sides['before']}, after = {sides['after']}"
        f"{', substitutes ' + str(substitutes) if substitutes else ''}; "
        f"{(time.monotonic() - started) / 60:.1f} min. Medians of the rounds; spread = half the "
        "range over the median. Rates (/s): higher is better; other figures: lower is better."
    )
    for side in sides:
        for outcome in outcomes[side].values():
            for error in outcome.errors:
                print(f"- error ({side}): {error}")


if __name__ == "__main__":
    main()
