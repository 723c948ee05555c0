"""Redaction of hostile text: what :meth:`patgate.guards.redaction.Redactor.redact` costs on 1 MB
of text built to be slow for a backtracking matcher, beside 1 MB of an ordinary answer.

The hostile megabyte is five lines: PAT prefixes over and over (``amp_pat_amp_pat_...``),
a ``<word>_pat_`` run (``a_pat_a_pat_...``), one run of digits (a huge integer), JWT heads
(``eyJeyJ...``) and near-JWTs (``eyJa.eyJeyJa.eyJ...``). The ordinary megabyte is a token
listing's JSON. The redactor knows a client secret, a PAT and a JWT, as a run's does.
Goal: the hostile megabyte in at most 50 ms. The note gives what the plain token patterns
(a backtracking search with them, as the redactor did before) take on 50,000 characters of
the same text.
"""

from __future__ import annotations

import json
import time

from benchmarks.registry import Benchmark, Plan
from benchmarks.timing import Goal, Result, Side, compare, interleave

__all__ = ["BENCHMARKS", "hostile_text", "run"]

MEGABYTE = 1 << 20
GOAL_MS = 50.0
SECRETS = (
    "s3cr3t-client-secret-value-123",
    "amp_pat_AAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl",
)


def hostile_text(size: int = MEGABYTE) -> str:
    """``size`` characters in five lines, each slow for a backtracking token search."""
    pieces = ("amp_pat_", "a_pat_", "9", "eyJ", "eyJa.eyJ")
    part = size // len(pieces)
    # A line each: a backtracking search fails at every start of a long line of them.
    return "\n".join((piece * (part // len(piece) + 1))[: part - 1] for piece in pieces)


def ordinary_text(size: int = MEGABYTE) -> str:
    """A token listing's JSON of about ``size`` characters."""
    token = {
        "id": "tok-0001",
        "name": "ci deploy key",
        "token": "amp_pat_abcd1234****",
        "createdDate": "2026-01-02T03:04:05.678Z",
        "lastUsedDate": None,
    }
    one = json.dumps(token)
    count = size // (len(one) + 1)
    return json.dumps({"data": {"viewer": {"personalAccessTokens": [token] * count}}})


def _plain_patterns_seconds(text: str) -> float:
    from patgate.basics.token_grammar import ANY_PAT_SHAPE, JWT_SHAPE, pat_shape

    started = time.perf_counter()
    for pattern in (pat_shape(), ANY_PAT_SHAPE, JWT_SHAPE):
        pattern.sub("[REDACTED]", text)
    return time.perf_counter() - started


def run(plan: Plan) -> list[Result]:
    """Time the hostile and the ordinary megabyte in interleaved rounds."""
    from patgate.guards.redaction import Redactor

    redactor = Redactor()
    redactor.register_all(SECRETS)
    hostile, ordinary = hostile_text(), ordinary_text()
    samples_hostile, samples_ordinary = interleave(
        Side("hostile", lambda: redactor.redact(hostile)),
        Side("ordinary", lambda: redactor.redact(ordinary)),
        rounds=plan.rounds_for(15, 5),
        batch=1,
    )
    plain = _plain_patterns_seconds(hostile_text(50_000))
    return [
        compare(
            name="redaction",
            title="Redact 1 MB of hostile text (token-like runs, digits, JWT heads)",
            unit="ms",
            a_label="hostile 1 MB",
            a=[sample * 1e3 for sample in samples_hostile],
            b_label="a 1 MB token listing",
            b=[sample * 1e3 for sample in samples_ordinary],
            ratio_label="hostile / listing",
            goal=Goal("patgate", "<=", GOAL_MS, "hostile 1 MB", "ms"),
            note=(
                f"the plain token patterns searched by backtracking take {plain:.2f} s on "
                "50,000 characters of the same text (quadratic: 4 times that for twice as many)."
            ),
        )
    ]


BENCHMARKS = [Benchmark("redaction", run, order=16, description="redacting 1 MB of hostile text")]
