"""Talking to a target: its keys, the client, the answers.

``config`` reads the target file, ``PATGATE_*`` variables and flags once into one
validated :class:`~patgate.runner.connection.config.TargetConfig` (secrets held as
``Secret``, the PAT grammar of its prefix compiled once) and describes a live target;
``fake`` is the embedded fake as a target, and ``served_fake_control`` the control plane
of a fake served on loopback. ``exchange`` is the run's one HTTP client (where requests
may go, how much of an answer is read, ``deadline`` per request, ``retries`` after 429 and
503); ``answers`` decodes what the runner reads for itself into typed values and
``documents`` holds the GraphQL operations, learned from the target's shapes.
"""
