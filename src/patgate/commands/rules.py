"""``patgate rules``: not available yet."""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    del parser


def main(args: argparse.Namespace) -> int:
    del args
    print("patgate rules: no scenarios are available yet")
    return 0
