"""ARCHITECTURE.md's recipes hold when followed: each, done mechanically in a copy of the tree.

Each recipe below is a list of small edits that mirror the recipe's text (add this entry
here, this executor there, regenerate, add the test it asks for), applied to a temporary copy
of the repository. The test then checks that the recipe touched at most
:data:`MOST_FILES` files, that ARCHITECTURE.md's recipe names every file it touched, and that
the tests the recipe names pass in the copy with the toy added.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
MOST_FILES = 5
_COPIED = ("src", "tests", "specs", "scenarios", "docs", "benchmarks", "examples")
_COPIED_FILES = ("README.md", "ARCHITECTURE.md", "CHANGELOG.md", "pyproject.toml", "conftest.py")


@dataclass(frozen=True)
class Insert:
    """Put ``text`` after the first ``after`` in ``path`` (at the end when ``after`` is empty).

    ``path`` may be a glob: the edit goes to the one file it matches that holds ``holding``
    (the module that executes the step kinds, wherever the runner keeps it).
    """

    path: str
    text: str
    after: str = ""
    holding: str = ""


@dataclass(frozen=True)
class Regenerate:
    """Run ``python -m MODULE ARGS`` in the copy, as the recipe says to."""

    module: str
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Recipe:
    heading: str
    """The recipe's bold heading in ARCHITECTURE.md: ``**An endpoint.**``."""
    steps: tuple[Insert | Regenerate, ...]
    tests: tuple[str, ...]


_API_PATHS = "src/patgate/service/api_paths.py"

ENDPOINT = Recipe(
    "**An endpoint.**",
    (
        Insert(
            _API_PATHS,
            '\nHUB_TOYS = _content("hub toys", "/hubs/{hub_id}/toys")\n',
            after='EVENT_EDITIONS = _content("event editions", "/events/{id}/editions")\n',
        ),
        Insert(_API_PATHS, "    HUB_TOYS,\n", after="    EVENT_EDITIONS,\n"),
        Insert(_API_PATHS, '    "HUB_TOYS",\n', after='    "HUB_EXTENSIONS",\n'),
        Insert(
            "src/patgate/wire/content_resources.py",
            '''

class HubToysEndpoint(ContentEndpoint):
    """``GET /hubs/{hub_id}/toys``: an empty HAL page of a hub's toys."""

    def respond(self, request: WireRequest, call: Call) -> WireResponse:
        """An empty page of toys of a hub the caller may read."""
        hub = self.deployment.read_hub(_caller(call), call.params["hub_id"])
        listing_url = api_paths.HUB_TOYS.url(self.urls.base_url, hub_id=hub.id)
        return _hal(hal_page("toys", [], 0, dict, page_request(call.query), listing_url))
''',
        ),
        Insert(
            "src/patgate/wire/content_resources.py",
            "    routes.append((api_paths.HUB_TOYS, HubToysEndpoint))\n",
            after="    routes.append((api_paths.EVENT_EDITIONS, EditionsEndpoint))\n",
        ),
        Insert(
            "specs/openapi.yaml",
            """  /v2/content/hubs/{hub_id}/toys:
    get:
      tags: [content]
      operationId: listHubToys
      summary: A hub's toys
      description: A HAL page under `_embedded.toys`.
      security:
        - bearerToken: []
      parameters:
        - $ref: "#/components/parameters/HubId"
        - $ref: "#/components/parameters/Page"
        - $ref: "#/components/parameters/Size"
      responses:
        "200":
          description: One page of toys.
          content:
            application/hal+json:
              schema:
                $ref: "#/components/schemas/ContentPage"
        "401":
          $ref: "#/components/responses/Unauthorized"
        "404":
          $ref: "#/components/responses/NotFound"
""",
            after="\npaths:\n",
        ),
        Insert(
            "tests/wire/test_toys.py",
            """from patgate.fake.world import DefaultWorld
from patgate.wire import WireApp, WireRequest
from tests.specs.test_openapi import component_validator
from tests.wire.conftest import HUBS_URL


def test_a_hubs_toys_are_an_empty_page(app: WireApp, world: DefaultWorld) -> None:
    bearer = (("Authorization", f"Bearer {world.admin_token}"),)
    hubs = app(WireRequest("GET", HUBS_URL, bearer))
    assert hubs is not None
    hub_id = hubs.json()["_embedded"]["hubs"][0]["id"]
    answer = app(WireRequest("GET", f"{HUBS_URL}/{hub_id}/toys", bearer))
    assert answer is not None and answer.status == 200
    component_validator("ContentPage").validate(answer.json())
    missing = app(WireRequest("GET", f"{HUBS_URL}/{'0' * 24}/toys", bearer))
    assert missing is not None and missing.status == 404
""",
        ),
    ),
    (
        "tests/wire/test_toys.py",
        "tests/wire/test_openapi_routes.py",
        "tests/wire/test_router.py",
        "tests/wire/test_link_walk.py",
        "tests/specs/test_openapi.py",
    ),
)

