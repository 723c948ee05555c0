"""The one neutraliser of untrusted text (:mod:`patgate.guards.untrusted_text`): no workflow
command a target, a scenario file or a waivers file writes reaches a GitHub runner, in the
terminal, in an annotation or in the step summary; each check has its twin, the raw text
that the runner would read as a command."""

from __future__ import annotations

import io

import pytest

from patgate.guards.untrusted_text import (
    annotation_data,
    annotation_property,
    commands_stopped,
    markdown_text,
    one_line,
    print_untrusted,
    printable,
    safe_text,
)
from tests.actions_runner import (
    BREAK_KINDS,
    COMMAND_FORMS,
    LINE_BREAKS,
    hostile_payloads,
    read_commands,
)

PAYLOADS = hostile_payloads()
RAW_COMMANDS = [p for p in PAYLOADS if not p.lstrip("".join(BREAK_KINDS)).startswith("%")]
"""The payloads the runner reads as a command when printed as they are (``%0A...`` is a
command only if an annotation's message failed to escape its ``%``)."""


@pytest.mark.parametrize("payload", RAW_COMMANDS, ids=repr)
def test_raw_hostile_text_is_a_command_to_the_runner(payload: str) -> None:
    """The twin of the tests below: unescaped, each payload is a command."""
    assert read_commands("patgate: " + payload + "\n").commands or read_commands(payload).commands


@pytest.mark.parametrize("payload", PAYLOADS, ids=repr)
def test_safe_text_holds_no_command_even_indented_or_after_a_prefix(payload: str) -> None:
    for shown in (safe_text(payload), one_line(payload)):
        for printed in (shown, "      " + shown.replace("\n", "\n      "), "actual: " + shown):
            assert read_commands(printed).commands == [], printed
    assert LINE_BREAKS.search(one_line(payload)) is None
    assert len(one_line(payload).splitlines()) == 1


def test_every_line_break_but_newline_is_shown_as_an_escape() -> None:
    text = "a" + "b".join(BREAK_KINDS) + "c"
    assert safe_text(text).splitlines() == safe_text(text).split("\n")
    assert safe_text("x\ny") == "x\ny"
    assert safe_text("x\r\ny") == "x\ny"
    assert one_line("x\ny\u2028z\x85w\rv") == "x\\ny\\u2028z\\x85w\\rv"


def test_the_legacy_form_and_a_leading_double_colon_are_defused_visibly() -> None:
    assert safe_text("ok ##[set-output name=x;]v") == "ok #\\x23[set-output name=x;]v"
    assert safe_text("  ::error::x") == "  \\x3a:error::x"
    assert safe_text("a::b::c") == "a::b::c", "only a line's start is a command"
    assert safe_text("#\u00ad#[x]") == "#\\xad#[x]", "an invisible character is shown"
    assert printable("tab\tand\nnewline\x1b") == "tab\tand\nnewline\\x1b"


@pytest.mark.parametrize("payload", PAYLOADS, ids=repr)
def test_an_annotation_carries_the_text_as_data_and_nothing_else(payload: str) -> None:
    line = f"::error file={annotation_property(payload)},title=T::{annotation_data(payload)}"
    view = read_commands(line + "\n")
    assert [c.name for c in view.commands] == ["error"]
    (command,) = view.commands
    assert command.data == safe_text(payload), "the runner shows the text, %0A stays %0A"
    assert command.properties == {"file": one_line(payload), "title": "T"}


def test_github_escapes_of_annotations() -> None:
    assert annotation_data("100%\r\nx\ry") == "100%25%0Ax\\ry"
    assert annotation_property("a:b,c%\nd") == "a%3Ab%2Cc%25\\nd"


def test_markdown_text_stays_in_its_cell_and_its_markup_is_inert() -> None:
    cell = markdown_text("a|b\nc\u2028d <!-- [x](http://e) `c` *e* \\")
    assert "\n" not in cell
    assert LINE_BREAKS.search(cell) is None
    assert cell == ("a\\|b\\\\nc\\\\u2028d \\<\\!-- \\[x\\](http://e) \\`c\\` \\*e\\* \\\\")
    assert markdown_text("") == " "


@pytest.mark.parametrize("payload", RAW_COMMANDS[:8], ids=repr)
def test_a_stop_commands_block_keeps_raw_text_from_the_runner(payload: str) -> None:
    stream = io.StringIO()
    with commands_stopped(stream, github=True):
        stream.write(payload + "\n")
    stream.write("::error title=patgate run::exit 1\n")
    view = read_commands(stream.getvalue())
    assert view.names() == ["stop-commands", "error"]
    assert view.open_block is None
    assert len(view.blocks) == 1


def test_without_the_block_the_same_raw_text_is_read() -> None:
    """The twin: outside GitHub Actions no block is printed, and raw text is read."""
    stream = io.StringIO()
    with commands_stopped(stream, github=False):
        stream.write("::set-output name=x::v\n")
    assert read_commands(stream.getvalue()).names() == ["set-output"]


def test_each_block_has_a_fresh_token_and_resumes_even_when_it_raises() -> None:
    stream = io.StringIO()
    with pytest.raises(RuntimeError), commands_stopped(stream, github=True):
        raise RuntimeError("boom")
    with commands_stopped(stream, github=True):
        pass
    first, resume, second, _ = stream.getvalue().splitlines()
    assert first.startswith("::stop-commands::")
    token = first.removeprefix("::stop-commands::")
    assert len(token) == 32
    assert resume == f"::{token}::"
    assert second != first


def test_print_untrusted_prints_safe_text(capsys: pytest.CaptureFixture[str]) -> None:
    print_untrusted("one\n::set-output name=x::v\u2028##[error]y")
    out = capsys.readouterr().out
    assert out == "one\n\\x3a:set-output name=x::v\\u2028#\\x23[error]y\n"
    assert read_commands(out).commands == []


def test_the_hostile_forms_cover_the_commands_that_change_a_job() -> None:
    names = {form.split("::")[1].split(" ")[0] for form in COMMAND_FORMS if "::" in form}
    assert {"set-output", "add-mask", "stop-commands", "error", "notice", "warning"} <= names
    assert {"group", "save-state"} <= names
