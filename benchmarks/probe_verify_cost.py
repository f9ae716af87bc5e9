"""What verify's shortcut-probe check adds to compile time, per built-in benchmark.

    python benchmarks/probe_verify_cost.py

Compiles each built-in benchmark (modest sizes, as `probe_scores.py`) twice in the same run:
without a probe bound (any `probe_*` key removed from its `harness` statement in memory), and
with one (its own where it declares one, else `probe_margin 5` added; the file on disk is
untouched), so verify plays the oracle, the random agent and every probe on its
default sample of 20 tasks. Prints both times (best of `--repeat`) and the difference, and
the probes verify reports above the bound.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from probe_scores import BENCHMARKS  # noqa: E402

from scn.api import compile_source, load_registry, resolve_target  # noqa: E402
from scn.context import CompileContext  # noqa: E402
from scn.source import SourceFile  # noqa: E402


def timed(source: SourceFile, sets: dict[str, str], repeat: int) -> tuple[float, list[str]]:
    best, warned = float("inf"), []
    for _ in range(repeat):
        ctx = CompileContext(load_registry(), 42, dict(sets))
        started = time.perf_counter()
        compile_source(source, ctx=ctx)
        best = min(best, time.perf_counter() - started)
        warned = [w.message.split("'")[1] for w in ctx.warnings]
    return best, warned


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--only", action="append", choices=sorted(BENCHMARKS))
    args = parser.parse_args()
    registry = load_registry()
    print("| benchmark | compile, no bound (s) | with its bound (s) | added (s) | probes above |")
    print("| --- | --- | --- | --- | --- |")
    for name in args.only or list(BENCHMARKS):
        target, sets, _ = BENCHMARKS[name]
        source = resolve_target(target, registry)
        unbound = SourceFile(source.name, re.sub(r"\bprobe_\w+ +\S+", "", source.text))
        bounded = (
            source
            if unbound.text != source.text
            else SourceFile(
                source.name, source.text.replace("harness {", "harness { probe_margin 5", 1)
            )
        )
        plain, _ = timed(unbound, sets, args.repeat)
        probed, warned = timed(bounded, sets, args.repeat)
        print(
            f"| {name} | {plain:.2f} | {probed:.2f} | {probed - plain:+.2f} |"
            f" {', '.join(warned) or 'none'} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
