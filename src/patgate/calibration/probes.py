"""The probes: requests that show what a target chose where the documentation is silent.

Each probe sends a few requests through a runner session (:class:`Probing`) and records,
per profile field (a dotted path such as ``delete_result.shape``), either the value the
target showed or why it could not be seen. A probe that meets a broken documented rule
records a :class:`RuleBreak` instead: that is a gate failure for ``patgate run``, never a
value to adopt.

Read-only probes (always run): the client token's ``expires_in`` and ``token_type``; the
hubs listing's fields, links and page sizes; the unauthenticated refusal; the masked form
and date precision of the tokens the admin already holds; the delete result's shape through
introspection. Write probes (``allow_writes``): a create and delete of the probe's own
tokens (the delete result's fields, the listing order, ``lastUsedDate`` after a use), the
refusals of a sixth token, of a too-long name, of a non-admin's create and of an unknown
id. Every create goes through the session's custodian, so the ledger holds each token
before it exists and the session's close deletes whatever a probe left.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from patgate.calibration.answer_reading import CREATE as _CREATE
from patgate.calibration.answer_reading import DELETE as _DELETE
from patgate.calibration.answer_reading import VIEWER as _VIEWER
from patgate.calibration.answer_reading import at as _at
from patgate.calibration.answer_reading import bounded_search as _bounded_search
from patgate.calibration.answer_reading import describe_order as _describe_order
from patgate.calibration.answer_reading import first_error as _first_error
from patgate.calibration.answer_reading import mask as _mask
from patgate.calibration.answer_reading import offset as _offset
from patgate.calibration.answer_reading import precision as _precision
from patgate.calibration.answer_reading import record_refusal
from patgate.calibration.content_probes import probe_client_token, probe_hubs, read_rate_limit
from patgate.calibration.fields import (
    FIELDS,
    FIELDS_OF,
    NOT_PROFILE_FIELDS,
    WRITE_FIELDS,
    WRITE_PROBES,
)
from patgate.errors import RequestFailed, UnexpectedAnswer
from patgate.runner.connection.answers import TokenListing, created_token, token_listing
from patgate.runner.custody.custodian import MalformedListing
from patgate.runner.model import Observed

if TYPE_CHECKING:
    from patgate.runner.engine import ScenarioRunner

__all__ = [
    "FIELDS",
    "NOT_PROFILE_FIELDS",
    "PROBE_CONNECTIONS",
    "Finding",
    "Probe",
    "ProbeResult",
    "Probing",
    "RuleBreak",
    "probe_target",
]

_READ_FIELDS = {name: f for name, f in FIELDS_OF.items() if name not in WRITE_PROBES}
_WRITE_FIELDS_BY_PROBE = WRITE_PROBES

PROBE_CONNECTIONS = 5
"""Connections a probing session pools: the probes run in three groups side by side, and
the lifecycle's cap probe and last deletes beside its own requests."""
NEEDS_WRITES = "needs --allow-writes (it creates and deletes tokens of its own)"
"""The reason of a field only a write probe shows, on a read-only run."""

_CAP = 5
"""The documented number of tokens a user may hold."""
_LISTING_RULE = "PAT-LIST-MASKED"
"""The rule whose clause says what a listing returns for each token (id, name, ...)."""
_NAME_CEILING = 4096
"""The longest name the name probe tries."""
_USE_GAP = 1.1
"""Seconds between the two uses that show whether ``lastUsedDate`` moves on every use, for a
date in whole seconds (one with fractions shows a move after :data:`_FINE_GAP`)."""
_FINE_GAP = 0.05
_INTERVALS = (5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600)
"""The update intervals tried (seconds since the first use), within ``max_wait``."""


@dataclass(frozen=True)
class Finding:
    """One profile field as a probe saw it: ``value`` when ``observed``, else ``reason``.
    ``request`` is the request that showed it, with the target's keys in braces
    (``POST {graphql_url}: mutation deletePersonalAccessToken``), never a credential."""

    field: str
    value: Any = None
    request: str = ""
    observed: bool = True
    reason: str = ""
    sampled: Any = dataclasses.field(default=None, compare=False, repr=False)
    """For a shape: the answer's body, redacted, where calibrate takes the sample of a key
    the fake does not serve (never compared, never written whole)."""


@dataclass(frozen=True)
class RuleBreak:
    """A documented rule the target broke while it was probed: a gate failure."""

    rule: str
    what: str
    request: str


@dataclass
class ProbeResult:
    """What the probes of one target found."""

    findings: dict[str, Finding] = field(default_factory=dict)
    breaks: list[RuleBreak] = field(default_factory=list)

    def observed(self) -> dict[str, Finding]:
        """The findings that carry a value."""
        return {name: f for name, f in self.findings.items() if f.observed}

    def not_observed(self) -> dict[str, str]:
        """Field -> why it was not observed (every field of :data:`FIELDS` a probe missed)."""
        return {
            name: (self.findings[name].reason if name in self.findings else "not probed")
            for name in FIELDS
            if name not in self.findings or not self.findings[name].observed
        }


