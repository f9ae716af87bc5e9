"""PlanBench-XL's two labels of a two-input task, derived from its path catalogue.

The paper says every declared input of a multi-input task is needed (appendix B.3), but only 25
of the release's 227 two-input tasks are like that. The release labels each task twice, and both
labels follow from its path catalogue (`scn.plugins.planbench.catalog`;
tests/test_planbench_release.py checks all 227):

* usefulness, from which inputs each catalogued tool set reads: `all_both` (every set reads
  both), `both_and_single` (some do, some read one), `all_single_both_sides` (every set reads one
  input, and each input is read by some set), `all_single_one_side` (every set reads the same one);
* kind: `both_inputs_required` (all_both), `mixed_both_and_single` (both_and_single),
  `single_input_split_paths` (every set reads one input, both inputs are used, and neither input
  can be derived from the other) and `single_input_redundant` (the rest: one input suffices, or
  one can be derived from the other).

A set "reads" an input when one of its tools takes it as an argument.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from scn import solver

__all__ = ["KINDS", "USEFULNESS", "input_use", "input_use_by_readers", "two_input_kind"]

USEFULNESS = ("all_both", "both_and_single", "all_single_both_sides", "all_single_one_side")
KINDS = (
    "both_inputs_required",
    "mixed_both_and_single",
    "single_input_split_paths",
    "single_input_redundant",
)


def input_use(
    sets: Iterable[Iterable[str]], inputs_of: Mapping[str, frozenset[str]], given: Sequence[str]
) -> str | None:
    """Return the usefulness label of a two-input task's tool sets (None if not two inputs or no
    sets)."""
    if len(given) != 2:
        return None
    a, b = given
    reads_a = frozenset(t for t, inputs in inputs_of.items() if a in inputs)
    reads_b = frozenset(t for t, inputs in inputs_of.items() if b in inputs)
    return input_use_by_readers([frozenset(s) for s in sets], reads_a, reads_b)


def input_use_by_readers(
    sets: Iterable[frozenset[str]], reads_a: frozenset[str], reads_b: frozenset[str]
) -> str | None:
    """`input_use` given the names of the tools that read each input (a caller labelling many
    tasks over one tool list builds those once)."""
    sides: set[str] = set()
    for tool_set in sets:
        read_a = not reads_a.isdisjoint(tool_set)
        sides.add("both" if read_a and not reads_b.isdisjoint(tool_set) else "a" if read_a else "b")
    if not sides:
        return None
    if sides == {"both"}:
        return "all_both"
    if "both" in sides:
        return "both_and_single"
    return "all_single_both_sides" if len(sides) == 2 else "all_single_one_side"


def two_input_kind(
    usefulness: str | None,
    given: Sequence[str],
    tools: Iterable[solver.Tool],
    reach: Callable[[str], frozenset[str]] | None = None,
) -> str | None:
    """Return the task kind for a usefulness label; ``tools`` decide whether one input can be
    derived from the other (``reach``, if given: what a datatype alone reaches over them, for a
    caller that keeps it)."""
    if usefulness is None:
        return None
    if usefulness == "all_both":
        return "both_inputs_required"
    if usefulness == "both_and_single":
        return "mixed_both_and_single"
    if usefulness == "all_single_both_sides":
        a, b = given
        if reach is None:
            tools = tuple(tools)
            derived = b in solver.reachable(tools, [a]) or a in solver.reachable(tools, [b])
        else:
            derived = b in reach(a) or a in reach(b)
        if not derived:
            return "single_input_split_paths"
    return "single_input_redundant"
