"""Settings: defaults < YAML file < environment (``UNIFIND_*``) < explicit arguments.

:func:`load_settings` remembers which of those layers set each value
(:meth:`Settings.layer_of`), for ``unifind config show --explain`` and the ask pipeline's
own layers (:mod:`unifind.agent.layers`).
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_serializer,
    field_validator,
    model_validator,
)

from unifind._sections import (
    AskSection,
    AskUses,
    DBSection,
    Timeouts,
    WebSection,
    checked,
    did_you_mean,
    env_overrides,
)
from unifind.errors import ConfigError, describe
from unifind.types import Principal

log = logging.getLogger("unifind.config")


class KBSettings(BaseModel):
    """Knowledge-base defaults."""

    model_config = ConfigDict(extra="forbid")

    store: str = "sqlite"
    """Where the KB lives: ``sqlite`` (one file under ``home``), ``sqlite:///path.db``,
    ``postgresql://user:pass@host/db`` (pgvector), ``qdrant://folder`` (local mode) or
    ``qdrant://host:6333``; ``unifind kb migrate NAME --to URL`` moves collections."""
    embedder: str = "bge-small-en-v1.5"
    """Embedder for new collections: a registered name, ``onnx:/path`` or ``openai:model``."""
    chunk_chars: int = Field(default=1200, ge=100)
    chunk_overlap: int = Field(default=150, ge=0)
    max_file_bytes: int = Field(default=50 * 1024 * 1024, ge=1)
    """Files larger than this are refused by name at ingest, before a byte is read."""
    rrf_k: int = Field(default=60, ge=1)
    candidates: int = Field(default=100, ge=1)
    """How many hits each of the lexical and dense legs contributes to fusion."""
    fusion: Literal["adaptive", "convex", "rrf"] = "adaptive"
    """How lexical and dense runs are fused, all on a 0-1 scale: ``adaptive`` (min-max
    convex, each arm weighted per query by how much the other arm confirms its head;
    ``unifind.rank.adaptive``), ``convex`` (equal weights) or ``rrf`` (k=rrf_k)."""
    feedback_docs: int = Field(default=2, ge=0)
    """Pseudo-relevance feedback (hybrid only; 0 = off): the dense query moves towards the
    mean vector of this many top fused chunks (Rocchio), then both arms run again."""
    feedback_weight: float = Field(default=0.7, ge=0)
    """Rocchio's beta: the feedback mean's weight next to the query vector."""
    feedback_terms: int = Field(default=20, ge=0)
    """RM3 expansion terms for the lexical arm (0 = no lexical feedback)."""
    feedback_lexical_docs: int = Field(default=10, ge=1)
    """Top fused chunks whose terms feed RM3."""
    feedback_lam: float = Field(default=0.5, ge=0, le=1)
    """RM3's share of the original query terms in the expanded query."""
    rerank: str | None = None
    """Reranker applied when a request asks for ``rerank=True`` (default cross-encoder)."""
    rerank_depth: int = Field(default=20, ge=1)
    rerank_fusion: Literal["convex", "rrf", "replace"] = "convex"
    """How the reranker's scores meet the retrieval order: ``convex`` blends min-max
    normalised scores (``rerank_weight`` for the reranker), ``rrf`` fuses the two orders,
    ``replace`` trusts the reranker alone (it lost 0.05-0.08 nDCG@10 on three sets here)."""
    rerank_weight: float = Field(default=0.2, ge=0, le=1)
    """The reranker's share in the ``convex`` blend; 0.2 was the only share measured that
    never lost on any of the five sets (BENCHMARKS.md)."""


class ServerSettings(BaseModel):
    """The HTTP server (``unifind serve``)."""

    model_config = ConfigDict(extra="forbid")

    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=0, le=65535)
    max_body_bytes: int = Field(default=25 * 1024 * 1024, ge=1)
    """Largest request body of an upload or document ingest; larger is refused with 413."""
    max_json_bytes: int = Field(default=1024 * 1024, ge=1)
    """Largest JSON body of every other request (a search, a fetch, a new collection)."""
    heartbeat_s: float = Field(default=10.0, gt=0)
    """Seconds between SSE heartbeat comments, so proxies keep an idle stream open."""
    auth: bool = True
    """Require ``Authorization: Bearer <key>``; off is allowed only on a loopback host."""


