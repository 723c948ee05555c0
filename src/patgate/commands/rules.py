"""``patgate rules``: the rule catalogue, the clause (or convention) each rule enforces, and
which scenarios cover each rule.

Exit code 0; with ``--check``, 1 when some rule is covered by no scenario.
"""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["configure", "main"]


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``patgate rules`` to ``parser``."""
    parser.add_argument(
        "--scenarios",
        type=Path,
        action="append",
        metavar="PATH",
        help="a scenario folder or file instead of the built-in ones (repeatable)",
    )
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when a rule is covered by no scenario"
    )


def main(args: argparse.Namespace) -> int:
    """Print the catalogue with its coverage."""
    from patgate.basics.resources import scenarios_dir
    from patgate.scenario import load_catalogue, load_scenarios

    catalogue = load_catalogue()
    scenarios = load_scenarios(args.scenarios or [scenarios_dir()], catalogue=catalogue)
    width = max(len(rule.id) for rule in catalogue)
    uncovered = []
    for rule in catalogue:
        covering = [s.id for s in scenarios if rule.id in s.rules]
        print(f"{rule.id:<{width}}  {rule.level:<8}  {rule.title}")
        if rule.source is not None:
            print(f"{'':<{width}}  {'':<8}  source: {rule.source.cite()}")
        if covering:
            print(f"{'':<{width}}  {'':<8}  covered by: {', '.join(covering)}")
        else:
            print(f"{'':<{width}}  {'':<8}  NOT COVERED by any scenario")
            uncovered.append(rule.id)
    gates = sum(1 for rule in catalogue if rule.is_gate)
    total = len(catalogue.rules)
    print(
        f"\n{total} rules ({gates} gate, {total - gates} advisory), {len(scenarios)} scenarios; "
        + (f"not covered: {', '.join(uncovered)}" if uncovered else "every rule is covered")
    )
    return 1 if args.check and uncovered else 0
