"""The pytest plugin: fixtures for the fake (and, later, scenario collection).

Imports here stay light; anything heavy is imported inside the fixtures that need it, so a
test session that does not use patgate does not pay for it.
"""

from __future__ import annotations