class TelemetrySettings(BaseModel):
    """Progress messages and OpenTelemetry (docs/observability.md)."""

    model_config = ConfigDict(extra="forbid")

    otel: bool = False
    """Export OpenTelemetry spans of every search and ask (``UNIFIND_OTEL=1`` also turns it
    on); needs ``pip install "unifind[otel]"``."""
    lang: Literal["en", "zh"] = "en"
    """Default language of progress messages where the caller names none (the CLI's
    ``--lang``, an HTTP ``Accept-Language`` header name one)."""


class Settings(BaseModel):
    """Everything unifind reads from configuration."""

    # A misspelt key must fail loudly, not be ignored (the legs' own sections are free-form).
    model_config = ConfigDict(extra="forbid")

    home: Path = Field(default_factory=lambda: Path("~/.unifind").expanduser())
    """Where the embedded store lives (``UNIFIND_HOME``)."""
    kb: KBSettings = Field(default_factory=KBSettings)
    timeouts: dict[str, float] = Field(default_factory=dict)  # checked by Timeouts
    """Per-leg deadlines in seconds (``{"web": 15, "kb": 30, "db": 15}`` by default)."""
    leg_weights: dict[str, float] = Field(default_factory=dict)
    """Per-leg weights in cross-leg fusion (default 1.0 each)."""
    records: bool = True
    """Save a search record for every request that carries a ``request_id``."""
    records_url: str | None = None
    """SQLAlchemy URL of the records database (default: ``records.sqlite`` under home)."""
    redis_url: str | None = None
    """Redis for state that several workers share (``UNIFIND_REDIS_URL``, e.g.
    ``redis://127.0.0.1:6379/0``): citation numbers per request_id, the web cache and
    provider suspensions after HTTP 429. Unset: each process keeps its own. Redis down
    never fails a search: the process falls back to its own state and logs a warning."""
    redis_prefix: str = "unifind:"
    """Namespace of every key unifind writes in Redis (one per deployment sharing a server)."""
    citation_ttl_s: float = Field(default=86_400.0, gt=0)
    """How long a request's citation numbers stay in Redis after its last search (24 h)."""
    principal: Principal | None = None
    """Who the local user is (``{tenant, user, roles}``): the CLI, the stdio MCP server and
    Searcher calls given no principal act as it. Unset: no principal, so only shared
    collections and tenant-less records are visible (fail closed, DESIGN §10)."""
    agents: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """LLM profiles for every ``agent:<name>`` stage (intent, keywords, rerank, the DB
    generator, the answer): ``{base_url, model, api_key | api_key_env}``. The one place
    profiles live; an older ``db.agents`` is read into it (see :meth:`_one_agents`)."""
    mcp_servers: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """MCP servers for ``mcp:<server>.<tool>`` stages: ``{command, args, env}`` or ``{url}``."""
    web: dict[str, Any] = Field(default_factory=dict)
    """The web leg (keys and types in :class:`unifind._sections.WebSection`); a
    ``web.<provider>:`` mapping holds that plug's options (``api_key``, ``base_url``, ...)."""
    db: dict[str, Any] = Field(default_factory=dict)
    """The database leg (keys and types in :class:`unifind._sections.DBSection`)."""
    telemetry: TelemetrySettings = Field(default_factory=TelemetrySettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    ask: AskSection = Field(default_factory=AskSection)
    """The agent pipeline (``Searcher.ask``): each stage's ``uses``, hooks, ``top_n`` ..."""
    assistants: dict[str, AskSection] = Field(default_factory=dict)
    """Named assistants, each a partial ``ask`` section layered over it when a request
    names the assistant (``assistant="support"``, ``unifind ask --assistant support``)."""

    _sources: dict[str, str] = PrivateAttr(default_factory=dict)
    _file: str | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _one_agents(cls, data: Any) -> Any:
        """Lift a legacy ``db.agents`` into ``agents`` (same name twice must agree)."""
        if not isinstance(data, dict) or not isinstance(data.get("db"), dict):
            return data
        legacy = data["db"].get("agents")
        if legacy is None:
            return data
        if not isinstance(legacy, dict):
            raise ValueError("db.agents must be a mapping of profiles; move it to top-level agents")
        agents = dict(data.get("agents") or {})
        for name, prof in legacy.items():
            if name in agents and agents[name] != prof:
                raise ValueError(
                    f"agent {name!r} is defined in both agents and db.agents, differently: "
                    "keep one, under top-level agents"
                )
            agents[name] = prof
        log.warning(
            "db.agents is deprecated: its profiles (%s) were read into top-level agents; "
            "move them there",
            ", ".join(sorted(legacy)),
        )
        db = {k: v for k, v in data["db"].items() if k != "agents"}
        return {**data, "agents": agents, "db": db}

    @field_validator("web", mode="before")
    @classmethod
    def _web(cls, v: Any) -> Any:
        return checked(WebSection, v)

    @field_validator("db", mode="before")
    @classmethod
    def _db(cls, v: Any) -> Any:
        return checked(DBSection, v)

    @field_validator("timeouts", mode="before")
    @classmethod
    def _timeouts(cls, v: Any) -> Any:
        return {k: t for k, t in checked(Timeouts, v).items() if t is not None}

    @field_serializer("assistants")
    def _partial(self, assistants: dict[str, AskSection]) -> dict[str, Any]:
        # An assistant holds only what it overrides; its defaults would read as choices.
        return {k: a.model_dump(mode="json", exclude_unset=True) for k, a in assistants.items()}

    def layers(self, section: str | None = None) -> dict[str, str]:
        """Every effective setting (of one top-level ``section``), as a dotted key
        (``ask.uses.intent``), with the layer that set it: ``file:<path>``, ``env:<VAR>``,
        ``argument`` (of :func:`load_settings`), ``settings`` (set in code) or ``default``."""
        only = {section} if section else None
        mine = flatten(self.model_dump(mode="json", include=only))
        defaults = flatten(_defaults(section))
        return {key: self._layer(key, value, defaults) for key, value in mine.items()}

    def layer_of(self, key: str) -> str:
        """The layer that set one dotted ``key`` (see :meth:`layers`)."""
        mine = flatten(self.model_dump(mode="json"))
        return self._layer(key, mine.get(key, _MISSING), flatten(_defaults()))

    def _layer(self, key: str, value: Any, defaults: Mapping[str, Any]) -> str:
        parts = key.split(".")
        for n in range(len(parts), 0, -1):
            if (found := self._sources.get(".".join(parts[:n]))) is not None:
                return found
        if defaults.get(key, _MISSING) == value:
            return "default"
        # Set but named nowhere: a value the file gave in another form (``db.agents``).
        return self._file or "settings"

    @property
    def kb_path(self) -> Path:
        return self.home / "kb.sqlite"

    def ensure_home(self) -> Path:
        """The home folder, created if missing; one that can't be raises ConfigError saying
        what to do (not a traceback on every command)."""
        try:
            self.home.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            why = exc.strerror or type(exc).__name__
            raise ConfigError(
                f"cannot use {self.home} as unifind's home ({why}): set UNIFIND_HOME (or "
                "`home:` in the config) to a folder you can write"
            ) from exc
        return self.home


#: Top-level settings the environment overrides as ``UNIFIND_<KEY>`` (``home`` has its own).
_ENV_TOP = ("records", "records_url", "redis_url", "redis_prefix", "citation_ttl_s")
#: The typed models of the sections, to name the nearest key of a misspelt one.
_MODELS: dict[tuple[str, ...], type[BaseModel]] = {}


_MISSING = object()


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """A nested mapping as dotted keys (``{"ask.uses.intent": "builtin"}``); lists and empty
    mappings are values."""
    if not isinstance(value, Mapping) or (not value and prefix):
        return {prefix: value}
    out: dict[str, Any] = {}
    for key, inner in value.items():
        out.update(flatten(inner, f"{prefix}.{key}" if prefix else str(key)))
    return out


def _defaults(section: str | None = None) -> dict[str, Any]:
    # One section's defaults are asked for on every ask (the pipeline's layers): kept.
    return _section_defaults(section) if section else Settings().model_dump(mode="json")


@functools.cache
def _section_defaults(section: str) -> dict[str, Any]:
    return Settings().model_dump(mode="json", include={section})


def _explain(exc: ValidationError) -> str:
    """:func:`describe`, with "did you mean" for an unknown key of a typed section."""
    if not _MODELS:
        _MODELS.update({(): Settings, ("kb",): KBSettings, ("server",): ServerSettings})
        _MODELS.update({("timeouts",): Timeouts, ("db",): DBSection})
        _MODELS.update({("ask",): AskSection, ("ask", "uses"): AskUses})
    hints = []
    for err in exc.errors():
        loc = tuple(str(p) for p in err.get("loc", ()))
        # An assistant is a partial ask section: ``assistants.<name>.uses.x`` is ``ask.uses.x``.
        section = ("ask", *loc[2:-1]) if loc[:1] == ("assistants",) else loc[:-1]
        model = _MODELS.get(section)
        if err.get("type") == "extra_forbidden" and model is not None:
            hints.append(f"{'.'.join(loc)}: unknown key{did_you_mean(loc[-1], model.model_fields)}")
    return "; ".join(hints) if len(hints) == len(exc.errors()) else describe(exc)


def config_candidates() -> list[Path]:
    """Where a config file is looked for when neither ``path`` nor ``UNIFIND_CONFIG`` names
    one, in order: ``./unifind.yaml``, then the user config dir (XDG Base Directory spec)."""
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    # The spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
    base = Path(xdg) if os.path.isabs(xdg) else Path("~/.config").expanduser()
    return [Path("unifind.yaml"), base / "unifind" / "config.yaml"]


def find_config() -> Path | None:
    """The config file :func:`load_settings` reads when given none (None: defaults only)."""
    if named := os.environ.get("UNIFIND_CONFIG"):
        return Path(named)
    return next((p for p in config_candidates() if p.is_file()), None)


def load_settings(path: str | os.PathLike[str] | None = None, **overrides: Any) -> Settings:
    """Read settings from ``path`` (else :func:`find_config`), then the environment."""
    data: dict[str, Any] = {}
    sources: dict[str, str] = {}  # dotted key -> the layer that set it
    path = path or find_config()
    where = f"file:{Path(path).absolute()}" if path else None
    if path:
        import yaml  # only a config file needs the parser (#18: start-up)

        try:
            loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"cannot read config {path}: {exc}") from exc
        if not isinstance(loaded, dict):
            raise ConfigError(f"config {path} must be a mapping, got {type(loaded).__name__}")
        data.update(loaded)
        sources.update(dict.fromkeys(flatten(loaded), f"file:{Path(path).absolute()}"))
    if home := os.environ.get("UNIFIND_HOME"):
        data["home"], sources["home"] = home, "env:UNIFIND_HOME"
    if emb := os.environ.get("UNIFIND_EMBEDDER"):
        data.setdefault("kb", {})["embedder"] = emb
        sources["kb.embedder"] = "env:UNIFIND_EMBEDDER"
    for key in _ENV_TOP:  # UNIFIND_REDIS_URL, UNIFIND_RECORDS, ...
        if (value := os.environ.get(var := f"UNIFIND_{key.upper()}")) is not None:
            data[key], sources[key] = value, f"env:{var}"
    typed = {
        "kb": KBSettings.model_fields,
        "server": ServerSettings.model_fields,
        "telemetry": TelemetrySettings.model_fields,  # UNIFIND_TELEMETRY_LANG, ..._OTEL
    }
    sources.update({k: f"env:{var}" for k, var in env_overrides(data, typed).items()})
    # An argument replaces its whole top-level key, whatever the file or environment said.
    sources = {k: v for k, v in sources.items() if k.split(".")[0] not in overrides}
    sources.update(dict.fromkeys(flatten(overrides), "argument"))
    data.update(overrides)
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        where = f" in {path}" if path else ""
        raise ConfigError(f"invalid configuration{where}: {_explain(exc)}") from exc
    settings.home = Path(settings.home).expanduser()
    settings._sources, settings._file = sources, where
    return settings
