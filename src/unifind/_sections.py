"""Typed checks of the config sections (``web:``, ``db:``, ``timeouts:``, ``ask:``), env
overrides for every typed key, and "did you mean" for a misspelt one (issues #9, #10).

The legs read their sections as plain mappings (a provider's own ``web.<name>:`` options
are free-form); these models only check them: known keys get their types (``timeout_s:
abc`` is refused, ``"15"`` becomes 15.0), unknown scalar keys are refused with the nearest
valid name, and what the user wrote is kept as written otherwise.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)


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
    min_confidence: float = Field(default=0.0, ge=0, le=1)
    """Refuse a generated answer that used less than this share of the question's content
    words (``unifind.db.leg.DEFAULT_MIN_CONFIDENCE``; 0: never; ``strict``: any word unused)."""


class Timeouts(BaseModel):
    """``timeouts:``: per-leg deadlines in seconds."""

    model_config = ConfigDict(extra="forbid")

    web: float | None = Field(default=None, gt=0)
    kb: float | None = Field(default=None, gt=0)
    db: float | None = Field(default=None, gt=0)


#: The forms of a stage's ``uses`` (DESIGN §9); the answer has no rule-based or MCP form.
_STAGE_USES = re.compile(r"builtin|none|agent:\S+|mcp:[^.\s]+\.\S+")
_ANSWER_USES = re.compile(r"builtin|none|agent:\S+")


class AskUses(BaseModel):
    """``ask.uses``: which implementation runs each stage of the agent pipeline."""

    model_config = ConfigDict(extra="forbid")

    intent: str = "builtin"
    """Whether to search and which legs: ``builtin`` (rules), ``none`` (never search),
    ``agent:<profile>`` or ``mcp:<server>.<tool>``."""
    keywords: str = "builtin"
    """The web query's keywords: ``builtin`` (frequency-based), ``none`` (the message),
    ``agent:<profile>`` or ``mcp:<server>.<tool>``."""
    answer: str = "builtin"
    """Who answers: ``builtin`` (the ``answer`` profile when there is one, else extractive),
    ``none`` (extractive) or ``agent:<profile>``."""

    @field_validator("intent", "keywords", "answer")
    @classmethod
    def _form(cls, v: str, info: ValidationInfo) -> str:
        stage = info.field_name
        if stage == "answer" and not _ANSWER_USES.fullmatch(v):
            raise ValueError(f"answer uses {v!r}: write builtin, none or agent:<profile>")
        if not _STAGE_USES.fullmatch(v):
            forms = "builtin, none, agent:<profile> or mcp:<server>.<tool>"
            raise ValueError(f"{stage} uses {v!r}: write {forms}")
        return v


class AskSection(BaseModel):
    """``ask:``: the agent pipeline's settings; each of ``assistants:`` is a partial one
    (only what it sets is layered over this section, DESIGN §9)."""

    model_config = ConfigDict(extra="forbid")

    uses: AskUses = Field(default_factory=AskUses)
    skip_threshold: int | None = Field(default=None, ge=1)
    """Skip the other legs when the attached parts alone give this many hits (None: never)."""
    top_n: int = Field(default=8, ge=1, le=50)
    """References given to the answer."""
    hooks: list[str] = Field(default_factory=list)
    """Hooks run on every plan, before the request's own: import paths
    (``mypkg.hooks:add_faq`` or ``mypkg.hooks.add_faq``) or names registered in the
    ``unifind.hooks`` entry-point group; ``UNIFIND_ASK_HOOKS`` is a comma list."""
    samples: int = Field(default=1, ge=1, le=8)
    """Ask the answer's LLM this many times and keep the answer whose citations check best."""
    support: Literal["lexical", "embed", "cross"] | None = None
    """The citation support model (None: the default, ``embed``)."""
    judge: str = "none"
    """An LLM judge of the citations the rules leave open (``not_supported``, or supported
    by a small margin): ``none`` or ``agent:<profile>`` (:mod:`unifind.agent.judge`)."""
    deadline_s: float = Field(default=60.0, gt=0, le=3600)
    """The whole ask's deadline in seconds: searches still running then are cancelled and
    reported ``degraded``/``timeout``, and the answer is made from what came."""
    max_answer_chars: int = Field(default=100_000, ge=1_000, le=10_000_000)
    """The longest LLM answer read: the stream stops there, the answer keeps what came and
    its note says so."""

    @field_validator("judge")
    @classmethod
    def _judge(cls, v: str) -> str:
        if v != "none" and not re.fullmatch(r"agent:\S+", v):
            raise ValueError(f"judge {v!r}: write none or agent:<profile>")
        return v

    @field_validator("hooks", mode="before")
    @classmethod
    def _comma_list(cls, v: Any) -> Any:
        return [h.strip() for h in v.split(",") if h.strip()] if isinstance(v, str) else v


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
    "ask": tuple(k for k in AskSection.model_fields if k != "uses"),
    "ask.uses": tuple(AskUses.model_fields),  # UNIFIND_ASK_USES_INTENT, ...
}


def env_overrides(data: dict[str, Any], sections: Mapping[str, Iterable[str]]) -> dict[str, str]:
    """Apply ``UNIFIND_<SECTION>_<KEY>`` for every typed key of every section, in place;
    returns the dotted keys set, each with its variable (``{"ask.top_n": "UNIFIND_ASK_TOP_N"}``)."""
    applied: dict[str, str] = {}
    for section, keys in {**_ENV_SECTIONS, **sections}.items():
        path = section.split(".")
        for key in keys:
            var = "UNIFIND_" + "_".join([*path, key]).upper()
            if (value := os.environ.get(var)) is not None:
                _put(data, [*path, key], value)
                applied[f"{section}.{key}"] = var
    return applied


def _put(data: dict[str, Any], path: list[str], value: Any) -> None:
    """``data[a][b]... = value``, copying (never mutating) the mappings on the way."""
    head, *rest = path
    if not rest:
        data[head] = value
        return
    current = data.get(head)
    inner = dict(current) if isinstance(current, Mapping) else {}
    _put(inner, rest, value)
    data[head] = inner
