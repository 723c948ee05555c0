"""Every exception patgate raises, in one tree.

::

    PatgateError
    ├── UsageError (ValueError)                 bad flags, bad target file; exit code 2
    │   ├── ScenarioError                       a scenario file that does not validate
    │   └── FileRefused                         supplied_files.py: a supplied file over a size
    │                                           or depth cap, with YAML aliases or foreign
    │                                           tags, not UTF-8, a folder (file and line)
    ├── TargetUnreachable (ConnectionError)     the deployment does not answer; exit code 3
    ├── CheckFailure (AssertionError)           a conformance check saw the wrong thing; exit 1
    ├── UnmatchedRequest (AssertionError)       a strict fake saw a URL it does not serve
    ├── RequestFailed (ConnectionError)         one request of a run got no answer (the step
    │                                           fails; ``sent`` says whether it may have arrived)
    ├── CustodyError                            the run refuses to send it: nothing is sent
    │   ├── CreateRefused                       a create the ledger cannot track (its name)
    │   ├── ForeignDeleteRefused (PermissionError)  a delete of an id the run did not create
    │   └── WriteRefused (PermissionError)      a write a live run may not send (judged on
    │                                           the request as it would be sent)
    ├── UnexpectedAnswer (ValueError)           runner/connection/answers.py: an answer the
    │   │                                       runner reads for itself is not of the
    │   │                                       expected shape (the step fails, naming the
    │   │                                       field and what came)
    │   ├── WrongIdAnswered                     a create answered an id that a listing does not
    │   │                                       show as the run's new token (never deleted)
    │   └── MalformedListing                    runner/custody/custodian.py: a listing the
    │                                           create took held entries that are not tokens
    ├── ExpressionError (ValueError)            scenario/expressions.py: cannot parse or evaluate
    ├── PathError (ValueError)                  scenario/paths.py: a path that cannot be read
    ├── PathMissing (LookupError)               scenario/paths.py: nothing at that path
    ├── TemplateError (ValueError)              api_paths.py: a path or route template the
    │                                           template grammar does not understand
    ├── WaitTooLong                             runner/execution/step_senders.py: a live
    │                                           wait over --max-wait (the scenario is
    │                                           not checked)
    ├── ScheduleError (ValueError)              calibration/scheduler.py: probes declared with
    │                                           an unknown name or waiting in a circle
    ├── HttpRefusal                             wire/statuses.py: a request the wire layer
    │                                           refuses before any domain call
    ├── DroppedConnection                       wire/fault_answers.py: a fault rule closes the
    │                                           connection without answering
    ├── BodyRefused                             bounded_body.py: an answer's body not read (over
    │                                           the size cap, or a refused content coding)
    ├── AnswerUnread (RequestException)         fuzz/bounded_session.py: the same, for the
    │                                           fuzzer's requests session
    ├── ControlRefusal                          wire/control_api.py: a control call refused
    │                                           before any operation runs
    ├── ControlError                            control_client.py: the control API refused a
    │                                           call (its status and code)
    └── DomainError                             a documented rule refused a request (the fake)
        ├── InvalidRequest (ValueError)         malformed input (OAuth ``invalid_request``)
        ├── UnsupportedGrantType (ValueError)   grant_type is not ``client_credentials``
        ├── InvalidClient                       unknown client id or wrong secret
        ├── Unauthenticated                     missing, invalid, expired or deleted bearer
        ├── Forbidden (PermissionError)         valid caller, not allowed (role, removal)
        ├── TokenLimitReached                   the caller already holds the maximum of PATs
        └── NotFound (LookupError)              no such object visible to the caller

A ``DomainError`` names the rule of ``specs/rules.yaml`` it enforces (``rule_id``) and a
stable machine-readable ``code``; the wire layer maps the class to an HTTP status in one
table. The exception class also decides the CLI's exit code (``exit_code``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from patgate.basics.behaviours import OBSERVERS, note

if TYPE_CHECKING:
    from patgate.basics.reasons import Reason

__all__ = [
    "CheckFailure",
    "CreateRefused",
    "CustodyError",
    "DomainError",
    "Forbidden",
    "ForeignDeleteRefused",
    "InvalidClient",
    "InvalidRequest",
    "NotFound",
    "PatgateError",
    "RequestFailed",
    "ScenarioError",
    "TargetUnreachable",
    "TokenLimitReached",
    "Unauthenticated",
    "UnexpectedAnswer",
    "UnmatchedRequest",
    "UnsupportedGrantType",
    "UsageError",
    "WriteRefused",
    "WrongIdAnswered",
]


class PatgateError(Exception):
    """Root of every error patgate raises on purpose."""

    exit_code = 1


class UsageError(PatgateError, ValueError):
    """The command line, a target file or the environment is wrong."""

    exit_code = 2


class ScenarioError(UsageError):
    """A scenario file is not valid; the message names the file and the line."""

    def __init__(self, message: str, *, path: str = "", line: int | None = None) -> None:
        self.path = path
        self.line = line
        where = f"{path}:{line}" if path and line is not None else path
        super().__init__(f"{where}: {message}" if where else message)


class TargetUnreachable(PatgateError, ConnectionError):
    """The deployment under test did not answer at all."""

    exit_code = 3


class CheckFailure(PatgateError, AssertionError):
    """A conformance check failed.

    It is an ``AssertionError`` so that pytest renders it natively; the fields let the CLI
    and the reports show the same rule, expectation and observation.
    """

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        rule: str = "",
        title: str = "",
        expected: object = None,
        actual: object = None,
    ) -> None:
        self.rule = rule
        self.title = title
        self.expected = expected
        self.actual = actual
        super().__init__(message)


class UnmatchedRequest(PatgateError, AssertionError):
    """A strict fake saw a request for a URL it does not serve.

    It is an ``AssertionError`` so that pytest shows it as the test's failure.
    """


class RequestFailed(PatgateError, ConnectionError):
    """A request got no answer (timeout, reset, refused after the target had answered).

    ``sent`` is ``False`` when the request surely never reached the deployment (it could not
    connect), ``True`` when it may have: a create that failed so is ambiguous.
    """

    def __init__(self, message: str, *, sent: bool = True) -> None:
        super().__init__(message)
        self.sent = sent


class CustodyError(PatgateError):
    """The run's ledger refuses a create or a delete; nothing was sent."""


