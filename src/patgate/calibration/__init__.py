"""Calibration: what a deployment chose where the documentation is silent.

The probes send requests to one target through a runner session (the session's client,
ledger and custodian, so every token a probe makes is named, written down and deleted
exactly as ``patgate run`` does) and turn the answers into findings: a field (a knob, or an
answer's shape) and what the target showed, or why it could not be seen. The package's
parts: ``fields.py`` (the field catalogue), ``probing.py`` (the recorder and senders),
``answer_reading.py`` (reading answers), the probes (``content_probes.py``,
``read_probes.py``, ``write_probes.py``) and ``scheduler.py`` (the order, as data: each probe
declares what it comes ``after`` and what it ``excludes``); ``probes.py`` names what the rest
of patgate uses. ``profile_document.py`` writes findings into a profile document;
``comparison.py`` sends the same probes to the target and to the embedded fake and lists
where they differ, with ``drift_rules.py`` saying what is drift, noise or accepted;
``report.py`` writes that list as JSON, JUnit XML or HTML.

A finding on a documented rule (a sixth token, an unmasked listing) is never a profile
value: it is a gate failure, for ``patgate run`` to judge.
"""
