"""Typed checks of the legs' config sections (``web:``, ``db:``, ``timeouts:``), env
overrides for every typed key, and "did you mean" for a misspelt one (issue #9).

The legs read their sections as plain mappings (a provider's own ``web.<name>:`` options
are free-form); these models only check them: known keys get their types (``timeout_s:
abc`` is refused, ``"15"`` becomes 15.0), unknown scalar keys are refused with the nearest
valid name, and what the user wrote is kept as written otherwise.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


def did_you_mean(word: str, valid: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` when a valid name is close to ``word``, else the list."""
    names = sorted(valid)
    close = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else f" (valid: {', '.join(names)})"


class _Section(BaseModel):
    model_config = ConfigDict(extra="allow")

    @model_validator(mode="after")
    def _extras_are_sections(self) -> _Section:
        # A mapping may be a plug's own section (``web.tavily: {api_key: ...}``); any other
        # unknown key is a typo that would otherwise be ignored in silence.
        for key, value in (self.__pydantic_extra__ or {}).items():
            if not isinstance(value, Mapping):
                raise ValueError(f"unknown key {key!r}{did_you_mean(key, type(self).model_fields)}")
        return self


class WebSection(_Section):
    """``web:``: the web leg's settings; ``web.<provider>:`` sections hold a plug's options."""

    search_provider: str | None = None
    fetch_provider: str | None = None
    retries: int = Field(default=2, ge=0, le=10)
    rate_limit: bool = True
    fallback: bool = False
    timeout_s: float = Field(default=15.0, gt=0)
    cache: bool = True
    cache_ttl_s: float | None = Field(default=None, ge=0)
    cache_max_entries: int = Field(default=10_000, ge=1)
    allow_private: bool = False


class DBSection(BaseModel):
    """``db:``: the database leg's settings."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = None
    models: Any = None
    """A YAML path, YAML text, or the declarations themselves (checked when loaded)."""
    row_cap: int = Field(default=100, ge=1, le=100_000)
    statement_timeout_s: float = Field(default=10.0, gt=0)
    generator: str = "builtin"
    strict: bool = False
    currency_rates: dict[str, float] | None = None
    today: str | None = None
    """A fixed "today" for relative dates (tests, replays)."""
    sample_ttl_s: float = Field(default=3600.0, ge=0)
    """Seconds sampled column values stay trusted before they are read again (0: never)."""


class Timeouts(BaseModel):
    """``timeouts:``: per-leg deadlines in seconds."""

    model_config = ConfigDict(extra="forbid")

    web: float | None = Field(default=None, gt=0)
    kb: float | None = Field(default=None, gt=0)
    db: float | None = Field(default=None, gt=0)


def checked(model: type[BaseModel], data: Any) -> dict[str, Any]:
    """``data`` validated by ``model``, as the mapping the leg reads (typed values, the
    keys the user wrote and nothing else)."""
    value = model.model_validate(data or {})
    return value.model_dump(exclude_unset=True)


#: Sections whose keys ``UNIFIND_<SECTION>_<KEY>`` overrides. The web pins keep their own
#: variables (``UNIFIND_WEB_SEARCH_PROVIDER``), read where the pin is resolved.
_ENV_SECTIONS: dict[str, tuple[str, ...]] = {
    "web": tuple(k for k in WebSection.model_fields if not k.endswith("_provider")),
    "db": tuple(k for k in DBSection.model_fields if k not in ("models", "currency_rates")),
    "timeouts": tuple(Timeouts.model_fields),
}


def env_overrides(data: dict[str, Any], sections: Mapping[str, Iterable[str]]) -> None:
    """Apply ``UNIFIND_<SECTION>_<KEY>`` for every typed key of every section, in place."""
    for section, keys in {**_ENV_SECTIONS, **sections}.items():
        for key in keys:
            value = os.environ.get(f"UNIFIND_{section}_{key}".upper())
            if value is not None:
                current = data.get(section)
                data[section] = {**(current if isinstance(current, dict) else {}), key: value}
