"""PlanBench-XL's generated-task mode: compile time, and the catalogue search against the plain one.

    python benchmarks/planbench_generated.py            # the full mode (36k tasks), 60 starts
    python benchmarks/planbench_generated.py --quick    # single-input tasks only (350) + 20
    python benchmarks/planbench_generated.py --workers 1 2   # the compile serial, then sharded
    python benchmarks/planbench_generated.py --before ../main --rounds 3 --no-search
        # side by side with another checkout (its own .venv), the sides alternating per round

Part 1 compiles `retail/planbench_xl --set tasks=generated` (every eligible (inputs, target)
pair, each with its exact `truth catalog`) in a fresh process and prints, per stage, the wall
and the CPU seconds of that process (on a shared machine the CPU figure is the one to compare
with the anchor: 394 s for expand and solve on one core before issue 18). Target: under 30 s.
With `--before`, each round compiles with the other checkout and with this one (alternating
which goes first), checks the manifests are byte-identical, and prints per side the best round's
stages, wall, CPU and peak memory (VmHWM of the compiling process; workers not included).

Part 2 runs the release-rule catalogue over the (start, target) pairs of a sample of starts with
the plain search (`reference_catalog` in tests/test_catalog_speed.py: frozensets,
`solver.reachable` for minimality, what main shipped) and with `catalog.release_catalog` (bit
masks, shared tables, a small fixpoint), checks they agree, and prints both CPU times.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

TARGET_S = 30.0
ANCHOR_S = 394.0

_CHILD = """
import json, resource, sys, time
def cpu():
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
t0, c0 = time.perf_counter(), cpu()
from scn.api import compile_source, resolve_target
from scn.context import CompileContext
from scn.plugins.registry import load_registry
registry = load_registry()
ctx = CompileContext(registry, 42, json.loads(sys.argv[1]), workers=int(sys.argv[2]))
stamps = []
def on_stage(name, *_):
    stamps.append((name, time.perf_counter() - t0, cpu() - c0))
bundle = compile_source(resolve_target("retail/planbench_xl", registry), ctx=ctx, on_stage=on_stage)
stamps.append(("end", time.perf_counter() - t0, cpu() - c0))
tasks = json.loads(bundle.files["manifest.json"])["counts"]["tasks"]
import hashlib
digest = hashlib.sha256(bundle.files["manifest.json"]).hexdigest()
with open("/proc/self/status") as f:
    peak = next((int(l.split()[1]) / 1024 for l in f if l.startswith("VmHWM:")), None)