@dataclass(frozen=True)
class Probe:
    """One probe: its name, whether it writes, and what it does."""

    name: str
    writes: bool
    run: Callable[[Probing], None]
    fields: tuple[str, ...]
    """The profile fields it may observe."""
    group: int = 0
    """The probes of a group run one after the other; the groups side by side."""


class Probing:
    """Sends a probe's requests through a runner session and records what they showed."""

    def __init__(
        self,
        session: ScenarioRunner,
        *,
        allow_writes: bool,
        sleep: Callable[[float], None],
        max_wait: float = 0.0,
    ) -> None:
        self.session = session
        self.max_wait = max_wait
        """Seconds a probe may wait on a live target (beyond the first gap)."""
        self.context = session.context
        self.allow_writes = allow_writes
        self.result = ProbeResult()
        self._sleep = sleep
        self.schema_fields: tuple[str, ...] = ()
        """The fields of the delete result's object type, when introspection showed one."""
        self.masked: str | None = None
        """A masked token as the admin's listing showed it (kept for the write probes)."""
        self._lock = threading.Lock()  # two groups of probes record at once
        self.room: int | None = None
        """Tokens the admin may still create once the lifecycle made its own."""
        self.held: int | None = None
        """Tokens the admin held before the lifecycle's creates (``None``: not listed)."""
        self.counted = threading.Event()
        """Set once the lifecycle listed the admin's tokens: :attr:`held` is known."""
        self.made = threading.Event()
        """Set once the lifecycle made its tokens (or gave up): :attr:`room` is known."""
        self.named = threading.Event()
        """Set once the name length probe is done: the cap may be filled."""
        self.shaped = threading.Event()
        """Set once introspection told the delete result's shape."""
        self.listed = threading.Event()
        """Set once the admin's listing was read and judged: the cap may be filled."""
        self.tokened = threading.Event()
        """Set once the client token probe is done: :attr:`client_token` is known."""
        self.client_token: str | None = None
        """A client-credential token the token endpoint answered (kept in memory only)."""

    def release(self, probes: Sequence[str]) -> None:
        """Set what other probes wait for from ``probes`` (a group that ended, whichever
        way: one cut short by an error must not leave another waiting)."""
        events = {
            "token lifecycle": (self.counted, self.made),
            "name length": (self.named,),
            "delete result shape": (self.shaped,),
            "token listing": (self.listed,),
            "client token": (self.tokened,),
        }
        for name in probes:
            for event in events.get(name, ()):
                event.set()

    # -- recording ------------------------------------------------------------------------------

    def found(self, name: str, value: Any, request: str) -> None:
        """``name`` was seen as ``value`` (redacted: a value never carries a credential)."""
        finding = Finding(name, self.context.redactor.redact_data(value), request)
        with self._lock:
            self.result.findings[name] = finding

    def found_shape(self, name: str, shape: Any, body: Any, request: str) -> None:
        """The shape ``name`` was seen as ``shape`` in an answer whose body was ``body``."""
        redactor = self.context.redactor
        finding = Finding(
            name, redactor.redact_data(shape), request, sampled=redactor.redact_data(body)
        )
        with self._lock:
            self.result.findings[name] = finding

    def missed(self, names: Sequence[str], reason: str) -> None:
        """None of ``names`` could be seen, for ``reason`` (a finding already made stays)."""
        reason = self.context.redact(reason)
        with self._lock:
            for name in names:
                if name not in self.result.findings:
                    self.result.findings[name] = Finding(name, observed=False, reason=reason)

    def seen(self, name: str) -> bool:
        """Whether ``name`` was observed already."""
        with self._lock:
            finding = self.result.findings.get(name)
            return finding is not None and finding.observed

    def broke(self, rule: str, what: str, request: str) -> None:
        """The target broke the documented ``rule`` (said once per rule and text)."""
        found = RuleBreak(rule, self.context.redact(what), request)
        with self._lock:
            if found not in self.result.breaks:
                self.result.breaks.append(found)

    # -- sending --------------------------------------------------------------------------------

    def key(self, name: str) -> str | None:
        """A target key's value (a credential is revealed here only to build a request)."""
        return self.context.config.text(name)

    def graphql(self, query: str, bearer_key: str | None = "admin_token") -> Observed:
        """POST ``query`` with the bearer of ``bearer_key`` (none when ``None``)."""
        bearer = self.key(bearer_key) if bearer_key else None
        return self.context.graphql(query, None, bearer)

    def graphql_as(self, query: str, bearer: str | None) -> Observed:
        """POST ``query`` with ``bearer`` (a token a probe created)."""
        return self.context.graphql(query, None, bearer)

    def get(self, path: str, bearer_key: str | None = "admin_token", **params: Any) -> Observed:
        """GET ``{base_url}{path}`` with the bearer of ``bearer_key``."""
        bearer = self.key(bearer_key) if bearer_key else None
        headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
        url = f"{self.key('base_url') or ''}{path}"
        return self.context.exchange.send(
            "GET", url, kind="http", headers=headers, params=params or None
        )

    def listing(self, bearer: str | None) -> TokenListing | None:
        """The tokens ``bearer`` lists, entry by entry, or ``None`` when the listing cannot
        be read. An entry that is not a token is left out and breaks the listing's rule."""
        query, _ = self.context.documents.viewer()
        observed = self.context.graphql(query, None, bearer)
        try:
            listed = token_listing(observed)
        except UnexpectedAnswer:
            return None
        self.malformed(entry.problem for entry in listed.malformed)
        if bearer:
            self.context.custodian.saw(bearer, listed.ids())
        return listed

    def malformed(self, problems: Iterable[str]) -> None:
        """A listing held entries that are not tokens (each named by its index and field):
        each token it lists has an id and a name (a gate failure, never a value)."""
        for problem in problems:
            self.broke(
                _LISTING_RULE, f"a listed entry is not a token (left out): {problem}", _VIEWER
            )

    def create(
        self, name: str, bearer_key: str | None = "admin_token", bearer: str | None = None
    ) -> Observed:
        """Create a token named ``name`` as ``bearer_key`` (or with ``bearer``, a token a
        probe holds: the ledger then names no key for it), through the ledger."""
        context = self.context
        organization, why = context.organization_id()
        if organization is None:
            raise UnexpectedAnswer(why)
        query, variables = context.documents.create_token(name, organization)
        url = self.key("graphql_url") or ""
        if bearer is None and bearer_key is not None:
            bearer = self.key(bearer_key)

        def send() -> Observed:
            headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
            payload: dict[str, Any] = {"query": query}
            if variables:
                payload["variables"] = variables
            return context.exchange.send(
                "POST", url, kind="graphql", headers=headers, json=payload, repeat=False
            )

        # Each create costs a request less: the latest listing of the creator stands for
        # the one before it (the custodian's proof still needs the run's name listed).
        try:
            return context.custodian.create(
                name, send, bearer=bearer, bearer_key=bearer_key, reuse_listing=True
            )
        except MalformedListing as flawed:  # settled all the same: the probe goes on
            self.malformed(flawed.problems)
            return flawed.observed

    def delete(self, token_id: str, bearer: str | None) -> Observed | None:
        """Delete ``token_id`` (one of the probe's own, the ledger holds it) with ``bearer``."""
        context = self.context

        def send(query: str, variables: Mapping[str, Any] | None) -> Observed:
            return context.graphql(query, variables, bearer)

        return context.custodian.delete(token_id, send, cleanup=False)

    def name(self, suffix: str = "") -> str:
        """A fresh name of the run (``patgate-<run id>-<n>``), with ``suffix``."""
        return self.context.new_name() + suffix

    def pause(self, seconds: float, *, elapsed: float = 0.0) -> None:
        """Let ``seconds`` pass on the target: its clock moves when patgate controls it;
        else sleep what is left of them after ``elapsed`` seconds already spent."""
        control = self.context.target.control
        if control is not None:
            control.advance_clock(seconds)
        elif seconds > elapsed:
            self._sleep(seconds - elapsed)


