"""The one exception tree. Bad input raises; a failing source never does (it is a status).

::

    UnifindError
    ├── InputError (ValueError)          bad input a person can fix: the message says how
    │   ├── UnknownName (LookupError)    unknown collection / plugin / model; lists valid ones
    │   ├── EmbedderMismatch             a collection queried with another embedder
    │   ├── ModeUnavailable              an explicitly asked KB mode that can't run here
    │   └── Forbidden                    visible to the caller, but not theirs to change
    ├── ConfigError                      a bad config file or setting
    │   └── MissingDependency (ImportError)  names the exact ``pip install "unifind[x]"``
    ├── StoreError                       the store can't be opened or written
    └── SourceError                      raised inside a backend, turned into a LegReport
                                          by the runner; never escapes a search call
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import ValidationError

from unifind.types import Reason


def describe(exc: ValidationError) -> str:
    """Pydantic's errors as one line a person can act on (no URLs, no input echo)."""
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "__root__")
        msg = str(err.get("msg", "")).removeprefix("Value error, ")
        parts.append(f"{where}: {msg}" if where else msg)
    return "; ".join(parts)


class UnifindError(Exception):
    """Base of every unifind exception."""


class InputError(UnifindError, ValueError):
    """Bad input: unknown leg, invalid option, empty query, malformed DSL."""

    field: str | None = None
    """The request field at fault (dotted: ``citation_format``), when one is known."""

    def __init__(self, *args: object, field: str | None = None) -> None:
        super().__init__(*args)
        if field is not None:
            self.field = field


class UnknownName(InputError, LookupError):
    """A name that doesn't exist; the message lists the valid ones."""

    def __init__(self, kind: str, name: str, valid: Iterable[str]) -> None:
        self.kind, self.name, self.valid = kind, name, sorted(valid)
        listing = ", ".join(self.valid) if self.valid else "none yet"
        super().__init__(f"unknown {kind} {name!r}; valid: {listing}")


class EmbedderMismatch(InputError):
    """A collection was built with one embedder and queried with another."""


class ModeUnavailable(InputError):
    """A search mode asked for explicitly can't run (e.g. semantic without an embedder)."""


class Forbidden(InputError):
    """The caller may see this but not change it (a tenant's key writing a shared collection)."""


class ConfigError(UnifindError):
    """A configuration file or setting is wrong."""


class MissingDependency(ConfigError, ImportError):
    """An optional dependency is missing; the message names the install command."""

    def __init__(self, module: str, extra: str | None) -> None:
        self.module, self.extra = module, extra
        target = f'"unifind[{extra}]"' if extra else module
        super().__init__(f"{module} is not installed: pip install {target}")


class StoreError(UnifindError):
    """The store can't be opened, read or written."""


class SourceError(UnifindError):
    """A backend failed; the runner turns it into a degraded LegReport."""

    def __init__(self, reason: Reason, message: str) -> None:
        self.reason = reason
        super().__init__(message)