print(json.dumps({"stamps": stamps, "tasks": tasks, "manifest": digest, "peak_mib": peak}))
"""


def _sets(quick: bool) -> dict[str, str]:
    return {"tasks": "generated", **({"max_inputs": "1"} if quick else {})}


def _compile(checkout: Path, quick: bool, workers: int) -> dict:
    """One compile in a fresh process of `checkout`'s own interpreter (its `.venv`, else this
    one): its stage stamps, task count, manifest SHA-256 and peak memory."""
    venv = checkout / ".venv" / "bin" / "python"
    python = str(venv) if venv.exists() else sys.executable
    done = subprocess.run(
        [python, "-c", _CHILD, json.dumps(_sets(quick)), str(workers)],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])


def _stages(stamps: list) -> dict[str, tuple[float, float]]:
    """(wall, CPU) seconds per stage, and `total` from process start."""
    out = {
        name: (wall2 - wall, cpu2 - cpu)
        for (name, wall, cpu), (_, wall2, cpu2) in zip(stamps, stamps[1:], strict=False)
    }
    out["total"] = (stamps[-1][1], stamps[-1][2])
    return out


def part_side_by_side(before: Path, quick: bool, workers: int, rounds: int) -> None:
    """Alternate compiles of `before` and this checkout; print the best round of each side."""
    label = " ".join(f"--set {k}={v}" for k, v in _sets(quick).items())
    print(f"== 1. scn compile retail/planbench_xl {label} --workers {workers}: {before} | this")
    sides = {"before": before.resolve(), "this": ROOT}
    runs: dict[str, list[dict]] = {name: [] for name in sides}
    for r in range(rounds):
        order = list(sides) if r % 2 == 0 else list(reversed(sides))
        for name in order:
            runs[name].append(_compile(sides[name], quick, workers))
            total = _stages(runs[name][-1]["stamps"])["total"]
            print(f"  round {r + 1} {name:<6} wall {total[0]:6.2f} s  cpu {total[1]:6.2f} s")
    digests = {run["manifest"] for side in runs.values() for run in side}
    best = {name: min(side, key=lambda run: run["stamps"][-1][2]) for name, side in runs.items()}
    stages = {name: _stages(run["stamps"]) for name, run in best.items()}
    print(f"best round by CPU ({rounds} rounds), {best['this']['tasks']} tasks")
    print(f"{'stage':<10} {'before cpu':>11} {'this cpu':>9} {'before wall':>12} {'this wall':>10}")
    for stage in stages["this"]:
        b, t = stages["before"].get(stage, (0.0, 0.0)), stages["this"][stage]
        print(f"{stage:<10} {b[1]:>11.2f} {t[1]:>9.2f} {b[0]:>12.2f} {t[0]:>10.2f}")
    b, t = stages["before"]["total"], stages["this"]["total"]
    print(
        f"CPU {b[1] / t[1]:.2f}x, wall {b[0] / t[0]:.2f}x; peak "
        f"{best['before']['peak_mib']:.0f} -> {best['this']['peak_mib']:.0f} MiB; manifests "
        + ("identical" if len(digests) == 1 else f"DIFFERENT ({len(digests)})")
        + f" ({sorted(digests)[0][:12]}...)"
    )
    if not quick:
        verdict = "met" if t[0] < TARGET_S else "MISSED"
        print(f"this checkout: {t[0]:.1f} s wall, {t[1]:.1f} CPU s: target < {TARGET_S:.0f} s")
        print(f"  ({verdict} in wall time; the lead re-measures on a quiet machine)")


def part_compile(quick: bool, workers: int = 1) -> None:
    print(
        "== 1. scn compile retail/planbench_xl "
        + " ".join(f"--set {k}={v}" for k, v in _sets(quick).items())
    )
    result = _compile(ROOT, quick, workers)
    stamps = result["stamps"]
    print(f"{result['tasks']} tasks, --workers {workers} (CPU: this process and its workers)")
    print(f"{'stage':<10} {'wall s':>8} {'cpu s':>8}")
    for (name, wall, cpu), (_, wall2, cpu2) in zip(stamps, stamps[1:], strict=False):
        print(f"{name:<10} {wall2 - wall:>8.2f} {cpu2 - cpu:>8.2f}")
    total_cpu = stamps[-1][2]
    names = [s[0] for s in stamps]
    es = stamps[names.index("emit")][2] - stamps[names.index("expand")][2]
    print(f"{'total':<10} {stamps[-1][1]:>8.2f} {total_cpu:>8.2f}  (process start to bundle)")
    if not quick:
        verdict = "met" if total_cpu < TARGET_S else "MISSED"
        print(
            f"expand + solve: {es:.1f} CPU s (anchor before issue 18: {ANCHOR_S:.0f} s); "
            f"whole compile {total_cpu:.1f} CPU s: target < {TARGET_S:.0f} s {verdict}"
        )


def part_search(starts: int) -> None:
    from test_catalog_speed import reference_catalog

    from scn import solver
    from scn.api import compile_source
    from scn.context import CompileContext
    from scn.plugins.planbench import catalog
    from scn.plugins.registry import load_registry
    from scn.source import SourceFile

    ctx = CompileContext(load_registry(), 42, {})
    source = SourceFile.read(ROOT / "domains" / "retail" / "planbench_xl.scn")
    scenario = compile_source(source, ctx=ctx, until="expand")
    ordered = sorted(scenario.tools, key=lambda t: (t.span.line, t.span.column))
    atomic = tuple(solver.Tool(t.name, t.inputs, t.outputs) for t in ordered if t.kind == "atomic")
    types = sorted({d for t in atomic for d in t.inputs | t.outputs})
    combos = [*itertools.combinations(types, 2), *((d,) for d in types)]
    random.Random(1).shuffle(combos)
    pairs = []
    for combo in combos[:starts]:
        reach = solver.reachable(atomic, frozenset(combo))
        pairs += [(combo, t) for t in types if t not in combo and t in reach]
    print(
        f"\n== 2. release-rule catalogue over {len(pairs)} (start, target) pairs of {starts} starts"
    )
    started = time.process_time()
    plain = [reference_catalog(atomic, c, [g], 5) for c, g in pairs]
    plain_s = time.process_time() - started
    started = time.process_time()
    fast = [catalog.release_catalog(atomic, c, [g], 5) for c, g in pairs]
    fast_s = time.process_time() - started
    same = "identical" if plain == fast else "DIFFERENT"
    print(
        f"plain (main) {plain_s:.2f} CPU s, fast {fast_s:.2f} CPU s: "
        f"{plain_s / fast_s:.1f}x; sets {same}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--workers", type=int, nargs="*", default=[1], help="e.g. 1 2")
    parser.add_argument("--before", type=Path, help="another checkout (with .venv) to compare")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per side with --before")
    parser.add_argument("--no-search", action="store_true", help="skip part 2")
    args = parser.parse_args()
    for workers in args.workers:
        if args.before is not None:
            part_side_by_side(args.before, args.quick, workers, args.rounds)
        else:
            part_compile(args.quick, workers)
    if not args.no_search:
        part_search(20 if args.quick else 60)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
