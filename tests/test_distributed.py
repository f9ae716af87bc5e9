"""`scn run --backend ray` against a real local Ray, compared with local runs.

One Ray instance is started for the module (about 10 s on a busy 2-core machine) and every CLI
call reuses it; the two-node test starts its own cluster (`ray.cluster_utils.Cluster`, a head and
a second node in this machine) and drives it from a subprocess, as a user on a cluster would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from loopback_server import LoopbackServer, OracleResponder

from scn.cli import main
from scn.distributed.cluster import LOOPBACK
from scn.runtime.bundle import LoadedBundle
from scn.runtime.run import read_trajectories

ray = pytest.importorskip("ray", reason="the ray extra is not installed")

GENERATED = Path(__file__).resolve().parent.parent / "generated"
MULTI = GENERATED / "multi_mcp-servers"
TRAVEL = GENERATED / "travel-costbench"


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    """One local Ray instance (2 CPUs) shared by the module's tests."""
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        logging_level="warning",
        _node_ip_address=LOOPBACK,
    )
    try:
        yield ray
    finally:
        ray.shutdown()


def scn(*args: str) -> Any:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output + str(result.exception)
    return result


def comparable(path: Path) -> list[dict[str, Any]]:
    """The records of a trajectory file without timings and LLM latencies, sorted by task."""
    records = read_trajectories(path)
    for record in records:
        for step in record["steps"]:
            step.pop("time_ms", None)
            step.pop("llm", None)
    return sorted(records, key=lambda r: r["task"])


def scores(path: Path) -> dict[str, Any]:
    return json.loads(scn("score", path, "--json").stdout)


@pytest.mark.parametrize(
    ("bundle", "extra"),
    [(MULTI, []), (TRAVEL, ["--blocker", "ban_tool", "--blocks", "2"])],
)
def test_a_ray_run_equals_a_local_run(
    local_ray: Any, tmp_path: Path, bundle: Path, extra: list[str]
) -> None:
    for agent in ("oracle", "greedy"):
        local, remote = tmp_path / f"{agent}-local.jsonl", tmp_path / f"{agent}-ray.jsonl"
        scn("run", bundle, "--agent", agent, "--out", local, "-q", *extra)
        scn("run", bundle, "--agent", agent, "--out", remote, "-q", "--backend", "ray",
            "--workers", "2", *extra)  # fmt: skip
        assert comparable(local) == comparable(remote)
        assert scores(local) == scores(remote)


def test_a_ray_run_resumes_a_local_one(local_ray: Any, tmp_path: Path) -> None:
    full, out = tmp_path / "full.jsonl", tmp_path / "out.jsonl"
    scn("run", MULTI, "--agent", "oracle", "--out", full, "-q")
    lines = full.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:5]) + lines[5][:40])  # five episodes and a torn line
    result = scn("run", MULTI, "--agent", "oracle", "--out", out, "--backend", "ray")
    assert "7 episodes played, 5 already done" in result.stdout
    assert comparable(out) == comparable(full)
    again = scn("run", MULTI, "--agent", "oracle", "--out", out, "--backend", "ray")
    assert "0 episodes played, 12 already done" in again.stdout


def test_requests_in_flight_are_bounded_across_workers(local_ray: Any, tmp_path: Path) -> None:
    """2 workers x 3 episodes each would send 6 requests at once; the endpoint allows 2."""
    multi = LoadedBundle.load(MULTI)
    out = tmp_path / "llm.jsonl"
    with LoopbackServer(OracleResponder([multi]), delay=0.05) as server:
        scn("run", MULTI, "--agent", "openai:loopback-model", "--base-url", server.base_url,
            "--out", out, "-q", "--backend", "ray", "--workers", "2", "--concurrency", "3",
            "--max-in-flight", "2")  # fmt: skip
        assert server.max_in_flight == 2
        assert len(server.requests) >= len(multi.tasks)
    records = read_trajectories(out)
    assert sorted(r["task"] for r in records) == sorted(multi.tasks)
    assert all(r["outcome"]["success"] and "llm" in r["steps"][0] for r in records)


def test_bad_options_are_usage_errors(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        ["run", str(MULTI), "--agent", "oracle", "--out", str(tmp_path / "x.jsonl"),
         "--backend", "ray", "--workers", "0"],
    )  # fmt: skip
    assert result.exit_code == 2 and "--workers" in result.stderr
    result = CliRunner().invoke(
        main,
        ["run", str(MULTI), "--agent", "oracle", "--backend", "ray", "--address", "127.0.0.1:1"],
    )
    assert result.exit_code == 2 and "no Ray head answers at 127.0.0.1:1" in result.stderr


