"""The first event, step and retrieval of a fresh process against their steady cost (issue 20).

    python benchmarks/cold_start.py                     # this checkout only
    python benchmarks/cold_start.py --before ../main    # main side by side, interleaved

A process that plays one episode pays whatever the runtime does on first use (imports, laws
turned into code, caches filled). Each row runs in a fresh process of each checkout's own
`.venv/bin/python` (this file with `--worker KIND`, so it imports that checkout's `scn`), after
the bundle is loaded and the imports a caller makes anyway are done; it times the first call and
then the median of the next ones with fresh inputs (so nothing but the process's warm state is
reused). Rows:

- redraw: `redraw_costs` of one travel-costbench task's visible tools (a CostBench `reprice`
  event), a new global seed per call, on the committed bundle (length 5: 14 visible tools);
- redraw8: the same on a length-8 task (35 visible tools, compiled by each side's own `scn`
  into a temporary folder), the setting of the issue's figures (a cost-change event at length 8
  costs 0.53 ms, and the first redraw was 165 times its steady cost);
- step: `ScnGymEnv.step` on travel-costbench with a valid action from the mask;
- retrieval: `Env.step` of a reworded retrieval request on retail-planbench (every phrase through
  the encoder), the phrase cache cleared before each request.

The sides alternate per round (before, after, before, ...) so the machine's load hits both
alike; figures are medians over rounds. Python's bytecode cache goes to a per-side folder under
the system's temporary folder (`PYTHONPYCACHEPREFIX`), as it would be in a user's install, and
nothing is written into either checkout. The target: first within 5x steady.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("redraw", "redraw8", "step", "retrieval")
TARGET = 5.0


def _median_of(call: Any, n: int) -> float:
    times = []
    for i in range(n):
        started = time.perf_counter()
        call(i + 1)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def work_redraw(root: Path) -> tuple[float, float]:
    return _redraw(root / "generated" / "travel-costbench")


def work_redraw8(root: Path) -> tuple[float, float]:
    return _redraw(Path(os.environ["SCN_COLD_START_BUNDLE8"]))


def _redraw(folder: Path) -> tuple[float, float]:
    from scn.plugins.costbench.effects import redraw_costs
    from scn.runtime.bundle import LoadedBundle

    bundle = LoadedBundle.load(folder)
    task = next(iter(bundle.tasks))
    visible = list(bundle.visible_tools(bundle.task(task)))

    def call(seed: int) -> None:
        redraw_costs(bundle.scenario, bundle.tools, visible, task, 1000 + seed)

    started = time.perf_counter()
    call(0)
    return time.perf_counter() - started, _median_of(call, 60)


def work_step(root: Path) -> tuple[float, float]:
    import numpy as np

    from scn.runtime.gym import ScnGymEnv

    env = ScnGymEnv(str(root / "generated" / "travel-costbench"), max_steps=20, seed=0)
    masks = getattr(env, "action_masks", None) or env.action_mask
    draws = np.random.default_rng(0).random(4096)
    env.reset(seed=0)
    state = {"i": 0}

    def call(_: int) -> None:
        i = state["i"]
        state["i"] = i + 1
        valid = np.flatnonzero(masks())
        _o, _r, term, trunc, _info = env.step(int(valid[int(draws[i % 4096] * len(valid))]))
        if term or trunc:
            env.reset()

    started = time.perf_counter()
    call(0)
    return time.perf_counter() - started, _median_of(call, 200)


def work_retrieval(root: Path) -> tuple[float, float]:
    sys.path.insert(0, str(root / "benchmarks"))
    from retrieval_speed import requests  # type: ignore[import-not-found]

    from scn.plugins.planbench.retriever import for_bundle
    from scn.runtime.bundle import LoadedBundle
    from scn.runtime.env import Env

    bundle = LoadedBundle.load(root / "generated" / "retail-planbench")
    actions = requests(bundle, 201, reworded=True)
    task = next(iter(bundle.tasks))
    env = Env(bundle, task, retrieval=True, max_steps=1000)
    env.reset()
    retriever = for_bundle(bundle)

    def call(i: int) -> None:
        retriever.cache.clear()
        env.step(actions[i])

    started = time.perf_counter()
    call(0)
    return time.perf_counter() - started, _median_of(call, 200)


def worker(kind: str, root: Path) -> None:
    try:
        first, steady = globals()[f"work_{kind}"](root)
        print(json.dumps({"first": first, "steady": steady}))
    except Exception as e:  # noqa: BLE001 - a failure is a result to print
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))


def length8_bundle(checkout: Path, side: str) -> Path:
    """A length-8 travel-costbench bundle of one task per subtask, compiled by `checkout`'s own
    `scn` into the system's temporary folder, once per run of this script."""
    out = Path(tempfile.gettempdir()) / f"scn-cold-start-{side}-length8"
    if side not in _COMPILED:
        command = [str(checkout / ".venv" / "bin" / "scn"), "compile", "travel", "--set"]
        command += ["length=8", "--set", "sample=1", "-o", str(out), "--force", "-q"]
        subprocess.run(command, check=True, cwd=checkout)
        _COMPILED.add(side)
    return out


_COMPILED: set[str] = set()


def run(checkout: Path, kind: str, side: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), f"scn-cold-start-{side}")
    if kind == "redraw8":
        env["SCN_COLD_START_BUNDLE8"] = str(length8_bundle(checkout, side))
    script = Path(__file__).resolve()
    out = subprocess.run(
        [str(checkout / ".venv" / "bin" / "python"), str(script), "--worker", kind, str(checkout)],
        capture_output=True,
        text=True,
        env=env,
        cwd=checkout,
        timeout=600,
    )
    lines = out.stdout.strip().splitlines()
    if not lines:
        return {"error": out.stderr.strip().splitlines()[-1:] or "no output"}
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout (with .venv) to compare")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", choices=KINDS)
    parser.add_argument("--worker", choices=KINDS, help=argparse.SUPPRESS)
    parser.add_argument("root", nargs="?", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.root)
        return
    sides = [("before", args.before.resolve())] if args.before else []
    sides.append(("after", ROOT))
    kinds = (args.only,) if args.only else KINDS
    results: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for kind in kinds:
        for side, _ in sides:  # one untimed run each: the bytecode cache, as after an install
            run(dict(sides)[side], kind, side)
        for _ in range(args.rounds):
            for side, checkout in sides:
                results.setdefault((kind, side), []).append(run(checkout, kind, side))
    print(f"| row | side | first ms | steady ms | first / steady | within {TARGET:g}x |")
    print("|---|---|---|---|---|---|")
    for kind in kinds:
        for side, _ in sides:
            rows = results[(kind, side)]
            good = [r for r in rows if "first" in r]
            if not good:
                print(f"| {kind} | {side} | failed: {rows[0].get('error')} | | | |")
                continue
            first = statistics.median(r["first"] for r in good) * 1000
            steady = statistics.median(r["steady"] for r in good) * 1000
            ratio = first / steady
            verdict = "yes" if ratio <= TARGET else "no"
            print(f"| {kind} | {side} | {first:.3f} | {steady:.4f} | {ratio:.1f} | {verdict} |")


if __name__ == "__main__":
    main()
