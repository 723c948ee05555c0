"""Reporters: they consume the runner's events and show or write the results.

``make_reporter(spec, stream=...)`` turns a ``--report`` value into a reporter. Several can
be active at once; each gets every event, then ``close()``. Every value in an event is
already redacted, so a reporter prints what the events hold and nothing else.
"""

from __future__ import annotations

from patgate.reporting.reporter import REPORT_KINDS, Reporter, make_reporter

__all__ = ["REPORT_KINDS", "Reporter", "make_reporter"]
