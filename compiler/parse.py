"""Stage 1, parse: `.scn` text to a Lark parse tree, or an `ScnSyntaxError` that people can read.

There is one cached LALR parser built from `grammar/scn.lark`, which ships inside the wheel. Lark's
exceptions never leave this module: each becomes an `ScnSyntaxError` with the position, a friendly
message where a known mistake matches (`SYNTAX_EXAMPLES`), and the expected tokens in words.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Any

from lark import Lark, Token, Tree, parse_tree_builder
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import PatternStr, UnlessCallback
from lark.parsers.lalr_analysis import Shift

from scn._gc import paused_gc as paused_gc
from scn.diagnostics import ScnSyntaxError
from scn.source import SourceFile, Span

#: Words for terminals in "expected one of" lists; keywords are shown quoted.
TERMINAL_WORDS = {
    "NAME": "a name",
    "STRING": "a string",
    "NUMBER": "a number",
    "QUANTITY": "a number with a unit (ms, s, %)",
    "COMPARE": "a comparison (==, !=, <, <=, >, >=)",
    "PLUS": "'+'",
    "MINUS": "'-'",
    "STAR": "'*'",
    "SLASH": "'/'",
    "PERCENT": "'%'",
    "$END": "end of file",
}

#: Known mistakes, each shown by small bad samples; the first matching label becomes the message.
SYNTAX_EXAMPLES: dict[str, list[str]] = {
    "a tool needs '->' and an output datatype after its inputs": [
        "tool A(x)",
        "tool A(x) cost 1",
        "chain c { tool A(x) }",
    ],
    "a parameter needs a type: `param name: int = 1`": [
        "param x = 1",
        "param x 1",
    ],
    "a law reads `law <quantity> <name> = <expression>`": [
        "law cost = 1",
        "law cost atomic uniform(1, 2)",
    ],
    "an enum lists its members in braces: `enum Color { red, green }`": [
        "enum Color red, green",
        "enum Color = red",
    ],
    "a block is missing its closing '}'": [
        "chain c { tool A(x) -> y",
        "for T in xs { datatype A",
        "server s { tool A(x) -> y",
    ],
}


@functools.lru_cache(maxsize=1)
def grammar_text() -> str:
    """Return the text of the packaged grammar."""
    return resources.files("scn.grammar").joinpath("scn.lark").read_text(encoding="utf-8")


class _Positions:
    """Set each new tree node's span from its first and last positioned child.

    A lean stand-in for Lark's `PropagatePositions`, which also tracks "container" positions of
    inlined rules and so runs its full bookkeeping at every level of the expression grammar;
    we only need line, column, end line and end column, and this halves the time spent
    building a parse tree (parse throughput is measured in benchmarks/compile_speed.py).
    """

    def __init__(self, node_builder: Any, node_filter: Any = None) -> None:
        self.node_builder = node_builder

    def __call__(self, children: list[Any]) -> Any:
        res = self.node_builder(children)
        if type(res) is Tree:
            meta = res.meta
            if meta.empty:
                first = _first_position(children)
                if first is not None:
                    last = _first_position(reversed(children))
                    meta.line, meta.column, meta.start_pos = (
                        first.line,
                        first.column,
                        first.start_pos,
                    )
                    meta.end_line, meta.end_column, meta.end_pos = (
                        last.end_line,
                        last.end_column,
                        last.end_pos,
                    )
                    meta.empty = False
        return res


def _first_position(children: Any) -> Any:
    for c in children:
        if type(c) is Token:
            return c
        if type(c) is Tree and not c.meta.empty:
            return c.meta
    return None


@functools.lru_cache(maxsize=1)
def parser() -> Lark:
    """Return the one LALR parser (built once per process)."""
    original = parse_tree_builder.PropagatePositions
    parse_tree_builder.PropagatePositions = _Positions  # read when Lark builds its callbacks
    try:
        return Lark(
            grammar_text(),
            parser="lalr",
            strict=True,
            propagate_positions=True,
            maybe_placeholders=True,
            start=["start", "expr"],
            cache=True,
        )
    finally:
        parse_tree_builder.PropagatePositions = original


def describe_terminal(name: str) -> str:
    """Return a human word for terminal `name` (keywords and punctuation quoted)."""
    if name in TERMINAL_WORDS:
        return TERMINAL_WORDS[name]
    try:
        pattern = parser().get_terminal(name).pattern
    except KeyError:
        return name.lower()
    return f"'{pattern.value}'"


def _expected_words(names: set[str] | frozenset[str]) -> tuple[str, ...]:
    words = {describe_terminal(n) for n in names}
    return tuple(sorted(words, key=lambda w: (not w.startswith("'"), w)))


#: Nouns for tokens that carry a value, as in "unexpected name 'x'".
TOKEN_NOUNS = {"NAME": "name", "STRING": "string", "NUMBER": "number", "QUANTITY": "quantity"}


def _token_text(token: Token) -> str:
    if token.type == "$END":
        return "end of file"
    if token.type in TOKEN_NOUNS:
        return f"{TOKEN_NOUNS[token.type]} {token.value!r}"
    return f"'{token.value}'"


def _signature(error: UnexpectedInput) -> tuple[object, str, frozenset[str]] | None:
    """Return (LALR state, token type, accepted terminals) of a token error, for matching."""
    if not isinstance(error, UnexpectedToken):
        return None
    position = getattr(error.state, "position", None)
    if position is None:
        return None
    return position, error.token.type, frozenset(error.accepts or error.expected)


@functools.lru_cache(maxsize=1)
def _example_signatures() -> tuple[tuple[tuple[object, str, frozenset[str]], str], ...]:
    """Return the signature of each sample in `SYNTAX_EXAMPLES` with its label, in order."""
    out = []
    for label, samples in SYNTAX_EXAMPLES.items():
        for sample in samples:
            try:
                parser().parse(sample, start="start")
            except UnexpectedInput as e:
                signature = _signature(e)
                if signature is not None:
                    out.append((signature, label))
    return tuple(out)


def _friendly(error: UnexpectedInput, text: str) -> str | None:
    """Return the label of a known mistake whose sample fails the same way, if any.

    A sample matches when the parser is in the same LALR state (whatever the depth of the stack,
    so a mistake is recognised inside blocks and after other items too) and meets the same kind of
    token with the same terminals acceptable.
    """
    signature = _signature(error)
    if signature is None:
        return None
    for known, label in _example_signatures():
        if known == signature:
            return label
    return None


def _span_at(source: SourceFile, line: int, column: int, width: int = 1) -> Span:
    return Span(source.name, line, column, line, column + max(width, 1))


def _end_span(source: SourceFile) -> Span:
    lines = source.text.splitlines() or [""]
    line = len(lines)
    column = len(lines[-1]) + 1
    return Span(source.name, line, column, line, column + 1)


def _hole_end(hole: Span) -> Span:
    """Return the position just after a hole's text, relative to the hole (shifted later)."""
    column = hole.end_column - hole.column + 1
    return Span(hole.file, 1, column, 1, column + 1)


