"""What the runner runs against: the target keys, where they come from, and live targets.

Keys come, in rising priority, from a world file (``--world``, JSON or YAML), ``PATGATE_*``
environment variables and command-line flags (docs/design.md, "The target contract"). A
key the file does not know is an error that suggests the nearest known one. A target file
may also override GraphQL operation documents under ``documents``, and mark the deployment
``production: true`` (or ``PATGATE_PRODUCTION=1``).
A URL must be ``https://``; plain ``http://`` is accepted on loopback only.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from patgate.basics.token_grammar import DEFAULT_PAT_PREFIX, PatGrammar, valid_prefix
from patgate.errors import UsageError
from patgate.guards.redaction import Secret
from patgate.service.target_contract import SECRET_KEYS, TARGET_KEYS

if TYPE_CHECKING:
    import httpx

    from patgate.guards.redaction import Redactor
    from patgate.runner.model import ControlResult

__all__ = [
    "DEFAULT_PAT_PREFIX",
    "DOCUMENT_NAMES",
    "FILE_KEYS",
    "Control",
    "LiveTarget",
    "Target",
    "TargetConfig",
    "is_loopback_host",
    "read_world_file",
    "resolve_target_config",
]

DOCUMENT_NAMES = ("viewer", "organizations", "create_token", "delete_token")
FILE_KEYS: tuple[str, ...] = (*TARGET_KEYS, "documents", "production")
"""Every top-level key a target file may hold."""
URL_KEYS = ("auth_url", "base_url", "graphql_url")
_LOOPBACK_NAMES = ("localhost",)


class TargetConfig:
    """The keys of one deployment, plus GraphQL documents that replace the built-in ones:
    the one value the target file, the variables and the flags are read into, validated
    once. What the run derives from it is derived here, once: the PAT grammar of its prefix
    (:attr:`pat`) and the run's redactor (:meth:`redactor`), handed down from the session.

    Secret keys (:data:`SECRET_KEYS`) are held as :class:`~patgate.guards.redaction.Secret`, so no
    repr, traceback or assertion message shows them; :meth:`text` reveals one where a request
    is built. ``production`` marks a deployment where bulk-writing scenarios are refused
    unless named explicitly.
    """

    def __init__(
        self,
        keys: Mapping[str, str | Secret],
        documents: Mapping[str, str] | None = None,
        *,
        production: bool = False,
    ) -> None:
        self._keys: dict[str, str | Secret] = {
            key: (Secret(value) if key in SECRET_KEYS else _plain(key, value))
            for key, value in keys.items()
            if value
        }
        self.documents: Mapping[str, str] = dict(documents or {})
        self.production = production
        prefix = self.text("pat_prefix") or DEFAULT_PAT_PREFIX
        if not valid_prefix(prefix):
            raise UsageError(f"pat_prefix must be letters, digits, '_' or '-', got {prefix!r}")
        self.pat = PatGrammar.of(prefix)
        """The PAT shapes of the target's prefix, compiled once for every reader."""

    @property
    def keys(self) -> dict[str, str | Secret]:
        """The keys given (no defaults), secrets as :class:`Secret`."""
        return dict(self._keys)

    def get(self, key: str) -> str | Secret | None:
        """A key's value; ``graphql_url`` and ``pat_prefix`` have their documented defaults."""
        value = self._keys.get(key)
        if value:
            return value
        if key == "graphql_url" and self._keys.get("base_url"):
            return str(self._keys["base_url"]).rstrip("/") + "/graphql"
        if key == "pat_prefix":
            return DEFAULT_PAT_PREFIX
        return None

    def text(self, key: str) -> str | None:
        """A key's value as text, a secret revealed: only for building a request."""
        value = self.get(key)
        return value.reveal() if isinstance(value, Secret) else value

    @property
    def pat_prefix(self) -> str:
        """The target's PAT prefix (default ``amp_pat_``)."""
        return self.pat.prefix

    def redactor(self) -> Redactor:
        """A fresh redactor for one run on this target: its PAT grammar, its secrets and its
        client's ``Basic`` credentials registered (the run adds what it reads)."""
        from patgate.guards.redaction import Redactor

        redactor = Redactor(self.pat.prefix)  # the same compiled scan: cached per prefix
        self.register_secrets(redactor)
        return redactor

    def register_secrets(self, redactor: Redactor) -> None:
        """Teach ``redactor`` this target's secrets (one built before the target was known:
        the CLI's, or the first of several targets')."""
        redactor.register_all(self.secrets())
        redactor.register_basic(self.text("client_id"), self.text("client_secret"))

    def secrets(self) -> list[Secret]:
        """Values that must never be printed."""
        return [value for value in self._keys.values() if isinstance(value, Secret)]

    def key_holding(self, value: str | None) -> str | None:
        """The secret key whose value is ``value`` (``admin_token``), if any."""
        if not value:
            return None
        wanted = Secret(value)
        return next(
            (key for key in SECRET_KEYS if self._keys.get(key) == wanted),
            None,
        )

    def __repr__(self) -> str:
        shown = sorted(key for key in self._keys if key not in SECRET_KEYS)
        return f"TargetConfig(keys={shown}, secrets=<hidden>, production={self.production})"