CHECK = Recipe(
    "**A check.**",
    (
        Insert(
            "src/patgate/scenario/check_kinds.py",
            '_check("toy_even", {"const": True}, "`toy_even: true`", "the status is even")\n',
        ),
        Insert(
            "src/patgate/checks.py",
            '''

@CHECKS.executes("toy_even")
def check_toy_even(observed: Observed, call: CheckCall) -> None:
    """``toy_even: true``: the status is even."""
    if observed.status % 2:
        raise _fail("expected an even status", "an even status", observed.summary())
''',
        ),
        Regenerate("patgate.scenario.schema_document"),
        Insert(
            "tests/runner/test_checks.py",
            """

def test_toy_even_passes() -> None:
    passes("toy_even", Observed(200, "{}"), True)


def test_toy_even_fails_on_an_odd_status() -> None:
    failure = fails("toy_even", Observed(201, "{}"), True)
    assert failure.expected == "an even status"
""",
        ),
    ),
    ("tests/runner/test_checks.py", "tests/scenario/test_registries.py"),
)

STEP_KIND = Recipe(
    "**A step kind.**",
    (
        Insert(
            "src/patgate/scenario/step_kinds.py",
            "from dataclasses import dataclass\n",
            after="import re\n",
        ),
        Insert(
            "src/patgate/scenario/step_kinds.py",
            """

@dataclass(frozen=True)
class HubCall(Request):
    "Get one hub by id."

    hub_id: str


def _hub(
    builder: Building, value: Any, raw: Mapping[str, Any], where: list[str | int], loop: set[str]
) -> Request:
    builder.target_keys.add("base_url")
    return HubCall(str(value))


_kind("hub", {"type": "string"}, _hub, "`hub: ID`", "gets `{base_url}/v2/content/hubs/ID`")
""",
        ),
        Insert(
            "src/patgate/runner/**/*.py",
            """

@STEP_KINDS.executes("hub")
def _toy_hub(execution: Executing, request: HubCall, sending: Sending) -> Observed:
    from patgate.scenario.expressions import substitute

    hub_id = substitute(request.hub_id, sending.lookup)
    url = f"{sending.lookup('base_url')}/v2/content/hubs/{hub_id}"
    return execution.context.exchange.send("GET", url, kind="hub", headers=sending.headers)
""",
            holding='@STEP_KINDS.executes("hubs")',
        ),
        Regenerate("patgate.scenario.schema_document"),
        Insert(
            "tests/scenario/test_toy_hub.py",
            '''from pathlib import Path

import pytest

from patgate.cli import main

SCENARIO = """
id: toy-hub
title: One hub by its id
rules: [HUBS-HAL]
steps:
  - name: find a hub
    hubs: true
    bearer: ${admin_token}
    capture:
      hub: _embedded.hubs[0].id
  - name: get it by id
    hub: ${hub}
    bearer: ${admin_token}
    expect:
      - {status: 200, rule: HUBS-HAL}
"""


def test_the_hub_step_runs_on_the_fake(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "toy.yaml").write_text(SCENARIO, encoding="utf-8")
    assert main(["run", "--scenarios", str(tmp_path)]) == 0, capsys.readouterr().out
''',
        ),
    ),
    ("tests/scenario/test_toy_hub.py", "tests/scenario/test_registries.py"),
)

RULE = Recipe(
    "**A rule.**",
    (
        Insert(
            "specs/rules.yaml",
            """  - id: TOY-TOKEN-TYPE
    title: The token type is named
    sections: ["2.5"]
    level: advisory
    source:
      section: "2.5"
      clause: "Lifetime of the token. Generally 300."
    summary: A toy rule, checked by a toy scenario.
    needs: {writes: false, waits: false, control: false}

""",
            after="\nrules:\n",
        ),
        Regenerate("patgate.scenario.clause_table", ("docs/clauses.md",)),
        Insert(
            "scenarios/toy-token-type.yaml",
            """id: toy-token-type
title: The token type is named
rules: [TOY-TOKEN-TYPE]
steps:
  - name: ask for a token
    token:
      client_id: ${client_id}
      client_secret: ${client_secret}
      grant_type: client_credentials
    expect:
      - {path: token_type, type: string, rule: TOY-TOKEN-TYPE}
""",
        ),
    ),
    ("tests/specs/test_rules.py", "tests/runner/test_engine.py", "tests/selftest/test_faults.py"),
)

