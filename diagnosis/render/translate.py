"""Translate a reply template into a plain Python module (made and cached by `templating.translated`).

Jinja2 parses the template (so whitespace control and syntax are exactly Jinja2's); this module
walks the tree and writes one function, `render(context) -> str`, calling `diagnosis.render.runtime`
for the meaning of each expression. Only the constructs our templates use are supported; anything
else raises `Unsupported`, so a template that needs more keeps being rendered by Jinja2 itself
rather than by a guess. Scoping follows Jinja2's: an `if` shares its scope, each pass through a
`for` body and each macro call gets a new one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jinja2 import Environment, nodes

from diagnosis.render.runtime import SELECT_TESTS

# Names Jinja2 provides to every template; the translation does not, so templates must not use them.
_JINJA_GLOBALS = frozenset({"range", "dict", "lipsum", "cycler", "joiner", "namespace"})
_COMPARE = {
    "eq": "==",
    "ne": "!=",
    "gt": ">",
    "gteq": ">=",
    "lt": "<",
    "lteq": "<=",
    "in": "in",
    "notin": "not in",
}
_BINARY = {"Add": "+", "Sub": "-", "Mul": "*", "Mod": "%"}
_FILTERS = {"join": "f_join", "length": "f_length", "count": "f_length", "list": "f_list"}
_LOOP_ATTRS = frozenset({"first", "last", "index", "index0", "length"})
_RUNTIME = ("UNDEFINED", "Loop", "Scope", "attr", "call", "concat", "item", "macro")
_RUNTIME_FILTERS = ("f_join", "f_length", "f_list", "f_selectattr")


class Unsupported(Exception):
    """The template uses a construct the translation does not cover."""


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.counter = 0

    def line(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"


def translate(env: Environment, source: str, name: str) -> str:
    """The Python source of a module whose `render(context)` returns what Jinja2's render would."""
    tree = env.parse(source, name)
    _check_names(tree)
    out = _Writer()
    out.line(0, f"from diagnosis.render.runtime import {', '.join(_RUNTIME)}")
    out.line(0, f"from diagnosis.render.runtime import {', '.join(_RUNTIME_FILTERS)}")
    out.line(0, "")
    out.line(0, "")
    out.line(0, "def render(context):")
    out.line(1, "s0 = Scope(context)")
    out.line(1, "out = []")
    out.line(1, "w = out.append")
    _body(out, tree.body, 1, "s0")
    out.line(1, 'return "".join(out)')
    return "\n".join(out.lines) + "\n"


def module_text(env: Environment, name: str, source: str) -> str:
    """The translation as a module that also holds the template's text (compared before it is used)."""
    return (
        translate(env, source, name)
        + f"\n\nSOURCE = {source!r}\n"
        + f"\n# Made by oomcheck from its template {name}: a cache, safe to delete.\n"
    )


def _check_names(tree: nodes.Template) -> None:
    for node in tree.find_all(nodes.Name):
        if node.ctx == "load" and node.name in _JINJA_GLOBALS:
            raise Unsupported(f"the Jinja2 global {node.name!r}")
    for macro in tree.find_all(nodes.Macro):
        for node in macro.find_all(nodes.Name):
            if node.name in ("varargs", "kwargs", "caller"):
                raise Unsupported(f"the macro variable {node.name!r}")
        if macro.defaults:
            raise Unsupported("macro parameters with defaults")


def _body(out: _Writer, body: list[nodes.Node], depth: int, scope: str) -> None:
    if not body:
        out.line(depth, "pass")
    for node in body:
        _statement(out, node, depth, scope)


def _statement(out: _Writer, node: nodes.Node, depth: int, scope: str) -> None:
    if isinstance(node, nodes.Output):
        for child in node.nodes:
            if isinstance(child, nodes.TemplateData):
                if child.data:
                    out.line(depth, f"w({child.data!r})")
            else:
                out.line(depth, f"w(str({_expr(child, scope)}))")
    elif isinstance(node, nodes.Assign):
        out.line(depth, f"{_target(node.target, scope)} = {_expr(node.node, scope)}")
    elif isinstance(node, nodes.If):
        _if(out, node, depth, scope)
    elif isinstance(node, nodes.For):
        _for(out, node, depth, scope)
    elif isinstance(node, nodes.Macro):
        _macro(out, node, depth, scope)
    else:
        raise Unsupported(type(node).__name__)


