"""patgate's version, read once from the installed distribution's metadata.

Every module that shows the version (``patgate --version``, the runner's ``User-Agent``,
the HTML report's footer) imports it from here, never from the ``patgate`` facade.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__"]

try:
    __version__ = version("patgate")
except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
    __version__ = "0.0.0"
