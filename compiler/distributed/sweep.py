"""`scn sweep FILE`: a grid of runs (agents x settings x blockers x seeds) as one job.

A sweep file is JSON:

    {"bundle": "out/travel",              # relative paths are relative to the sweep file
     "out": "sweeps/travel",              # folder: one trajectory file per cell
     "agents": ["oracle", "greedy", "openai:MODEL"],
     "settings": [{}, {"max_steps": 40}], # optional: max_steps, protocol, retrieval, tasks, split
     "blockers": [null, {"blocker": "ban_tool", "blocks": 2}],      # optional, null: none
     "seeds": [0, 1],                     # optional, default [0]
     "base_url": "http://localhost:8000/v1", "api_key_env": "OPENAI_API_KEY", "timeout": 60,
     "backend": "ray", "address": null, "workers": null, "concurrency": 1, "max_in_flight": null}

Every cell (one agent, one settings entry, one blocker entry, one seed) is written to its own
file, `<agent>__s<i>__<blocker>-<blocks>__seed<seed>.jsonl` (`none` without a blocker), with the
resume rule of `scn run`: a sweep started again skips the episodes already written, cell by cell.
On Ray the job connects once and the cells run one after another, each over every worker;
`--backend local` plays the cells here with threads.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from scn.diagnostics import ScnError, render_text

KEYS = {
    "bundle",
    "out",
    "agents",
    "settings",
    "blockers",
    "seeds",
    "base_url",
    "api_key_env",
    "timeout",
    "backend",
    "address",
    "workers",
    "concurrency",
    "max_in_flight",
}
SETTING_KEYS = {"max_steps", "protocol", "retrieval", "tasks", "split"}


def read_sweep(path: Path) -> dict[str, Any]:
    """Read and check a sweep file; relative paths are resolved against its folder.

    Raises:
        ScnError: not JSON, an unknown key, a missing bundle or agents, a malformed entry.
    """

    def bad(message: str, where: str = "$") -> ScnError:
        return ScnError(f"{path}: {message}", path=f"{path}: {where}", code="sweep")

    try:
        spec = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise bad(f"cannot read ({e})") from None
    except json.JSONDecodeError as e:
        raise bad(f"not JSON (line {e.lineno}: {e.msg})") from None
    if not isinstance(spec, dict):
        raise bad("a sweep is a JSON object")
    unknown = sorted(set(spec) - KEYS)
    if unknown:
        raise bad(
            f"unknown key {unknown[0]!r} (keys: {', '.join(sorted(KEYS))})", f"$.{unknown[0]}"
        )
    for key in ("bundle", "agents"):
        if key not in spec:
            raise bad(f"missing {key!r}", f"$.{key}")
    if not isinstance(spec["agents"], list) or not spec["agents"]:
        raise bad("'agents' is a non-empty list of agent names", "$.agents")
    spec.setdefault("settings", [{}])
    spec.setdefault("blockers", [None])
    spec.setdefault("seeds", [0])
    for i, entry in enumerate(spec["settings"]):
        if not isinstance(entry, dict) or set(entry) - SETTING_KEYS:
            raise bad(f"a settings entry has keys among {sorted(SETTING_KEYS)}", f"$.settings[{i}]")
    for i, entry in enumerate(spec["blockers"]):
        if entry is not None and (not isinstance(entry, dict) or "blocker" not in entry):
            raise bad(
                'a blockers entry is null or {"blocker": NAME, "blocks": N}', f"$.blockers[{i}]"
            )
    if not all(isinstance(s, int) for s in spec["seeds"]):
        raise bad("'seeds' is a list of integers", "$.seeds")
    base = Path(path).resolve().parent
    spec["bundle"] = base / spec["bundle"]
    spec["out"] = base / spec.get("out", Path(path).stem)
    return spec


def check_agents(spec: dict[str, Any]) -> None:
    """Fail before any cell runs when an agent is unknown or an LLM agent has no endpoint."""
    from scn.plugins.registry import load_registry

    known = load_registry().agents
    for i, name in enumerate(spec["agents"]):
        where = f"$.agents[{i}]"
        if not isinstance(name, str):
            raise ScnError(f"agent names are strings, not {name!r}", path=where, code="sweep")
        if name.startswith("openai:"):
            if not spec.get("base_url"):
                raise ScnError(f"agent {name!r} needs 'base_url'", path=where, code="sweep")
        elif name not in known:
            agents = ", ".join(sorted(known))
            raise ScnError(
                f"unknown agent {name!r}; agents: {agents}, or openai:MODEL",
                path=where,
                code="sweep",
            )


def cells(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Every cell of the grid, in file order: agent, settings index and entry, blocker, seed."""
    out = []
    for agent in spec["agents"]:
        for index, setting in enumerate(spec["settings"]):
            for blocker in spec["blockers"]:
                for seed in spec["seeds"]:
                    out.append(
                        {
                            "agent": agent,
                            "index": index,
                            "settings": setting,
                            "blocker": blocker,
                            "seed": seed,
                        }
                    )
    return out


