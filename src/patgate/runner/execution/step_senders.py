"""The executors of the step kinds: how the runner sends each kind of step.

Each is bound to its entry of :data:`~patgate.scenario.step_kinds.STEP_KINDS` with
``@STEP_KINDS.executes`` and called as ``executor(execution, request, sending)``: the
scenario's state, the typed request, and what every kind shares (the lookup of
``${name}`` values, the headers built from ``bearer``, ``basic`` and ``headers``, whether
the step is a cleanup step). Every create and delete of a token goes through the run's
custodian.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from patgate.errors import PatgateError, WriteRefused
from patgate.runner.connection.answers import describe
from patgate.runner.execution.control_performer import perform_control
from patgate.runner.model import Observed, StepResult, WaitResult
from patgate.scenario.expressions import ExpressionError, evaluate, substitute
from patgate.scenario.model import GraphqlCall, HttpCall, HubsCall, TokenCall, WaitCall
from patgate.scenario.step_kinds import STEP_KINDS
from patgate.scenario.writes import graphql_writes, method_writes

if TYPE_CHECKING:
    from patgate.runner.connection.documents import Documents
    from patgate.runner.execution.executing import Executing

__all__ = ["MAX_WAIT_SECONDS", "Sending", "StepExecutor", "WaitTooLong", "send_step"]

Lookup = Callable[[str], Any]

MAX_WAIT_SECONDS = 100 * 366 * 86400
"""The longest wait a step may ask for (a hundred years): a value captured from an answer
beyond it, NaN or infinity, fails the step instead of moving a clock past its range."""


@dataclass(frozen=True)
class Sending:
    """What every step kind's executor gets besides its request."""

    lookup: Lookup
    headers: dict[str, str]
    bearer: Any
    basic: tuple[str, str] | None
    cleanup: bool


StepExecutor = Callable[["Executing", Any, Sending], StepResult | None]
"""``(execution, request, sending) -> result``; ``None``: nothing was sent (a cleanup
delete of what is already gone)."""


class WaitTooLong(PatgateError):
    """A live run would have to wait longer than ``--max-wait``: the scenario is skipped."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def send_step(execution: Executing, kind: str, request: Any, sending: Sending) -> StepResult | None:
    """Run the executor of ``kind``."""
    executor: StepExecutor = STEP_KINDS.executor(kind)
    return executor(execution, request, sending)


@STEP_KINDS.executes("token")
def _token(execution: Executing, request: TokenCall, sending: Sending) -> Observed:
    url = f"{sending.lookup('auth_url')}/oauth/token"
    form = substitute(dict(request.form), sending.lookup)
    return execution.context.exchange.send(
        "POST",
        url,
        kind="token",
        headers=sending.headers,
        form=form,
        basic=sending.basic,
    )


@STEP_KINDS.executes("hubs")
def _hubs(execution: Executing, request: HubsCall, sending: Sending) -> Observed:
    url = f"{sending.lookup('base_url')}/v2/content/hubs"
    params = substitute(dict(request.params), sending.lookup)
    return execution.context.exchange.send(
        "GET", url, kind="hubs", headers=sending.headers, params=params
    )


def refuse_write(execution: Executing, method: str, url: str, document: str | None = None) -> None:
    """Raise :class:`WriteRefused` when the request, as it will be sent, writes and this run
    may not: on a live target, a GraphQL mutation or any method but GET, HEAD and OPTIONS
    is refused, except a POST to the token endpoint under ``--allow-writes``."""
    context = execution.context
    if not context.target.live:
        return
    if document is not None:
        writes, what = graphql_writes(document), "a GraphQL mutation"
    else:
        writes, what = method_writes(method), f"an HTTP {method}"
    if not writes:
        return
    token_endpoint = f"{context.config.text('auth_url') or ''}/oauth/token"
    if document is None and method == "POST" and url.split("?")[0] == token_endpoint:
        if context.options.allow_writes:
            return
        raise WriteRefused(f"refused to send {what}: a read-only run (no --allow-writes)")
    raise WriteRefused(
        f"refused to send {what} to a live target: the ledger cannot track what it writes"
    )


@STEP_KINDS.executes("http")
def _http(execution: Executing, request: HttpCall, sending: Sending) -> Observed:
    lookup = sending.lookup
    url = str(substitute(request.url, lookup))
    refuse_write(execution, request.method, url)
    return execution.context.exchange.send(
        request.method,
        url,
        kind="http",
        headers=sending.headers,
        content=substitute(request.body, lookup) if request.body is not None else None,
        json=substitute(request.json, lookup) if request.json is not None else None,
        form=substitute(dict(request.form), lookup) if request.form is not None else None,
        basic=sending.basic,
    )


@STEP_KINDS.executes("graphql")
def _graphql(execution: Executing, request: GraphqlCall, sending: Sending) -> Observed | None:
    lookup = sending.lookup
    context = execution.context
    url = str(lookup("graphql_url"))
    exchange = context.exchange
    headers = sending.headers
    if request.operation is None:
        return _own_document(execution, request, sending, url)
    context.discover()
    args = substitute(dict(request.args), lookup)

    def send(query: str, variables: Mapping[str, Any] | None, repeat: bool) -> Observed:
        payload = {"query": query, **({"variables": dict(variables)} if variables else {})}
        return exchange.send(
            "POST", url, kind="graphql", headers=headers, json=payload, repeat=repeat
        )

    if request.operation == "create_token":
        return _create_token(execution, args, sending, send)
    if request.operation == "delete_token":
        return _delete_token(execution, args, sending, send)
    if request.operation == "organizations":
        return _organizations(context.documents, send)
    query, variables = context.documents.operation(request.operation, args)
    return send(query, variables, True)


_Send = Callable[[str, Mapping[str, Any] | None, bool], Observed]
"""Send a GraphQL document and its variables (``True``: it may be resent)."""


def _own_document(
    execution: Executing, request: GraphqlCall, sending: Sending, url: str
) -> Observed:
    """A scenario's own query, sent as written (refused first if it could write)."""
    lookup = sending.lookup
    payload: dict[str, Any] = {"query": substitute(request.query, lookup)}
    refuse_write(execution, "POST", url, str(payload["query"]))
    if request.variables:
        payload["variables"] = substitute(dict(request.variables), lookup)
    if request.operation_name:
        payload["operationName"] = request.operation_name
    return execution.context.exchange.send(
        "POST", url, kind="graphql", headers=sending.headers, json=payload
    )


