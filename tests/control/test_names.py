"""One vocabulary of control operations: the Python client, the fake and the flags agree."""

from __future__ import annotations

import argparse
import inspect

from patgate.commands import serve
from patgate.control_client import ControlClient, RemoteFaults
from patgate.fake.faults import Faults
from patgate.harness import Fake
from patgate.wire.control_service import ControlService
from patgate.wire.request_log import DEFAULT_LOG_SIZE

_TRANSPORT = {"call", "close", "url", "faults"}


def _public(cls: type) -> set[str]:
    return {name for name, _ in inspect.getmembers(cls) if not name.startswith("_")}


def test_the_control_client_has_the_fakes_control_methods_by_name() -> None:
    client = _public(ControlClient) - _TRANSPORT
    assert client <= _public(Fake), client - _public(Fake)
    # every control operation of the service is reachable from both
    service = _public(ControlService) - {
        "deployment",
        "world",
        "request_log",
        "faults",
        "clock_view",
        "seeded_state",
        "seeded_state_source",
    }
    assert service <= client, service - client


def test_remote_faults_have_the_names_of_the_fault_book() -> None:
    assert _public(RemoteFaults) <= _public(Faults)


def test_the_log_size_flag_defaults_to_the_logs_own_default() -> None:
    parser = argparse.ArgumentParser()
    serve.configure(parser)
    [action] = [a for a in parser._actions if a.dest == "log_size"]
    assert f"(default: {DEFAULT_LOG_SIZE})" in (action.help or "")
