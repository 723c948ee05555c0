"""A second deployment of the vendor's token API, written from the documentation alone.

It shares no code with patgate (``tests/independent/test_deployment.py`` reads its imports),
follows every documented clause and chooses differently from the fake wherever the
documentation is silent. Tests use it to prove the gate fails no deployment for a choice the
documentation leaves open, and that a profile can describe such a deployment.
"""
