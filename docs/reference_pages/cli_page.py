"""``reference/cli.md``: every command, flag, default and help, from the argparse parsers."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

from docs.reference_pages import cell, code, first_paragraph, from_rst, generated_notice, source

MAIN_EXIT_CODES = {
    0: "success (each command below says what more its codes mean)",
    2: "no command given, or a usage error (argparse refused a flag)",
    130: "interrupted (Ctrl-C)",
    141: "the reader of the output (a pager, `head`) stopped reading",
}
"""Codes ``patgate.cli.main`` returns itself; a test holds them to its source."""


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Command name -> its parser."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def usage(parser: argparse.ArgumentParser) -> str:
    """``parser``'s usage line, wrapped at a fixed width whatever the terminal."""
    formatter = argparse.HelpFormatter(parser.prog, width=88)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _invocation(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    return parser._get_formatter()._format_action_invocation(action)


def _default(action: argparse.Action) -> str:
    if action.default in (None, argparse.SUPPRESS, False) or action.nargs == 0:
        return ""
    if isinstance(action.default, (list, tuple)) and not action.default:
        return ""
    return f"`{action.default}`"


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    text = parser._get_formatter()._expand_help(action) if action.help else ""
    if action.choices and not isinstance(action, argparse._SubParsersAction):
        text += f" (one of: {', '.join(str(c) for c in action.choices)})"
    if action.required and action.option_strings:
        text += " (required)"
    return text


def option_rows(parser: argparse.ArgumentParser) -> Iterator[str]:
    """One Markdown table row per argument of ``parser`` (``--help`` left out)."""
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        flags = _invocation(parser, action)
        yield f"| {code(flags)} | {cell(_default(action))} | {cell(_help(parser, action))} |"


def _exit_codes(module_doc: str | None) -> str:
    found = re.search(r"Exit codes?\b.*?(?=\n\n|\Z)", module_doc or "", re.DOTALL)
    if found is None:
        return "Exit codes: 0 on success; an error exits with its class's code."
    return " ".join(from_rst(found.group()).split())


def _command(name: str, parser: argparse.ArgumentParser) -> list[str]:
    import importlib

    module = importlib.import_module(f"{source('commands').__name__}.{name}")
    lines = [f"## `patgate {name}`", "", cell(parser.description or ""), ""]
    lines += ["```text", usage(parser), "```", ""]
    details = re.sub(rf"^`patgate {name}\b[^`]*`:\s*", "", first_paragraph(module.__doc__))
    if details and details.lower() != (parser.description or "").lower():
        lines += [details[0].upper() + details[1:], ""]
    lines += ["| option | default | meaning |", "|---|---|---|", *option_rows(parser), ""]
    if parser.epilog:
        lines += [cell(parser.epilog), ""]
    lines += [_exit_codes(module.__doc__), ""]
    return lines


def render() -> str:
    """The page."""
    cli = source("cli")
    parser = cli.build_parser()
    lines = [
        "# Command line",
        "",
        generated_notice("the `patgate` command's parsers", "the error tree"),
        f"`{parser.prog}`: {parser.description}",
        "",
        "```text",
        usage(parser),
        "```",
        "",
        "| command | what it does |",
        "|---|---|",
        *(f"| [`{name}`](#patgate-{name}) | {cell(text)} |" for name, text in cli.COMMANDS.items()),
        "",
        "| option | default | meaning |",
        "|---|---|---|",
        *option_rows(parser),
        "",
        "## Exit codes",
        "",
        "Every command exits with one of these; an error exits with the code of its class",
        "in [the error tree](errors.md).",
        "",
        "| code | meaning |",
        "|---|---|",
        *(f"| {code} | {cell(text)} |" for code, text in _all_exit_codes().items()),
        "",
    ]
    for name, sub in subcommands(parser).items():
        lines += _command(name, sub)
    return "\n".join(lines)


def _all_exit_codes() -> dict[int, str]:
    """Code -> meaning: ``main``'s own, then each error class that sets its code."""
    from docs.reference_pages.errors_page import error_classes

    raised: dict[int, list[str]] = {}
    for error in error_classes():
        if "exit_code" in vars(error):
            raised.setdefault(error.exit_code, []).append(f"`{error.__name__}`")
    codes = dict(MAIN_EXIT_CODES)
    for number, names in raised.items():
        errors = f"an error of class {' or '.join(names)} (or a subclass)"
        codes[number] = f"{codes[number]}; {errors}" if number in codes else errors
    return dict(sorted(codes.items()))
