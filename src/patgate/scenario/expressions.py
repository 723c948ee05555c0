"""``${name}`` templates and the small arithmetic of ``repeat``, ``wait`` and ``assume``.

A template is a string with ``${name}`` references; when the whole string is one reference,
the value keeps its type (a captured count stays an integer). ``$${`` writes a literal ``${``.

An expression is Python-like arithmetic and comparison over names and literals, for
instance ``5 - held`` or ``is_pat(admin_token)``. It is parsed with :mod:`ast` and walked by
a tiny evaluator that knows only the nodes listed here: no attributes, no subscripts, no
calls except the functions in :data:`FUNCTIONS`.

What an expression builds is bounded: a string, list or tuple made by ``*`` (repetition) or
``+`` (concatenation) holds at most :data:`MAX_BUILT` characters or items, checked before it
is built, and ``%`` does not format strings. A scenario file cannot make the runner allocate
more than that, whatever it multiplies.
"""

from __future__ import annotations

import ast
import functools
import operator
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from patgate.basics.token_grammar import is_documented_pat
from patgate.errors import PatgateError

__all__ = [
    "FUNCTIONS",
    "MAX_BUILT",
    "ExpressionError",
    "evaluate",
    "expression_names",
    "substitute",
    "template_names",
]

_REFERENCE = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_WHOLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class ExpressionError(PatgateError, ValueError):
    """An expression or template that cannot be parsed or evaluated."""


def template_names(value: Any) -> Iterator[str]:
    """Every ``${name}`` referred to inside ``value`` (strings, lists and mappings)."""
    if isinstance(value, str):
        for match in _REFERENCE.finditer(value):
            if match.group(1):
                yield match.group(1)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from template_names(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from template_names(item)


def substitute(value: Any, lookup: Callable[[str], Any]) -> Any:
    """``value`` with every ``${name}`` replaced by ``lookup(name)``, recursively."""
    if isinstance(value, str):
        whole = _WHOLE.fullmatch(value)
        if whole:
            return lookup(whole.group(1))

        def replace(match: re.Match[str]) -> str:
            if match.group(1) is None:
                return "${"
            found = lookup(match.group(1))
            return "" if found is None else str(found)

        return _REFERENCE.sub(replace, value)
    if isinstance(value, Mapping):
        return {key: substitute(item, lookup) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [substitute(item, lookup) for item in value]
    return value


FUNCTIONS: Mapping[str, Callable[..., Any]] = {
    "min": min,
    "max": max,
    "len": len,
    "int": int,
    # The documented shape (prefix, segment, dot, segment), whatever the alphabet.
    "is_pat": is_documented_pat,
    "startswith": lambda text, start: (
        isinstance(text, str) and isinstance(start, str) and text.startswith(start)
    ),
}
"""The functions an expression may call."""

_BINARY: Mapping[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
MAX_BUILT = 100_000
"""The most characters or items a string, list or tuple built by an expression may hold."""

_SEQUENCES = (str, bytes, list, tuple)


def _binary(op: ast.operator, left: Any, right: Any, text: str) -> Any:
    """``left op right``, refusing what would build a sequence longer than MAX_BUILT."""
    size: int | None = None
    if isinstance(op, ast.Mult):
        if isinstance(left, _SEQUENCES) and isinstance(right, int):
            size = len(left) * max(right, 0)
        elif isinstance(right, _SEQUENCES) and isinstance(left, int):
            size = len(right) * max(left, 0)
    elif isinstance(op, ast.Add) and isinstance(left, _SEQUENCES) and isinstance(right, _SEQUENCES):
        size = len(left) + len(right)
    elif isinstance(op, ast.Mod) and isinstance(left, (str, bytes)):
        raise ExpressionError(f"{text!r}: % does not format strings in an expression")
    if size is not None and size > MAX_BUILT:
        kind = type(left if isinstance(left, _SEQUENCES) else right).__name__
        raise ExpressionError(
            f"{text!r} would build a {kind} of {size} items, "
            f"over the limit of {MAX_BUILT} (MAX_BUILT)"
        )
    return _BINARY[type(op)](left, right)


_COMPARE: Mapping[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


@functools.lru_cache(maxsize=256)
def _parse(text: str) -> ast.expr:
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        raise ExpressionError(f"cannot read the expression {text!r}: {error.msg}") from None
    for node in ast.walk(tree.body):
        _allowed(node, text)
    return tree.body


def _allowed(node: ast.AST, text: str) -> None:
    allowed = (
        ast.Constant,
        ast.Name,
        ast.Load,
        ast.BinOp,
        ast.UnaryOp,
        ast.USub,
        ast.Not,
        ast.BoolOp,
        ast.And,
        ast.Or,
        ast.Compare,
        ast.Call,
        *_BINARY,
        *_COMPARE,
    )
    if not isinstance(node, allowed):
        raise ExpressionError(
            f"{text!r} uses {type(node).__name__}, which expressions do not allow"
        )
    if isinstance(node, ast.Call) and not (
        isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS and not node.keywords
    ):
        raise ExpressionError(f"{text!r} calls something other than {', '.join(sorted(FUNCTIONS))}")


def expression_names(text: str | int) -> set[str]:
    """The names an expression reads (function names excluded). Checks that it parses."""
    if isinstance(text, int):
        return set()
    tree = _parse(text)
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)}  # type: ignore[attr-defined]
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return names - (called & set(FUNCTIONS))


def evaluate(text: str | int, lookup: Callable[[str], Any]) -> Any:
    """The value of the expression ``text``, reading names through ``lookup``."""
    if isinstance(text, int):
        return text
    try:
        return _evaluate(_parse(text), lookup, text)
    except ExpressionError:
        raise
    except (TypeError, ValueError, ZeroDivisionError) as error:
        raise ExpressionError(f"cannot evaluate {text!r}: {error}") from None


def _evaluate(node: ast.expr, lookup: Callable[[str], Any], text: str) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return lookup(node.id)
    if isinstance(node, ast.BinOp):
        left = _evaluate(node.left, lookup, text)
        return _binary(node.op, left, _evaluate(node.right, lookup, text), text)
    if isinstance(node, ast.UnaryOp):
        operand = _evaluate(node.operand, lookup, text)
        return -operand if isinstance(node.op, ast.USub) else not operand
    if isinstance(node, ast.BoolOp):
        values = (_evaluate(value, lookup, text) for value in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare):
        left = _evaluate(node.left, lookup, text)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _evaluate(right_node, lookup, text)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        return FUNCTIONS[node.func.id](*(_evaluate(arg, lookup, text) for arg in node.args))
    raise ExpressionError(f"unexpected {type(node).__name__}")  # pragma: no cover - _allowed
