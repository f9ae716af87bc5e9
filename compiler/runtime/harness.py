"""The harness a scenario declares: prompts, protocol rules, strategies and decoding defaults.

A paper's numbers come from a model run a certain way: what it is told, how many calls a step may
make, how the answer is tagged, when the episode stops. The scenario says it in its `harness`
statement and the compiler copies it into `scenario.json["harness"]` (string lists, one key each):

    harness {
      metrics FAMILY                         # a registered metric family (a plugin's)
      prompt system, "prompts/system.md"     # the file's text, read at compile time
      calls_per_step 1                       # a second call in a step is refused
      answer_tag answer                      # the answer is what <answer>...</answer> holds
      max_steps 20                           # step budget (`scn run --max-steps` wins)
      stop_repeats 3                         # the same action 3 times in a row ends it
      stop_failures 3                        # a tool failing over 3 times in a row ends it
      strategies direct, cot, react          # `scn run --strategy NAME`; the first is default
      answer_attempts reflexion, 3           # a judged answer returned with feedback, 3 tries
      strategy_protocol react, plan_enquiry  # the protocol these strategies play by default
      temperature 0                          # decoding defaults (`--temperature` wins)
      max_tokens 16384
      select_tools 10                        # an episode selects at most 10 tools
      scheduling parallel                    # parallel | sequential: the Env refuses a turn
                                             # of several calls under sequential
      mask_results "Masked: see your notes."  # older tool results are replaced by this note
      held_values unlisted                   # the request states the given values: they are
                                             # not listed again under their datatypes' names,
                                             # and tool results do not name their datatype
    }

`select_tools N` has one meaning: an episode works with at most N tools of the repository. An LLM
agent given a `select` prompt chooses them in a request of its own before the first turn
(`scn.runtime.selection`); the Env holds every agent to it (the first N distinct tools called are
the selection; a plugin's protocol enforces it, e.g. the MCP-server domain's); the `all_tools`
strategy is the ablation without selection (no limit). Bundles written before the key was merged
say `tool_cap N` for the Env's half; it is read as `select_tools N`.

`Harness` reads that block. The Env enforces the rules (`scn.runtime.protocols`); the LLM agent
renders the prompts. A prompt is a template: `$name` is replaced by the episode's value (`$query`,
`$values`, `$rules`, `$goals`, `$max_steps`, `$calls_per_step`, `$answer_tag`, `$tools`,
`$strategy`); `$$` is a dollar.

`answer_attempts N` (or `answer_attempts S1, ..., N` for the named strategies only) lets an
episode try its answer N times: the Env has the protocol review each answer but the last
(`Protocol.review`); one it finds wanting is returned with that feedback while the episode goes
on, and the last answer given is the final one (`scn.runtime.env`). An LLM agent with a `reflect`
prompt writes a reflection on the failed attempt and starts the next one with its reflections
(`scn.runtime.reflexion`). A role named after a strategy (`prompt cot, "..."`) is added to the
system prompt when that strategy is played. `scn run --prompt ROLE=PATH` replaces any role, and
the trajectory records each prompt's SHA-256 and where it came from.

`strategy_protocol S1, ..., PROTOCOL` makes the named strategies play PROTOCOL when the run names
no `--protocol` (the multi-day trip-planning scenario's ReAct and Reflexion planners need the
CostEnquiry tool that its direct and CoT planners do not); the trajectory records the protocol
played, so a replay plays it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from string import Template
from typing import Any

from attrs import evolve, field, frozen

from scn.diagnostics import ScnError

__all__ = ["Harness", "harness_of", "render"]

#: Integer rules of the harness statement.
_INTS = ("calls_per_step", "max_steps", "stop_repeats", "stop_failures", "select_tools")
#: Decoding defaults the harness statement may give, with their types.
_GENERATION = {"temperature": float, "top_p": float, "max_tokens": int}


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@frozen
class Harness:
    """The harness of one scenario (empty when it declares none). Immutable; cached per scenario."""

    prompts: Mapping[str, str] = field(factory=dict)  #: role -> template text
    sources: Mapping[str, str] = field(factory=dict)  #: role -> "scenario" or the file given
    calls_per_step: int | None = None
    answer_tag: str | None = None
    max_steps: int | None = None
    stop_repeats: int | None = None
    stop_failures: int | None = None
    select_tools: int | None = None
    scheduling: str | None = None
    mask_results: str | None = None  #: the note that replaces a tool result once a newer arrives
    #: `unlisted`: the opening message is the request alone, which states every value the task
    #: gives (`listed`, the default, adds them under their datatypes' names)
    held_values: str | None = None
    strategies: tuple[str, ...] = ()
    #: (strategies it applies to, empty for all; answers an episode may try)
    answer_attempts: tuple[tuple[str, ...], int] | None = None
    #: (strategies, the protocol they play when the run names none)
    strategy_protocol: tuple[tuple[str, ...], str] | None = None
    generation: Mapping[str, Any] = field(factory=dict)  #: decoding defaults

    @property
    def enforced(self) -> bool:
        """Whether the Env has a rule of this harness to enforce."""
        return bool(
            self.calls_per_step or self.answer_tag or self.stop_repeats or self.stop_failures
        )

    def strategy(self, asked: str | None) -> str | None:
        """The strategy played: `asked` (checked against the declared ones), else the first.

        Raises:
            ScnError: a strategy the scenario does not offer.
        """
        if asked is None:
            return self.strategies[0] if self.strategies else None
        if self.strategies and asked not in self.strategies:
            raise ScnError(
                f"this scenario offers the strategies {', '.join(self.strategies)}, not {asked!r}",
                path="--strategy",
                code="usage",
            )
        return asked

    def attempts(self, strategy: str | None) -> int:
        """How many answers an episode of `strategy` may try (1: the first answer is final).
        `strategy` None is the default one (the first declared)."""
        if self.answer_attempts is None:
            return 1
        names, count = self.answer_attempts
        played = strategy if strategy is not None else self.strategy(None)
        return count if not names or played in names else 1

    def protocol_for(self, strategy: str | None) -> str | None:
        """The protocol `strategy` plays when the run names none (`strategy_protocol`), else
        None (the scenario's own). A ReAct agent needs tools that a direct planner does not."""
        if self.strategy_protocol is None:
            return None
        names, protocol = self.strategy_protocol
        played = strategy if strategy is not None else self.strategy(None)
        return protocol if played in names else None

    def with_prompts(self, files: Mapping[str, str | Path]) -> Harness:
        """This harness with roles replaced by the text of user files (`--prompt ROLE=PATH`).

        Raises:
            ScnError: a file that cannot be read.
        """
        if not files:
            return self
        prompts, sources = dict(self.prompts), dict(self.sources)
        for role, path in files.items():
            try:
                prompts[role] = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as e:
                raise ScnError(
                    f"cannot read the {role} prompt {path}: {e}", path="--prompt", code="usage"
                ) from None
            sources[role] = str(path)
        return evolve(self, prompts=prompts, sources=sources)

    def rules(self) -> dict[str, Any]:
        """The protocol rules, as the trajectory records them (those declared only)."""
        out: dict[str, Any] = {}
        for key in (*_INTS, "answer_tag", "scheduling", "mask_results", "held_values"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.answer_attempts is not None:
            names, count = self.answer_attempts
            out["answer_attempts"] = [*names, count]
        if self.strategy_protocol is not None:
            names, protocol = self.strategy_protocol
            out["strategy_protocol"] = [*names, protocol]
        return out

    def record(self, strategy: str | None = None) -> dict[str, Any]:
        """What a trajectory says of the harness: each prompt's hash and source, the rules, the
        strategy."""
        return {
            "prompts": {
                role: {"sha256": _sha(text), "source": self.sources.get(role, "scenario")}
                for role, text in sorted(self.prompts.items())
            },
            "rules": self.rules(),
            "strategy": strategy,
        }


def _int(key: str, raw: str) -> int:
    return _typed(key, raw, lambda text: int(float(text)), "a whole number")


def _typed(key: str, raw: str, kind: Any, what: str = "") -> Any:
    """`kind(raw)`, or a located error naming the harness key (an edited bundle's
    `scenario.json` may hold any text there)."""
    try:
        return kind(raw)
    except (ValueError, OverflowError, TypeError):
        raise ScnError(
            f"harness `{key}` takes {what or getattr(kind, '__name__', 'a value')}, not {raw!r}",
            path=f"scenario.json: $.harness.{key}",
            code="data",
        ) from None


def parse(block: Mapping[str, Any]) -> Harness:
    """Read `scenario.json["harness"]` (see the module doc)."""

    def one(key: str) -> str | None:
        values = block.get(key)
        return str(values[0]) if isinstance(values, list) and values else None

    prompts = {
        key.split(".", 1)[1]: str(v[0])
        for key, v in block.items()
        if key.startswith("prompt.") and isinstance(v, list) and v
    }
    ints = {k: _int(k, raw) for k in _INTS if (raw := one(k)) is not None}
    if "select_tools" not in ints and (legacy := one("tool_cap")) is not None:
        ints["select_tools"] = _int("tool_cap", legacy)  # a bundle from before the merge
    generation = {
        k: _typed(k, raw, kind) for k, kind in _GENERATION.items() if (raw := one(k)) is not None
    }
    scheduling = one("scheduling")
    if scheduling not in (None, "parallel", "sequential"):
        raise ScnError(
            f"harness `scheduling` is parallel or sequential, not {scheduling!r}",
            path="scenario.json: $.harness.scheduling",
            code="data",
        )
    attempts = block.get("answer_attempts")
    answer_attempts = None
    if isinstance(attempts, list) and attempts:
        count = _int("answer_attempts", str(attempts[-1]))
        if count < 1:
            raise ScnError(
                f"harness `answer_attempts` takes 1 or more attempts, not {count}",
                path="scenario.json: $.harness.answer_attempts",
                code="data",
            )
        answer_attempts = (tuple(str(a) for a in attempts[:-1]), count)
    pairing = block.get("strategy_protocol")
    strategy_protocol = None
    if isinstance(pairing, list) and len(pairing) >= 2:
        strategy_protocol = (tuple(str(a) for a in pairing[:-1]), str(pairing[-1]))
    return Harness(
        prompts=prompts,
        answer_attempts=answer_attempts,
        strategy_protocol=strategy_protocol,
        sources={role: "scenario" for role in prompts},
        answer_tag=one("answer_tag"),
        mask_results=one("mask_results"),
        held_values=one("held_values"),
        scheduling=scheduling,
        strategies=tuple(str(s) for s in block.get("strategies") or ()),
        generation=generation,
        **ints,
    )


_CACHE: dict[int, tuple[Any, Harness]] = {}


def harness_of(scenario: Mapping[str, Any]) -> Harness:
    """The harness a bundle's `scenario.json` declares (cached per scenario object)."""
    found = _CACHE.get(id(scenario))
    if found is not None and found[0] is scenario:
        return found[1]
    block = scenario.get("harness")
    spec = parse(block) if isinstance(block, Mapping) else Harness()
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[id(scenario)] = (scenario, spec)
    return spec


_EFFECTIVE: dict[tuple[int, tuple[tuple[str, str], ...]], tuple[Any, Harness]] = {}


def effective(scenario: Mapping[str, Any], files: Mapping[str, str | Path] | None) -> Harness:
    """The scenario's harness with the user's prompt files in place (`--prompt ROLE=PATH`); the
    files are read once per scenario, not per episode."""
    spec = harness_of(scenario)
    if not files:
        return spec
    key = (id(scenario), tuple(sorted((r, str(p)) for r, p in files.items())))
    found = _EFFECTIVE.get(key)
    if found is not None and found[0] is scenario:
        return found[1]
    done = spec.with_prompts(files)
    _EFFECTIVE[key] = (scenario, done)
    return done


def render(template: str, values: Mapping[str, Any]) -> str:
    """Fill a prompt template's `$name` fields; unknown names are left as written."""
    return Template(template).safe_substitute({k: str(v) for k, v in values.items()})