# -- read-only probes ---------------------------------------------------------------------------


def probe_unauthenticated(probing: Probing) -> None:
    """``refusals.unauthenticated``: a GraphQL query without a token."""
    fields = FIELDS_OF["unauthenticated refusal"]
    if not probing.key("graphql_url"):
        probing.missed(fields, "needs graphql_url")
        return
    request = "POST {graphql_url}: query viewer (no token)"
    observed = probing.graphql("query { viewer { id } }", bearer_key=None)
    if observed.status == 200 and _at(observed.body, "data", "viewer"):
        probing.broke("AUTH-REQUIRED", "the viewer query answered data without a token", request)
        probing.missed(fields, "the target answered without a token (a gate failure)")
        return
    record_refusal(probing, "unauthenticated", observed, request, "list_tokens")


def probe_listing(probing: Probing) -> None:
    """The admin's own tokens: the masked form, ``lastUsedDate``'s precision, and the
    documented rules a listing shows (masked, at most 5, createdDate with milliseconds);
    read before the cap probe fills the admin's tokens."""
    try:
        _listing(probing)
    finally:
        probing.listed.set()


def _listing(probing: Probing) -> None:
    fields = (
        "masked_token.visible_characters",
        "masked_token.mask_character",
        "masked_token.mask_width",
        "date_precision.lastUsedDate",
    )
    if not (probing.key("graphql_url") and probing.key("admin_token")):
        probing.missed(fields, "needs graphql_url and admin_token")
        return
    listed = probing.listing(probing.key("admin_token"))
    if listed is None:
        probing.missed(fields, "the admin's tokens could not be listed")
        return
    judge_listing(probing, listed)
    if not listed.entries:
        probing.missed(fields, "the admin holds no token to read the listing from")


