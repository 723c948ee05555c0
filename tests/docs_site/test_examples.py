"""Every example README.md and the pages under docs/ show runs (tests/docs_site/examples.py
says what an example is and how a page marks one not to run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs_site.examples import (
    ROOT,
    DirectiveError,
    Example,
    Outcome,
    examples,
    pages,
    refusal,
    run_page,
)

MD = ".md"  # page names are built with it: not citations of pages (test_stands_alone)


def _page(tmp_path: Path, text: str) -> Path:
    page = tmp_path / f"page{MD}"
    page.write_text(text, encoding="utf-8")
    (tmp_path / "run").mkdir()
    return page


def _statuses(outcomes: list[Outcome]) -> list[str]:
    return [outcome.status for outcome in outcomes]


def test_the_pages_include_the_readme_and_every_docs_page() -> None:
    found = pages()
    assert ROOT / f"README{MD}" in found
    assert ROOT / "docs" / f"security{MD}" in found
    assert ROOT / "docs" / "tutorials" / f"fixture{MD}" in found


def test_a_python_example_runs_and_a_broken_one_fails(tmp_path: Path) -> None:
    page = _page(
        tmp_path,
        "```python\nimport patgate\nprint(patgate.__version__)\n```\n\n"
        "```python\nraise SystemExit('this example is broken')\n```\n",
    )
    outcomes = run_page(page, tmp_path / "run")
    assert _statuses(outcomes) == ["passed", "failed"]
    assert "this example is broken" in outcomes[1].detail


def test_skip_continue_exit_and_file_directives_are_obeyed(tmp_path: Path) -> None:
    page = _page(
        tmp_path,
        "<!-- example: skip it needs a live deployment -->\n```python\nraise SystemExit(1)\n```\n"
        "```python\nanswer = 42\n```\n"
        "<!-- example: continue -->\n```python\nassert answer == 42\n```\n"
        "<!-- example: exit 3 -->\n```python\nraise SystemExit(3)\n```\n"
        "<!-- example: file data/note.txt -->\n```text\nwritten\n```\n"
        "```python\nassert open('data/note.txt').read() == 'written\\n'\n```\n",
    )
    outcomes = run_page(page, tmp_path / "run")
    assert _statuses(outcomes) == ["skipped", "passed", "passed", "passed", "passed", "passed"]
    assert outcomes[0].detail == "it needs a live deployment"


@pytest.mark.slow
def test_a_python_example_with_tests_runs_under_pytest_with_the_fixtures(tmp_path: Path) -> None:
    page = _page(
        tmp_path,
        "```python\ndef test_the_fixture(patgate_fake):\n    assert patgate_fake.world\n```\n",
    )
    assert _statuses(run_page(page, tmp_path / "run")) == ["passed"]


@pytest.mark.slow
def test_shell_examples_run_the_projects_patgate(tmp_path: Path) -> None:
    page = _page(
        tmp_path,
        "```sh\npatgate --version\n.venv/bin/patgate rules > rules.txt\ntest -s rules.txt\n```\n"
        "```console\n$ patgate no-such-command\nwhatever it printed\n```\n"
        "<!-- example: exit 2 -->\n```console\n$ patgate no-such-command\n```\n"
        "```sh\necho 'no patgate here: not an example'\n```\n",
    )
    (tmp_path / "run" / ".venv").symlink_to(Path(__import__("sys").prefix))
    outcomes = run_page(page, tmp_path / "run")
    assert _statuses(outcomes) == ["passed", "failed", "passed"]
    assert "exited 2, expected 0" in outcomes[1].detail


@pytest.mark.slow
def test_a_serving_example_passes_once_it_listens_and_is_stopped(tmp_path: Path) -> None:
    page = _page(tmp_path, "<!-- example: serves -->\n```sh\npatgate serve --port 0\n```\n")
    [outcome] = run_page(page, tmp_path / "run")
    assert outcome.status == "passed", outcome.detail


def test_examples_that_would_leave_loopback_or_install_are_refused(tmp_path: Path) -> None:
    def refused(language: str, code: str) -> str:
        return refusal(Example(f"page{MD}", 1, language, code))

    assert "auth.example.com, not a loopback host" in refused(
        "sh", "patgate run --auth-url https://auth.example.com\n"
    )
    assert "10.0.0.1" in refused("python", "import httpx\nhttpx.get('http://10.0.0.1/')\n")
    assert "installs packages" in refused("sh", ".venv/bin/pip install -e . && patgate run\n")
    assert (
        refused("sh", "patgate run --auth-url http://127.0.0.1:9 --base-url http://[::1]:9\n") == ""
    )
    page = _page(tmp_path, "```sh\npatgate run --auth-url https://auth.example.com\n```\n")
    [outcome] = run_page(page, tmp_path / "run")  # refused before anything runs
    assert outcome.status == "failed"
    assert "not a loopback host" in outcome.detail


def test_an_unknown_directive_or_extra_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DirectiveError, match="cannot read"):
        examples(_page(tmp_path, "<!-- example: sometimes -->\n```python\npass\n```\n"))
    page = tmp_path / f"extra{MD}"
    page.write_text("<!-- example: needs nosuch -->\n```python\npass\n```\n")
    with pytest.raises(DirectiveError, match="no extra 'nosuch'"):
        run_page(page, tmp_path / "run")


def test_an_example_needing_a_missing_extra_is_skipped_with_the_extra_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.metadata

    real_version = importlib.metadata.version

    def version(name: str) -> str:
        if name == "faker":
            raise importlib.metadata.PackageNotFoundError(name)
        return real_version(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    page = _page(tmp_path, "<!-- example: needs worlds -->\n```python\nraise SystemExit(1)\n```\n")
    [outcome] = run_page(page, tmp_path / "run")
    assert (outcome.status, outcome.detail) == ("skipped", "needs the worlds extra")


@pytest.mark.slow
@pytest.mark.parametrize("page", pages(), ids=lambda page: str(page.relative_to(ROOT)))
def test_every_example_of_the_page_runs(page: Path, tmp_path: Path) -> None:
    (tmp_path / ".venv").symlink_to(Path(__import__("sys").prefix))
    outcomes = run_page(page, tmp_path, str(page.relative_to(ROOT)))
    failed = [str(outcome) for outcome in outcomes if outcome.status == "failed"]
    assert failed == [], "\n\n".join(failed)
