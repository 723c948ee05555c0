"""YAML documents that remember the line of every value (see :mod:`patgate.guards.yaml_source`)."""

from __future__ import annotations

from patgate.guards.yaml_source import PathKey, SourceDocument, read_documents

__all__ = ["PathKey", "SourceDocument", "read_documents"]