def judge_listing(probing: Probing, listed: TokenListing, *, counts: bool = True) -> None:
    """Read a listing: record the masked form and the date precision, note broken rules
    (``counts``: more than 5 tokens breaks PAT-CAP; not for a listing taken while the cap
    probe fills the admin's tokens, which judges the cap itself). Its malformed entries
    are broken rules of their own (:meth:`Probing.listing`), not counted here."""
    prefix = probing.context.config.pat_prefix
    held = len(listed.tokens)
    if counts and held > _CAP:
        probing.broke("PAT-CAP", f"the admin's listing holds {held} tokens", _VIEWER)
    for token in listed.entries:
        value = token.get("token")
        if isinstance(value, str) and value:
            mask = _mask(value, prefix)
            if mask is None:
                probing.broke(
                    "PAT-LIST-MASKED", "a listed token is not masked (shown in full?)", _VIEWER
                )
            elif mask[1] != "*" or "." in value[len(prefix) : len(prefix) + mask[0]]:
                probing.broke(
                    "PAT-LIST-MASKED",
                    "a listed token is masked with another character than an asterisk, "
                    "or shows its secret segment",
                    _VIEWER,
                )
            elif not probing.seen("masked_token.mask_width"):
                probing.masked = value
                visible, char, width = mask
                probing.found("masked_token.visible_characters", visible, _VIEWER)
                probing.found("masked_token.mask_character", char, _VIEWER)
                probing.found("masked_token.mask_width", width, _VIEWER)
        created = token.get("createdDate")
        if created is not None and _precision(created) != "milliseconds":
            probing.broke(
                "PAT-DATE-FORMAT",
                f"createdDate {created!r} is not ISO 8601 UTC with milliseconds",
                _VIEWER,
            )
        used = _precision(token.get("lastUsedDate"))
        if used is not None and not probing.seen("date_precision.lastUsedDate"):
            probing.found("date_precision.lastUsedDate", used, _VIEWER)
            probing.found("date_offset.lastUsedDate", _offset(token.get("lastUsedDate")), _VIEWER)


_DELETE_TYPE = (
    "query { __schema { mutationType { fields { name type { kind name ofType { kind name "
    "ofType { kind name ofType { kind name } } } } } } } }"
)


def probe_delete_shape(probing: Probing) -> None:
    """``delete_result.shape`` and ``object_type`` through introspection (read-only)."""
    try:
        _delete_shape(probing)
    finally:
        probing.shaped.set()


def _delete_shape(probing: Probing) -> None:
    fields = ("delete_result.shape", "delete_result.object_type")
    if not (probing.key("graphql_url") and probing.key("admin_token")):
        probing.missed(fields, "needs graphql_url and admin_token")
        return
    request = "POST {graphql_url}: introspection of deletePersonalAccessToken"
    observed = probing.graphql(_DELETE_TYPE)
    read_rate_limit(probing, observed, request)
    mutations = _at(observed.body, "data", "__schema", "mutationType", "fields")
    if observed.status != 200 or not isinstance(mutations, list):
        probing.missed(fields, f"introspection is not answered (HTTP {observed.status})")
        return
    entry = next(
        (
            m
            for m in mutations
            if isinstance(m, dict) and m.get("name") == "deletePersonalAccessToken"
        ),
        None,
    )
    type_ref = entry.get("type") if entry else None
    while isinstance(type_ref, dict) and type_ref.get("kind") in ("NON_NULL", "LIST"):
        type_ref = type_ref.get("ofType")
    if not isinstance(type_ref, dict):
        probing.missed(fields, "the schema names no deletePersonalAccessToken mutation")
        return
    kind, name = type_ref.get("kind"), type_ref.get("name")
    documents = probing.context.documents
    if documents.delete_selection is None:  # what the run's own deletes select from now on
        documents.delete_selection = "" if kind in ("SCALAR", "ENUM") else " { __typename }"
    if kind in ("SCALAR", "ENUM"):
        probing.found("delete_result.shape", "boolean" if name == "Boolean" else str(name), request)
        probing.missed(("delete_result.object_type",), "the result is not an object")
        return
    probing.found("delete_result.shape", "object", request)
    probing.found("delete_result.object_type", name, request)
    described = probing.graphql(f'query {{ __type(name: "{name}") {{ fields {{ name }} }} }}')
    listed = _at(described.body, "data", "__type", "fields")
    if isinstance(listed, list):
        probing.schema_fields = tuple(
            str(f["name"]) for f in listed if isinstance(f, dict) and isinstance(f.get("name"), str)
        )


# -- write probes -------------------------------------------------------------------------------

