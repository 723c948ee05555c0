"""``patgate compare``'s reports: JSON, JUnit XML and HTML, from one :class:`Comparison`.

The JSON document has a top-level ``drift`` list (field, the fake's answer, the target's
answer, the request that showed it), an ``accepted`` list (a drift the profile accepts, with
its reason and expiry), a ``noise`` list (differences in values that change on every call), a
``checked`` list and the gate failures. JUnit holds one test case per field (a failure per
drift, a passed case per accepted difference) and one per gate failure; HTML one table of
each. Every value was redacted when it was recorded; text is made printable and escaped.
"""

from __future__ import annotations

import html
import json
import os
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from patgate.calibration.comparison import RUN_HINT, Comparison
from patgate.errors import UsageError
from patgate.reporting.artifact import prepare_path
from patgate.reporting.text import printable

__all__ = ["REPORT_KINDS", "parse_reports", "write_reports", "write_text"]

REPORT_KINDS = ("json", "junit", "html")


def parse_reports(specs: list[str]) -> list[tuple[str, Path]]:
    """``KIND:PATH`` values checked (known kind, a writable folder) before any request."""
    reports = []
    for spec in specs:
        kind, colon, raw = spec.partition(":")
        kind = kind.strip().lower()
        if kind not in REPORT_KINDS or not colon:
            raise UsageError(
                f"report {spec!r}: use json:PATH, junit:PATH or html:PATH (the terminal "
                "view is always printed)"
            )
        reports.append((kind, prepare_path(raw, kind=kind)))
    return reports


def _shown(value: Any) -> str:
    return printable(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file renamed into place)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def json_report(comparison: Comparison) -> str:
    """The JSON report's text."""
    return json.dumps(comparison.as_json(), indent=2, ensure_ascii=False) + "\n"


def junit_report(comparison: Comparison) -> str:
    """The JUnit XML report's text: a test case per field and per gate failure."""
    cases = len(comparison.checked) + len(comparison.drift) + len(comparison.gate_failures)
    cases += len(comparison.accepted)
    failures = len(comparison.drift) + len(comparison.gate_failures)
    suite = ET.Element(
        "testsuite",
        name="patgate compare",
        tests=str(cases),
        failures=str(failures),
        errors="1" if comparison.unreachable else "0",
    )
    if comparison.unreachable:
        case = ET.SubElement(suite, "testcase", classname="compare", name="target")
        ET.SubElement(case, "error", message=printable(comparison.unreachable))
    for same in comparison.checked:
        case = ET.SubElement(suite, "testcase", classname="compare.field", name=same.field)
        if same.reason:
            ET.SubElement(case, "skipped", message=printable(same.reason))
    for drift in comparison.drift:
        case = ET.SubElement(suite, "testcase", classname="compare.field", name=drift.field)
        failure = ET.SubElement(
            case,
            "failure",
            message=f"fake: {_shown(drift.fake)}; target: {_shown(drift.target)}",
        )
        failure.text = printable(drift.request)
    for accepted in comparison.accepted:
        name = accepted.drift.field
        case = ET.SubElement(suite, "testcase", classname="compare.accepted", name=name)
        out = ET.SubElement(case, "system-out")
        out.text = printable(f"accepted until {accepted.expires}: {accepted.reason}")
    for rule in comparison.gate_failures:
        case = ET.SubElement(suite, "testcase", classname="compare.gate", name=rule.rule)
        failure = ET.SubElement(case, "failure", message=printable(f"{rule.what} ({RUN_HINT})"))
        failure.text = printable(rule.request)
    ET.indent(suite)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


def _e(value: Any) -> str:
    return html.escape(_shown(value), quote=True)


def html_report(comparison: Comparison) -> str:
    """The HTML report's text: the verdict, then drift, gate failures and checked fields."""
    verdict = {0: "no drift", 1: "drift", 3: "target unreachable"}[comparison.exit_code]
    parts = [
        "<!doctype html><html lang=en><meta charset=utf-8>",
        "<title>patgate compare</title>",
        "<style>body{font-family:sans-serif}td,th{border:1px solid #ccc;padding:4px;"
        "vertical-align:top;text-align:left}table{border-collapse:collapse}</style>",
        f"<h1>patgate compare: {_e(verdict)}</h1>",
        f"<p>Target {_e(comparison.target)}, profile {_e(comparison.profile)}.</p>",
    ]
    if comparison.unreachable:
        parts.append(f"<p>Unreachable: {_e(comparison.unreachable)}</p>")
    parts.append("<h2>Drift</h2><table><tr><th>field<th>fake<th>target<th>request</tr>")
    parts += [
        f"<tr><td>{_e(d.field)}<td>{_e(d.fake)}<td>{_e(d.target)}<td>{_e(d.request)}</tr>"
        for d in comparison.drift
    ]
    parts.append("</table><h2>Gate failures</h2><table><tr><th>rule<th>what<th>request</tr>")
    parts += [
        f"<tr><td>{_e(b.rule)}<td>{_e(b.what)} ({_e(RUN_HINT)})<td>{_e(b.request)}</tr>"
        for b in comparison.gate_failures
    ]
    parts.append("</table><h2>Accepted</h2><table><tr><th>field<th>reason<th>expires</tr>")
    parts += [
        f"<tr><td>{_e(a.drift.field)}<td>{_e(a.reason)}<td>{_e(a.expires)}</tr>"
        for a in comparison.accepted
    ]
    parts.append("</table><h2>Noise</h2><table><tr><th>field<th>why</tr>")
    parts += [f"<tr><td>{_e(n.field)}<td>{_e(n.why)}</tr>" for n in comparison.noise]
    parts.append("</table><h2>Checked</h2><table><tr><th>field<th>answer<th>request</tr>")
    parts += [
        f"<tr><td>{_e(c.field)}<td>{_e(c.value if not c.reason else 'not observed: ' + c.reason)}"
        f"<td>{_e(c.request)}</tr>"
        for c in comparison.checked
    ]
    parts.append("</table></html>\n")
    return "\n".join(parts)


_WRITERS = {"json": json_report, "junit": junit_report, "html": html_report}


def write_reports(comparison: Comparison, reports: list[tuple[str, Path]]) -> None:
    """Write each report."""
    for kind, path in reports:
        try:
            write_text(path, _WRITERS[kind](comparison))
        except OSError as error:
            raise UsageError(f"cannot write {path}: {error.strerror or error}") from None
