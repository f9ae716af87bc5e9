"""Memory of the MCP server's episodes: 20,000 clients each open an episode (one call) and walk
away. Printed: the process's RSS growth after 1,000 and after 20,000 such episodes, how many are
live and how many were refused. Run it with this checkout's Python and with another
checkout's to put them side by side (a server without a cap keeps every one).

    .venv/bin/python benchmarks/mcp_episode_memory.py
    ../main/.venv/bin/python benchmarks/mcp_episode_memory.py
"""

from __future__ import annotations

import inspect
from pathlib import Path

from scn.regenerate import ROOT
from scn.runtime.bundle import LoadedBundle
from scn.serve.episodes import Episodes

CLIENTS = 20_000


def rss_mb() -> float:
    return int(Path("/proc/self/statm").read_text().split()[1]) * 4096 / 2**20


def main() -> None:
    bundle = LoadedBundle.load(ROOT / "multi_mcp-servers")
    task = next(iter(bundle.tasks.values()))
    tool = task["truth"]["layers"][0][0]
    args = {p["name"]: task["given"][p["datatype"]] for p in bundle.tools[tool]["params"]}
    capped = "max_episodes" in inspect.signature(Episodes).parameters
    episodes = Episodes(bundle, None, "bench")
    base = rss_mb()
    refused = 0
    at_1000 = 0.0
    for i in range(CLIENTS):
        try:
            episode = episodes.get(task["id"], f"client-{i}", "walks-away")
            episode.call(tool, args)
            episode.finish_call()
        except Exception:  # noqa: BLE001 - a refusal at the cap is what this counts
            refused += 1
        if i == 999:
            at_1000 = rss_mb() - base
    print(
        f"{'capped' if capped else 'no cap'}: RSS +{at_1000:.1f} MB after 1,000 episodes, "
        f"+{rss_mb() - base:.1f} MB after {CLIENTS:,}; live {len(episodes.open)}, "
        f"refused {refused}"
    )


if __name__ == "__main__":
    main()
