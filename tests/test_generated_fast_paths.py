"""The shortcuts that made PlanBench-XL's generated mode fast decide exactly what the plain
definitions decide (issue 18; benchmarks/planbench_generated.py times them).

* the catalogue's minimality check: one fixpoint when no datatype has two makers in a set the
  search found, else each tool left out in turn;
* a probe's `callable_now`: a tool never called is callable when its required datatypes have
  values, otherwise `next_args` decides;
* the two-input labels from per-list readers, and the set's cost summed in list order;
* the lazy task index's scan for line breaks other than `\\n`.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_solver import tool_graphs

from scn.bundle_rows import OTHER_BREAKS, has_other_breaks
from scn.plugins.planbench import catalog, task_kinds
from scn.runtime.bundle import LoadedBundle
from scn.runtime.protocols import installed
from scn.runtime.run import episode

GENERATED = Path(__file__).resolve().parent.parent / "generated"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool_graphs(max_datatypes=6, max_tools=9))
def test_the_minimality_shortcut_agrees_with_leaving_each_tool_out(graph) -> None:
    tools, _, start, goals = graph
    unique = tuple({t.name: t for t in tools}.values())
    sig = catalog._signature(unique)
    relevant = start & catalog._cone(sig, frozenset(goals), catalog.CATALOG_MAX_INPUTS)
    first = tuple(sorted(frozenset(goals) - relevant))
    masks = catalog._search(sig, relevant, first, None, catalog.CATALOG_MAX_INPUTS)
    bits_of, io = catalog._datatype_masks(sig)
    start_mask, goal_mask = catalog._mask(relevant, bits_of), catalog._mask(goals, bits_of)
    for mask in masks:
        sets = [io[b] for b in catalog._bits(mask)]
        assert catalog._minimal(sets, start_mask, goal_mask, True) == catalog._minimal(
            sets, start_mask, goal_mask, False
        )


@given(
    st.lists(
        st.frozensets(st.sampled_from("abcdef"), max_size=4).map(lambda s: s or frozenset("a")),
        max_size=6,
    ),
    st.dictionaries(st.sampled_from("abcdef"), st.frozensets(st.sampled_from("xyz"))),
)
def test_labels_from_readers_equal_the_plain_labels(sets, inputs_of) -> None:
    inputs_of = {t: inputs_of.get(t, frozenset()) for t in "abcdef"}
    for a, b in (("x", "y"), ("y", "z"), ("x", "z")):
        reads_a = frozenset(t for t, ins in inputs_of.items() if a in ins)
        reads_b = frozenset(t for t, ins in inputs_of.items() if b in ins)
        plain = _plain_input_use(sets, inputs_of, (a, b))
        assert task_kinds.input_use(sets, inputs_of, (a, b)) == plain
        assert task_kinds.input_use_by_readers(sets, reads_a, reads_b) == plain


def _plain_input_use(sets, inputs_of, given_inputs):
    a, b = given_inputs
    sides = set()
    for tool_set in sets:
        read = frozenset().union(*(inputs_of[t] for t in tool_set))
        sides.add("both" if a in read and b in read else "a" if a in read else "b")
    if not sides:
        return None
    if sides == {"both"}:
        return "all_both"
    if "both" in sides:
        return "both_and_single"
    return "all_single_both_sides" if len(sides) == 2 else "all_single_one_side"


@given(st.lists(st.sampled_from([b"a", b"\n", b"\xc2", b"\xe2\x80", b"\xa8", *OTHER_BREAKS])))
def test_the_break_scan_equals_looking_for_each_sequence(parts) -> None:
    data = b"".join(parts)
    assert has_other_breaks(data) == any(b in data for b in OTHER_BREAKS)


def test_callable_now_equals_trying_each_listed_tool() -> None:
    """On the committed PlanBench-XL bundle (retrieval: hundreds of tools listed a step), every
    probe's `callable_now` is the listed tools `next_args` finds arguments for, at every step."""
    bundle = LoadedBundle.load(GENERATED / "retail-planbench")
    registry = installed()
    checked = 0
    for name, entry in sorted(registry.probes.items()):
        probe = entry.factory(7)
        original = probe.act

        def act(observation, probe=probe, original=original):
            nonlocal checked
            if getattr(probe, "bundle", None) is bundle and observation.get("tools"):
                plain = [
                    t for t in observation["tools"] if probe.next_args(t, observation) is not None
                ]
                assert probe.callable_now(observation) == plain
                checked += 1
            return original(observation)

        probe.act = act
        for task_id in list(bundle.tasks)[:3]:
            episode(bundle, task_id, probe, name, max_steps=30, seed=7, retrieval=True)
    assert checked > 20
