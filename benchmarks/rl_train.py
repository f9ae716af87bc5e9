"""MaskablePPO on CostBench at task length 3, against CostBench's greedy baseline.

    .venv/bin/pip install -e '.[rl]'      # stable-baselines3, sb3-contrib, torch (CPU)
    .venv/bin/python benchmarks/rl_train.py                    # ~4 minutes on one shared core
    .venv/bin/python benchmarks/rl_train.py --steps 200000 --eval-every 20000 --minutes 9

The travel domain is compiled as CostBench with `length=3` and `split=all` (30 tools; 7,776
train and 1,536 test preference combinations, each task with its own seeded prices). The
greedy agent (`scn run --agent greedy`) plays every test task; MaskablePPO (sb3-contrib, an MLP
policy, invalid actions masked through `ScnGymEnv.action_masks()`) trains on the train tasks
only, with the wrapper's rewards (each call costs its price over the task's optimal cost, a
successful answer earns a bonus no plan can spend) plus its potential-based shaping (which
reorders no plans; without it the signal is a composite's few cents against the bonus and PPO
stays at greedy's level), gamma and GAE lambda 1 (a plan's cost is an undiscounted sum), no
entropy bonus, and answering masked until every goal is held (training and evaluation alike: the
policy learns which plan to take, not that quitting is bad). The policy does not observe the
given values (`observe_given=False`: the test split's preference words never occur in training).
After every `--eval-every` steps the policy plays every test task deterministically and the
episodes are scored by CostBench's own metric family, the code `scn score` runs. The table prints
EMR (exact match of the ground truth's path, over the episodes that reached the goal, CostBench's
definition), the exact matches over all test tasks, TCR and Cost Gap, beside greedy's. Training
stops at `--steps` or after `--minutes` of wall time, whichever comes first.

The target (issue 17): MaskablePPO's EMR beats greedy's within a budget that runs in under 10
minutes here. Torch runs on one thread; nothing is written outside a temporary folder.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def compile_bundle(out: Path) -> None:
    subprocess.run(
        [
            str(ROOT / ".venv" / "bin" / "scn"),
            "compile",
            "travel/costbench",
            "-o",
            str(out),
            "--set",
            "length=3",
            "--set",
            "split=all",
            "--force",
            "-q",
        ],
        check=True,
    )


def greedy_records(bundle: Any, tasks: list[str]) -> list[dict[str, Any]]:
    from scn.runtime.protocols import installed
    from scn.runtime.run import episode

    make = installed().agents["greedy"].factory
    return [episode(bundle, t, make(), "greedy", max_steps=20) for t in tasks]


def policy_records(model: Any, env: Any, tasks: list[str]) -> list[dict[str, Any]]:
    """Play every task with the policy's deterministic, masked choice."""
    records = []
    for task_id in tasks:
        obs, _info = env.reset(options={"task": task_id})
        done = False
        while not done:
            action, _state = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, _reward, terminated, truncated, _info = env.step(int(action))
            done = terminated or truncated
        records.append(env.trajectory("maskable_ppo"))
    return records


