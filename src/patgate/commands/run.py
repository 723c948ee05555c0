"""``patgate run``: not available yet."""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    del parser


def main(args: argparse.Namespace) -> int:
    del args
    print("patgate run: no scenarios are available yet")
    return 0
