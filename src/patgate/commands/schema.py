"""``patgate schema NAME``: the JSON Schema of a file patgate reads, for an editor.

``patgate schema scenario`` prints the schema (save it beside your scenarios and point a
``# yaml-language-server: $schema=PATH`` line at it for completion and checking as you
type); ``--path`` prints where the installed copy lies instead. The shipped scenarios carry
that line already, pointing at the copy beside them.

Exit code 0; 2 for an unknown name.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["SCHEMAS", "configure", "main"]

SCHEMAS: Mapping[str, str] = MappingProxyType(
    {
        "scenario": "scenario.schema.json",
        "waivers": "waivers.schema.json",
        "profile": "profile.schema.json",
        "report": "report.schema.json",
        "rules": "rules.schema.json",
        "config": "config.schema.json",
    }
)
"""The name a user types -> the schema's file in the specification folder."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``patgate schema`` to ``parser``."""
    parser.add_argument("name", choices=sorted(SCHEMAS), help="which file's schema")
    parser.add_argument(
        "--path", action="store_true", help="print the installed schema's path, not its text"
    )


def main(args: argparse.Namespace) -> int:
    """Print the schema, or its path."""
    from patgate.basics.resources import specs_dir

    path = specs_dir() / SCHEMAS[args.name]
    print(path if args.path else path.read_text(encoding="utf-8").rstrip("\n"))
    return 0
