"""`scn profile BUNDLE [BUNDLE ...]`: a bundle's difficulty profile; with several, whether they
are drawn from the same distribution and which instances they share.

Its own module so `cli.py` stays small; registered with one line at the end of `scn.cli`.
The work is `scn.profiling`; this is the command line and the text rendering.
Exit status: 0 same distribution and nothing shared (or a single bundle), 1 differs or
shares instances, 2 bad input.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from scn.probe_cli import _boundary


def render_profile(found: Any) -> str:
    from scn.profiling import QUANTILES

    qs = [f"q{int(q * 100)}" for q in QUANTILES]
    lines = [
        f"{found.root}: {found.scenario} seed {found.seed}, {len(found.tasks)} tasks",
        f"  {'feature':<22} {'n':>5} {'mean':>10} {'min':>8} "
        + " ".join(f"{q:>8}" for q in qs)
        + f" {'max':>8}",
    ]
    for name, s in found.summary().items():
        cells = " ".join(f"{s.get(q, 0):>8.4g}" for q in ["min", *qs, "max"])
        lines.append(f"  {name:<22} {int(s['n']):>5} {s['mean']:>10.4g} {cells}")
    if found.agents:
        lines.append(
            f"  agents ({found.metric}): "
            + ", ".join(
                f"{k} {'n/a' if v is None else f'{v:.3f}'}" for k, v in found.agents.items()
            )
        )
    return "\n".join(lines)


def render_comparison(c: Any) -> str:
    lines = [
        f"{c.reference.root} (seed {c.reference.seed}) vs {c.other.root} (seed {c.other.seed})",
        f"  {'feature':<22} {'mean a':>10} {'mean b':>10} {'KS':>7} {'p':>8} {'p (Holm)':>9}",
    ]
    for name, t in c.tests.items():
        mark = "  DIFFERS" if name in c.differing else ""
        lines.append(
            f"  {name:<22} {t['mean_a']:>10.4g} {t['mean_b']:>10.4g} {t['ks']:>7.3f}"
            f" {t['p']:>8.4f} {t['p_holm']:>9.4f}{mark}"
        )
    if not c.same_spec:
        lines.append("  the bundles come from different specs or parameters")
    for kind, ids in c.shared.items():
        if ids:
            lines.append(f"  shared ({kind}): {len(ids)}, e.g. {', '.join(ids[:3])}")
    lines.append(f"  verdict (alpha {c.alpha}, Holm-corrected): {c.verdict()}")
    return "\n".join(lines)


@click.command(name="profile")
@click.argument("bundles", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option(
    "--agents",
    "agent_tasks",
    type=int,
    default=20,
    show_default=True,
    help="Play the oracle, random agent and probes on a seeded sample of this many tasks "
    "(0: every task, -1: none).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of samples and tests.")
@click.option(
    "--diagnostics-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="How errors are written to stderr.",
)
def profile(
    bundles: tuple[Path, ...], as_json: bool, agent_tasks: int, seed: int, diagnostics_format: str
) -> None:
    """Describe each bundle's difficulty; compare every further bundle with the first.

    Per feature (path length, optimal cost, branching, tool space, constraints, DAG shape,
    query length) a two-sample Kolmogorov-Smirnov permutation test with Holm's correction at
    alpha 0.05, and the task instances shared. Exits 1 when a bundle differs or shares any.
    """
    from scn.diagnostics import ScnError
    from scn.profiling import add_agents, compare
    from scn.profiling import profile as profile_of
    from scn.runtime.bundle import LoadedBundle

    with _boundary(diagnostics_format):
        found = []
        for path in bundles:
            loaded = LoadedBundle.load(path)
            one = profile_of(loaded)
            if agent_tasks >= 0:
                try:
                    add_agents(one, loaded, agent_tasks, seed)
                except ValueError as e:
                    raise ScnError(
                        f"{path}: the harness's probe settings are not numbers: {e}",
                        path="scenario.json: $.harness",
                        code="probe",
                    ) from None
            found.append(one)
    comparisons = [compare(found[0], other, seed=seed) for other in found[1:]]
    if as_json:
        doc = {
            "profiles": [p.to_json() for p in found],
            "comparisons": [c.to_json() for c in comparisons],
        }
        click.echo(json.dumps(doc, indent=2, sort_keys=True))
    else:
        parts = [render_profile(p) for p in found] + [render_comparison(c) for c in comparisons]
        click.echo("\n\n".join(parts))
    if any(not c.same or c.shares for c in comparisons):
        raise SystemExit(1)
