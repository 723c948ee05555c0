"""What the calibrated fake cannot serve yet of the independent deployments' answers, and
what a probe cannot tell apart on the fake: calibrate records it, compare shows it, and the tests
accept it (a profile's ``accepted``) so that every other difference counts."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from patgate.calibration.drift_rules import Acceptance, AcceptedEntry

__all__ = ["TIED_DATES", "UNSERVED", "accepted_yaml", "accepting"]

UNSERVED: dict[str, str] = {
    "shapes.refusal.token": "the fake does not render the token endpoint's refusals through "
    "their shape (an OAuth error without error_description)",
    "refusal_messages.token": "the same: a refusal without error_description has no wording "
    "to write, and the fake always sends its own",
    "shapes.refusal.content.forbidden.headers.www-authenticate": "the fake always challenges "
    "a 403 (WWW-Authenticate); a shape's headers do not remove it",
    "shapes.refusal.content.invalid_input.body.keys.type.form": "the fake serves its problem "
    "type as about:blank (text); a shape's form of a key it serves is not rendered",
    "shapes.refusal.content.not_found.body.keys.type.form": "the same",
    "shapes.refusal.content.forbidden.body.keys.type.form": "the same",
    "shapes.refusal.content.unauthenticated.body.keys.type.form": "the same",
}
"""What the calibrated fake cannot serve yet of these deployments' answers: calibrate
records it, compare shows it, and these tests accept it (the profile's ``accepted``) so
that every other difference counts. Each is a difference of the fake's rendering, not of
calibrate's recording."""
TIED_DATES = {
    "hubs.order": "the first deployment lists its hubs newest first (created_descending); the "
    "fake's hubs share one creation date, so a probe cannot tell its newest-first listing "
    "from its oldest-first one"
}


def accepting(gaps: Mapping[str, str]) -> Acceptance:
    entries = [AcceptedEntry(field, why, "2099-12-31") for field, why in gaps.items()]
    return Acceptance(entries, dt.date(2026, 1, 1))


def accepted_yaml(gaps: Mapping[str, str]) -> str:
    """The ``accepted:`` block of a profile accepting ``gaps`` (as a user writes it)."""
    import yaml

    entries = [{"field": f, "reason": why, "expires": "2099-12-31"} for f, why in gaps.items()]
    return yaml.safe_dump({"accepted": entries}, sort_keys=False)