def _plain(key: str, value: str | Secret) -> str:
    if isinstance(value, Secret):
        raise TypeError(f"{key} is not a secret key; pass its value as a str")
    return value


class Control(Protocol):
    """Out-of-band control of a deployment (the embedded fake, or a served fake on loopback
    through its control API)."""

    def perform(self, action: str, argument: Any) -> ControlResult:
        """Do ``action`` (a name of ``CONTROL_ACTIONS``) with its resolved argument."""
        ...

    def advance_clock(self, seconds: float) -> None:
        """Move the deployment's time forward."""
        ...

    def bearer_of(self, principal: str) -> str | None:
        """The token that speaks for ``principal`` (to clean up what an action created)."""
        ...


class Target(Protocol):
    """A deployment to run scenarios against."""

    @property
    def config(self) -> TargetConfig:
        """Its keys and GraphQL document overrides."""
        ...

    @property
    def display(self) -> str:
        """``embedded fake`` or the deployment's base URL."""
        ...

    @property
    def live(self) -> bool:
        """Writes need ``--allow-writes`` and waits need ``--max-wait`` on a live target."""
        ...

    @property
    def control(self) -> Control | None:
        """Out-of-band control, when patgate has it (the embedded fake)."""
        ...

    def transport(self) -> httpx.BaseTransport | None:
        """The transport for the run's client; ``None``: the network."""
        ...


class LiveTarget:
    """A deployment reached over the network (or through an injected transport, in tests)."""

    live = True
    control: Control | None = None

    def __init__(
        self, config: TargetConfig, *, transport: httpx.BaseTransport | None = None
    ) -> None:
        from patgate.runner.connection.served_fake_control import http_control_for

        self.config = config
        self._transport = transport
        self.display = config.text("base_url") or config.text("auth_url") or "live target"
        # A served fake on loopback is controlled through its control API; nothing else is.
        self.control = http_control_for(config) if transport is None else None

    def transport(self) -> httpx.BaseTransport | None:
        """The injected transport, or ``None`` for the network."""
        return self._transport


def read_world_file(path: Path) -> dict[str, Any]:
    """The mapping in a world file (JSON, or YAML); :class:`UsageError` names what is wrong,
    with the line. The file is read under the discipline of :mod:`patgate.guards.supplied_files`
    (size cap, nesting bound, no YAML aliases or foreign tags, UTF-8 only)."""
    from patgate.guards.supplied_files import FileRefused, load_json, load_yaml

    data: Any
    try:
        if path.suffix.lower() == ".json":
            data = load_json(path)
        else:
            documents = load_yaml(path)
            if len(documents) > 1:
                raise FileRefused(
                    "a world file holds one document", path=str(path), line=documents[1].line
                )
            data = documents[0].data if documents else None
    except FileRefused as error:
        raise UsageError(f"the world file {error}") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} must hold a mapping of target keys (auth_url, base_url, ...)")
    return data


