"""The resolution law (DESIGN §5), per operation: pin › first available keyed › zero-key default.

A pin is a pin: one naming nothing registered (``web.search_provider: tavly``) is refused
with the valid names when the resolver is built, never replaced by another provider
(issue #9 overrides DESIGN §5's "falls through", which sent a typo to DuckDuckGo).

Availability is a local check (is a key configured?), never a network probe. Search and
fetch resolve independently, each over its own registry (``web_providers``,
``web_fetchers``), in registration order: built-ins first, then entry points.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from unifind._http import header_problem
from unifind.errors import ConfigError, UnknownName
from unifind.registry import Registry, registry
from unifind.web.model import PlugConfig

Kind = Literal["search", "fetch"]

REGISTRY_KIND: dict[Kind, str] = {"search": "web_providers", "fetch": "web_fetchers"}
#: The keyless order when nothing keyed is available. SearXNG only counts with a base URL:
#: a self-hosted instance is an explicit choice, a public one is not ours to pick.
ZERO_KEY: dict[Kind, tuple[str, ...]] = {"search": ("searxng", "duckduckgo"), "fetch": ("local",)}
PIN_KEY: dict[Kind, str] = {"search": "search_provider", "fetch": "fetch_provider"}


@dataclass(frozen=True)
class Choice:
    """One plug the law selects, and the words for why (shown in ``LegReport.note``)."""

    name: str
    note: str
    pinned: bool = False


@dataclass(frozen=True)
class PlugInfo:
    """What ``unifind providers`` shows for one plug."""

    kind: Kind
    name: str
    key_env: str | None
    has_key: bool
    usable: bool
    """It can run as configured (a key when it needs one, a base URL when it has no default)."""
    why: str
    base_url: str


def env_name(name: str, what: str) -> str:
    """``UNIFIND_<NAME>_<WHAT>``, e.g. ``UNIFIND_SEARXNG_BASE_URL``."""
    return f"UNIFIND_{name.upper().replace('-', '_')}_{what.upper()}"


class Resolver:
    """Plugs of one kind, their configuration, and the law's order of candidates."""

    def __init__(
        self,
        kind: Kind,
        web_config: Mapping[str, Any],
        env: Mapping[str, str],
        plugs: Registry[Any] | None = None,
    ) -> None:
        self.kind, self.web, self.env = kind, web_config, env
        self.plugs = plugs if plugs is not None else registry(REGISTRY_KIND[kind])
        self._instances: dict[str, Any] = {}
        self._pin = self._configured_pin()

    def _configured_pin(self) -> str | None:
        """``web.<kind>_provider``, else the environment; a name not registered raises."""
        var = f"UNIFIND_WEB_{self.kind.upper()}_PROVIDER"
        for where, name in ((f"web.{PIN_KEY[self.kind]}", self.web.get(PIN_KEY[self.kind])),
                            (var, self.env.get(var))):  # fmt: skip
            if name:
                if name not in self.names():
                    raise ConfigError(
                        f"{where} pins {self.kind} provider {name!r}, which is not registered; "
                        f"valid: {', '.join(self.names())}"
                    )
                return str(name)
        return None

    def names(self) -> list[str]:
        return self.plugs.names()

    def plug(self, name: str) -> Any:
        """The plug instance (built once); unknown names raise listing the valid ones."""
        if name not in self._instances:
            self._instances[name] = self.plugs.get(name)()
        return self._instances[name]

    def _section(self, name: str) -> Mapping[str, Any]:
        section = self.web.get(name) or {}
        if not isinstance(section, Mapping):
            raise ConfigError(f"web.{name} must be a mapping of settings, got {section!r}")
        return section

    def config(self, name: str) -> PlugConfig:
        """Configuration of ``name``: ``web.<name>`` in the config file, then the environment."""
        cls = self.plugs.get(name)
        section = self._section(name)
        key = section.get("api_key") or (self.env.get(cls.key_env) if cls.key_env else None)
        base = (
            section.get("base_url")
            or self.env.get(env_name(name, "base_url"))
            or cls.default_base_url
        )
        options = {k: v for k, v in section.items() if k not in ("api_key", "base_url")}
        if self.kind == "fetch" and "allow_private" in self.web:
            options.setdefault("allow_private", self.web["allow_private"])
        source = f"web.{name}.api_key" if section.get("api_key") else cls.key_env
        return PlugConfig(
            base_url=str(base or ""),
            api_key=str(key) if key else None,
            options=options,
            key_source=source if key else None,
        )

    def info(self, name: str) -> PlugInfo:
        cls, cfg = self.plugs.get(name), self.config(name)
        source = cfg.key_source or cls.key_env
        problem = header_problem(cfg.api_key) if cfg.api_key else None
        if cls.key_env and problem:
            usable, why = False, f"{source} {problem}: set the real key"
        elif cls.key_env and cfg.api_key:
            usable, why = True, f"{source} set"
        elif cls.key_env and cls.key_optional:
            usable, why = True, f"works keyless when pinned; auto needs {cls.key_env}"
        elif cls.key_env:
            usable, why = False, f"no key: set {cls.key_env}"
        elif cls.needs_base_url and not cfg.base_url:
            usable, why = False, f"keyless; needs a base URL: set {env_name(name, 'base_url')}"
        else:
            usable, why = True, "keyless"
        return PlugInfo(self.kind, name, cls.key_env, bool(cfg.api_key), usable, why, cfg.base_url)

    def pin(self, override: str | None = None) -> str | None:
        """The pinned name: the request's, else ``web.<kind>_provider``, else the environment."""
        return override or self._pin

    def candidates(self, pin: str | None = None) -> tuple[list[Choice], list[str]]:
        """Plugs in the law's order (the first is the choice) and notes about the pin.

        A ``pin`` not registered raises ``UnknownName`` listing the valid ones.
        """
        names, notes, out = self.names(), list[str](), list[Choice]()
        if pin and pin not in names:
            raise UnknownName(f"web {self.kind} provider", pin, names)
        if pin:
            out.append(Choice(pin, "pinned", pinned=True))
        keyed_seen = False
        for name in names:
            info = self.info(name)
            if info.key_env and info.has_key:
                lead = (
                    "keyed provider available" if keyed_seen else "first keyed provider available"
                )
                out.append(Choice(name, f"{lead} ({info.why})"))
                keyed_seen = True
        for name in ZERO_KEY[self.kind]:
            if name in names and self.info(name).usable:
                out.append(Choice(name, "zero-key default"))
        unique = {c.name: c for c in reversed(out)}  # the first mention of a name wins
        return [unique[n] for n in dict.fromkeys(c.name for c in out)], notes