class CreateRefused(CustodyError):
    """patgate will not send (or record) this create: its name is not one the ledger can
    track, was used already, or was never written down."""


class ForeignDeleteRefused(CustodyError, PermissionError):
    """The runner was asked to delete something this run's ledger does not hold."""


class WriteRefused(CustodyError, PermissionError):
    """A request that writes, judged once every value is substituted, which this run may not
    send: a live target without ``--allow-writes``, or a write the ledger cannot track."""


class UnexpectedAnswer(PatgateError, ValueError):
    """An answer the runner reads for itself (the token endpoint, the content API, GraphQL
    data and errors, introspection, a listing) holds a value of another type or shape than
    the one expected; the message names the field and what came instead."""


class WrongIdAnswered(UnexpectedAnswer):
    """A create answered an id that the creator's listing does not show as a token new
    since before the create and named as the run named it: a token that already existed
    (someone else's) or none at all. The id is never deleted."""


class DomainError(PatgateError):
    """A documented rule of the service refused a request."""

    code = "BAD_REQUEST"
    default_rule = ""

    def __init__(
        self, message: str, *, rule_id: str | None = None, reason: Reason | None = None
    ) -> None:
        self.rule_id = rule_id if rule_id is not None else self.default_rule
        self.reason = reason
        """Why, with the facts, for the test author (the answer keeps ``message``)."""
        super().__init__(message)

    def answered(self) -> None:
        """Tell behaviour coverage that this rule refused a request.

        Called once where a front door turns the refusal into an answer, never on
        construction: an error made and caught inside the fake refused nobody.
        """
        if OBSERVERS:
            note(self.rule_id, "refused")

    @property
    def message(self) -> str:
        """The human-readable text, as ``str(error)``; error bodies carry it."""
        return str(self)


class InvalidRequest(DomainError, ValueError):
    """The request is malformed: a missing, repeated or badly typed parameter."""

    code = "invalid_request"
    default_rule = "TOKEN-ERROR-BODY"


class UnsupportedGrantType(DomainError, ValueError):
    """The token endpoint was asked for a grant other than ``client_credentials``."""

    code = "unsupported_grant_type"
    default_rule = "TOKEN-GRANT-TYPE"


class InvalidClient(DomainError):
    """The client id is unknown or the secret is wrong (the two answer identically)."""

    code = "invalid_client"
    default_rule = "TOKEN-BAD-CREDENTIALS"


class Unauthenticated(DomainError):
    """The bearer token is missing, malformed, unknown, expired, deleted or pending."""

    code = "UNAUTHENTICATED"
    default_rule = "AUTH-REQUIRED"


class Forbidden(DomainError, PermissionError):
    """The caller is known but may not do this (role, removal, lost permission)."""

    code = "FORBIDDEN"
    default_rule = "PAT-ADMIN-ONLY"


class TokenLimitReached(DomainError):
    """The caller already holds the maximum number of personal access tokens."""

    code = "LIMIT_REACHED"
    default_rule = "PAT-CAP"


class NotFound(DomainError, LookupError):
    """No such object is visible to the caller (a foreign id looks like an unknown one)."""

    code = "NOT_FOUND"
    default_rule = "PAT-DELETE-OWN-ONLY"