def metrics(records: list[dict[str, Any]]) -> dict[str, float]:
    from scn.plugins.costbench.metrics import score

    table = score(records)
    exact = sum(
        1
        for r in records
        if r["outcome"]["goals_reached"] and r["outcome"]["path"] == r["outcome"]["truth"]["path"]
    )
    return {
        "emr": table["emr"] or 0.0,
        "exact_all": exact / len(records),
        "tcr": table["tcr"] or 0.0,
        "cost_gap": table["cost_gap"] if table["cost_gap"] is not None else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150_000, help="most training steps")
    parser.add_argument("--eval-every", type=int, default=25_000)
    parser.add_argument("--minutes", type=float, default=8.0, help="wall-time budget for training")
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-steps", type=int, default=20, help="episode step budget")
    parser.add_argument("--bundle", type=Path, default=None, help="a compiled length-3 bundle")
    parser.add_argument(
        "--shaping",
        choices=["potential", "none"],
        default="potential",
        help="training reward shaping (ScnGymEnv's; evaluation reads the benchmark's metrics)",
    )
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--ent", type=float, default=0.0, help="entropy coefficient")
    parser.add_argument(
        "--scale",
        choices=["savings", "optimal"],
        default="optimal",
        help="training cost scale: each task's optimal cost (the wrapper's default) or the "
        "bundle's typical composite saving",
    )
    parser.add_argument(
        "--given",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="observe the given values (the test split's preference words are never seen in "
        "training, so by default the policy plans from goals and prices alone)",
    )
    args = parser.parse_args()
    try:
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.vec_env import DummyVecEnv
    except ImportError as e:
        sys.exit(f"needs the rl extra: pip install -e '.[rl]' ({e})")
    torch.set_num_threads(1)

    from scn.runtime.bundle import LoadedBundle
    from scn.runtime.gym import ScnGymEnv

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.bundle or Path(tmp) / "costbench-l3"
        if args.bundle is None:
            compile_bundle(path)
        bundle = LoadedBundle.load(path)
        train = [t for t, task in bundle.tasks.items() if task.get("split") == "train"]
        test = [t for t, task in bundle.tasks.items() if task.get("split") == "test"]
        print(f"bundle: {len(bundle.tools)} tools, {len(train)} train and {len(test)} test tasks")

        greedy = metrics(greedy_records(bundle, test))
        print(
            f"greedy on the test tasks: EMR {greedy['emr']:.3f}, exact over all "
            f"{greedy['exact_all']:.3f}, TCR {greedy['tcr']:.3f}, Cost Gap {greedy['cost_gap']:.2f}"
        )

        class Training(ScnGymEnv):
            """Training only: answering is masked until every goal is held (the policy learns
            which plan to take, not that quitting is bad, which the reward already says)."""

            def action_masks(self) -> Any:
                mask = super().action_masks()
                env = self.env
                if env is not None and not all(g in env.held for g in env.task["goals"]):
                    mask = mask.copy()
                    mask[self.answer_action] = False
                return mask

        probe = ScnGymEnv(bundle, task_ids=train[:1])
        scale: Any = probe.layout.savings_norm if args.scale == "savings" else "optimal"

        def make(i: int) -> Any:
            return lambda: Training(
                bundle,
                task_ids=train,
                max_steps=args.max_steps,
                seed=args.seed + i,
                observe_given=args.given,
                shaping=args.shaping,
                cost_scale=scale,
            )

        vec = DummyVecEnv([make(i) for i in range(args.envs)])
        model = MaskablePPO(
            "MlpPolicy",
            vec,
            n_steps=256,
            batch_size=256,
            n_epochs=10,
            learning_rate=args.lr,
            gamma=1.0,
            gae_lambda=1.0,
            ent_coef=args.ent,
            policy_kwargs={"net_arch": [128, 128]},
            seed=args.seed,
            device="cpu",
            verbose=0,
        )
        judge = Training(  # the masks the policy was trained with; nothing else differs
            bundle,
            task_ids=test,
            max_steps=args.max_steps,
            seed=args.seed,
            observe_given=args.given,
        )
        print()
        print(
            "| steps | MaskablePPO EMR | exact over all | TCR | Cost Gap | greedy EMR | minutes |"
        )
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        trained = 0
        beaten_at = None
        while trained < args.steps and (time.perf_counter() - started) / 60 < args.minutes:
            model.learn(total_timesteps=args.eval_every, reset_num_timesteps=False)
            trained = model.num_timesteps
            found = metrics(policy_records(model, judge, test))
            minutes = (time.perf_counter() - started) / 60
            print(
                f"| {trained:,} | {found['emr']:.3f} | {found['exact_all']:.3f} | "
                f"{found['tcr']:.3f} | {found['cost_gap']:.2f} | {greedy['emr']:.3f} | "
                f"{minutes:.1f} |",
                flush=True,
            )
            # beaten: EMR above greedy's by two binomial standard errors, TCR no lower
            margin = 2 * (greedy["emr"] * (1 - greedy["emr"]) / len(test)) ** 0.5
            if (
                beaten_at is None
                and found["emr"] > greedy["emr"] + margin
                and found["tcr"] >= greedy["tcr"]
            ):
                beaten_at = (trained, minutes)
        print()
        if beaten_at is not None:
            print(
                f"MaskablePPO beat greedy's EMR by more than two standard errors (with at least "
                f"its TCR) after {beaten_at[0]:,} steps, {beaten_at[1]:.1f} minutes in"
            )
        else:
            print("MaskablePPO did not beat greedy's EMR within the budget")


if __name__ == "__main__":
    main()
