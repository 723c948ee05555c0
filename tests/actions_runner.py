"""Reads printed output as a GitHub Actions runner does: which workflow commands it runs.

The runner reads every line a step prints (stdout and stderr alike):

- a line that starts with ``::`` once leading whitespace is stripped, and has a second
  ``::`` after it, is the command ``::name prop=value,prop=value::data``;
- otherwise a line holding ``##[`` and a ``]`` after it is the legacy command
  ``##[name prop=value;prop=value]data``, wherever it stands in the line;
- after ``::stop-commands::TOKEN`` no command is run until a line whose command is named
  ``TOKEN`` (``::TOKEN::``) resumes them.

Stricter than the runner on purpose: CR, LF, NEL, U+2028 and U+2029 all end a line (a
viewer or a log pipeline may split there), any command name counts (the runner runs only
those it knows), and the format characters a culture-aware .NET search skips (soft hyphen,
zero-width space, ...) are dropped before a line is read.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

LINE_BREAKS = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
"""Where a line ends."""

_SKIPPED = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0") | frozenset(
    chr(code) for code in (*range(0x180B, 0x1810), *range(0xFE00, 0xFE10))
)


@dataclass(frozen=True)
class Command:
    """One workflow command the runner would run."""

    name: str
    properties: dict[str, str] = field(default_factory=dict)
    data: str = ""
    line: str = ""
    """The printed line it came from."""


def _unescape(text: str, *, prop: bool = False) -> str:
    text = text.replace("%0D", "\r").replace("%0A", "\n")
    if prop:
        text = text.replace("%3A", ":").replace("%2C", ",")
    return text.replace("%25", "%")


def _visible(line: str) -> str:
    return "".join(c for c in line if unicodedata.category(c) != "Cf" and c not in _SKIPPED)


def parse_line(line: str) -> Command | None:
    """The command ``line`` holds for the runner, or ``None``."""
    seen = _visible(line)
    body = seen.lstrip()
    if body.startswith("::"):
        end = body.find("::", 2)
        if end >= 0:
            name, _, props = body[2:end].partition(" ")
            if name:
                pairs = (part.partition("=") for part in props.split(",") if part)
                return Command(
                    name,
                    {key: _unescape(value, prop=True) for key, _, value in pairs},
                    _unescape(body[end + 2 :]),
                    line,
                )
    start = seen.find("##[")
    close = seen.find("]", start + 3) if start >= 0 else -1
    if close >= 0:
        name, _, props = seen[start + 3 : close].partition(" ")
        if name:
            pairs = (part.partition("=") for part in props.split(";") if part)
            return Command(name, {k: v for k, _, v in pairs}, seen[close + 1 :], line)
    return None


@dataclass
class RunnerView:
    """What the runner did with some output: the commands it ran, and the stop-commands
    blocks it honoured (their tokens)."""

    commands: list[Command] = field(default_factory=list)
    blocks: list[str] = field(default_factory=list)
    open_block: str | None = None
    """The token of a stop-commands block never resumed."""

    def names(self) -> list[str]:
        """The names of the commands run, in order (``stop-commands`` included)."""
        return [command.name for command in self.commands]

    def annotations(self) -> list[Command]:
        """The ``error``, ``warning`` and ``notice`` commands run."""
        return [c for c in self.commands if c.name in ("error", "warning", "notice")]

    def foreign(self) -> list[Command]:
        """Every command run but ``error`` and ``warning`` annotations and stop-commands:
        none of these is patgate's (it prints no ``notice``)."""
        return [c for c in self.commands if c.name not in ("error", "warning", "stop-commands")]


def read_commands(output: str, *, honour_stops: bool = True) -> RunnerView:
    """Read ``output`` line by line as the runner does. ``honour_stops=False`` reads every
    line even inside stop-commands blocks (their resume lines aside): what the runner would
    run if the blocks were missing, to check the escapes on their own."""
    view = RunnerView()
    tokens: set[str] = set()
    for line in LINE_BREAKS.split(output):
        command = parse_line(line)
        if command is None:
            continue
        if not honour_stops:
            if command.name.lower() in tokens:
                continue  # a resume line
            if command.name == "stop-commands":
                tokens.add(command.data.lower())
            view.commands.append(command)
            continue
        if view.open_block is not None:
            if command.name.lower() == view.open_block.lower():
                view.blocks.append(view.open_block)
                view.open_block = None
            continue
        view.commands.append(command)
        if command.name == "stop-commands":
            view.open_block = command.data
    return view


def hostile_payloads() -> list[str]:
    """Every form of workflow command a hostile text may carry, each preceded by each kind
    of line break (and with none)."""
    return [brk + form for form in COMMAND_FORMS for brk in ("", *BREAK_KINDS)]


BREAK_KINDS = ("\n", "\r", "\r\n", "\x85", "\u2028", "\u2029", "\x0b", "\x0c", "\x1c", "\x1e")
"""Every line break ``str.splitlines`` knows (CRLF too)."""

COMMAND_FORMS = (
    "::set-output name=x::v",
    "::add-mask::v",
    "::stop-commands::t",
    "::error::x",
    "::notice::x",
    "::warning file=a.yaml,line=1,title=PAT-CAP::x",
    "::group::g",
    "::endgroup::",
    "::save-state name=s::v",
    "::set-env name=A::B",
    "::add-path::/tmp",
    "   \t::debug::d",
    "\u00ad::error::soft hyphen",
    "##[set-output name=x;]v",
    "##[error]x",
    "x ##[add-mask]v",
    "#\u200b#[set-output name=y;]w",
    "%0A::set-output name=x::v",
    "%0D%0A::error::x",
)
"""The workflow commands and their legacy forms, as a target could answer them."""
