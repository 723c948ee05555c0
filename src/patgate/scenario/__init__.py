"""The scenario format: YAML files validated at load into frozen, typed values.

See ``specs/scenario.schema.json`` for the shape and the runner tutorial
(docs/tutorials/live-runner.md) for a walk-through."""

from __future__ import annotations

from patgate.scenario.catalogue import Catalogue, Rule, load_catalogue
from patgate.scenario.loader import (
    ScenarioFile,
    find_scenario_files,
    load_file,
    load_scenarios,
    load_text,
)
from patgate.scenario.model import (
    TARGET_KEYS,
    Capture,
    ControlCall,
    Expectation,
    GraphqlCall,
    HttpCall,
    HubsCall,
    Scenario,
    Step,
    TokenCall,
    WaitCall,
)

__all__ = [
    "TARGET_KEYS",
    "Capture",
    "Catalogue",
    "ControlCall",
    "Expectation",
    "GraphqlCall",
    "HttpCall",
    "HubsCall",
    "Rule",
    "Scenario",
    "ScenarioFile",
    "Step",
    "TokenCall",
    "WaitCall",
    "find_scenario_files",
    "load_catalogue",
    "load_file",
    "load_scenarios",
    "load_text",
]