def cell_file(cell: dict[str, Any]) -> str:
    """The cell's trajectory file name (a filesystem-safe spelling of its coordinates)."""
    blocker = cell["blocker"]
    tag = "none" if blocker is None else f"{blocker['blocker']}-{blocker.get('blocks', 'default')}"
    name = f"{cell['agent']}__s{cell['index']}__{tag}__seed{cell['seed']}"
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name) + ".jsonl"


def run_sweep(
    spec: dict[str, Any], echo: Callable[[str], None] = print
) -> list[tuple[Path, int, int]]:
    """Run every cell; return (file, played, skipped) per cell."""
    from scn.distributed.runs import AgentSpec
    from scn.runtime.bundle import LoadedBundle
    from scn.runtime.run import requested_protocol, run_defaults

    loaded = LoadedBundle.load(spec["bundle"])
    check_agents(spec)
    out_dir = Path(spec["out"])
    backend = spec.get("backend", "ray")
    done: list[tuple[Path, int, int]] = []

    def play_all() -> None:
        for cell in cells(spec):
            setting, blocker = cell["settings"], cell["blocker"] or {}
            retrieval, protocol = requested_protocol(
                setting.get("retrieval"), setting.get("protocol")
            )
            retrieval, max_steps, blocks = run_defaults(
                loaded,
                retrieval=retrieval,
                max_steps=setting.get("max_steps"),
                blocker=blocker.get("blocker"),
                blocks=blocker.get("blocks"),
                protocol=protocol,
            )
            tasks = setting.get("tasks") or list(loaded.tasks)
            if setting.get("split") is not None:
                tasks = [t for t in tasks if loaded.task(t)["split"] == setting["split"]]
            agent = AgentSpec(
                cell["agent"],
                cell["seed"],
                spec.get("base_url"),
                spec.get("api_key_env", "OPENAI_API_KEY"),
                float(spec.get("timeout", 60.0)),
                spec.get("max_in_flight"),
            )
            target = out_dir / cell_file(cell)
            options = {
                "tasks": tasks,
                "concurrency": int(spec.get("concurrency", 1)),
                "max_steps": max_steps,
                "seed": cell["seed"],
                "blocker": blocker.get("blocker"),
                "blocks": blocks,
                "retrieval": retrieval,
                "protocol": protocol,
            }
            if backend == "ray":
                from scn.distributed.runs import run_ray

                played, skipped = run_ray(
                    loaded, agent, target, workers=spec.get("workers"), **options
                )
            else:
                from scn.runtime.parallel import run_concurrent

                played, skipped = run_concurrent(
                    loaded, agent.factory(), agent.name, target, **options
                )
            done.append((target, played, skipped))
            echo(f"{target}: {played} episodes played, {skipped} already done")

    if backend == "ray":
        from scn.distributed.cluster import connected

        with connected(spec.get("address"), int(spec.get("workers") or 1)):
            play_all()
    else:
        play_all()
    return done


@click.command()
@click.argument("sweep_file", type=click.Path(path_type=Path))
@click.option(
    "--backend",
    type=click.Choice(["local", "ray"]),
    default=None,
    help="Override the file's backend [default: the file's, else ray].",
)
@click.option("--address", default=None, help="Override the file's Ray address.")
def sweep(sweep_file: Path, backend: str | None, address: str | None) -> None:
    """Run a sweep file (agents x settings x blockers x seeds): one trajectory file per cell."""
    try:
        spec = read_sweep(sweep_file)
        if backend is not None:
            spec["backend"] = backend
        if address is not None:
            spec["address"] = address
        run_sweep(spec, echo=click.echo)
    except ScnError as e:
        click.echo(render_text(list(e.diagnostics), {}), err=True, nl=False)
        sys.exit(2)
