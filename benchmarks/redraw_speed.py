"""How fast the runtime redraws a bundle's prices (a CostBench `reprice` blocker event), and how
fast a bundle loads (every file checked against the bundle schema, answers built from data).

    python benchmarks/redraw_speed.py

Issue 16 made bundles data: the runtime no longer imports `stubs.py`, checks every file against
`scn.bundle_schema`, and the fast law functions check each value against the law value limit.
This prints the figures `side_by_side.py --only redraw` compares with main: microseconds per
redrawn price (`redraw_costs` over every task's visible tools, seeds varied so nothing is
cached but the compiled laws) and milliseconds per `LoadedBundle.load` of the committed
travel-costbench bundle. CPU time, best of 5 rounds.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main() -> None:
    from scn.plugins.costbench.effects import redraw_costs
    from scn.runtime.bundle import LoadedBundle

    folder = ROOT / "generated" / "travel-costbench"
    loaded = LoadedBundle.load(folder)
    tasks = [(t, list(loaded.visible_tools(loaded.task(t)))) for t in loaded.tasks]
    best_redraw = best_load = float("inf")
    for round_ in range(5):
        start = time.process_time()
        prices = 0
        for seed in range(20):
            for task_id, visible in tasks:
                redraw_costs(loaded.scenario, loaded.tools, visible, task_id, 1000 * round_ + seed)
                prices += len(visible)
        best_redraw = min(best_redraw, (time.process_time() - start) / prices * 1e6)
        start = time.process_time()
        for _ in range(5):
            LoadedBundle.load(folder)
        best_load = min(best_load, (time.process_time() - start) / 5 * 1000)
    print(f"price redraw: {best_redraw:.2f} us CPU per price")
    print(f"bundle load: {best_load:.2f} ms CPU")


if __name__ == "__main__":
    main()