_WRITE_FIELDS = WRITE_FIELDS
_CAP_FIELDS = (
    "refusals.token_limit.code",
    "refusal_messages.create_token.token_limit",
    "graphql_refusal_status.token_limit",
)


def probe_lifecycle(probing: Probing) -> None:
    """Create three tokens of the probe's own (names out of creation order), list them, use
    one twice, fill the admin's tokens to the cap and ask for one more, then delete them all:
    the listing order, ``lastUsedDate``, the token-limit refusal and the delete result."""
    admin = probing.key("admin_token")
    if not (admin and probing.key("graphql_url")):
        probing.missed(_WRITE_FIELDS, "needs graphql_url and admin_token")
        return
    made: list[tuple[str, str, str]] = []  # (id, name, value), in creation order
    try:
        listed = probing.listing(admin)
        # A malformed entry is not counted: if it is a token after all, a create meets the
        # cap early and the probe misses, where counting it could see a sixth token made.
        held = None if listed is None else len(listed.tokens)
        probing.held = held
        probing.counted.set()
        if held is None:
            probing.missed(_WRITE_FIELDS, "the admin's tokens could not be listed")
            return
        if _CAP - held < 3:
            probing.room = _CAP - held
            probing.missed(
                ("listing_order", _LAST_USED, "delete_result.fields"),
                f"the admin holds {held} tokens; the probe needs room for 3",
            )
            return
        for name in _out_of_order_names(probing):
            observed = probing.create(name)
            token = created_token(observed) if isinstance(observed.body, dict) else None
            if token is None or not token.token:
                probing.missed(
                    _WRITE_FIELDS, f"a create was answered HTTP {observed.status} without a token"
                )
                return
            made.append((token.id, name, token.token))
        probing.room = _CAP - held - len(made)
    finally:
        probing.counted.set()
        probing.made.set()
    _use_and_fill(probing, admin, made, held)


def _out_of_order_names(probing: Probing) -> list[str]:
    """Three fresh names, in the order they are created: the second, the third, the first
    by name. Creation order, its reverse, name order and reverse name order then differ, so
    the listing shows which one the target keeps."""
    names = sorted(probing.name() for _ in range(3))
    return [names[1], names[2], names[0]]


def _use_and_fill(
    probing: Probing, admin: str, made: list[tuple[str, str, str]], held: int
) -> None:
    """The rest of the lifecycle once its tokens exist (``held``: the admin's before).

    The cap probe runs beside the listing and the two uses of the first token (it waits
    for the name probe, in another group, which needs one of the admin's free places);
    the made tokens are deleted, side by side, once it is done: they count toward the cap.
    """

    def cap() -> None:
        probing.named.wait()
        probing.listed.wait()
        try:
            _token_limit(probing, admin, held + len(made))
        except (RequestFailed, UnexpectedAnswer) as error:
            probing.missed(_CAP_FIELDS, f"the token limit probe stopped: {error}")

    with ThreadPoolExecutor(len(made), thread_name_prefix="patgate-probe-lifecycle") as pool:
        capping = pool.submit(cap)
        try:
            listed = probing.listing(admin)
            if listed is not None:
                judge_listing(probing, listed, counts=False)
            entries = listed.entries if listed is not None else ()
            order = _describe_order(entries, [i for i, _, _ in made])
            if order is None:
                probing.missed(("listing_order",), "the new tokens were not all listed")
            else:
                probing.found("listing_order", order, f"{_CREATE} x3, then {_VIEWER}")
            first, used_at = _first_use(probing, admin, made[0])
            if first is not None:
                _moves(probing, admin, made[0], first, time.monotonic() - used_at)
        finally:
            capping.result()
        probing.shaped.wait()
        if probing.schema_fields:  # every delete from here selects each field of the result
            fields = " ".join(probing.schema_fields)
            probing.context.documents.delete_selection = f" {{ {fields} }}"
        deletes = [pool.submit(probing.delete, token_id, admin) for token_id, _, _ in made[1:]]
        _delete_fields(probing, made[0], admin)
        for done in deletes:
            done.result()


_LAST_USED = "last_used_date.update_interval_seconds"
_USE_REQUEST = f"{_VIEWER} with the new token after its first use"


def _used_again(seconds: float) -> str:
    """What the interval probe sent: the listing after a use ``seconds`` after the first."""
    return f"{_VIEWER} with the new token, used again {seconds:g} s after its first use"


_USE_QUERY = "query { viewer { id } }"


def _first_use(probing: Probing, admin: str, token: tuple[str, str, str]) -> tuple[Any, float]:
    """Use ``token`` and list it: its ``lastUsedDate`` (``None`` when it stayed null), and
    when the use was answered (:func:`time.monotonic`)."""
    token_id, _, value = token
    probing.graphql_as(_USE_QUERY, value)
    used_at = time.monotonic()
    first = _last_used_of(probing.listing(admin), token_id)
    precision = _precision(first)
    if precision is not None:
        probing.found("date_precision.lastUsedDate", precision, _USE_REQUEST)
        probing.found("date_offset.lastUsedDate", _offset(first), _USE_REQUEST)
    if first is None:
        probing.missed((_LAST_USED,), "lastUsedDate stayed null after a use")
    return first, used_at