def _if(out: _Writer, node: nodes.If, depth: int, scope: str) -> None:
    out.line(depth, f"if {_expr(node.test, scope)}:")
    _body(out, node.body, depth + 1, scope)
    for branch in node.elif_:
        out.line(depth, f"elif {_expr(branch.test, scope)}:")
        _body(out, branch.body, depth + 1, scope)
    if node.else_:
        out.line(depth, "else:")
        _body(out, node.else_, depth + 1, scope)


def _uses_loop(node: nodes.For) -> bool:
    """Whether the body reads `loop` (of this for, not of a nested one); only plain attributes allowed."""
    found = False
    for child in _walk_same_loop(node.body):
        if isinstance(child, nodes.Getattr) and isinstance(child.node, nodes.Name):
            if child.node.name == "loop":
                if child.attr not in _LOOP_ATTRS:
                    raise Unsupported(f"loop.{child.attr}")
                found = True
        elif isinstance(child, nodes.Name) and child.name == "loop" and not _inside_getattr(child, node):
            raise Unsupported("`loop` other than loop.<attribute>")
    return found


def _walk_same_loop(body: list[nodes.Node]) -> Iterator[nodes.Node]:
    for node in body:
        yield node
        if isinstance(node, nodes.For):
            yield from _walk_same_loop([node.iter])  # a nested loop's own `loop` is its own
            continue
        yield from _walk_same_loop(list(node.iter_child_nodes()))


def _inside_getattr(name: nodes.Name, root: nodes.For) -> bool:
    return any(
        isinstance(g, nodes.Getattr) and g.node is name and g.attr in _LOOP_ATTRS
        for g in root.find_all(nodes.Getattr)
    )


def _for(out: _Writer, node: nodes.For, depth: int, scope: str) -> None:
    if node.test is not None or node.recursive:
        raise Unsupported("for with a filter or recursive")
    inner = out.fresh("s")
    values = out.fresh("values")
    index = out.fresh("i")
    value = out.fresh("v")
    uses_loop = _uses_loop(node)
    iterable = _expr(node.iter, scope)
    out.line(depth, f"{values} = list({iterable})" if uses_loop else f"{values} = {iterable}")
    ran = None
    if node.else_:
        ran = out.fresh("ran")
        out.line(depth, f"{ran} = False")
    out.line(depth, f"for {index}, {value} in enumerate({values}):")
    out.line(depth + 1, f"{inner} = Scope({scope})")
    out.line(depth + 1, f"{_target(node.target, inner)} = {value}")
    if uses_loop:
        out.line(depth + 1, f'{inner}.vars["loop"] = Loop({index}, len({values}))')
    if ran is not None:
        out.line(depth + 1, f"{ran} = True")
    _body(out, node.body, depth + 1, inner)
    if ran is not None:
        out.line(depth, f"if not {ran}:")
        _body(out, node.else_, depth + 1, scope)


def _macro(out: _Writer, node: nodes.Macro, depth: int, scope: str) -> None:
    body = out.fresh("macro_")
    inner = out.fresh("s")
    params = tuple(arg.name for arg in node.args)
    out.line(depth, f"def {body}({inner}):")
    out.line(depth + 1, "out = []")
    out.line(depth + 1, "w = out.append")
    _body(out, node.body, depth + 1, inner)
    out.line(depth + 1, 'return "".join(out)')
    out.line(depth, f"{scope}.vars[{node.name!r}] = macro({body}, {scope}, {params!r})")


def _target(node: nodes.Node, scope: str) -> str:
    if isinstance(node, nodes.Name):
        return f"{scope}.vars[{node.name!r}]"
    if isinstance(node, nodes.Tuple):
        return "(" + "".join(_target(item, scope) + ", " for item in node.items) + ")"
    raise Unsupported(f"assignment to {type(node).__name__}")


