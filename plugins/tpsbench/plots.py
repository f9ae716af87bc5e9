"""The `tpsbench` family's report figures: task completion against tool-call turns and against
time, one point per run (TPS-Bench's Figure of completion against efficiency).

Time is the end-to-end seconds an LLM agent logged (`time_s`) when every run has it, else the
simulated time over the critical path (`time_ratio`, ours) so scripted agents are drawn too.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from scn.plugins.tpsbench.metrics import score
from scn.scoring import panels
from scn.scoring.runs import Run


def plots(runs: Sequence[Run], out_dir: Path) -> list[str]:
    """Draw `completion_vs_turns` and `completion_vs_time`."""
    written = panels.scatter(
        runs,
        score,
        "mean_turns",
        "completion_rate",
        "TPS-Bench: completion against turns",
        "tool-call turns per task",
        "task completion rate",
        out_dir,
        "completion_vs_turns",
    )
    logged = all(score(list(run.records)).get("time_s") is not None for run in runs)
    x, label = (
        ("time_s", "end-to-end seconds")
        if logged
        else ("time_ratio", "time / critical-path time (simulated)")
    )
    written += panels.scatter(
        runs,
        score,
        x,
        "completion_rate",
        "TPS-Bench: completion against time",
        label,
        "task completion rate",
        out_dir,
        "completion_vs_time",
    )
    return written
