"""How fast a PlanBench-XL retrieval request is answered (target: under 1 ms median).

    python benchmarks/retrieval_speed.py                    # compiles retail/planbench_xl (~75 s)
    python benchmarks/retrieval_speed.py --bundle out/xl    # or reuse a compiled bundle
    python benchmarks/retrieval_speed.py --requests 500     # fewer requests

Requests are drawn with a fixed seed over the three modes (output, inputs, both) from the
bundle's own alias phrases: half of the input sets are those of real tools (so they match), the
rest random. A second set rewords every phrase (a filler added, maybe a word dropped) so that no
exact alias matches and every phrase goes through the sparse encoder. Each request is timed
alone:

1. through `Env.step` in retrieval mode on the bundle as compiled (185 executable tools until
   the compile side adds the 1,480 siblings): request parsing, phrase resolution, typed match,
   noisy fill, the step record. The phrase cache is cleared before every request ("cold"), and
   timed again with it warm;
2. `Retriever.retrieve` alone on an index of the full release size, 1,665 tools: the bundle's
   185 tools plus 5 noisy and 3 blocker siblings made for each, with four tools blocked (the
   main setting's largest blocked set), phrase cache cleared before every request.

Medians and 95th percentiles in microseconds, wall clock (`time.perf_counter`) and CPU
(`time.process_time`, coarser); the target is judged on the wall median. The machine is shared,
so the wall p95 moves with the load; compare numbers from one run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from compiler.api import compile_target  # noqa: E402
from compiler.emit.bundle import write_bundle  # noqa: E402
from compiler.runtime.bundle import LoadedBundle  # noqa: E402
from compiler.runtime.env import Env  # noqa: E402
from compiler.runtime.retriever import Retriever, for_bundle, read_request  # noqa: E402

TARGET_US = 1000.0
NOISY = ("legacy", "gate", "cache", "signal", "preview")
BLOCKER = ("explicit_failure", "implicit_failure", "misleading")


FILLERS = ("the", "for this case", "of the purchase", "linked", "current", "record")


def paraphrase(phrase: str, rng: random.Random) -> str:
    """Reword a phrase so no exact alias matches: add a filler, maybe drop a word."""
    words = phrase.split()
    if len(words) > 1 and rng.random() < 0.5:
        words.pop(rng.randrange(len(words)))
    return " ".join(words + [rng.choice(FILLERS)])


def requests(
    bundle: LoadedBundle, n: int, seed: int = 42, reworded: bool = False
) -> list[dict[str, Any]]:
    """Draw `n` retrieval actions from the bundle's alias phrases (reworded: paraphrased)."""
    rng = random.Random(seed)
    phrases = {
        d["name"]: [d["name"].replace("_", " "), *d.get("aliases", [])]
        for d in bundle.scenario["datatypes"]
    }
    names = sorted(phrases)
    input_sets = sorted(
        {
            tuple(sorted(p["datatype"] for p in t["params"]))
            for t in bundle.tools.values()
            if t.get("baseline") is None and len(t["params"]) <= 2
        }
    )
    out = []
    for _ in range(n):
        mode = rng.choice(("output", "inputs", "io"))
        action: dict[str, Any] = {"type": "retrieve"}
        if mode in ("output", "io"):
            action["output"] = rng.choice(phrases[rng.choice(names)])
        if mode in ("inputs", "io"):
            ins = rng.choice(input_sets) if rng.random() < 0.5 else (rng.choice(names),)
            action["inputs"] = [rng.choice(phrases[d]) for d in ins]
        if reworded:
            if "output" in action:
                action["output"] = paraphrase(action["output"], rng)
            if "inputs" in action:
                action["inputs"] = [paraphrase(p, rng) for p in action["inputs"]]
        out.append(action)
    return out


def full_size_tools(bundle: LoadedBundle) -> dict[str, dict[str, Any]]:
    """The bundle's executable tools plus 5 noisy and 3 blocker siblings each (1,665 for 185)."""
    tools: dict[str, dict[str, Any]] = {}
    for name, spec in bundle.tools.items():
        if spec.get("baseline") is not None:
            continue
        tools[name] = spec
        for kind, suffixes in (("noisy", NOISY), ("blocker", BLOCKER)):
            for s in suffixes:
                tools[f"{name}_{s}"] = {**spec, "baseline": name, "kind": kind, "sibling": s}
    return tools


def summary(label: str, kind: str, times: list[tuple[float, float]], tools: int) -> None:
    """Print one row: median and p95 of wall and CPU microseconds per request."""

    def stats(values: list[float]) -> tuple[float, float]:
        us = sorted(v * 1e6 for v in values)
        return statistics.median(us), us[int(0.95 * (len(us) - 1))]

    wall, wall95 = stats([w for w, _ in times])
    cpu, cpu95 = stats([c for _, c in times])
    verdict = "met" if wall < TARGET_US else "MISSED"
    print(
        f"| {label} | {kind} | {tools} | {len(times)} | {wall:.0f} / {wall95:.0f} "
        f"| {cpu:.0f} / {cpu95:.0f} | {verdict} |"
    )


def xl_bundle(given: Path | None, tmp: Path) -> LoadedBundle:
    """Load the given retail/planbench_xl bundle, or compile one into `tmp` (seed 42)."""
    root = given
    if root is None:
        root = tmp / "xl"
        started = time.perf_counter()
        write_bundle(compile_target("retail/planbench_xl", seed=42), root)
        print(f"compiled retail/planbench_xl in {time.perf_counter() - started:.1f} s")
    return LoadedBundle.load(root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bundle", type=Path, help="a compiled retail/planbench_xl bundle")
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bundle = xl_bundle(args.bundle, Path(tmp))
    task = next(iter(bundle.tasks))
    retriever = for_bundle(bundle)
    tools = full_size_tools(bundle)
    big = Retriever.build(bundle.scenario["datatypes"], tools)
    blocked = frozenset(sorted(n for n, t in tools.items() if t.get("baseline") is None)[:4])
    print("| path | phrases | tools | requests | wall µs med / p95 | CPU µs med / p95 | < 1 ms |")
    print("|---|---|---|---|---|---|---|")
    for reworded in (False, True):
        actions = requests(bundle, args.requests, reworded=reworded)
        kind = "reworded" if reworded else "aliases"
        env = Env(bundle, task, retrieval=True, max_steps=len(actions) + 1)
        for warm in (False, True):
            env.reset()
            times = []
            for action in actions:
                if not warm:
                    retriever.cache.clear()
                started, cpu = time.perf_counter(), time.process_time()
                env.step(action)
                times.append((time.perf_counter() - started, time.process_time() - cpu))
            label = f"Env.step, phrase cache {'warm' if warm else 'cold'}"
            summary(label, kind, times, len(bundle.tools))
        times = []
        for request in [read_request(a) for a in actions]:
            big.cache.clear()
            started, cpu = time.perf_counter(), time.process_time()
            big.retrieve(request, blocked)  # type: ignore[arg-type]
            times.append((time.perf_counter() - started, time.process_time() - cpu))
        summary("Retriever.retrieve, 4 blocked, cache cold", kind, times, len(tools))


if __name__ == "__main__":
    main()
