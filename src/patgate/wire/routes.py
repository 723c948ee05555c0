"""The fake's route table, declared once: every path it serves and the endpoint serving it.

Paths come from :mod:`patgate.service.api_paths` (the runner reads the same names); this table binds
each to an endpoint class. Everything under ``{base_url}/v2/content`` is authorized before
routing (see :func:`~patgate.wire.content_api.authorize`), so a row needs no flag for that.
"""

from __future__ import annotations

from collections.abc import Callable

from patgate.fake.deployment import Deployment
from patgate.service import api_paths
from patgate.wire.content_resources import content_routes
from patgate.wire.endpoint import Endpoint
from patgate.wire.graph_endpoint import GraphEndpoint
from patgate.wire.token_endpoint import TokenEndpoint
from patgate.wire.urls import FakeUrls

__all__ = ["EndpointFactory", "served_routes"]

EndpointFactory = Callable[[Deployment, FakeUrls], Endpoint]
"""Builds an endpoint for one deployment and its URLs (an ``Endpoint`` subclass will do)."""


def served_routes() -> tuple[tuple[api_paths.ApiPath, EndpointFactory], ...]:
    """``(path, endpoint factory)`` for every route, in :data:`api_paths.ALL_PATHS` order."""
    routes = ((api_paths.TOKEN, TokenEndpoint), (api_paths.GRAPHQL, GraphEndpoint))
    return (*routes, *content_routes())