def syntax_error(
    source: SourceFile, error: UnexpectedInput, offset: Span | None = None
) -> ScnSyntaxError:
    """Turn a Lark error into an `ScnSyntaxError` located in `source`.

    `offset` is where a template hole starts, for errors inside `{...}` of a name or string.
    """
    friendly = _friendly(error, source.text) if offset is None else None
    if isinstance(error, UnexpectedToken):
        token = error.token
        if token.type == "$END":
            span = _end_span(source) if offset is None else _hole_end(offset)
            found = "end of file" if offset is None else "end of the expression"
        else:
            span = _span_at(source, token.line, token.column, len(str(token.value)))
            found = _token_text(token)
        expected = _expected_words(error.accepts or error.expected)
        message = friendly or f"unexpected {found}"
    elif isinstance(error, UnexpectedCharacters):
        span = _span_at(source, error.line, error.column)
        char = error.char
        expected = _expected_words(error.allowed or set())
        if char and char in "\"'":
            message = "unterminated string: a string must end on the line it starts (write \\n for a line break)"
            expected = ()
        else:
            message = friendly or f"unexpected character {char!r}"
    elif isinstance(error, UnexpectedEOF):
        span = _end_span(source) if offset is None else _hole_end(offset)
        expected = _expected_words(set(error.expected))
        message = friendly or (
            "unexpected end of file" if offset is None else "unexpected end of the expression"
        )
    else:  # pragma: no cover - lark has no other UnexpectedInput subclasses
        span = _end_span(source)
        expected = ()
        message = str(error)
    if offset is not None:
        span = Span(
            source.name,
            offset.line,
            offset.column + span.column - 1,
            offset.line,
            offset.column + span.end_column - 1,
        )
        message = f"in template: {message}"
    return ScnSyntaxError(message, span=span, expected=expected)


