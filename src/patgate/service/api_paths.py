"""The service's paths, named once: the fake's route table serves them, the runner calls them.

Each :class:`ApiPath` names the target key its URL starts from (``auth_url``, ``base_url``
or ``graphql_url``) and a path template whose ``{name}`` segments are path parameters::

    api_paths.HUB.url("https://api.example.com", hub_id="5b32...")
    # -> "https://api.example.com/v2/content/hubs/5b32..."

This module is plain data that imports only the exception tree, so every layer (the domain
excepted, which knows no URLs) may read it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import quote

from patgate.errors import PatgateError

__all__ = [
    "ALL_PATHS",
    "CONTENT_PREFIX",
    "CONTENT_REPOSITORY",
    "CONTENT_TYPE",
    "CONTENT_TYPE_SCHEMA",
    "EVENT",
    "EVENT_EDITIONS",
    "EXTENSION",
    "GRAPHQL",
    "HUB",
    "HUBS",
    "HUB_CONTENT_REPOSITORIES",
    "HUB_CONTENT_TYPES",
    "HUB_CONTENT_TYPE_SCHEMAS",
    "HUB_EVENTS",
    "HUB_EXTENSIONS",
    "HUB_WEBHOOKS",
    "HUB_WORKFLOW_STATES",
    "TOKEN",
    "WEBHOOK",
    "WORKFLOW_STATE",
    "ApiPath",
    "TemplateError",
    "template_pieces",
]

CONTENT_PREFIX = "/v2/content"
"""Every path under ``{base_url}`` + this prefix needs a valid bearer (401/403 before 404)."""

_PARAMETER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
# Characters quote(..., safe="") leaves alone: a value made only of them is its own encoding.
_UNRESERVED = re.compile(r"[A-Za-z0-9_.~-]*")


class TemplateError(PatgateError, ValueError):
    """A path or route template that the template grammar does not understand."""


def template_pieces(template: str) -> tuple[str, ...]:
    """``template`` split at its parameters: literal, name, literal, name, ..., literal.

    The one grammar of path and route templates: a parameter is a whole path segment
    ``{name}``, the name lower_snake_case (``[a-z_][a-z0-9_]*``), each name once. Anything
    else with a brace in it (``{hubId}``, ``{id}.json``, a lone ``}``) raises
    :class:`TemplateError` naming the template, so a typo is an error at startup instead of
    literal text that never matches.
    """
    seen: set[str] = set()
    for segment in template.split("/"):
        if "{" not in segment and "}" not in segment:
            continue
        found = _PARAMETER.fullmatch(segment)
        if found is None:
            raise TemplateError(
                f"the route template {template!r} has {segment!r}, which is not a path "
                "parameter: a parameter is a whole segment, {name} in lower_snake_case "
                "(e.g. {hub_id})"
            )
        if found.group(1) in seen:
            raise TemplateError(
                f"the route template {template!r} names the parameter {segment} twice"
            )
        seen.add(found.group(1))
    return tuple(_PARAMETER.split(template))


@dataclass(frozen=True)
class ApiPath:
    """One path of the service: the target key it hangs from and its template."""

    name: str
    """A short stable name (``"hub"``), for messages and tables."""
    base: str
    """The target key the URL starts from: ``auth_url``, ``base_url`` or ``graphql_url``."""
    template: str
    """The path below the base, ``{name}`` marking a path parameter (``""`` for the base)."""

    _pieces: tuple[str, ...] = field(init=False, repr=False, compare=False)
    """The template split at its parameters: literal, name, literal, name, ..., literal."""

    def __post_init__(self) -> None:
        # Split once: building links is on the hot path of every listing the fake serves.
        object.__setattr__(self, "_pieces", template_pieces(self.template))

    @property
    def parameters(self) -> tuple[str, ...]:
        """The names of the path parameters, in order."""
        return self._pieces[1::2]

    def url(self, base_url: str, **parameters: str) -> str:
        """The absolute URL below ``base_url``; each parameter is percent-encoded."""
        pieces = self._pieces
        parts = [base_url.rstrip("/"), pieces[0]]
        for index in range(1, len(pieces), 2):
            name = pieces[index]
            try:
                value = str(parameters[name])
            except KeyError:
                missing = sorted(set(self.parameters) - set(parameters))
                raise TypeError(f"{self.name} needs the path parameters {missing}") from None
            parts.append(value if _UNRESERVED.fullmatch(value) else quote(value, safe=""))
            parts.append(pieces[index + 1])
        return "".join(parts)

    @property
    def is_content(self) -> bool:
        """Whether the path lies under the content API (and so needs a bearer first)."""
        return self.base == "base_url" and (
            self.template == CONTENT_PREFIX or self.template.startswith(CONTENT_PREFIX + "/")
        )


def _content(name: str, tail: str) -> ApiPath:
    return ApiPath(name, "base_url", CONTENT_PREFIX + tail)


TOKEN = ApiPath("token", "auth_url", "/oauth/token")
GRAPHQL = ApiPath("graphql", "graphql_url", "")
HUBS = _content("hubs", "/hubs")
HUB = _content("hub", "/hubs/{hub_id}")
HUB_CONTENT_REPOSITORIES = _content(
    "hub content-repositories", "/hubs/{hub_id}/content-repositories"
)
HUB_CONTENT_TYPES = _content("hub content-types", "/hubs/{hub_id}/content-types")
HUB_CONTENT_TYPE_SCHEMAS = _content(
    "hub content-type-schemas", "/hubs/{hub_id}/content-type-schemas"
)
HUB_WORKFLOW_STATES = _content("hub workflow-states", "/hubs/{hub_id}/workflow-states")
HUB_EXTENSIONS = _content("hub extensions", "/hubs/{hub_id}/extensions")
HUB_WEBHOOKS = _content("hub webhooks", "/hubs/{hub_id}/webhooks")
HUB_EVENTS = _content("hub events", "/hubs/{hub_id}/events")
CONTENT_REPOSITORY = _content("content-repository", "/content-repositories/{id}")
CONTENT_TYPE = _content("content-type", "/content-types/{id}")
CONTENT_TYPE_SCHEMA = _content("content-type-schema", "/content-type-schemas/{id}")
WORKFLOW_STATE = _content("workflow-state", "/workflow-states/{id}")
EXTENSION = _content("extension", "/extensions/{id}")
WEBHOOK = _content("webhook", "/hubs/{hub_id}/webhooks/{id}")
EVENT = _content("event", "/events/{id}")
EVENT_EDITIONS = _content("event editions", "/events/{id}/editions")

ALL_PATHS: tuple[ApiPath, ...] = (
    TOKEN,
    GRAPHQL,
    HUBS,
    HUB,
    HUB_CONTENT_REPOSITORIES,
    HUB_CONTENT_TYPES,
    HUB_CONTENT_TYPE_SCHEMAS,
    HUB_WORKFLOW_STATES,
    HUB_EXTENSIONS,
    HUB_WEBHOOKS,
    HUB_EVENTS,
    CONTENT_REPOSITORY,
    CONTENT_TYPE,
    CONTENT_TYPE_SCHEMA,
    WORKFLOW_STATE,
    EXTENSION,
    WEBHOOK,
    EVENT,
    EVENT_EDITIONS,
)
"""Every path the fake serves, in the order its route table lists them."""
