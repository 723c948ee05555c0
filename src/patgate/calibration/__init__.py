"""Calibration: what a deployment chose where the documentation is silent.

``probes.py`` sends a fixed set of probes to one target through a runner session (the
session's client, ledger and custodian, so every token a probe makes is named, written down
and deleted exactly as ``patgate run`` does) and turns the answers into findings: a profile
field and the value the target showed, or why it could not be seen. ``profile_document.py``
writes findings into a profile document; ``comparison.py`` sends the same probes to the
target and to the embedded fake and lists where they differ; ``report.py`` writes that list
as JSON, JUnit XML or HTML.

A finding on a documented rule (a sixth token, an unmasked listing) is never a profile
value: it is a gate failure, for ``patgate run`` to judge.
"""