def parse_tree(source: SourceFile) -> Tree:
    """Parse a whole file into a Lark tree.

    Raises:
        ScnSyntaxError: the text does not match the grammar.
    """
    try:
        with paused_gc():
            return parser().parse(source.text, start="start")
    except UnexpectedInput as e:
        raise syntax_error(source, e) from e


def parse_expr_tree(text: str) -> Tree:
    """Parse the text of one expression (a template hole). Lark errors propagate to the caller."""
    return parser().parse(text, start="expr")


# ---------------------------------------------------------------------------------- fast path


class NoFastParse(Exception):
    """The fast parser met text it does not accept; Lark's own parser reports the error."""


class FastToken(str):
    """A token of the fast parser: a string with the position attributes of a Lark `Token`."""

    __slots__ = ("type", "line", "column", "end_line", "end_column")


# Reduction kinds of the fast parser (see `FastParser`).
_UNIT, _PASS, _LIST, _CALL = range(4)


class FastParser:
    """Lex and parse with the tables of `parser()`, calling a builder at each reduction.

    Lark's own LALR parser builds a tree of the whole file (or calls a transformer) through several
    layers of callbacks per reduction and per token; this driver does the same work in one loop,
    with the same parse table and the same per-state (contextual) lexer terminals, and hands each
    rule's children straight to the method of `builder_class` named after the rule (or its alias):
    `method(builder, position, children)`. `position` is `(line, column, end_line, end_column)`
    from the first to the last token the rule matched (keywords and punctuation included), or None
    for a rule that matched nothing, exactly as `_Positions` sets a tree node's meta. `children`
    are what Lark would put in the tree: named tokens (as `FastToken`), builder results and
    `maybe_placeholders` Nones; `?rule`s with one child pass it through and `__star` helper rules
    are spliced into their parent.

    Errors are not this class's business: on any text Lark would reject it raises `NoFastParse`
    and the caller parses again with Lark, which reports the error with all its details. The
    lexer skips ignored terminals (whitespace, comments) with one regular expression in front of
    each state's terminals, which needs no other terminal to match where an ignored one starts;
    `__init__` checks that, and everything else it relies on, and raises if the grammar breaks it
    (then `fast_parser` gives None and everything goes through Lark).
    """

    def __init__(self, lark: Lark, builder_class: type) -> None:
        frontend = lark.parser
        table = frontend.parser._parse_table
        lexer = frontend.lexer
        conf = lark.lexer_conf
        if lark.options.postlex is not None or conf.callbacks or conf.g_regex_flags:
            raise ValueError("the fast parser needs a plain contextual lexer")
        terminals = {t.name: t for t in conf.terminals}
        ignore = sorted(conf.ignore)
        skip = "(?:{})*".format("|".join(terminals[n].pattern.to_regexp() for n in ignore))
        self._check_ignored(terminals, set(ignore))
        self.skip = re.compile(skip).match
        # "(?=(X))\1" matches X atomically (never backtracks into skipped text), also before 3.11.
        prefix = "(?=(" + skip + "))\\1"

        by_lexer: dict[int, tuple[Any, dict[str, dict[str, str]] | None]] = {}
        self.lexers: dict[int, tuple[Any, dict[str, dict[str, str]] | None]] = {}
        for state in table.states:
            basic = lexer.lexers[state]
            if id(basic) not in by_lexer:
                scanner = basic.scanner  # built on first use; sets basic.callback too
                alternatives = "|".join(
                    f"(?P<{t.name}>{t.pattern.to_regexp()})"
                    for t in scanner.terminals
                    if t.name not in conf.ignore
                )
                unless: dict[str, dict[str, str]] = {}
                for name, callback in basic.callback.items():
                    if not isinstance(callback, UnlessCallback) or name in conf.ignore:
                        raise ValueError(f"unexpected lexer callback for {name}")
                    words = callback.scanner.terminals  # keywords that NAME also matches
                    if any(type(w.pattern) is not PatternStr or w.pattern.flags for w in words):
                        raise ValueError(f"unexpected keyword terminals for {name}")
                    unless[name] = {w.pattern.value: w.name for w in words}
                match = re.compile(prefix + "(?:" + alternatives + ")").match
                by_lexer[id(basic)] = (match, unless or None)
            self.lexers[state] = by_lexer[id(basic)]

        kept: set[str] = set()
        reductions: dict[Any, tuple[Any, ...]] = {}
        self.actions: dict[int, dict[str, Any]] = {}
        self.gotos: dict[int, dict[str, int]] = {}
        for state, row in table.states.items():
            actions: dict[str, Any] = {}
            gotos: dict[str, int] = {}
            for symbol, (action, arg) in row.items():
                if action is Shift:
                    if symbol == "$END":  # never in an LALR table of Lark; Lark would handle it
                        continue
                    (actions if symbol.isupper() else gotos)[symbol] = arg
                else:
                    if arg not in reductions:
                        reductions[arg] = self._reduction(arg, builder_class, kept)
                    actions[symbol] = reductions[arg]
            self.actions[state] = actions
            self.gotos[state] = gotos
        self.kept = frozenset(kept)
        self.start_states = dict(table.start_states)
        self.end_states = dict(table.end_states)
        self.jumps = self._jumps(set(self.end_states.values()))

    def _jumps(self, end_states: set[int]) -> dict[int, dict[str, dict[str, int]]]:
        """Return, for each goto (state, rule) and lookahead, the state after all unit reductions.

        A unit reduction (`?expr: or_expr`, ten levels of them above each atom) only replaces the
        state on top of the stack by a goto from the state below, which stays the same all along
        the chain: so where the chain ends depends on that state, the rule and the lookahead only,
        and the driver jumps there in one step. A chain stops at an end state on end of input,
        where Lark returns.
        """
        jumps: dict[int, dict[str, dict[str, int]]] = {}
        for below, gotos in self.gotos.items():
            by_rule: dict[str, dict[str, int]] = {}
            for origin in gotos:
                targets: dict[str, int] = {}
                for kind in self.actions[gotos[origin]]:
                    state = gotos[origin]
                    action = self.actions[state][kind]
                    while action.__class__ is not int and action[0] is _UNIT:
                        if kind == "$END" and state in end_states:
                            break
                        state = gotos[action[2]]
                        action = self.actions[state].get(kind)
                        if action is None:
                            break
                    targets[kind] = state
                if gotos[origin] in end_states:  # where Lark returns the result at end of input
                    targets.setdefault("$END", gotos[origin])
                by_rule[origin] = targets
            jumps[below] = by_rule
        return jumps

    @staticmethod
    def _check_ignored(terminals: dict[str, Any], ignore: set[str]) -> None:
        """Fail if a kept terminal matches where an ignored one (space, '#') starts (sampled)."""
        ignored = [re.compile(terminals[n].pattern.to_regexp()) for n in ignore]
        starts = [chr(c) for c in range(128) if any(r.match(chr(c) + "a") for r in ignored)]
        for name, t in terminals.items():
            if name in ignore:
                continue
            pattern = re.compile(t.pattern.to_regexp())
            for c in starts:
                for tail in ("a", "1", "{a}", '"', " ", "\n", ""):
                    if pattern.match(c + tail):
                        raise ValueError(f"terminal {name} can start like an ignored terminal")

    @staticmethod
    def _reduction(rule: Any, builder_class: type, kept: set[str]) -> tuple[Any, ...]:
        """Return (kind, size, origin, function, index) for reducing `rule` (see `parse`).

        The children are chosen as Lark's `ChildFilterLALR` does: the same `to_include` plan from
        `maybe_create_child_filter`, compiled to one small function per rule.
        """
        options = rule.options
        if options.keep_all_tokens:
            raise ValueError("keep_all_tokens is not supported")
        expansion = rule.expansion
        size = len(expansion)
        origin = rule.origin.name
        plan = parse_tree_builder.maybe_create_child_filter(
            expansion, False, False, options.empty_indices
        )
        if plan is None:
            include = [(i, False, 0) for i in range(size)]
            trailing = 0
        elif plan.func is parse_tree_builder.ChildFilterLALR_NoPlaceholders:
            include = [(i, expand, 0) for i, expand in plan.args[0]]
            trailing = 0
        elif plan.func is parse_tree_builder.ChildFilterLALR:
            include, trailing = plan.args
        else:  # pragma: no cover - lark builds one of the two for LALR
            raise ValueError(f"unexpected child filter {plan.func}")
        for i, _expand, _nones in include:
            if expansion[i].is_term:
                kept.add(expansion[i].name)
        spliced = any(expand for _i, expand, _n in include)
        count = len(include) + sum(n for _i, _e, n in include) + trailing
        if options.expand1 and not rule.alias and count == 1 and not spliced:
            ((index, _e, _n),) = include
            return (_UNIT if size == 1 else _PASS, size, origin, None, index)
        if options.expand1 and not rule.alias and count == 1:
            raise ValueError(f"unsupported ?rule {rule}")
        select = None
        if plan is not None:
            lines = ["def select(v):"]
            first = True
            for i, expand, nones in include:
                if nones:
                    lines.append(f"    c {'=' if first else '+='} [None] * {nones}")
                    first = False
                if expand:  # a spliced helper's list is reused, as Lark does for left recursion
                    lines.append(f"    c = v[{i}]" if first else f"    c += v[{i}]")
                else:
                    lines.append(f"    c = [v[{i}]]" if first else f"    c.append(v[{i}])")
                first = False
            if first:
                lines.append("    c = []")
            if trailing:
                lines.append(f"    c += [None] * {trailing}")
            lines.append("    return c")
            namespace: dict[str, Any] = {}
            exec("\n".join(lines), namespace)  # noqa: S102 - code built from the grammar above
            select = namespace["select"]
        if origin.startswith("_"):
            return (_LIST, size, origin, select, None)
        name = rule.alias or options.template_source or origin
        function = getattr(builder_class, name, None)
        if not callable(function):
            raise ValueError(f"{builder_class.__name__} has no method {name}")
        return (_CALL, size, origin, function, select)

    def parse(self, text: str, start: str, builder: Any) -> Any:
        """Parse `text` from rule `start`, building with `builder`; raise NoFastParse on errors."""
        lexers = self.lexers
        actions = self.actions
        gotos = self.gotos
        jumps = self.jumps
        kept = self.kept
        state = self.start_states[start]
        end_state = self.end_states[start]
        states = [state]
        values: list[Any] = []
        positions: list[Any] = []
        pos = 0
        line = 1
        line_start = 0  # index of the first character of `line`
        size_text = len(text)
        while True:
            match, unless = lexers[state]
            found = match(text, pos)
            if found is None:
                if self.skip(text, pos).end() != size_text:
                    raise NoFastParse(pos)
                kind = "$END"
                value = None
                at = None
            else:
                kind = found.lastgroup
                value = found[kind]
                end = found.end()
                begin = end - len(value)
                if begin != pos:
                    newlines = text.count("\n", pos, begin)
                    if newlines:
                        line += newlines
                        line_start = text.rfind("\n", pos, begin) + 1
                pos = end
                if unless is not None and kind in unless:
                    kind = unless[kind].get(value, kind)
                column = begin - line_start + 1
                if "\n" in value:
                    first_line = line
                    line += value.count("\n")
                    line_start = begin + value.rindex("\n") + 1
                    at = (first_line, column, line, end - line_start + 1)
                else:
                    at = (line, column, line, end - line_start + 1)
                if kind in kept:
                    token = FastToken(value)
                    token.type = kind
                    token.line, token.column, token.end_line, token.end_column = at
                    value = token
            row = actions[state]
            while True:
                action = row.get(kind)
                if action is None:
                    raise NoFastParse(pos)
                if action.__class__ is int:  # shift
                    state = action
                    states.append(state)
                    values.append(value)
                    positions.append(at)
                    break
                reduce, size, origin, function, extra = action
                if reduce is _UNIT:
                    state = gotos[states[-2]][origin]
                    states[-1] = state
                else:
                    if size:
                        children = values[-size:]
                        spots = positions[-size:]
                        del values[-size:], positions[-size:], states[-size:]
                        first = spots[0]
                        if first is None:
                            first = next((p for p in spots if p is not None), None)
                        last = spots[-1]
                        if last is None:
                            last = next((p for p in reversed(spots) if p is not None), None)
                        if first is last:
                            spot = first
                        elif first is None:
                            spot = None
                        else:
                            spot = (first[0], first[1], last[2], last[3])
                    else:
                        children = []
                        spot = None
                    if reduce is _CALL:
                        if extra is not None:  # choose the children, as ChildFilterLALR
                            children = extra(children)
                        result = function(builder, spot, children)
                    elif reduce is _LIST:
                        result = function(children) if function is not None else children
                    else:  # _PASS: `?rule` with one child among punctuation, like "(" expr ")"
                        result = children[extra]
                        if spots[extra] is not None:
                            spot = spots[extra]
                    state = jumps[states[-1]][origin].get(kind)
                    if state is None:
                        raise NoFastParse(pos)
                    states.append(state)
                    values.append(result)
                    positions.append(spot)
                if kind == "$END" and state == end_state:
                    return values[-1]
                row = actions[state]


@functools.lru_cache(maxsize=8)
def fast_parser(builder_class: type) -> FastParser | None:
    """Return the fast parser for `builder_class`, or None if the grammar needs Lark's own."""
    try:
        return FastParser(parser(), builder_class)
    except (ValueError, AttributeError, KeyError, re.error):  # pragma: no cover - grammar guard
        return None