def test_a_two_node_cluster_runs_the_episodes(tmp_path: Path) -> None:
    """A head and a second node (1 CPU each); the run is driven by `scn` in another process."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True,
        connect=False,
        head_node_args={"num_cpus": 1, "include_dashboard": False},
    )
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        local, remote = tmp_path / "local.jsonl", tmp_path / "cluster.jsonl"
        scn("run", MULTI, "--agent", "oracle", "--out", local, "-q")
        command = str(Path(sys.executable).parent / "scn")
        done = subprocess.run(
            [command, "run", str(MULTI), "--agent", "oracle", "--out",
             str(remote), "--backend", "ray", "--address", cluster.address, "--workers", "2"],
            capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": ""},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert comparable(local) == comparable(remote)
    finally:
        cluster.shutdown()


def test_a_sweep_writes_one_file_per_cell_and_resumes(local_ray: Any, tmp_path: Path) -> None:
    """1 agent x 2 blocker settings x 2 seeds = 4 cells on Ray, each equal to its local run."""
    sweep = tmp_path / "grid.json"
    sweep.write_text(
        json.dumps(
            {
                "bundle": str(MULTI),
                "out": "cells",
                "agents": ["random"],
                "blockers": [None, {"blocker": "server_down", "blocks": 1}],
                "seeds": [0, 3],
                "workers": 2,
            }
        )
    )
    first = scn("sweep", sweep)
    files = sorted((tmp_path / "cells").iterdir())
    assert len(files) == 4 and first.stdout.count("12 episodes played") == 4
    cell = tmp_path / "cells" / "random__s0__server_down-1__seed3.jsonl"
    local = tmp_path / "local.jsonl"
    scn("run", MULTI, "--agent", "random", "--seed", "3", "--blocker", "server_down",
        "--blocks", "1", "--out", local, "-q")  # fmt: skip
    assert comparable(cell) == comparable(local)
    again = scn("sweep", sweep, "--backend", "local")
    assert again.stdout.count("0 episodes played, 12 already done") == 4


def test_a_bad_sweep_file_is_a_located_error(tmp_path: Path) -> None:
    sweep = tmp_path / "bad.json"
    sweep.write_text(json.dumps({"bundle": str(MULTI), "agents": ["oracle"], "seed": [1]}))
    result = CliRunner().invoke(main, ["sweep", str(sweep)])
    assert result.exit_code == 2 and "unknown key 'seed'" in result.stderr
    sweep.write_text(json.dumps({"bundle": str(MULTI), "agents": ["oracle", "nobody"]}))
    result = CliRunner().invoke(main, ["sweep", str(sweep)])
    assert result.exit_code == 2 and "$.agents[1]" in result.stderr and "'nobody'" in result.stderr
    assert not (tmp_path / "bad").exists()


def test_compile_sharded_over_ray_is_byte_identical(local_ray: Any, tmp_path: Path) -> None:
    """`scn compile --workers 2 --backend ray`: solve and verify run as Ray tasks on the local
    instance; the bundle equals a serial compile's, file by file."""
    serial, sharded = tmp_path / "serial", tmp_path / "ray"
    scn("compile", "travel/costbench", "-o", serial, "-q")
    scn("compile", "travel/costbench", "-o", sharded, "-q", "--workers", "2", "--backend", "ray")
    files = sorted(p.relative_to(serial) for p in serial.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(sharded) for p in sharded.rglob("*") if p.is_file())
    assert all((serial / f).read_bytes() == (sharded / f).read_bytes() for f in files)
    # generated tasks: the expansion's pair measurements run as Ray tasks too
    sets = ("--set", "tasks=generated", "--set", "max_inputs=1")
    scn("compile", "retail", *sets, "-o", tmp_path / "gen-serial", "-q")
    scn("compile", "retail", *sets, "-o", tmp_path / "gen-ray", "-q", "--workers", "2",
        "--backend", "ray")  # fmt: skip
    for f in ("manifest.json", "tasks.jsonl"):
        assert (tmp_path / "gen-serial" / f).read_bytes() == (tmp_path / "gen-ray" / f).read_bytes()