def _moves(
    probing: Probing, admin: str, token: tuple[str, str, str], first: Any, elapsed: float
) -> None:
    """Use ``token`` again :data:`_USE_GAP` after its first use (``elapsed`` seconds have
    passed already) and list it: does ``lastUsedDate`` move on every use? If not, use it
    again once each of :data:`_INTERVALS` has passed since the first use, within
    ``max_wait`` seconds: the first that moves it is the interval (a value between two
    tried is rounded up)."""
    token_id, _, value = token
    gap = _USE_GAP if _precision(first) == "seconds" else _FINE_GAP
    waited = 0.0
    for step in (gap, *_INTERVALS):
        if step > gap and step > probing.max_wait:
            break
        probing.pause(step - waited, elapsed=elapsed if step == gap else 0.0)
        waited = step
        probing.graphql_as(_USE_QUERY, value)
        if _last_used_of(probing.listing(admin), token_id) != first:
            probing.found(_LAST_USED, 0 if step == gap else step, _used_again(step))
            return
    probing.missed(
        (_LAST_USED,),
        f"lastUsedDate did not move between uses {waited:g} s apart: it moves less often "
        "(--max-wait SECONDS lets the probe wait up to that long to find the interval)",
    )


def _last_used_of(listed: TokenListing | None, token_id: str) -> Any:
    for token in listed.entries if listed is not None else ():
        if token.get("id") == token_id:
            return token.get("lastUsedDate")
    return None


def _token_limit(probing: Probing, admin: str, held: int) -> None:
    """Fill the admin's tokens (``held`` now) to the cap, then ask for one more: the
    refusal (or PAT-CAP)."""
    extra: list[tuple[str, str]] = []
    try:
        for _ in range(max(0, _CAP - held)):
            observed = probing.create(probing.name("-fill"))
            token = created_token(observed) if isinstance(observed.body, dict) else None
            if token is None:
                probing.missed(("refusals.token_limit.code",), "a create below the cap was refused")
                return
            extra.append((token.id, token.token or admin))
        request = f"{_CREATE} (a sixth token)"
        observed = probing.create(probing.name("-sixth"))
        token = created_token(observed) if isinstance(observed.body, dict) else None
        if token is not None:
            extra.append((token.id, token.token or admin))
            probing.broke("PAT-CAP", "a sixth token was created", request)
            return
        record_refusal(probing, "token_limit", observed, request, "create_token")
    finally:
        for token_id, _bearer in extra:
            probing.delete(token_id, admin)


def _delete_fields(probing: Probing, token: tuple[str, str, str], bearer: str) -> None:
    """Delete ``token`` selecting every field of the result: what each field carries."""
    token_id, name, _ = token
    observed = probing.delete(token_id, bearer)
    if observed is None:
        return
    result = _at(observed.body, "data", "deletePersonalAccessToken")
    if isinstance(result, dict):
        carried = {}
        for key, value in result.items():
            if key == "__typename":
                continue
            if value == token_id:
                carried[key] = "token_id"
            elif value is True:
                carried[key] = "true"
            elif value == name:
                carried[key] = "name"
            else:
                carried[key] = f"other ({type(value).__name__})"
        probing.found("delete_result.fields", carried, f"{_DELETE} selecting every field")
    elif isinstance(result, bool):
        probing.found("delete_result.fields", {}, f"{_DELETE}")


def probe_name_length(probing: Probing) -> None:
    """``pat_name.max_length`` by a bounded search, and the refusal of a too-long name
    (``refusals.invalid_input``); every name the target takes is deleted at once."""
    try:
        _name_length(probing)
    finally:
        probing.named.set()


