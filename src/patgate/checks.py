"""The checks a scenario's expectations name: plain functions in a registry.

Each is bound to its entry of :data:`~patgate.scenario.check_kinds.CHECKS` (where the
check's schema, documentation and load-time builder are) with ``@CHECKS.executes``. Each
takes the observed response and a :class:`CheckCall` (its resolved argument and
options) and returns nothing, or raises :class:`~patgate.errors.CheckFailure` saying what
was expected and what came back. The runner adds the rule. Where the spec says only "an
error is returned", :func:`check_error` accepts any error (docs/design.md, "Gate vs advisory").
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from patgate.basics.observed import NOT_JSON, Observed
from patgate.basics.token_grammar import DEFAULT_PAT_PREFIX, documented_pat_shape
from patgate.errors import CheckFailure
from patgate.scenario.check_kinds import CHECKS
from patgate.scenario.paths import PathMissing, parse_path, resolve_path

__all__ = ["CheckCall", "CheckFunction", "delete_succeeded", "run_check"]

# ISO 8601 date and time of day in UTC, extended (2023-11-21T14:36:00.916Z) or basic
# (20231121T143600Z) format; seconds and their fraction may be left out, and UTC is written
# Z or +00:00 (+0000, +00).
_UTC_TIMESTAMP = re.compile(
    r"(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})T(?P<h>\d{2}):(?P<mi>\d{2})"
    r"(?::(?P<s>\d{2})(?:[.,](?P<f>\d+))?)?(?:Z|\+00(?::?00)?)"
    r"|(?P<by>\d{4})(?P<bmo>\d{2})(?P<bd>\d{2})T(?P<bh>\d{2})(?P<bmi>\d{2})"
    r"(?:(?P<bs>\d{2})(?:[.,](?P<bf>\d+))?)?(?:Z|\+00(?:00)?)"
)


@dataclass(frozen=True)
class CheckCall:
    """An expectation with every ``${name}`` already replaced."""

    argument: Any
    options: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""
    """The expectation as the scenario writes it, for messages (never a secret's value)."""
    pat_prefix: str = DEFAULT_PAT_PREFIX


CheckFunction = Callable[[Observed, CheckCall], None]


def _fail(message: str, expected: object, actual: object) -> CheckFailure:
    return CheckFailure(message, expected=expected, actual=actual)


# -- status and errors ------------------------------------------------------------------------


@CHECKS.executes("status")
def check_status(observed: Observed, call: CheckCall) -> None:
    """``status: 200``, ``status: 4xx`` or ``status: [400, 401]``."""
    wanted = call.argument
    if isinstance(wanted, list):
        good = observed.status in wanted
    elif isinstance(wanted, str) and re.fullmatch(r"[1-5]xx", wanted):
        good = observed.status // 100 == int(wanted[0])
    else:
        good = observed.status == int(wanted)
    if not good:
        raise _fail(f"expected status {wanted}, got {observed.status}", wanted, observed.summary())


def _graphql_refusal(observed: Observed) -> bool:
    body = observed.body
    if not isinstance(body, dict):
        return False
    errors = body.get("errors")
    if not isinstance(errors, list) or not errors:
        return False
    data = body.get("data")
    return data is None or (isinstance(data, dict) and all(v is None for v in data.values()))


@CHECKS.executes("error")
def check_error(observed: Observed, call: CheckCall) -> None:
    """ "An error is returned": an HTTP 4xx, or GraphQL ``errors`` with the field null.

    A 5xx is not accepted: a server fault is not the service applying a rule.
    """
    if 400 <= observed.status < 500:
        return
    if observed.status < 500 and _graphql_refusal(observed):
        return
    raise _fail(
        "expected an error (an HTTP 4xx, or GraphQL errors with the field null)",
        "an error",
        observed.summary(),
    )


def delete_succeeded(observed: Observed) -> bool:
    """Whether a delete answer says the token was deleted: a 2xx without GraphQL errors
    whose result is neither null nor false, nor an object whose yes/no members are all
    false (``{id, deleted: false}``): the result shape is not published."""
    body = observed.body
    if not 200 <= observed.status < 300 or not isinstance(body, dict) or body.get("errors"):
        return False
    data = body.get("data")
    if not isinstance(data, dict) or not data:
        return False
    result = next(iter(data.values()))
    if isinstance(result, dict):
        flags = [value for value in result.values() if isinstance(value, bool)]
        return not flags or any(flags)
    return result is not None and result is not False


@CHECKS.executes("deleted")
def check_deleted(observed: Observed, call: CheckCall) -> None:
    """``deleted: true``: the delete was done (a 2xx, no errors, a result neither null nor
    false). ``deleted: false``: it was not, in any form: an error, or a null or false
    result; never a 5xx, after which nobody knows."""
    done = delete_succeeded(observed)
    if call.argument is not False:
        if not done:
            raise _fail(
                "expected the delete to succeed (2xx, no errors, a result neither null nor false)",
                "deleted",
                observed.summary(),
            )
        return
    if done or observed.status >= 500:
        raise _fail(
            "expected the delete to be refused (an error, or a null or false result)",
            "not deleted",
            observed.summary(),
        )


@CHECKS.executes("ok")
def check_ok(observed: Observed, call: CheckCall) -> None:
    """A success: a 2xx whose body carries no GraphQL ``errors``."""
    body = observed.body
    errors = body.get("errors") if isinstance(body, dict) else None
    if 200 <= observed.status < 300 and not errors:
        return
    raise _fail("expected a success (2xx, no errors)", "a success", observed.summary())


# -- the body ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _validator_for(source: str) -> Any:
    from jsonschema import validators

    text = Path(source).read_text(encoding="utf-8") if source.endswith(".json") else source
    schema = json.loads(text)
    return validators.validator_for(schema)(schema)


@CHECKS.executes("schema")
def check_schema(observed: Observed, call: CheckCall) -> None:
    """The body (or the value at ``at``) is valid under a JSON Schema file or inline schema."""
    from jsonschema.exceptions import best_match

    source = call.argument if isinstance(call.argument, str) else json.dumps(call.argument)
    value = _body_at(observed, call.options.get("at", ""))
    error = best_match(_validator_for(source).iter_errors(value))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "(the body)"
        raise _fail(
            f"the body does not match {call.label}: at {where}: {error.message}",
            call.label,
            observed.summary(),
        )


def _body_at(observed: Observed, path: str) -> Any:
    if observed.body is NOT_JSON:
        raise _fail("expected a JSON body", "JSON", observed.summary())
    try:
        return resolve_path(observed.body, path)
    except PathMissing as missing:
        raise _fail(f"the body has nothing at {path!r}", path, observed.summary()) from missing


_TYPES: Mapping[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


def _contains(value: Any, item: Any) -> bool:
    if isinstance(value, str):
        return isinstance(item, str) and item in value
    if isinstance(value, (list, dict)):
        return item in value
    return False


def _all_contained(value: Any, wanted: Any) -> bool:
    items = wanted if isinstance(wanted, list) and not isinstance(value, str) else [wanted]
    return all(_contains(value, item) for item in items)


def _none_contained(value: Any, unwanted: Any) -> bool:
    items = unwanted if isinstance(unwanted, list) and not isinstance(value, str) else [unwanted]
    return not any(_contains(value, item) for item in items)


def _length(value: Any) -> int | None:
    return len(value) if isinstance(value, (str, list, dict)) else None


_MATCHERS: Mapping[str, Callable[[Any, Any], bool]] = {
    "equals": lambda value, wanted: value == wanted and type(value) is type(wanted),
    "not_equals": lambda value, wanted: value != wanted,
    "one_of": lambda value, wanted: value in wanted,
    "type": lambda value, wanted: _TYPES[wanted](value),
    "matches": lambda value, wanted: (
        isinstance(value, str) and re.search(wanted, value) is not None
    ),
    "length": lambda value, wanted: _length(value) == int(wanted),
    "contains": _all_contained,
    "not_contains": _none_contained,
}


@CHECKS.executes("path")
def check_path(observed: Observed, call: CheckCall) -> None:
    """Matchers on the value at a path: equals, type, matches, exists, length, contains, ..."""
    path = call.argument
    if observed.body is NOT_JSON:
        if call.options.get("exists") is False:
            return
        raise _fail("expected a JSON body", "JSON", observed.summary())
    try:
        value = resolve_path(observed.body, path)
    except PathMissing:
        if call.options.get("exists") is False:
            return
        raise _fail(
            f"the body has nothing at {path!r}", f"a value at {path}", observed.summary()
        ) from None
    if call.options.get("exists") is False:
        raise _fail(f"expected nothing at {path!r}", f"no {path}", _show(value))
    for name, wanted in call.options.items():
        matcher = _MATCHERS.get(name)
        if matcher is None:
            continue
        if (
            name == "equals"
            and isinstance(wanted, (int, float))
            and isinstance(value, (int, float))
        ):
            good = value == wanted and isinstance(value, bool) == isinstance(wanted, bool)
        else:
            good = matcher(value, wanted)
        if not good:
            raise _fail(
                f"{path}: expected {name.replace('_', ' ')} {_show(wanted)}, got {_show(value)}",
                f"{name} {_show(wanted)}",
                _show(value),
            )


@CHECKS.executes("header")
def check_header(observed: Observed, call: CheckCall) -> None:
    """A response header: exists, equals, contains (case-insensitive) or matches."""
    name = str(call.argument).lower()
    value = observed.headers.get(name)
    options = call.options
    if value is None:
        if options.get("exists") is False:
            return
        raise _fail(f"expected a {call.argument} header", f"{call.argument} present", "absent")
    if options.get("exists") is False:
        raise _fail(f"expected no {call.argument} header", f"no {call.argument}", value)
    problems = []
    if "equals" in options and value != options["equals"]:
        problems.append(f"equals {options['equals']!r}")
    if "contains" in options and str(options["contains"]).lower() not in value.lower():
        problems.append(f"contains {options['contains']!r}")
    if "matches" in options and not re.search(str(options["matches"]), value):
        problems.append(f"matches {options['matches']!r}")
    if problems:
        raise _fail(f"{call.argument}: expected it {' and '.join(problems)}", problems, value)


# -- tokens and secrets ----------------------------------------------------------------------


def _values(observed: Observed, path: str) -> list[Any]:
    value = _body_at(observed, path)
    return value if parse_path(path).many else [value]


def _mask_start(value: Any, *, hides_secret: bool = False) -> str | None:
    """The visible start of a masked token (the part before the asterisks), or ``None``.

    Spec 2.1: "only the start is returned and the rest is replaced by asterisks"; how much
    of the start is not said. ``hides_secret`` also wants it to stop before the dot that
    begins the secret segment (a convention, security D33)."""
    if not isinstance(value, str) or not value.endswith("*"):
        return None
    start = value.rstrip("*")
    if not start or "*" in start or any(ch.isspace() for ch in start):
        return None
    if hides_secret and "." in start:
        return None
    return start


def _is_mask_of(value: Any, token: str, *, hides_secret: bool = False) -> bool:
    start = _mask_start(value, hides_secret=hides_secret)
    # A start of the value, shorter than the value: never the whole of it.
    if start is None or len(start) >= len(token) or not token.startswith(start):
        return False
    return not hides_secret or "." not in token or len(start) <= token.index(".")


@CHECKS.executes("masked")
def check_masked(observed: Observed, call: CheckCall) -> None:
    """Tokens at the path are masked: a start of the value, then asterisks. With ``of``, one
    of them is the masked form of that token; with ``hides_secret``, no start reaches the
    secret segment."""
    values = _values(observed, call.argument)
    token = call.options.get("of")
    hides_secret = bool(call.options.get("hides_secret"))
    if token is None:
        bad = [value for value in values if _mask_start(value, hides_secret=hides_secret) is None]
        if bad:
            what = "stopping before the secret segment, " if hides_secret else ""
            raise _fail(
                f"{call.argument}: expected the start of each token, {what}then asterisks",
                "a start of the token, then '*'",
                _show(bad),
            )
        return
    if not isinstance(token, str) or not any(
        _is_mask_of(value, token, hides_secret=hides_secret) for value in values
    ):
        raise _fail(
            f"{call.argument}: expected the masked form of the token ({call.label}): its start,"
            " then asterisks",
            "the masked form of the token",
            _show(values),
        )


def _utc_timestamp(value: Any, *, milliseconds: bool) -> bool:
    """Whether ``value`` is an ISO 8601 UTC timestamp (with exactly 3 fraction digits when
    ``milliseconds``) naming a real instant."""
    match = _UTC_TIMESTAMP.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return False
    parts = {key.lstrip("b"): text for key, text in match.groupdict().items() if text}
    if milliseconds and len(parts.get("f", "")) != 3:
        return False
    try:
        # A leap second (:60) names a real instant too.
        datetime(
            int(parts["y"]),
            int(parts["mo"]),
            int(parts["d"]),
            int(parts["h"]),
            int(parts["mi"]),
            min(int(parts.get("s", "0")), 59),
        )
    except ValueError:
        return False
    return int(parts.get("s", "0")) <= 60


@CHECKS.executes("date")
def check_date(observed: Observed, call: CheckCall) -> None:
    """An ISO 8601 UTC timestamp (null if nullable); with ``milliseconds``, exactly three
    digits of fraction, like ``2023-11-21T14:36:00.916Z``."""
    milliseconds = bool(call.options.get("milliseconds"))
    for value in _values(observed, call.argument):
        if value is None and call.options.get("nullable"):
            continue
        if _utc_timestamp(value, milliseconds=milliseconds):
            continue
        what = "with milliseconds" if milliseconds else "timestamp"
        raise _fail(
            f"{call.argument}: expected an ISO 8601 UTC {what}, got {_show(value)}",
            "YYYY-MM-DDThh:mm:ss.sssZ" if milliseconds else "YYYY-MM-DDThh:mm[:ss[.s]]Z",
            _show(value),
        )


@CHECKS.executes("pat")
def check_pat(observed: Observed, call: CheckCall) -> None:
    """A full PAT: the prefix, a segment, a dot and a second segment (of any characters but
    a dot or white space: the documentation names no alphabet)."""
    # Spec 2.1 names no alphabet: the fake's base64url is one choice among many.
    shape = documented_pat_shape(call.pat_prefix)
    for value in _values(observed, call.argument):
        if not (isinstance(value, str) and shape.fullmatch(value)):
            raise _fail(
                f"{call.argument}: expected {call.pat_prefix}<segment>.<segment>",
                f"{call.pat_prefix}<segment>.<segment>",
                _show(value),
            )


def _forms(secret: str) -> set[str]:
    return {secret, json.dumps(secret)[1:-1], quote(secret, safe="")}


def _appears(observed: Observed, secret: str) -> bool:
    haystacks = [observed.text, *observed.headers.values()]
    return any(form in text for form in _forms(secret) for text in haystacks)


@CHECKS.executes("absent")
def check_absent(observed: Observed, call: CheckCall) -> None:
    """The secret appears nowhere in the response (body or headers), in any common encoding."""
    secret = call.argument
    if not isinstance(secret, str) or not secret:
        raise _fail(f"{call.label}: nothing to look for", "a secret value", _show(secret))
    if _appears(observed, secret):
        raise _fail(
            f"{call.label} appears in the response",
            f"{call.label} nowhere in the response",
            "found",
        )


@CHECKS.executes("present")
def check_present(observed: Observed, call: CheckCall) -> None:
    """The value appears in the response (body or headers), in any common encoding."""
    value = call.argument
    if not isinstance(value, str) or not value or not _appears(observed, value):
        raise _fail(f"{call.label}: not found in the response", call.label, observed.summary())


def _show(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, str) else repr(value)


def run_check(name: str, observed: Observed, call: CheckCall) -> None:
    """Run the check ``name``; raises :class:`CheckFailure` when it fails."""
    CHECKS.executor(name)(observed, call)
