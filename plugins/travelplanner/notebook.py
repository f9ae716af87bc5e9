"""TravelPlanner's two-stage protocol as the paper ran it: a notebook, and a planner that reads it.

In the paper's two-stage mode the agent gathers information with the search tools, stores what
it wants to keep with `NotebookWrite` (the last tool result, under a short description) and ends
with `Planner`, which writes the plan from the notebook's contents alone. `plan_notebook` is the
`plan` protocol plus those two tools:

- `NotebookWrite(description)` is an extra action (`notebook_write`): it stores the latest
  successful call's result and answers with the entry's index. Writing before any result is an
  error the model reads.
- `Planner(query)` is not an Env action: the LLM agent (`scn.runtime.llm`) sees the protocol's
  `llm_planner` and answers that call itself, with one more request (the harness's `planner`
  prompt, filled with `$query` and `$notebook`); the reply is the episode's final answer, judged
  as the `plan` protocol judges it. Every observation carries the notebook (`notebook`).
"""

from __future__ import annotations

from typing import Any

from scn.plugins.travelplanner.world import Plan
from scn.runtime.results import CallResult

NOTEBOOK_WRITE = {
    "type": "function",
    "function": {
        "name": "NotebookWrite",
        "description": (
            "Keep the result of your latest successful search in the notebook, under a short "
            "description. Only the notebook reaches the Planner."
        ),
        "parameters": {
            "type": "object",
            "properties": {"description": {"type": "string", "description": "What it holds."}},
            "required": ["description"],
        },
    },
}

PLANNER = {
    "type": "function",
    "function": {
        "name": "Planner",
        "description": (
            "Write the travel plan from the notebook's contents and the request; its plan is "
            "your final answer. Call it once the notebook holds what the plan needs."
        ),
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "The traveller's request."}},
            "required": ["query"],
        },
    },
}


class NotebookPlan(Plan):
    """The `plan` protocol with the paper's NotebookWrite and Planner tools (see the module doc)."""

    actions = ("notebook_write",)
    llm_tools = {"notebook_write": NOTEBOOK_WRITE, "planner": PLANNER}
    #: the function tool the LLM agent answers itself with a planning request
    llm_planner = "Planner"

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.notebook: list[dict[str, str]] = []

    @classmethod
    def llm_result(cls, action: str, results: list[dict[str, Any]], note: str | None) -> str:
        if results and results[0].get("ok"):
            return str(results[0].get("value"))
        return str(note or (results[0].get("error") if results else "nothing was recorded"))

    @classmethod
    def planner_input(cls, observation: dict[str, Any]) -> str:
        """The notebook as the planner reads it (`$notebook`): each entry's description, then
        its content."""
        entries = observation.get("notebook") or []
        return "\n\n".join(
            f"[{i}] {e.get('description')}\n{e.get('content')}" for i, e in enumerate(entries)
        )

    def observe(self, env: Any) -> dict[str, Any]:
        return {"notebook": self.notebook}

    def act(
        self, env: Any, action: dict[str, Any]
    ) -> tuple[list[CallResult], str | None, dict[str, Any]]:
        """Store the latest successful call's result under the description given."""
        latest = None
        for step in reversed(env.steps):
            action_type = step["action"].get("type") if isinstance(step["action"], dict) else None
            if action_type in self.actions:
                continue
            found = [r for r in step["results"] if r["ok"]]
            if found:
                latest = found[-1]
                break
        if latest is None:
            return [], "there is no search result to write down yet", {}
        description = str(action.get("description") or "").strip() or str(latest["tool"])
        self.notebook.append({"description": description, "content": str(latest["value"])})
        index = len(self.notebook) - 1
        text = f"Recorded in the notebook as entry {index}."
        result = CallResult("NotebookWrite", True, True, "Notebook", text)
        return [result], None, {"notebook_entry": index}


COST_ENQUIRY = {
    "type": "function",
    "function": {
        "name": "CostEnquiry",
        "description": (
            "The cost of one day of your plan for the whole party, written as one day object of "
            "the plan's JSON format. Items that are not in the information given are listed."
        ),
        "parameters": {
            "type": "object",
            "properties": {"day_plan": {"type": "string", "description": "One day, as JSON."}},
            "required": ["day_plan"],
        },
    },
}


class EnquiryPlan(Plan):
    """Sole-planning ReAct (`plan_enquiry`): the `plan` protocol plus TravelPlanner's CostEnquiry
    tool, the environment feedback its ReAct and Reflexion planners read (the cost of one day).
    An enquiry is not a call; it is answered from the sandbox as the budget check prices a plan.

    Under answer attempts (Reflexion), `FAILED_ENQUIRIES` failed enquiries in a row also end the
    attempt, as the paper's Reflexion environment does: the last one's error comes back as the
    attempt's feedback and the agent reflects (`Env.end_attempt`)."""

    actions = ("cost_enquiry",)
    llm_tools = {"cost_enquiry": COST_ENQUIRY}
    #: Failed enquiries in a row that end a Reflexion attempt.
    FAILED_ENQUIRIES = 3

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.failed = 0  #: failed enquiries in a row

    @classmethod
    def llm_result(cls, action: str, results: list[dict[str, Any]], note: str | None) -> str:
        if results and results[0].get("ok"):
            return str(results[0].get("value"))
        return str(note or "the cost is not available")

    def act(
        self, env: Any, action: dict[str, Any]
    ) -> tuple[list[CallResult], str | None, dict[str, Any]]:
        """Price one day (`day_plan`: JSON text or an object) for the query's party."""
        from scn.plugins.travelplanner.plan import read_plan
        from scn.plugins.travelplanner.validators import plan_cost

        world = env.bundle.world
        raw = action.get("day_plan")
        day = raw if not isinstance(raw, str) else _loads(raw)
        plan = read_plan([day] if isinstance(day, dict) else day)
        if world is None or not plan.delivered or len(plan.days) != 1:
            why = "; ".join(plan.problems) if plan.problems else "give exactly one day object"
            self.failed += 1
            error = f"the cost is not available: {why}"
            fields: dict[str, Any] = {}
            if self.failed >= self.FAILED_ENQUIRIES:
                fields = env.end_attempt(
                    f"{self.failed} cost enquiries in a row failed; the last one: {error}"
                )
                if fields:
                    self.failed = 0
                    error = str(env.tries[-1]["feedback"])
            return [], error, fields
        info = env.task.get("info") if isinstance(env.task.get("info"), dict) else {}
        query = dict(info.get("query") or {}) if isinstance(info.get("query"), dict) else {}
        query["days"] = 1
        cost = plan_cost(plan, query, world.db)
        self.failed = 0
        text = f"This day costs {cost:g} dollars for the whole party."
        return [CallResult("CostEnquiry", True, True, "Cost", text)], None, {}


def _loads(text: str) -> Any:
    import json

    try:
        return json.loads(text)
    except ValueError:
        return text