def _name_length(probing: Probing) -> None:
    fields = FIELDS_OF["name length"]
    admin = probing.key("admin_token")
    if not (admin and probing.key("graphql_url")):
        probing.missed(fields, "needs graphql_url and admin_token")
        return
    # The lifecycle takes 3 of the admin's free places; with a fourth free, this probe
    # goes at once, else once the lifecycle's tokens exist, in the place left.
    probing.counted.wait()
    if probing.held is None or _CAP - probing.held < 4:
        probing.made.wait()
        if not probing.room or probing.room < 1:
            probing.missed(fields, "the admin has no room for one more token")
            return
    refusals: list[Observed] = []
    stopped: list[str] = []  # why the search could not go on
    request = f"{_CREATE} with a name of N characters"

    def accepts(length: int) -> bool | None:
        base = probing.name("-")
        if length < len(base) + 1:
            return True
        name = base + "n" * (length - len(base))
        observed = probing.create(name)
        token = created_token(observed) if isinstance(observed.body, dict) else None
        if token is not None:
            probing.delete(token.id, admin)
            return True
        if observed.status >= 500 or observed.status == 429:
            stopped.append(f"a create of {length} characters was answered HTTP {observed.status}")
            return None
        # A refusal says "too long" only if the admin had room: the listing that settled
        # the refusal must show fewer tokens than the cap (its malformed entries may be
        # tokens too: each is counted, one with a text id twice, erring toward the cap).
        custodian = probing.context.custodian
        listed = custodian.latest_ids(admin)
        if listed is None or len(listed) + len(custodian.listing_flaws) >= _CAP:
            stopped.append(
                f"a name of {length} characters was refused while the admin held "
                f"{'an unknown number of' if listed is None else len(listed)} tokens "
                "(the refusal may be the cap's)"
            )
            return None
        refusals.append(observed)
        return False

    found = _common_limit(accepts, len(probing.context.ledger.name_prefix) + 8)
    if found is None:
        why = stopped[-1] if stopped else "a create answered neither a token nor a refusal"
        probing.missed(fields if not refusals else ("pat_name.max_length",), why)
    elif found >= _NAME_CEILING:
        probing.missed(("pat_name.max_length",), f"no refusal up to {_NAME_CEILING} characters")
    else:
        probing.found("pat_name.max_length", found, request)
    if refusals:
        too_long = f"{_CREATE} with a name too long"
        record_refusal(probing, "invalid_input", refusals[-1], too_long, "create_token")


_COMMON_NAME_LIMITS = (255, 100, 256, 128, 64, 50, 200, 500, 1000, 1024, 2048)
"""Name limits deployments often choose: tried first, each with the length one above."""


def _common_limit(accepts: Callable[[int], bool | None], shortest: int) -> int | None:
    """The longest length ``accepts`` takes: the common limits first (a limit among them
    costs two or four tries), then a bisection between the bounds they left."""
    good, bad = shortest, _NAME_CEILING + 1
    for limit in _COMMON_NAME_LIMITS:
        if not good < limit < bad:
            continue
        verdict = accepts(limit)
        if verdict is None:
            return None
        if not verdict:
            bad = limit
            continue
        good = limit
        above = accepts(limit + 1)
        if above is None:
            return None
        if not above:
            return limit
        good = limit + 1
    return _bounded_search(accepts, good, bad)


def probe_not_found(probing: Probing) -> None:
    """``refusals.not_found``: a delete of an id no token has (made up by this run)."""
    context = probing.context
    if not (probing.key("admin_token") and probing.key("graphql_url")):
        probing.missed(("refusals.not_found.status",), "needs graphql_url and admin_token")
        return
    # The delete result's shape comes from the shape probe (beside this one); if it could
    # not tell, a delete that does not validate is resent with a selection.
    probing.shaped.wait()
    missing = context.missing_id()
    admin = probing.key("admin_token")
    query, variables = context.documents.delete_token(missing)
    observed = context.graphql(query, variables, admin)
    if context.documents.learn_delete_from(observed, missing, query):
        query, variables = context.documents.delete_token(missing)
        observed = context.graphql(query, variables, admin)
    unknown = f"{_DELETE} of an id no token has"
    record_refusal(probing, "not_found", observed, unknown, "delete_token")


def probe_client_credentials(probing: Probing) -> None:
    """``pat_creation.client_credentials``: a create with the client-credential token the
    client token probe got (its client may act as an admin): ``refused``, or ``allowed``
    and the token deleted at once."""
    name = "pat_creation.client_credentials"
    probing.tokened.wait()
    bearer = probing.client_token
    if not (bearer and probing.key("graphql_url")):
        probing.missed((name,), "needs a client-credential token and graphql_url")
        return
    request = f"{_CREATE} with a client-credential token"
    observed = probing.create(probing.name("-client"), bearer_key=None, bearer=bearer)
    token = created_token(observed) if isinstance(observed.body, dict) else None
    if token is not None:
        probing.found(name, "allowed", request)
        probing.delete(token.id, bearer)
        return
    error = _first_error(observed)
    if error is None and observed.status < 400:
        probing.missed((name,), f"the create answered HTTP {observed.status}, neither way")
        return
    probing.found(name, "refused", request)


def probe_forbidden(probing: Probing) -> None:
    """``refusals.forbidden``: a member who is not an admin asks for a token (PAT-ADMIN-ONLY
    if it is made; the ledger then deletes it)."""
    fields = FIELDS_OF["non-admin create"]
    if not (probing.key("member_token") and probing.key("graphql_url")):
        probing.missed(fields, "needs member_token")
        return
    request = f"{_CREATE} as a member who is not an admin"
    observed = probing.create(probing.name("-member"), bearer_key="member_token")
    token = created_token(observed) if isinstance(observed.body, dict) else None
    if token is not None:
        probing.broke("PAT-ADMIN-ONLY", "a member who is not an admin created a token", request)
        probing.delete(token.id, probing.key("member_token"))
        return
    record_refusal(probing, "forbidden", observed, request, "create_token")


