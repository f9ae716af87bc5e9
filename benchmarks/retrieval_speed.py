"""How fast a PlanBench-XL retrieval request is answered (target: under 1 ms median).

    python benchmarks/retrieval_speed.py                    # compiles retail/planbench_xl (~3 s)
    python benchmarks/retrieval_speed.py --bundle out/xl    # or reuse a compiled bundle
    python benchmarks/retrieval_speed.py --requests 500     # fewer requests

Requests are drawn with a fixed seed over the three modes (output, inputs, both) from the alias
phrases of the bundle's 56 ontology datatypes: half of the input sets are those of real tools
(so they match), the rest random. A second set rewords every phrase (a filler added, maybe a
word dropped) so that no exact alias matches and every phrase goes through the sparse encoder.
Each request is timed alone, on the full bundle (1,665 tools: 185 executable, 925 noisy and 555
blocker siblings):

1. through `Env.step` in retrieval mode: request parsing, phrase resolution, typed match, noisy
   fill, the step record, in episodes of the 100-step budget (the callable set grows over an
   episode and the observation lists it).
   The phrase cache is cleared before every request ("cold"), and timed
   again with it warm;
2. the same under `--blocker path_preserving` on a task that loses four tools (the main
   setting's largest blocked set), so matches of blocked tools are swapped for their siblings;
3. `Retriever.retrieve` alone with those four tools blocked, phrase cache cleared.

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

from scn.api import compile_target  # noqa: E402
from scn.emit.bundle import write_bundle  # noqa: E402
from scn.plugins.planbench.retriever import for_bundle, read_request  # noqa: E402
from scn.runtime.bundle import LoadedBundle  # noqa: E402
from scn.runtime.env import Env  # noqa: E402

TARGET_US = 1000.0
PP = "path_preserving"
MAX_STEPS = 100

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
        if d.get("aliases")  # the ontology; internal outputs are never asked for
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


def summary(label: str, kind: str, times: list[tuple[float, float]]) -> None:
    """Print one row: median and p95 of wall and CPU microseconds per request."""

    def stats(values: list[float]) -> tuple[float, float]:
        us = sorted(v * 1e6 for v in values)
        return statistics.median(us), us[int(0.95 * (len(us) - 1))]

    wall, wall95 = stats([w for w, _ in times])
    cpu, cpu95 = stats([c for _, c in times])
    verdict = "met" if wall < TARGET_US else "MISSED"
    print(
        f"| {label} | {kind} | {len(times)} | {wall:.0f} / {wall95:.0f} "
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
    blocked_task, blocked = first_task_with_four_blocked(bundle)
    retriever = for_bundle(bundle)
    print(f"bundle: {len(bundle.tools)} tools; blocked task {blocked_task}: {', '.join(blocked)}")
    print("| path | phrases | requests | wall µs med / p95 | CPU µs med / p95 | < 1 ms |")
    print("|---|---|---|---|---|---|")
    for reworded in (False, True):
        actions = requests(bundle, args.requests, reworded=reworded)
        kind = "reworded" if reworded else "aliases"
        for label, task_id, blocker, warm in (
            ("Env.step, phrase cache cold", task, None, False),
            ("Env.step, phrase cache warm", task, None, True),
            ("Env.step, path_preserving (4 blocked), cache cold", blocked_task, PP, False),
        ):
            env = Env(bundle, task_id, retrieval=True, max_steps=MAX_STEPS,
                      blocker=blocker, blocks=4 if blocker else 0)  # fmt: skip
            times = []
            for i, action in enumerate(actions):
                if i % (MAX_STEPS - 1) == 0:  # episodes of the real length (untimed reset)
                    env.reset()
                if not warm:
                    retriever.cache.clear()
                started, cpu = time.perf_counter(), time.process_time()
                env.step(action)
                times.append((time.perf_counter() - started, time.process_time() - cpu))
            summary(label, kind, times)
        times = []
        cut = frozenset(blocked)
        for request in [read_request(a) for a in actions]:
            retriever.cache.clear()
            started, cpu = time.perf_counter(), time.process_time()
            retriever.retrieve(request, cut)  # type: ignore[arg-type]
            times.append((time.perf_counter() - started, time.process_time() - cpu))
        summary("Retriever.retrieve, 4 blocked, cache cold", kind, times)


def first_task_with_four_blocked(bundle: LoadedBundle) -> tuple[str, tuple[str, ...]]:
    """The first task that path-preserving blocking (up to 4 tools) makes lose four tools."""
    for task_id in bundle.tasks:
        env = Env(bundle, task_id, retrieval=True, blocker=PP, blocks=4)
        env.reset()
        if len(env.protocol.plan.blocked) == 4:
            return task_id, env.protocol.plan.blocked
    raise SystemExit("no task loses four tools under path_preserving")


if __name__ == "__main__":
    main()