def _create_token(
    execution: Executing, args: dict[str, Any], sending: Sending, send: _Send
) -> Observed | None:
    """A create, through the custodian (never resent on its own: it lists first)."""
    context = execution.context
    if "organization_id" not in args:
        args["organization_id"] = sending.lookup("organization_id")
    name: Any = args.get("name")
    query, variables = context.documents.create_token(name, args["organization_id"])
    if isinstance(name, str):
        execution.names.append(name)
    bearer = sending.bearer
    text = bearer if isinstance(bearer, str) else None
    return context.custodian.create(
        name,
        lambda: send(query, variables, False),
        bearer=text,
        bearer_key=context.config.key_holding(text),
    )


def _delete_token(
    execution: Executing, args: dict[str, Any], sending: Sending, send: _Send
) -> Observed | None:
    """A delete through the custodian, or of an id this run made up (no one's token)."""
    context = execution.context
    documents = context.documents
    token_id = args.get("id")
    if context.is_missing_id(token_id):
        # Made up by this run, so no one's token: the one delete the ledger allows.
        query, variables = documents.delete_token(token_id)
        observed = send(query, variables, True)
        if documents.learn_delete_from(observed, token_id, query):
            query, variables = documents.delete_token(token_id)
            observed = send(query, variables, True)
        return observed
    return context.custodian.delete(
        str(token_id),
        lambda query, variables: send(query, variables, True),
        cleanup=sending.cleanup,
    )


def _organizations(documents: Documents, send: _Send) -> Observed:
    """The viewer's organizations. Their shape is not documented: without introspection,
    each known shape in turn until one is not rejected as a document."""
    for shape in documents.organization_shapes():
        query, variables = documents.organizations(shape)
        observed = send(query, variables, True)
        if not documents.learn_organizations_from(observed, shape):
            break
    return observed


@STEP_KINDS.executes("control")
def _control(execution: Executing, request: Any, sending: Sending) -> StepResult:
    return perform_control(execution, request.action, request.argument, sending.lookup)


@STEP_KINDS.executes("wait")
def _wait(execution: Executing, request: WaitCall, sending: Sending) -> WaitResult:
    seconds = evaluate(request.seconds, sending.lookup)
    if (
        not isinstance(seconds, (int, float))
        or isinstance(seconds, bool)
        or not 0 <= seconds <= MAX_WAIT_SECONDS
    ):
        # A value captured from an answer may be anything: a huge number, NaN, infinity.
        shown = describe(seconds)
        raise ExpressionError(
            f"wait: {request.seconds!r} is {shown}, not a number of seconds from 0 to "
            f"{MAX_WAIT_SECONDS}"
        )
    context = execution.context
    control = context.target.control
    if control is not None:
        control.advance_clock(seconds)
    elif seconds <= context.options.max_wait:
        context.pause(seconds)
    else:
        raise WaitTooLong(
            f"needs to wait {seconds} s, more than --max-wait {context.options.max_wait:g}"
        )
    return WaitResult(seconds)
