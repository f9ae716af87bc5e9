"""The fast path of stage 1: an LALR driver over Lark's own tables that builds the model directly.

Lark's parser builds a whole parse tree through several layers of callbacks per token and per
reduction; `FastParser` runs the same parse table and per-state lexer terminals in one loop and
calls a builder at each reduction, so `scn.transform.parse` makes the syntax model with no tree in
between. It reads Lark's private structures (`_parse_table`, the contextual lexer's per-state
scanners, the child-filter plans), so `tests/test_parse_paths.py` checks that it gives exactly
the model, spans included, that Lark's parser and `scn.transform.to_model` give, on every `.scn`
file of the repository and on generated programs: a Lark upgrade that changes those structures
fails there instead of silently changing what a file means. Errors are never reported from here:
on any text it does not accept the caller parses again with Lark (`scn.parse`), whose errors are
the reference.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from lark import Lark, parse_tree_builder
from lark.lexer import PatternStr, UnlessCallback
from lark.parsers.lalr_analysis import Shift

from scn.parse import parser


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
