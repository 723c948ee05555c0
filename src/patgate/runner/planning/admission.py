"""What a target admits: whether a scenario can run on it (and why not), and what each
target key it lacks costs the run (the scenarios and gate rules left not checked)."""

from __future__ import annotations

from collections.abc import Sequence

from patgate.runner.connection.config import Target
from patgate.runner.context import RunContext
from patgate.runner.results.events import CANNOT_BE_CHECKED
from patgate.scenario.catalogue import Catalogue
from patgate.scenario.model import Scenario
from patgate.service.target_contract import TARGET_KEYS

__all__ = ["INHERENT_SKIPS", "is_inherent", "key_costs", "skip_reason"]

NEEDS_CONTROL = f"{CANNOT_BE_CHECKED}: needs control of the deployment (a served or embedded fake)"
UNTRACKED_WRITES = (
    f"{CANNOT_BE_CHECKED}: sends a write the ledger cannot track (a raw GraphQL mutation, "
    "or an HTTP POST, PUT, PATCH or DELETE), which patgate sends only to the embedded fake"
)
INHERENT_SKIPS = (NEEDS_CONTROL, UNTRACKED_WRITES)
"""Skip reasons that come from what the target is (no control plane, a live deployment),
not from anything the user can change: ``--require checkable`` does not count them."""


def is_inherent(reason: str) -> bool:
    """Whether a scenario skipped for ``reason`` could never run on this target."""
    return reason in INHERENT_SKIPS


def key_costs(
    target: Target, scenarios: Sequence[Scenario], catalogue: Catalogue
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """The target keys found, and what each missing one costs: the scenarios that need it
    and the gate rules only those scenarios check."""
    config = target.config
    found = tuple(key for key in TARGET_KEYS if config.get(key) is not None)
    missing = []
    for key in TARGET_KEYS:
        if key in found:
            continue
        needing = [s for s in scenarios if key in s.needs]
        if key == "organization_id" or not needing:
            # organization_id is discovered when absent; a key nothing needs costs nothing.
            cost = "discovered through viewer" if key == "organization_id" else "nothing"
            missing.append((key, cost))
            continue
        others = [s for s in scenarios if key not in s.needs]
        lost = sorted(
            {
                rule
                for s in needing
                for rule in s.rules
                if rule in catalogue
                and catalogue[rule].is_gate
                and not any(rule in o.rules for o in others)
            }
        )
        cost = f"{len(needing)} scenario(s) not checked"
        cost += f"; gate rules not checked: {', '.join(lost)}" if lost else ""
        missing.append((key, cost))
    return found, tuple(missing)


def skip_reason(scenario: Scenario, context: RunContext) -> str:
    """Why ``scenario`` cannot run on this target, or ``""``."""
    target = context.target
    options = context.options
    if scenario.control and target.control is None:
        return NEEDS_CONTROL
    missing = [
        key
        for key in scenario.needs
        if key != "organization_id" and context.config.get(key) is None
    ]
    if missing:
        return f"needs {', '.join(missing)}"
    if scenario.writes and target.live and not options.allow_writes:
        return "writes to the deployment; run with --allow-writes"
    if scenario.untracked_writes and target.live:
        return UNTRACKED_WRITES
    if (
        scenario.bulk
        and target.live
        and target.config.production
        and scenario.id not in options.explicit
    ):
        return (
            "writes in bulk, which a production target refuses unless the scenario is named: "
            f"--scenario {scenario.id}"
        )
    if "organization_id" in scenario.needs:
        organization, why = context.organization_id()
        if organization is None:
            return why
    return ""
