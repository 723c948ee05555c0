"""The domain: the fake deployment's state and rules, with no HTTP.

:class:`~patgate.fake.deployment.Deployment` holds the organization, its users, API clients,
hubs and tokens, and refuses what the documentation forbids by raising a
:class:`~patgate.errors.DomainError`; the wire layer (:mod:`patgate.wire`) turns requests
into its calls and its answers into HTTP. Nothing is imported here: each module is imported
by the name of its own (``patgate.fake.deployment``), so loading one loads only what it needs.
"""

__all__: list[str] = []