CONTROL_ACTION = Recipe(
    "**A control action.**",
    (
        Insert(
            "src/patgate/scenario/control_actions.py",
            '_action("demote", _PRINCIPAL, "`demote: member`", "makes the principal restricted")\n',
        ),
        Insert(
            "src/patgate/runner/connection/control_plane.py",
            """

@_performs("demote")
def _demote(plane: ControlPlane, argument: Any) -> dict[str, Any]:
    plane.set_role(plane.user_id(argument), "restricted")
    return {"demoted": argument}
""",
        ),
        Regenerate("patgate.scenario.schema_document"),
        Insert(
            "tests/scenario/test_toy_demote.py",
            '''from pathlib import Path

import pytest

from patgate.cli import main

SCENARIO = """
id: toy-demote
title: A demoted admin can no longer create tokens
rules: [PAT-LOST-PERMISSION]
steps:
  - name: demote the admin
    control: {demote: admin}
  - name: the demoted admin's token cannot create
    graphql: create_token
    args: {name: "${new_name}"}
    bearer: ${admin_token}
    expect:
      - {error: true, rule: PAT-LOST-PERMISSION}
cleanup:
  - name: make them admin again
    control: {restore_user: admin}
"""


def test_demote_runs_on_the_fake(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "toy.yaml").write_text(SCENARIO, encoding="utf-8")
    assert main(["run", "--scenarios", str(tmp_path)]) == 0, capsys.readouterr().out
''',
        ),
    ),
    ("tests/scenario/test_toy_demote.py", "tests/scenario/test_registries.py"),
)

RECIPES = {
    "endpoint": ENDPOINT,
    "check": CHECK,
    "step kind": STEP_KIND,
    "rule": RULE,
    "control action": CONTROL_ACTION,
}


def _copy_tree(into: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", ".cache", "*.pyc", ".mypy_cache", ".ruff_cache")
    for name in _COPIED:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, into / name, ignore=ignore)
    for name in _COPIED_FILES:
        shutil.copy2(ROOT / name, into / name)
    return into


def _digests(tree: Path) -> dict[str, str]:
    return {
        path.relative_to(tree).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in tree.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def _environment(tree: Path) -> dict[str, str]:
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join([str(tree / "src"), str(tree)])
    return environment


def _apply(step: Insert | Regenerate, tree: Path) -> None:
    if isinstance(step, Regenerate):
        done = subprocess.run(
            [sys.executable, "-m", step.module, *step.args],
            cwd=tree,
            env=_environment(tree),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return
    if "*" in step.path:
        found = [
            path
            for path in sorted(tree.glob(step.path))
            if step.holding in path.read_text(encoding="utf-8")
        ]
        assert len(found) == 1, f"{step.path} holding {step.holding!r}: {found}"
        path = found[0]
    else:
        path = tree / step.path
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if step.after:
        assert step.after in text, f"{path.relative_to(tree)} no longer holds {step.after!r}"
        at = text.index(step.after) + len(step.after)
        text = text[:at] + step.text + text[at:]
    else:
        text += step.text
    path.write_text(text, encoding="utf-8")


def _recipe_text(heading: str) -> str:
    architecture = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert heading in architecture, f"ARCHITECTURE.md has no recipe {heading}"
    return architecture.split(heading, 1)[1].split("\n\n", 1)[0]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(RECIPES))
def test_following_the_recipe_adds_a_working_toy(name: str, tmp_path: Path) -> None:
    recipe = RECIPES[name]
    tree = _copy_tree(tmp_path / "tree")
    before = _digests(tree)
    for step in recipe.steps:
        _apply(step, tree)
    after = _digests(tree)
    touched = sorted(path for path in after if before.get(path) != after[path])
    assert len(touched) <= MOST_FILES, f"the {name} recipe touches {touched}"
    # The recipe's text names every source file it had to touch (tests and generated files
    # are named by what they are: "Regenerate", "Tests").
    text = _recipe_text(recipe.heading)
    for path in touched:
        if path.startswith("tests/") or path == "specs/scenario.schema.json":
            continue
        shown = re.sub(r"^src/patgate/", "", path)
        folder = shown.rpartition("/")[0] + "/"
        new_in_named_folder = path not in before and f"`{folder}`" in text
        assert shown in text or Path(path).name in text or new_in_named_folder, (
            f"the {name} recipe never names {path}"
        )
    pytest_command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [*pytest_command, "--run-slow", "-x", *recipe.tests],
        cwd=tree,
        env=_environment(tree),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