def _client_token(probing: Probing) -> None:
    try:
        probe_client_token(probing)
    finally:
        probing.tokened.set()


_RUNS: dict[str, Callable[[Probing], None]] = {
    "client token": _client_token,
    "hubs listing": probe_hubs,
    "unauthenticated refusal": probe_unauthenticated,
    "token listing": probe_listing,
    "delete result shape": probe_delete_shape,
    "token lifecycle": probe_lifecycle,
    "client-credential create": probe_client_credentials,
    "name length": probe_name_length,
    "unknown id": probe_not_found,
    "non-admin create": probe_forbidden,
}
_GROUPS = (
    ("token lifecycle", "client-credential create"),
    (
        "client token",
        "unauthenticated refusal",
        "delete result shape",
        "name length",
        "non-admin create",
    ),
    ("token listing", "hubs listing", "unknown id"),
)
"""The probes in groups that run side by side (each group in order). The lifecycle fills the
admin's tokens to the cap only once the name probe and the token listing, beside it, are
done; the name probe starts once the lifecycle knows how many tokens the admin holds; the
unknown-id delete is sent once the shape probe told the delete result's shape; the
client-credential create, once the lifecycle's tokens are gone (it needs one free place) and
the client token probe got a token. The groups
are balanced so that none outlasts the lifecycle (each request is a round trip to a distant
target)."""
_FIELDS_OF = FIELDS_OF
PROBES: tuple[Probe, ...] = tuple(
    Probe(
        name,
        writes=name in _WRITE_FIELDS_BY_PROBE,
        run=_RUNS[name],
        fields=_FIELDS_OF[name],
        group=number,
    )
    for number, names in enumerate(_GROUPS)
    for name in names
)
"""Every probe, group by group."""


def probe_target(
    session: ScenarioRunner,
    *,
    allow_writes: bool,
    sleep: Callable[[float], None] = time.sleep,
    max_wait: float = 0.0,
) -> ProbeResult:
    """Run every probe :paramref:`allow_writes` permits against the session's target.

    The caller closes the session (its close deletes whatever a probe left). Raises
    :class:`~patgate.errors.TargetUnreachable` when the target does not answer at all.
    """
    probing = Probing(session, allow_writes=allow_writes, sleep=sleep, max_wait=max_wait)
    chosen = [probe for probe in PROBES if allow_writes or not probe.writes]

    def group(probes: Sequence[Probe]) -> None:
        try:
            for probe in probes:
                try:
                    probe.run(probing)
                except (RequestFailed, UnexpectedAnswer) as error:
                    probing.missed(probe.fields, f"the {probe.name} probe stopped: {error}")
        finally:
            probing.release([probe.name for probe in probes])

    # The groups side by side (the session's client pools a connection for each).
    groups = [[p for p in chosen if p.group == number] for number in range(len(_GROUPS))]
    with ThreadPoolExecutor(len(groups) - 1, thread_name_prefix="patgate-probe") as pool:
        beside = [pool.submit(group, probes) for probes in groups[1:]]
        try:
            group(groups[0])
        finally:
            for future in beside:
                future.result()
    if not allow_writes:
        probing.missed(_WRITE_FIELDS, NEEDS_WRITES)
    else:
        _derive_refusal_status(probing)
    probing.missed(FIELDS, "not probed")
    return probing.result


_GRAPHQL_KINDS = ("token_limit", "invalid_input", "not_found", "forbidden")


def _derive_refusal_status(probing: Probing) -> None:
    """``graphql.refusal_status`` from the statuses of the refusals inside executed GraphQL
    requests: ``ok`` when each was 200, ``refusal`` when none was (then the token limit's
    status, seen nowhere else, is ``refusals.token_limit.status``)."""
    findings = probing.result.findings
    seen = {
        kind: findings[f"graphql_refusal_status.{kind}"]
        for kind in _GRAPHQL_KINDS
        if f"graphql_refusal_status.{kind}" in findings
        and findings[f"graphql_refusal_status.{kind}"].observed
    }
    name = "graphql.refusal_status"
    if not seen:
        probing.missed((name, "refusals.token_limit.status"), "no GraphQL refusal was seen")
        return
    request = "; ".join(sorted({f.request for f in seen.values()}))
    statuses = {kind: f.value for kind, f in seen.items()}
    if all(status == 200 for status in statuses.values()):
        probing.found(name, "ok", request)
        probing.missed(
            ("refusals.token_limit.status",),
            "the cap's refusal is answered inside an HTTP 200 (graphql.refusal_status: ok)",
        )
    elif all(status != 200 for status in statuses.values()):
        probing.found(name, "refusal", request)
        if "token_limit" in seen:
            probing.found("refusals.token_limit.status", statuses["token_limit"], request)
    else:
        probing.found(name, f"mixed: {statuses}", request)