def resolve_target_config(
    world: Path | None = None,
    environ: Mapping[str, str] | None = None,
    flags: Mapping[str, str | None] | None = None,
    *,
    variables: str = "PATGATE_",
) -> TargetConfig | None:
    """The live target described by a world file < ``PATGATE_*`` variables < flags.

    ``None`` when no source names any key: the run uses the embedded fake. ``variables``:
    the variables' prefix (a named target of ``[tool.patgate.targets]`` reads its own,
    ``PATGATE_STAGING_``, and never the shared ones).
    """
    keys: dict[str, str] = {}
    documents: dict[str, str] = {}
    production = False
    if world is not None:
        data = read_world_file(world)
        _known_keys(data, str(world))
        keys.update(_keys(data, str(world)))
        documents.update(_documents(data.get("documents"), str(world)))
        production = _flag(data.get("production", False), f"{world}: production")
    variable = (environ or {}).get(f"{variables}PRODUCTION")
    if variable:
        production = _flag(variable, f"{variables}PRODUCTION")
    for key in TARGET_KEYS:
        value = (environ or {}).get(f"{variables}{key.upper()}")
        if value:
            keys[key] = value
    for key, value in (flags or {}).items():
        if key in TARGET_KEYS and value:
            keys[key] = value
    if world is None and not keys:
        return None
    for key in URL_KEYS:
        if key in keys:
            keys[key] = _check_url(key, keys[key])
    if not any(keys.get(key) for key in URL_KEYS):
        raise UsageError(
            f"a live target needs base_url or auth_url (--base-url, {variables}BASE_URL or "
            "the world file)"
        )
    return TargetConfig(keys, documents, production=production)


def _known_keys(data: Mapping[str, Any], source: str) -> None:
    import difflib

    for key in data:
        if key in FILE_KEYS:
            continue
        near = difflib.get_close_matches(str(key), FILE_KEYS, n=1, cutoff=0.6)
        hint = f"; did you mean {near[0]!r}?" if near else f" (known keys: {', '.join(FILE_KEYS)})"
        raise UsageError(f"{source}: unknown key {str(key)!r}{hint}")


def _flag(value: Any, source: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes"):
        return True
    if text in ("0", "false", "no"):
        return False
    raise UsageError(f"{source} must be true or false, got {value!r}")


def _keys(data: Mapping[str, Any], source: str) -> dict[str, str]:
    keys = {}
    for key in TARGET_KEYS:
        value = data.get(key)
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            raise UsageError(f"{source}: {key} must be a string, not {type(value).__name__}")
        keys[key] = value
    return keys


def _documents(value: Any, source: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise UsageError(f"{source}: documents must map an operation name to GraphQL text")
    documents = {}
    for name, text in value.items():
        if name not in DOCUMENT_NAMES:
            raise UsageError(
                f"{source}: documents.{name} is not one of {', '.join(DOCUMENT_NAMES)}"
            )
        if not isinstance(text, str) or not text.strip():
            raise UsageError(f"{source}: documents.{name} must be GraphQL text")
        documents[name] = text
    return documents


def _check_url(key: str, url: str) -> str:
    try:
        parts = urlsplit(url)
        has_user = parts.username is not None or parts.password is not None
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise UsageError(f"{key} is not a valid URL") from None
    # Checked before any message echoes the URL: user information would be a credential.
    if has_user:
        raise UsageError(f"{key} must not hold user information; give credentials as keys")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{key} must be an absolute http(s) URL, got {url!r}")
    if parts.scheme == "http" and not is_loopback_host(parts.hostname):
        raise UsageError(f"{key}: plain http is refused except on loopback, got {url!r}")
    return url.rstrip("/")


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` is ``localhost`` or a loopback address."""
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
