from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from patgate.errors import UsageError
from patgate.reporting import Reporter, make_reporter
from patgate.runner.results.events import Event
from tests.reporting.sample import feed_events


@pytest.mark.parametrize("kind", ["json", "junit", "html"])
def test_a_file_report_creates_its_folder_up_front(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "reports" / "nested" / f"out.{kind}"
    reporter = make_reporter(f"{kind}:{path}", stream=io.StringIO())
    assert isinstance(reporter, Reporter)
    assert path.parent.is_dir()
    assert not path.exists()


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("xml:out.xml", "unknown report kind 'xml'"),
        ("", "unknown report kind ''"),
        ("json", "report 'json' needs a file path"),
        ("junit:", "report 'junit' needs a file path"),
        ("html:   ", "report 'html' needs a file path"),
        ("terminal:out.txt", "terminal takes no path"),
    ],
)
def test_a_bad_spec_names_the_problem(spec: str, problem: str) -> None:
    with pytest.raises(UsageError, match=problem):
        make_reporter(spec, stream=io.StringIO())


def test_an_unknown_kind_lists_the_kinds_there_are() -> None:
    with pytest.raises(UsageError, match="use one of terminal, json:PATH, junit:PATH, html:PATH"):
        make_reporter("yaml:out.yaml", stream=io.StringIO())


def test_a_folder_that_cannot_be_created_is_a_usage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "plain-file"
    blocker.write_text("")
    with pytest.raises(UsageError, match=r"cannot create folder .*plain-file"):
        make_reporter(f"json:{blocker / 'report.json'}", stream=io.StringIO())


def test_a_folder_as_the_path_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="is a folder"):
        make_reporter(f"html:{tmp_path}", stream=io.StringIO())


def test_several_reporters_run_side_by_side(tmp_path: Path, sample_run: list[Event]) -> None:
    stream = io.StringIO()
    reporters = [
        make_reporter(spec, stream=stream)
        for spec in (
            "terminal",
            f"json:{tmp_path / 'r.json'}",
            f"junit:{tmp_path / 'r.xml'}",
            f"html:{tmp_path / 'r.html'}",
        )
    ]
    for event in sample_run:
        for reporter in reporters:
            reporter.handle(event)
    for reporter in reporters:
        reporter.close()
    assert "1 failed" in stream.getvalue()
    assert json.loads((tmp_path / "r.json").read_text())["exit_code"] == 1
    junit = ET.parse(tmp_path / "r.xml")  # noqa: S314 - the file this test just wrote
    assert junit.getroot().attrib["failures"] == "1"
    assert "patgate conformance report" in (tmp_path / "r.html").read_text()


def test_a_terminal_report_writes_to_the_given_stream(sample_run: list[Event]) -> None:
    stream = io.StringIO()
    feed_events(make_reporter(" Terminal ", stream=stream), sample_run)
    assert "exit 1" in stream.getvalue()


def test_the_public_names_are_sorted_and_importable() -> None:
    import patgate.reporting

    assert patgate.reporting.__all__ == sorted(patgate.reporting.__all__)
    for name in patgate.reporting.__all__:
        assert hasattr(patgate.reporting, name)
