"""The resolve stage's checks of a `harness` block: how a model is run, probed and shown tools.

Apart from the other per-construct checks because a harness is not a declaration but a bag of
run settings, each with its own value shape (numbers, text, bare names, `describe` notes,
`answer_attempts`) and its own retired keys; its tables and checks change together whenever a
setting is added, and nothing else in `scn.stages.resolve` reads them.
"""

from __future__ import annotations

from scn import model as m
from scn.diagnostics import Collector
from scn.stages.resolve_attrs import check_attrs

#: Harness attributes that take a number (the probes' bound and sample size, `scn.probing`; the
#: run's rules and decoding defaults, `scn.runtime.harness`). `tool_cap` (merged into
#: `select_tools`) is here too, so it is reported as such, never as a non-number.
HARNESS_NUMBERS = frozenset(
    {
        "tool_cap",
        "probe_margin",
        "probe_max",
        "probe_tasks",
        "calls_per_step",
        "max_steps",
        "stop_repeats",
        "stop_failures",
        "select_tools",
        "temperature",
        "top_p",
        "max_tokens",
    }
)
#: Harness attributes that take text: `prompt ROLE, "FILE"` (read by the expand stage) and the
#: note `mask_results` puts in place of older tool results.
HARNESS_TEXT = frozenset({"prompt", "mask_results"})


def check_harness(h: m.Harness, errors: Collector) -> None:
    """A harness names plugins' families and rules: bare names, one where only one can act
    (the arity table says which); numbers and text where the tables above say so."""
    check_attrs("harness", h.attrs, errors)
    for attr in h.attrs:
        if attr.key == "describe":  # `describe kind, outputs, cost` or `describe none`
            _check_describe(attr, errors)
            continue
        if attr.key in HARNESS_TEXT:
            continue
        if attr.key == "tool_cap":  # merged into select_tools (one key, one meaning)
            errors.error(
                "harness `tool_cap` is now `select_tools` (the most tools an episode selects, "
                "held by the Env and chosen by an LLM agent's selection request): write "
                "`select_tools N` once",
                attr.span,
            )
            continue
        if attr.key == "answer_attempts":  # `answer_attempts [STRATEGY, ...,] N`
            _check_attempts(attr, errors)
            continue
        if attr.key == "strategy_protocol" and len(attr.values) < 2:
            errors.error(
                "harness `strategy_protocol` names one or more strategies, then the protocol "
                "they play",
                attr.span,
            )
            continue
        first = attr.values[0]
        said = str(first.template.text) if first.template is not None else first.text
        if attr.key == "scheduling" and said not in ("parallel", "sequential"):
            errors.error(
                "harness `scheduling` is parallel or sequential", attr.values[0].span or attr.span
            )
            continue
        if attr.key == "held_values" and said not in ("listed", "unlisted"):
            errors.error(
                "harness `held_values` is listed or unlisted", attr.values[0].span or attr.span
            )
            continue
        for v in attr.values:
            if attr.key in HARNESS_NUMBERS:
                if v.op != "num":
                    errors.error(f"harness `{attr.key}` takes a number", v.span or attr.span)
            elif not (v.op == "name" and v.template is not None and v.template.is_plain):
                errors.error(f"harness `{attr.key}` takes plain names", v.span or attr.span)


#: What `harness { describe ... }` may list: the notes of `scn.stages.emit.DESCRIBE_NOTES`
#: (kept here too: the resolve stage does not import the emit stage), or `none` alone.
DESCRIBE_VALUES = ("kind", "outputs", "cost")


def _check_describe(attr: m.Attr, errors: Collector) -> None:
    """`describe` lists the generated notes tool descriptions carry, each once, or says `none`."""
    said: list[str] = []
    for v in attr.values:
        text = str(v.template.text) if v.template is not None else v.text
        plain = v.op == "name" and v.template is not None and v.template.is_plain
        if not plain or text not in (*DESCRIBE_VALUES, "none"):
            errors.error(
                f"harness `describe` lists {', '.join(DESCRIBE_VALUES)} (the notes tool "
                f"descriptions carry) or says none; got '{text}'",
                v.span or attr.span,
            )
        elif text in said:
            errors.error(f"harness `describe` lists '{text}' twice", v.span or attr.span)
        said.append(text)
    if "none" in said and len(said) > 1:
        errors.error("harness `describe none` stands alone", attr.span)


def _check_attempts(attr: m.Attr, errors: Collector) -> None:
    """`answer_attempts N` (every strategy) or `answer_attempts S1, S2, N` (those strategies):
    plain names, then a whole number of at least 1."""
    *names, count = attr.values
    if count.op != "num" or not float(count.text).is_integer() or float(count.text) < 1:
        errors.error(
            "harness `answer_attempts` ends with a whole number of attempts (1 or more)",
            count.span or attr.span,
        )
    for v in names:
        if not (v.op == "name" and v.template is not None and v.template.is_plain):
            errors.error(
                "harness `answer_attempts` names strategies before its number", v.span or attr.span
            )
