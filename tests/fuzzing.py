"""The fuzzing campaign of issue 16: Hypothesis generators and mutators over every input scn reads
from strangers, and a harness that classifies what each input did.

Targets (each a function of one drawn input that returns normally or raises):

- `language`: `.scn` text through every stage to verify. Inputs are grammar sentences and model
  files printed back to text (from `strategies`), token soups, raw text, and mutations of the
  project's own small `.scn` files and of a valid scenario with a hostile construct appended
  (deep nesting, long sums, huge literals, loops, records, long strings, wide formats).
- `bundle`: a small committed bundle with one file mutated (JSON values replaced, keys dropped,
  lines torn, bytes flipped), hashes recomputed as an attacker would, then loaded and played.
- `trajectory`: JSON Lines text read by `read_trajectories`.
- `env`: any Python object handed to `Env.step`.

An outcome is `ok`, `refused` (a `ScnError` whose every diagnostic has a location: a span, or a
file/JSON path), or a failure: `unlocated` (a `ScnError` without a location), `crash:<Type>` (any
other exception) or `hang` (over the CPU time limit, by SIGPROF). CI runs a short campaign
(`tests/test_fuzz.py`); `benchmarks/fuzz_campaign.py` runs the long one.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import tempfile
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import strategies as S
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from scn.diagnostics import ScnError

REPO = Path(__file__).resolve().parent.parent
BASE = (REPO / "tests" / "golden" / "costbench_chain" / "input.scn").read_text()


class Hang(Exception):
    """The input ran past the campaign's time limit."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise `Hang` in the main thread after `seconds` of this process's CPU time (SIGPROF, so
    a machine shared with other jobs does not turn a slow input into a hang; a no-op outside
    the main thread)."""

    def expire(signum: int, frame: Any) -> None:
        raise Hang(f"over {seconds} s of CPU time")

    try:
        previous = signal.signal(signal.SIGPROF, expire)
    except ValueError:  # not the main thread
        yield
        return
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def classify(run: Callable[[], Any], seconds: float = 10.0) -> tuple[str, str]:
    """Run one input; return (outcome, detail)."""
    try:
        with time_limit(seconds):
            run()
    except Hang as e:
        return "hang", str(e)
    except ScnError as e:
        unlocated = [d for d in e.diagnostics if d.span is None and d.path is None]
        if unlocated or not e.diagnostics:
            return "unlocated", (unlocated[0].message if unlocated else str(e))[:200]
        return "refused", ""
    except RecursionError:
        return "crash:RecursionError", traceback.format_exc(limit=-3)[-600:]
    except MemoryError:
        return "crash:MemoryError", ""
    except Exception as e:  # noqa: BLE001 - classifying every failure is the point
        return f"crash:{type(e).__name__}", traceback.format_exc(limit=-4)[-800:]
    return "ok", ""


# ------------------------------------------------------------------ language
_HOSTILE = [
    "let x = " + "-" * 500 + "1\n",
    "let x = " + "[" * 400 + "1" + "]" * 400 + "\n",
    "let x = " + " + ".join(["1"] * 300) + "\n",
    "law cost z = " + " + ".join(["uniform(1, 2)"] * 250) + "\n",
    "for i in [1] {\n" * 300 + "}\n" * 300,
    "if true {\n" * 300 + "}\n" * 300,
    "let x = sigma" + ".title" * 400 + "\n",
    "let x = 1" + "0" * 5000 + "\n",
    "let x = 1e999\n",
    "let x = 10000000000 * 10000000000 * 10000000000 * 10000000000\n",
    "for a in 1..100000 {\n for b in 1..100000 {\n  let c = 1\n }\n}\n",
    "backend b { records 2147483648 }\n",
    'let s0 = "ab"\n' + "".join(f"let s{i} = s{i - 1} + s{i - 1}\n" for i in range(1, 40)),
    'let x = "{1:4000000000}"\n',
    'let x = "' + "a" * 200_000 + '"\n',
    'import "/proc/self/environ"\n',
    'import "../../../../etc/passwd"\n',
    "law cost big = uniform(1, 2) clamp >= 1e300\n",
    "param big: float = 1e308\nlet y = big * 10\n",
    "\ufeff",
    "\f\n\v\n\x85\n\u2028\n",
]


def _corpus() -> list[str]:
    files = sorted(REPO.glob("tests/golden/*/input.scn")) + sorted(
        REPO.glob("tests/golden/errors/*.scn")
    )
    return [
        p.read_text(encoding="utf-8", errors="replace") for p in files if p.stat().st_size < 8000
    ]


@st.composite
def mutated(draw: st.DrawFn, corpus: tuple[str, ...]) -> str:
    """A corpus file with 1-4 edits: deletions, duplications, insertions of tokens or hostile
    snippets, byte-level character changes."""
    text = draw(st.sampled_from(corpus))
    for _ in range(draw(st.integers(1, 4))):
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 80)))
        op = draw(st.sampled_from(["delete", "dup", "insert", "hostile", "char"]))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "dup":
            text = text[:j] + text[i:j] * draw(st.integers(1, 50)) + text[j:]
        elif op == "insert":
            token = draw(S.token_soups() | S.fuzz_numbers() | S.fuzz_strings())
            text = text[:i] + " " + token + " " + text[i:]
        elif op == "hostile":
            text = text[:i] + "\n" + draw(st.sampled_from(_HOSTILE)) + text[i:]
        else:
            text = text[:i] + draw(st.characters()) + text[i + 1 :]
    return text


def _printed_files() -> st.SearchStrategy[str]:
    from scn.printer import print_file

    return S.files().map(print_file)


def scn_texts() -> st.SearchStrategy[str]:
    corpus = tuple(_corpus())
    return st.one_of(
        mutated(corpus),
        mutated(corpus),
        st.sampled_from(_HOSTILE).map(lambda h: BASE + h),
        S.grammar_sentences(),
        _printed_files(),
        S.token_soups(),
        S.raw_text(),
    )


_REGISTRY: Any = None


def registry() -> Any:
    global _REGISTRY
    if _REGISTRY is None:
        from scn.api import load_registry

        _REGISTRY = load_registry()
    return _REGISTRY


def language(text: str, folder: Path) -> None:
    """Compile `text` as a file in `folder` through verify (a file on disk, so imports resolve)."""
    from scn.api import compile_source, resolve_target

    path = folder / "fuzz.scn"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    # Read as `scn compile FILE` reads it (text that is not UTF-8 is a located error there).
    compile_source(resolve_target(str(path), registry()), registry=registry())


# ------------------------------------------------------------------ bundles
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
BUNDLES = (
    "cctu-cases",
    "retail-planbench",
    "multi_mcp-servers",
    "travel-costbench",
    "agency-trips",
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value[:6]):
            out.extend(_paths(v, (*prefix, i)))
    return out


@st.composite
def bundle_edits(draw: st.DrawFn) -> tuple[str, str, bytes]:
    """(bundle, file, new bytes): one file of a committed bundle, edited structurally."""
    from scn.regenerate import ROOT

    name = draw(st.sampled_from(BUNDLES))
    files = [
        "manifest.json",
        "scenario.json",
        "tools/internal.json",
        "tasks.jsonl",
        "backend.jsonl",
    ]
    rel = draw(st.sampled_from(files))
    data = (ROOT / name / rel).read_bytes()
    how = draw(st.sampled_from(["value", "value", "drop", "bytes", "tear"]))
    if how == "bytes":
        i = draw(st.integers(0, max(0, len(data) - 1)))
        return name, rel, data[:i] + draw(st.binary(min_size=1, max_size=8)) + data[i + 1 :]
    if how == "tear":
        return name, rel, data[: draw(st.integers(0, len(data)))]
    lines = data.decode().splitlines() if rel.endswith(".jsonl") else [data.decode()]
    k = draw(st.integers(0, len(lines) - 1))
    doc = json.loads(lines[k])
    path = draw(st.sampled_from(_paths(doc)[:200]))
    if not path:
        doc = draw(_JSON_VALUES)
    else:
        parent = doc
        for p in path[:-1]:
            parent = parent[p]
        if how == "drop" and isinstance(parent, dict):
            parent.pop(path[-1], None)
        elif how == "drop" and isinstance(parent, list):
            parent.pop(path[-1])
        else:
            parent[path[-1]] = draw(_JSON_VALUES | st.sampled_from(["../x", "/etc/passwd", 1e308]))
    lines[k] = json.dumps(doc)
    return name, rel, ("\n".join(lines) + "\n").encode()


def bundle(edit: tuple[str, str, bytes], folder: Path) -> None:
    """Load an edited bundle (hashes recomputed) and play a few steps of two agents."""
    from scn.bundle_format import sha256
    from scn.regenerate import ROOT
    from scn.runtime.agents import NullAgent, OracleAgent
    from scn.runtime.bundle import LoadedBundle
    from scn.runtime.run import episode

    name, rel, data = edit
    target = folder / name
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(ROOT / name, target)
    (target / rel).write_bytes(data)
    if rel != "manifest.json":
        manifest = json.loads((target / "manifest.json").read_text())
        manifest["files"][rel] = sha256(data)
        (target / "manifest.json").write_text(json.dumps(manifest))
    loaded = LoadedBundle.load(target)
    for task_id in list(loaded.tasks)[:2]:
        episode(loaded, task_id, OracleAgent(), "oracle", max_steps=6)
        episode(loaded, task_id, NullAgent(), "null", max_steps=2)


# ------------------------------------------------------------------ trajectories
def trajectory_texts() -> st.SearchStrategy[bytes]:
    record = st.fixed_dictionaries(
        {"schema": st.sampled_from(["scn-trajectory/1", "x"])},
        optional={
            "task": _JSON_VALUES,
            "agent": _JSON_VALUES,
            "steps": _JSON_VALUES,
            "outcome": _JSON_VALUES,
            "settings": _JSON_VALUES,
            "bundle": _JSON_VALUES,
        },
    ).map(lambda r: json.dumps(r).encode())
    line = record | st.binary(max_size=40) | st.sampled_from([b"[" * 100_000, b"\xff\xfe", b""])
    return st.lists(line, max_size=5).map(lambda ls: b"\n".join(ls))


def trajectory(data: bytes, folder: Path) -> None:
    from scn.trajectory import read_trajectories

    path = folder / "runs.jsonl"
    path.write_bytes(data)
    read_trajectories(path)


# ------------------------------------------------------------------ env
def env_actions() -> st.SearchStrategy[list[Any]]:
    names = st.sampled_from(["call", "parallel", "answer", "type", "tool", "args", "calls", "x"])
    python = st.recursive(
        st.none()
        | st.binary(max_size=4)
        | st.floats()
        | st.text(max_size=6)
        | st.integers()
        | names,
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.tuples(inner, inner)
            | st.frozensets(st.integers(), max_size=2)
            | st.dictionaries(names | st.integers(), inner, max_size=4)
        ),
        max_leaves=12,
    )
    return st.lists(python | _JSON_VALUES, min_size=1, max_size=4)


_ENV_BUNDLE: Any = None


def env(actions: list[Any], folder: Path) -> None:
    global _ENV_BUNDLE
    from scn.regenerate import ROOT
    from scn.runtime.bundle import LoadedBundle
    from scn.runtime.env import Env

    if _ENV_BUNDLE is None:
        _ENV_BUNDLE = LoadedBundle.load(ROOT / "multi_mcp-servers")
    e = Env(_ENV_BUNDLE, next(iter(_ENV_BUNDLE.tasks)))
    e.reset()
    for action in actions:
        if e.done:
            break
        e.step(action)
    json.dumps(e.steps, allow_nan=True)


TARGETS: dict[str, tuple[Callable[[], st.SearchStrategy[Any]], Callable[[Any, Path], None]]] = {
    "language": (scn_texts, language),
    "bundle": (bundle_edits, bundle),
    "trajectory": (trajectory_texts, trajectory),
    "env": (env_actions, env),
}


def campaign(
    target: str,
    examples: int,
    *,
    seconds: float = 10.0,
    seed: int | None = None,
    on_failure: Callable[[str, Any, str], None] | None = None,
    progress: Callable[[Counter[str]], None] | None = None,
) -> Counter[str]:
    """Run `examples` inputs of `target`; return the count of each outcome. Failures are never
    raised: each goes to `on_failure(outcome, input, detail)`; `progress(outcomes)` hears every
    500 inputs."""
    make, run = TARGETS[target]
    outcomes: Counter[str] = Counter()
    folder = Path(tempfile.mkdtemp(prefix=f"scn-fuzz-{target}-"))

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        derandomize=seed is not None,
    )
    @given(make())
    def one(value: Any) -> None:
        outcome, detail = classify(lambda: run(value, folder), seconds)
        outcomes[outcome] += 1
        if outcome not in ("ok", "refused") and on_failure is not None:
            on_failure(outcome, value, detail)
        if progress is not None and sum(outcomes.values()) % 500 == 0:
            progress(outcomes)

    try:
        one()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return outcomes


FAILURES = ("unlocated", "hang")


def failures(outcomes: Counter[str]) -> dict[str, int]:
    """The failure kinds of a campaign's outcomes."""
    return {k: v for k, v in outcomes.items() if k in FAILURES or k.startswith("crash:")}
