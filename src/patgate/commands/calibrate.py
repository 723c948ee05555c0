"""``patgate calibrate``: write the profile that makes the fake answer like a deployment.

The probes of ``patgate compare`` go to the target and to the default fake; each field the
target answers otherwise is written into a profile (``--out``), every other field keeps the
default's value. Fields no probe could see are listed with the reason, in the file (a
comment block) and on the terminal. Read-only unless ``--allow-writes``; with it, every
token a probe makes is written to the ledger first and deleted before the command ends. A
documented rule the target breaks is not absorbed: it is reported as a gate failure for
``patgate run`` and the command exits 1 (the profile is still written). No secret or token
value is ever written. Exit codes: 0 written, 1 a gate failure or a token left behind,
2 a usage error, 3 the target cannot be reached (nothing is written).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from patgate.commands.compare import add_probe_options, live_config, probe_options
from patgate.commands.session import guarded

if TYPE_CHECKING:
    from patgate.guards.redaction import Redactor
    from patgate.runner.connection.config import TargetConfig

__all__ = ["configure", "main"]


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``patgate calibrate`` to ``parser``."""
    group = add_probe_options(parser, "calibrate")
    group.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="PATH",
        help="where the profile (YAML) is written",
    )


def main(args: argparse.Namespace) -> int:
    """Probe the target, write the profile; the exit code."""
    from patgate.runner.session import target_redactor

    config = live_config(args, "calibrate")
    redactor = target_redactor(config)
    return guarded("calibrate", redactor, lambda: _calibrate(args, config, redactor))


def _calibrate(args: argparse.Namespace, config: TargetConfig, redactor: Redactor) -> int:
    from patgate.calibration.comparison import RUN_HINT, probe_both
    from patgate.calibration.profile_document import calibrated_document, render_profile
    from patgate.calibration.report import write_text
    from patgate.fake.profile import default_profile, load_profile
    from patgate.guards.untrusted_text import commands_stopped, print_untrusted
    from patgate.reporting.artifact import prepare_path

    out = prepare_path(str(args.out), kind="out")
    options = probe_options(args, config, "calibrate")
    target, fake, tallies = probe_both(config, options, redactor, None)
    calibration = calibrated_document(target, fake, default_profile().as_document())
    # The profile is meant to be committed: it names the deployment by its URL, never by a
    # path of this machine.
    world_name = Path(str(args.world)).name if args.world else ""
    label = str(config.text("base_url") or world_name or "the target")
    text = render_profile(calibration, target=label, allow_writes=args.allow_writes)
    if redactor.contains_secret(text):  # never written: a value of the run found its way in
        raise AssertionError("the calibrated profile would hold a secret; nothing is written")
    load_profile(calibration.document)  # what is written loads
    write_text(out, text)

    def say(line: str, stream: TextIO | None = None) -> None:
        print_untrusted(redactor.redact(line), stream)

    with commands_stopped(sys.stdout):  # the target's answers, on a GitHub runner
        for name, value in calibration.adopted.items():
            shown = "the target's shape" if name.startswith("shapes.") else repr(value)
            say(f"{name}: {shown} (the default differs)")
        for name, reason in calibration.not_observed.items():
            say(f"not observed {name}: {reason}")
    for rule in target.breaks:
        say(f"gate failure {rule.rule}: {rule.what} ({rule.request}); {RUN_HINT}", sys.stderr)
    if tallies.left_behind:
        say(f"{tallies.tokens_leaked} token(s) left on the target: see `patgate cleanup`")
    say(
        f"patgate calibrate: wrote {out}: {len(calibration.adopted)} field(s) differ from the "
        f"default, {len(calibration.not_observed)} not observed, "
        f"{len(target.breaks)} gate failure(s)"
    )
    return 1 if target.breaks or tallies.left_behind else 0
