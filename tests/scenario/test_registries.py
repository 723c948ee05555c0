"""The vocabularies of the scenario format: each registry is complete, and the published
schema is exactly what the registries generate (the site's scenario format page is generated
from them at every build)."""

from __future__ import annotations

import json

import pytest

import patgate.runner.execution.scenario_execution  # noqa: F401 - binds the step kinds' and actions' executors
from patgate.basics.resources import specs_dir
from patgate.control_client import ControlClient
from patgate.harness import Fake
from patgate.runner.connection.config import TargetConfig
from patgate.runner.connection.control_plane import ACTIONS
from patgate.runner.connection.fake import FakeControl
from patgate.runner.connection.served_fake_control import HttpControl
from patgate.scenario import load_text
from patgate.scenario.check_kinds import CHECKS
from patgate.scenario.control_actions import CONTROL_ACTIONS
from patgate.scenario.registry import Entry, Registry
from patgate.scenario.schema_document import scenario_schema
from patgate.scenario.step_kinds import STEP_KINDS

REGEN = "regenerate with `python -m patgate.scenario.schema_document`"


@pytest.mark.parametrize("registry", [CHECKS, STEP_KINDS, CONTROL_ACTIONS], ids=lambda r: r.what)
def test_every_entry_has_an_executor(registry: Registry[object, object]) -> None:
    assert registry.unbound() == []
    assert set(registry.executors) == set(registry.names())


def test_the_published_schema_is_the_generated_one() -> None:
    published = json.loads((specs_dir() / "scenario.schema.json").read_text(encoding="utf-8"))
    assert published == scenario_schema(), REGEN


def test_every_control_performs_every_control_action() -> None:
    # Both controls do each action as the one table says; an action the table lacks is
    # refused as unknown by both, and an entry of the table no scenario can name is dead.
    assert [name for name in CONTROL_ACTIONS.names() if name not in ACTIONS] == []
    assert [name for name in ACTIONS if name not in CONTROL_ACTIONS] == []
    with pytest.raises(ValueError, match="unknown control action 'teleport'"):
        FakeControl(Fake()).perform("teleport", "member")
    config = TargetConfig({"base_url": "http://127.0.0.1:1"})
    served = HttpControl(ControlClient("http://127.0.0.1:1", "t"), config)
    refused = served.perform("teleport", "member")
    assert not refused.ok
    assert "unknown control action 'teleport'" in refused.message


def test_the_fake_performs_the_user_actions() -> None:
    fake = Fake()
    control = FakeControl(fake)
    member = fake.default_world.member_id
    organization = fake.default_world.organization_id
    assert control.perform("set_role", {"user": "member", "role": "restricted"}).ok
    assert fake.deployment.users[member].memberships[organization].value == "restricted"
    restored = control.perform("restore_user", "member")
    assert restored.ok
    assert restored.values == {"restored": "member", "role": "member"}
    assert fake.deployment.users[member].memberships[organization].value == "member"


def test_a_name_is_declared_once_and_bound_once() -> None:
    registry: Registry[None, object] = Registry("thing")
    registry.add(Entry("a", {}, None, "`a`", "does a"))
    with pytest.raises(ValueError, match="declared twice"):
        registry.add(Entry("a", {}, None, "`a`", "does a"))
    registry.executes("a")(print)
    with pytest.raises(ValueError, match="already has an executor"):
        registry.executes("a")(print)
    with pytest.raises(ValueError, match="no thing 'b' is declared"):
        registry.executes("b")(print)
    with pytest.raises(LookupError, match="has no executor"):
        Registry("other").executor("a")


def test_a_step_kind_removed_from_the_registry_is_refused_at_load() -> None:
    # The loader reads the vocabulary from the registry: a key it does not declare is an
    # error naming the allowed kinds.
    text = "id: x\ntitle: t\nrules: [TOKEN-OK]\nsteps:\n  - teleport: true\n"
    with pytest.raises(Exception, match="teleport"):
        load_text(text, "x.yaml")
