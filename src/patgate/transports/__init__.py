"""Adapters between HTTP libraries and the fake's wire layer; no rules live here.

- :mod:`~patgate.transports.httpx_adapter`: httpx clients, sync and async, and a network-free
  ``httpx`` transport.
- :mod:`~patgate.transports.requests_adapter`: requests sessions.
- :mod:`~patgate.transports.routing`: which active fake serves a URL (both adapters consult
  it in front of the client's choice of transport, beside users' own mocks).
- :mod:`~patgate.transports.loopback_server`: a real HTTP server on a loopback address.
- :mod:`~patgate.transports.post_import`: starts an interception once its library is imported
  (a fake does not import requests for a process that has not).

Each adapter module imports its library at the top, so import them only when they are needed.
"""
