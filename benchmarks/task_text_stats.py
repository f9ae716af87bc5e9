"""Task-text statistics per built-in benchmark, beside the paper's and the released queries'.

    python benchmarks/task_text_stats.py            # all five, modest sizes (~15 s)
    python benchmarks/task_text_stats.py --json

Compiles each built-in benchmark as `probe_scores.py` does and measures its task texts:

- `tokens`: mean request length in word and punctuation tokens (`\\w+|[^\\w\\s]`; a BPE
  tokenizer gives about 1.3 times as many on English prose);
- `prompt≈`: mean prompt length estimated as characters / 4 of the request, the harness's
  prompts (`harness { prompt ... }`: system prompt, answer format) and the schemas of the task's
  visible tools (`tools/openai.json`), the figure CCTU's paper reports (4,754 Qwen3 tokens,
  system prompt and tool descriptions included);
- `distinct`: mean distinct content words per request;
- `overlap`: mean share of a request's content words that occur in the names and descriptions
  of the task's visible tools (what a lexical matcher exploits);
- `leaks`: share of requests that spell a tool name, a canonical datatype name (one with `_` or
  two capitals) or an enum literal with `_`, verbatim.

For PlanBench-XL and CostBench the same figures are computed on the released queries
(`queries.json`, `test_queries.json`) when `/work/shared/reference` (or `../shared/reference`)
holds them, against the same compiled tools; nothing from there is stored. Where the paper
reports a figure it is printed beside ours.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path
from statistics import mean
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from probe_scores import BENCHMARKS, compile_bundle  # noqa: E402

from scn.runtime.bundle import LoadedBundle  # noqa: E402
from scn.runtime.probes import tool_words, words  # noqa: E402

TOKEN = re.compile(r"\w+|[^\w\s]")
#: Figures the papers report about their task texts (None: not reported).
PAPER = {
    "cctu": {"prompt≈": 4754, "tools": 9.26},
}
#: Released task texts: benchmark -> (file under the reference folder, field holding the text).
RELEASED = {
    "planbench_xl": ("planbench-xl/queries.json", "query_text"),
    "costbench": ("costbench/test_queries.json", "user_requirements"),
}


def reference_dir() -> Path | None:
    for candidate in (Path("/work/shared/reference"), ROOT.parent / "shared" / "reference"):
        if candidate.is_dir():
            return candidate
    return None


def canonical(bundle: LoadedBundle) -> set[str]:
    """Names a request should never spell: tools, canonical datatypes, enum literals."""
    names = set(bundle.tools)
    for datatype in bundle.scenario.get("datatypes") or []:
        name = datatype["name"] if isinstance(datatype, dict) else str(datatype)
        if "_" in name or len(re.findall(r"[A-Z]", name)) >= 2:
            names.add(name)
    enums = bundle.scenario.get("enums") or {}
    for enum in enums.values() if isinstance(enums, dict) else enums:
        members = enum.get("members", []) if isinstance(enum, dict) else []
        names |= {str(m) for m in members if "_" in str(m)}
    return names


def prompt_chars(bundle: LoadedBundle, schemas: dict[str, Any], task: dict[str, Any]) -> int:
    """The request and the schemas of the tools listed at the episode's start (under a
    retrieval protocol: none, plus the protocol's own action tools)."""
    from scn.runtime.env import Env
    from scn.runtime.run import run_defaults

    retrieval, _, _ = run_defaults(
        bundle, retrieval=None, max_steps=None, blocker=None, blocks=None
    )
    env = Env(bundle, task["id"], retrieval=retrieval)
    shown = env.reset()["tools"]
    extra = getattr(env.protocol_class, "llm_tools", None) or {}
    listed = sum(len(json.dumps(schemas[t])) for t in shown if t in schemas)
    # The harness's own prompts (`harness { prompt system, "..." }`) go to the model too, as
    # CCTU's system prompt is part of its 4,754 tokens.
    harness = bundle.scenario.get("harness") or {}
    prompts = sum(len(str(v[0])) for k, v in harness.items() if k.startswith("prompt.") and v)
    return len(task["query"]) + listed + prompts + sum(len(json.dumps(t)) for t in extra.values())


def text_stats(
    texts: list[str], bundle: LoadedBundle, tasks: list[dict[str, Any]] | None
) -> dict[str, Any]:
    """The figures over `texts`; tools are each task's visible ones (or all, for texts that are
    not the bundle's tasks)."""
    every = [tool_words(spec) for spec in bundle.tools.values()]
    all_words = set().union(*every) if every else set()
    names = canonical(bundle)
    leak = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names, key=len)[::-1])) + r")\b")
    overlaps, leaks = [], 0
    for i, text in enumerate(texts):
        content = words(text)
        if tasks is not None:
            visible = bundle.visible_tools(tasks[i])
            pool = (
                set().union(*(tool_words(bundle.tools[t]) for t in visible)) if visible else set()
            )
        else:
            pool = all_words
        overlaps.append(len(content & pool) / len(content) if content else 0.0)
        leaks += bool(names) and bool(leak.search(text))
    return {
        "texts": len(texts),
        "tokens": round(mean(len(TOKEN.findall(t)) for t in texts), 1) if texts else None,
        "distinct": round(mean(len(words(t)) for t in texts), 1) if texts else None,
        "overlap": round(mean(overlaps), 3) if overlaps else None,
        "leaks": round(leaks / len(texts), 3) if texts else None,
    }


def measure(name: str, out: Path) -> list[dict[str, Any]]:
    bundle = compile_bundle(name, out, 42)
    tasks = list(bundle.tasks.values())
    schemas = {
        t["function"]["name"]: t
        for t in json.loads((bundle.root / "tools" / "openai.json").read_text())["tools"]
    }
    ours = text_stats([t["query"] for t in tasks], bundle, tasks)
    ours["tools"] = round(mean(len(bundle.visible_tools(t)) for t in tasks), 2)
    ours["prompt≈"] = round(mean(prompt_chars(bundle, schemas, t) for t in tasks) / 4)
    rows = [{"benchmark": name, "source": "scn (main)", **ours}]
    if name in PAPER:
        rows.append({"benchmark": name, "source": "paper", **PAPER[name]})
    ref = reference_dir()
    if name in RELEASED and ref is not None and (ref / RELEASED[name][0]).is_file():
        path, key = RELEASED[name]
        released = [str(q[key]) for q in json.loads((ref / path).read_text()) if q.get(key)]
        rows.append(
            {"benchmark": name, "source": "released queries", **text_stats(released, bundle, None)}
        )
    return rows


COLUMNS = ("texts", "tools", "tokens", "prompt≈", "distinct", "overlap", "leaks")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append", choices=sorted(BENCHMARKS))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="scn-texts-") as tmp:
        for name in args.only or list(BENCHMARKS):
            rows.extend(measure(name, Path(tmp)))
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    print("| benchmark | source | " + " | ".join(COLUMNS) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in COLUMNS) + " |")
    for row in rows:
        cells = ["" if row.get(c) is None else str(row[c]) for c in COLUMNS]
        print(f"| {row['benchmark']} | {row['source']} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