def _expr(node: nodes.Node, scope: str) -> str:
    def e(child: nodes.Node) -> str:
        return _expr(child, scope)

    if isinstance(node, nodes.Const):
        return repr(node.value)
    if isinstance(node, nodes.Name):
        return f"{scope}.get({node.name!r})"
    if isinstance(node, nodes.Getattr):
        return f"attr({e(node.node)}, {node.attr!r})"
    if isinstance(node, nodes.Getitem):
        if isinstance(node.arg, nodes.Slice):
            raise Unsupported("slices")
        return f"item({e(node.node)}, {e(node.arg)})"
    if isinstance(node, nodes.Call):
        return f"call({', '.join([e(node.node), *_arguments(node, scope)])})"
    if isinstance(node, nodes.Filter):
        return _filter(node, scope)
    if isinstance(node, nodes.Compare):
        parts = [e(node.expr)]
        for operand in node.ops:
            parts += [_COMPARE[operand.op], e(operand.expr)]
        return "(" + " ".join(parts) + ")"
    if isinstance(node, nodes.Concat):
        return "concat((" + "".join(e(child) + ", " for child in node.nodes) + "))"
    if isinstance(node, nodes.CondExpr):
        if node.expr2 is None:  # Jinja2 gives a plain (not chainable) Undefined here
            raise Unsupported("an inline if without else")
        return f"({e(node.expr1)} if {e(node.test)} else {e(node.expr2)})"
    if isinstance(node, nodes.And):
        return f"({e(node.left)} and {e(node.right)})"
    if isinstance(node, nodes.Or):
        return f"({e(node.left)} or {e(node.right)})"
    if isinstance(node, nodes.Not):
        return f"(not {e(node.node)})"
    if type(node).__name__ in _BINARY and isinstance(node, nodes.BinExpr):
        return f"({e(node.left)} {_BINARY[type(node).__name__]} {e(node.right)})"
    if isinstance(node, nodes.Neg):
        return f"(-{e(node.node)})"
    if isinstance(node, nodes.Tuple):
        return "(" + "".join(e(item) + ", " for item in node.items) + ")"
    if isinstance(node, nodes.List):
        return "[" + ", ".join(e(item) for item in node.items) + "]"
    if isinstance(node, nodes.Dict):
        return "{" + ", ".join(f"{e(pair.key)}: {e(pair.value)}" for pair in node.items) + "}"
    raise Unsupported(type(node).__name__)


def _arguments(node: nodes.Call | nodes.Filter, scope: str) -> list[str]:
    parts = [_expr(arg, scope) for arg in node.args]
    if node.dyn_args is not None:
        parts.append("*" + _expr(node.dyn_args, scope))
    parts += [f"{kw.key}={_expr(kw.value, scope)}" for kw in node.kwargs]
    if node.dyn_kwargs is not None:
        parts.append("**" + _expr(node.dyn_kwargs, scope))
    return parts


def _filter(node: nodes.Filter, scope: str) -> str:
    if node.node is None:
        raise Unsupported("filter blocks")
    if node.kwargs or node.dyn_args is not None or node.dyn_kwargs is not None:
        raise Unsupported(f"filter {node.name} with keyword or unpacked arguments")
    value = _expr(node.node, scope)
    args = [_expr(arg, scope) for arg in node.args]
    if node.name == "selectattr":
        _check_select(node)
        return f"f_selectattr({', '.join([value, *args])})"
    if node.name not in _FILTERS:
        raise Unsupported(f"filter {node.name}")
    if node.name in ("length", "count", "list") and args:
        raise Unsupported(f"filter {node.name} with arguments")
    if node.name == "join" and len(args) > 1:
        raise Unsupported("join by attribute")
    return f"{_FILTERS[node.name]}({', '.join([value, *args])})"


def _check_select(node: nodes.Filter) -> None:
    args: list[Any] = list(node.args)
    if not args or not isinstance(args[0], nodes.Const) or not isinstance(args[0].value, str):
        raise Unsupported("selectattr without a constant attribute name")
    if len(args) > 1 and not (isinstance(args[1], nodes.Const) and args[1].value in SELECT_TESTS):
        raise Unsupported("selectattr with a test other than equalto / ne")
    if len(args) > 3:
        raise Unsupported("selectattr with more than one test argument")
