"""Price redraws compile a scenario's laws once per content, never serving stale laws.

`redraw_costs` keys its compiled laws by the marshalled content of (laws, params) and builds them
from the scenario's own objects (issue 20: a shorter first redraw); the compiler's full form of
a law, built only when the fast function cannot answer, is parsed from that key. A scenario
changed in place must therefore draw by its new content, exactly as a fresh copy does.
"""

from __future__ import annotations

import copy
import marshal
from pathlib import Path

from scn.plugins.costbench import effects
from scn.runtime.bundle import LoadedBundle

BUNDLE = Path(__file__).resolve().parents[1] / "generated" / "travel-costbench"


def _case():
    bundle = LoadedBundle.load(BUNDLE)
    task = next(iter(bundle.tasks))
    return bundle, task, list(bundle.visible_tools(bundle.task(task)))


def test_same_content_same_prices_and_one_compile():
    bundle, task, visible = _case()
    effects._LAWS.clear()
    first = effects.redraw_costs(bundle.scenario, bundle.tools, visible, task, 77)
    again = effects.redraw_costs(copy.deepcopy(bundle.scenario), bundle.tools, visible, task, 77)
    assert first == again
    key = (marshal.dumps(bundle.scenario["laws"], 2), marshal.dumps(bundle.scenario["params"], 2))
    assert key in effects._LAWS
    assert len(effects._LAWS) == 1  # the copy's content gave the same key: compiled once


def test_a_scenario_changed_in_place_draws_by_its_new_content():
    bundle, task, visible = _case()
    scenario = copy.deepcopy(bundle.scenario)
    before = effects.redraw_costs(scenario, bundle.tools, visible, task, 5)
    scenario["params"]["c_min"], scenario["params"]["c_max"] = 100.0, 101.0
    after = effects.redraw_costs(scenario, bundle.tools, visible, task, 5)
    assert after != before
    assert all(100.0 <= after[n] <= 101.0 for n in visible if not bundle.tools[n]["components"])
    effects._LAWS.clear()
    assert effects.redraw_costs(copy.deepcopy(scenario), bundle.tools, visible, task, 5) == after


def test_the_full_law_is_built_from_the_compiled_content():
    """The fallback (`_full_law_of`) reads the key's content, not the scenario's objects."""
    bundle, _, _ = _case()
    scenario = copy.deepcopy(bundle.scenario)
    compiled = effects._laws_of(scenario)
    scenario["params"]["c_min"] = -1e9  # changed after compiling: must not leak into the law
    law = compiled["cost:atomic"]
    full = law._build()
    facts = {"global": 3, "task": "t", "tool": "x", "quantity": "cost"}
    assert full.draw(facts, ()) == law.draw(facts, ())
