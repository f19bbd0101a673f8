"""The DB leg: a question → per-model QueryDSL → safe SELECT → cited items (DESIGN §7).

Settings (``settings.db``): ``url`` (default: the demo SQLite under ``settings.home`` if it
exists, else the leg is ``disabled``), ``models`` (YAML path, YAML text or mapping; the
demo's when the URL is the demo), ``row_cap`` (100), ``statement_timeout_s`` (10),
``generator`` (``builtin`` | ``agent:<name>``), ``agents`` ({name: {base_url, model,
api_key}}), ``strict`` (false), ``sample_ttl_s`` (3600: how long sampled column values and
searchable words are trusted before they are read again; 0 never; ``DBLeg.refresh()`` now),
``min_confidence`` (:data:`DEFAULT_MIN_CONFIDENCE`: a generated query that used a smaller
share of the question's content words is refused, naming the words and what the model
answers; a request's ``min_confidence`` overrides it; ``strict`` refuses any word unused).

A model with permission columns and no principal is reported ``degraded/forbidden``, not
``skipped``: rows were asked for and withheld, so the overall status must not read ``ok``
(a caller whose auth wiring is missing should notice, not get a quiet empty list), and
``skipped`` means the request itself excluded the backend (DESIGN §3).

A row query that finds nothing stays ``ok`` but says why (``db._empty``: which condition
left nothing, counted without it). Integers the database can't bind (past 64 bits signed)
are refused: a request's ``offset`` or DSL value as InputError naming it, a number read
from the question as that model's ``degraded/error`` report.

``uses="dsl"`` runs the request's ``dsl`` as written (an agent wrote the query, issue #19):
no generator runs; it is validated against the declared models and permission-checked
exactly like a generated DSL, and names its model (``dsl.model`` or one ``models`` entry).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from unifind.config import Settings
from unifind.db._empty import why_empty
from unifind.db._empty_sets import Relaxed, why_set_empty
from unifind.db._pick import head_named, pick_one, spelt, unused_models
from unifind.db.compile import compile_select, render
from unifind.db.demo import DEMO_FILE, DEMO_MODELS_YAML
from unifind.db.dsl import MAX_INT, QueryDSL, combine, parse_dsl, validate_dsl
from unifind.db.execute import Executor, make_engine, missing_sqlite_file, source_error
from unifind.db.generate._scan import normalise, phrase_pattern
from unifind.db.generate.base import (
    Generation,
    GenerationError,
    Generator,
    check_uses,
    resolve_generator,
)
from unifind.db.joins import single_table
from unifind.db.models import SAMPLE_BUDGET_S, Model, introspect, load_models, sql_table
from unifind.db.permissions import Forbidden, permission_clause
from unifind.db.render import aggregate_items, to_items
from unifind.errors import ConfigError, InputError, SourceError, UnknownName
from unifind.types import Item, LegReport, Principal, Reason, SearchRequest, SearchResult, Status

DEFAULT_ROW_CAP = 100
DEFAULT_TIMEOUT_S = 10.0
#: Sampled values and searchable words are read again after this long (``db.sample_ttl_s``).
DEFAULT_SAMPLE_TTL_S = 3600.0
#: Below this share of content words used, a generated answer is refused (``db.min_confidence``).
#: 0 refuses none: on Spider's train split some answers that were right used none of the
#: question's content words (BENCHMARKS.md #19, "Round 4 (DSL, latency, threshold)"), and a
#: silent wrong answer has confidence 1.0; set it to turn weak partial answers into refusals.
DEFAULT_MIN_CONFIDENCE = 0.0


class DBLeg:
    """Searches declared models of one database."""

    def __init__(
        self,
        url: str | None,
        models: str | Path | Mapping[str, Any] | None = None,
        *,
        row_cap: int = DEFAULT_ROW_CAP,
        statement_timeout_s: float = DEFAULT_TIMEOUT_S,
        generator: str = "builtin",
        config: Mapping[str, Any] | None = None,
        strict: bool = False,
        disabled: str | None = None,
        sample_ttl_s: float = DEFAULT_SAMPLE_TTL_S,
        min_confidence: float = DEFAULT_MIN_CONFIDENCE,
    ) -> None:
        self.url = url
        self.min_confidence = _share(min_confidence, "db.min_confidence")
        self.row_cap = row_cap
        self.statement_timeout_s = statement_timeout_s
        self.generator = generator
        self.config = dict(config or {})
        self.strict = strict
        self.disabled = disabled or (None if url else "no database configured (db.url)")
        if models is None and not self.disabled:
            self.disabled = "db.models is not set: declare the tables the DB leg may search"
        self._declared = load_models(models) if models is not None and not self.disabled else {}
        self.sample_ttl_s = sample_ttl_s
        self._models: dict[str, Model] | None = None
        self._sampled_at = 0.0
        self._executor: Executor | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> DBLeg:
        cfg = dict(settings.db)
        url, models = cfg.get("url"), cfg.get("models")
        demo = Path(settings.home) / DEMO_FILE
        if url is None and demo.exists():
            url = f"sqlite:///{demo}"
        if models is None and url == f"sqlite:///{demo}":
            models = DEMO_MODELS_YAML
        disabled = None if url else "no database configured: set db.url or run `unifind db demo`"
        return cls(
            url,
            models,
            row_cap=int(cfg.get("row_cap", DEFAULT_ROW_CAP)),
            statement_timeout_s=float(cfg.get("statement_timeout_s", DEFAULT_TIMEOUT_S)),
            generator=str(cfg.get("generator", "builtin")),
            config={**cfg, "agents": settings.agents},  # one agents section (config.py)
            strict=bool(cfg.get("strict", False)),
            disabled=disabled,
            sample_ttl_s=float(cfg.get("sample_ttl_s", DEFAULT_SAMPLE_TTL_S)),
            min_confidence=cfg.get("min_confidence", DEFAULT_MIN_CONFIDENCE),
        )

    def close(self) -> None:
        """Release pooled connections."""
        if self._executor is not None:
            self._executor.engine.dispose()
            self._executor = None

    async def models(self) -> dict[str, Model]:
        """Declared models completed by introspection: once, then again when the sample is
        older than ``sample_ttl_s`` (0: never). A failed read is retried at the next call."""
        stale = self.sample_ttl_s > 0 and time.monotonic() - self._sampled_at > self.sample_ttl_s
        if self._models is None or stale:
            await self.refresh()
        assert self._models is not None
        return self._models

    async def refresh(self) -> dict[str, Model]:
        """Read the schema, sampled values and searchable words again (rows change)."""
        executor = self._get_executor()
        self._models = await asyncio.wait_for(
            asyncio.to_thread(
                _introspect,
                executor.engine,
                self._declared,
                self.statement_timeout_s / 2,
            ),
            self.statement_timeout_s * 3,
        )
        self._sampled_at = time.monotonic()
        return self._models

    def _get_executor(self) -> Executor:
        if self._executor is None:
            assert self.url is not None
            if path := missing_sqlite_file(self.url):
                raise SourceError(Reason.UNREACHABLE, f"database file {path} does not exist")
            limit = self.statement_timeout_s
            engine = make_engine(self.url, statement_timeout_s=limit)
            self._executor = Executor(engine, statement_timeout_s=limit, engine_timeout_s=limit)
        return self._executor

    async def search(
        self, req: SearchRequest, *, principal: Principal | None = None, explain: bool = False
    ) -> SearchResult:
        """Never raises for a source failure; bad input (unknown model/field/op) raises."""
        t0 = time.perf_counter()
        if req.type != "db":
            raise InputError(f"DBLeg answers db requests, not {req.type}")
        if self.disabled:
            report = LegReport(leg="db", backend="db", status=Status.DISABLED,
                               reason=Reason.NOT_CONFIGURED, note=self.disabled)  # fmt: skip
            return SearchResult(type="db", query=req.query, reports=(report,))
        uses = req.uses or self.generator
        as_written = uses.strip() == AS_WRITTEN
        if as_written and not req.dsl:
            raise InputError("uses dsl runs the request's dsl as written: give a dsl")
        if not as_written:
            check_uses(uses)
        preset = parse_dsl(req.dsl) if req.dsl else None
        _check_offset(req.offset, preset.offset if preset is not None else None)
        try:
            models = await self.models()
        except (SourceError, ConfigError, TimeoutError, sa.exc.SQLAlchemyError) as exc:
            err = _as_source_error(exc)
            report = LegReport(leg="db", backend="db", status=Status.DEGRADED, reason=err.reason,
                               error=f"db: {err}", took_ms=_ms(t0))  # fmt: skip
            return SearchResult(type="db", query=req.query, reports=(report,), took_ms=_ms(t0))
        named = bool(preset is not None and preset.model) or len(req.models or ()) == 1
        if as_written and not named:
            raise InputError("a dsl run as written names its model (dsl.model, or one entry "
                             f"of models); models: {', '.join(models)}")  # fmt: skip
        chosen, skipped = _choose(req, preset, models)
        # When the leg chose the models, one answers and says which (issue #19).
        chose = not req.models and not (preset is not None and preset.model)
        for model in chosen:
            if preset is not None:
                validate_dsl(preset.model_copy(update={"model": None}), model, models)
        generator = (
            AsWritten(preset) if as_written and preset else resolve_generator(uses, self.config)
        )
        if as_written:
            preset = None  # the generator returns it: combining would repeat every condition
        strict = self.strict if req.strict is None else req.strict
        floor = self.min_confidence if req.min_confidence is None else req.min_confidence
        runs = await asyncio.gather(
            *(self._one(req, m, preset, generator, (strict, floor), principal, explain, models)
              for m in chosen)
        )  # fmt: skip
        _pass_over(runs)
        picked = pick_one(runs, models, req.query) if chose else []
        picked += unused_models(runs, models, req.query)
        return _result(req, runs, skipped, _ms(t0), picked)

    async def _one(
        self,
        req: SearchRequest,
        model: Model,
        preset: QueryDSL | None,
        generator: Generator,
        strictness: tuple[bool, float],
        principal: Principal | None,
        explain: bool,
        models: Mapping[str, Model] | None = None,
    ) -> _Run:
        t0 = time.perf_counter()
        run = _Run(model.name)
        strict, floor = strictness
        try:
            table = sql_table(model)
            permission = permission_clause(model, table, principal)
            try:
                # A generator that reads joins (the builtin) is given every model.
                extra = {"models": models} if getattr(generator, "joins", False) else {}
                gen = await generator.generate(req.query, model, strict=strict, **extra)
            except InputError as exc:
                # The request was valid; what the question became was not (a number out of
                # the column's range): this model is not searched, and says so.
                raise GenerationError(
                    f"the question gives no valid query: {exc}", Reason.ERROR
                ) from exc
            if gen.off_topic:  # a refusal, not an empty answer (issue #19)
                run.off_topic = True
                run.notes = [n for n in gen.notes if n.startswith(OFF_TOPIC)]
                raise GenerationError(_off_topic(gen, model), Reason.NOT_UNDERSTOOD)
            _check_confidence(gen, model, floor)
            dsl = validate_dsl(combine(preset, gen.dsl), model, models)
            run.dsl, run.notes = dsl.to_dict(), list(gen.notes)
            run.unknown, run.off_topic = len(gen.unknown), gen.off_topic
            run.understood, run.confidence = gen.understood, gen.confidence
            limit = min(dsl.limit or req.limit, req.limit, self.row_cap)
            # A generated "top N" reads a few rows past N to tell whether the N-th is tied.
            ties = _tie_window(dsl, limit, req, self.row_cap, generator)
            if req.offset + (dsl.offset or 0) > MAX_INT:
                raise GenerationError(f"offset {req.offset} + the query's {dsl.offset} is past "
                                      f"the database's integer range (at most {MAX_INT})",
                                      Reason.ERROR)  # fmt: skip
            compiled = compile_select(
                dsl,
                model,
                permission=permission,
                limit=limit + ties,
                offset=req.offset,
                table=table,
                models=models,
                permit=lambda m, t: permission_clause(m, t, principal),
            )
            executor = self._get_executor()
            if explain or req.explain:
                # Placeholders and values apart: what ran, never request text inside SQL.
                sql, params = render(compiled.statement, executor.engine.dialect)
                run.sql = {"model": model.name, "sql": sql, "params": params}
            if explain:  # the CLI's --explain: the same, as notes
                shown = json.dumps(params, ensure_ascii=False)
                run.notes += [f"{model.name} SQL: {' '.join(sql.split())}",
                              f"{model.name} params: {shown}"]  # fmt: skip
            rows = await executor.fetch(compiled.statement, timeout_s=req.timeout_s)
        except Forbidden as exc:
            run.report = _degraded(model.name, Reason.FORBIDDEN, str(exc), t0)
            return run
        except GenerationError as exc:
            run.report = _degraded(model.name, exc.reason, f"{generator.name}: {exc}", t0)
            return run
        except SourceError as exc:
            run.report = _degraded(model.name, exc.reason, f"{model.name}: {exc}", t0)
            return run
        rows, tied = _keep_ties(rows, dsl, limit, ties) if ties else (rows, "")
        run.notes += [tied] if tied else []
        if dsl.aggregates:
            run.items = aggregate_items(model, rows, dsl.groups, req)
        else:
            run.items = to_items(model, rows, req, keywords=gen.keywords, ordered=bool(dsl.orders))
        note = f"generator {uses_name(generator)}"
        if (dsl.limit or 0) > self.row_cap:
            note += f"; limit {dsl.limit} capped at row_cap {self.row_cap}"
        if not rows and not dsl.aggregates:
            joined = None if single_table(dsl) else (models, principal)
            why = await self._why_empty(model, table, permission, dsl, req, joined)
            run.notes += why
            note = "; ".join([note, *why])
        run.report = LegReport(leg="db", backend=model.name, status=Status.OK,
                               hits=len(rows), took_ms=_ms(t0), note=note)  # fmt: skip
        run.partial = _partial(model.name, gen)
        return run

    async def _why_empty(
        self,
        model: Model,
        table: sa.TableClause,
        permission: Any,
        dsl: QueryDSL,
        req: SearchRequest,
        joined: tuple[Mapping[str, Model] | None, Principal | None] | None = None,
    ) -> list[str]:
        """What left the rows empty (see ``db._empty``: one statement); a failed probe is said,
        not raised. ``joined`` (models, principal): the query reads along relations, so each
        count is of the whole query with one condition out, every model's permission kept."""
        executor = self._get_executor()

        async def fetch(stmt: sa.Select[Any]) -> list[dict[str, Any]]:
            return await executor.fetch(stmt, timeout_s=req.timeout_s)

        relaxed = Relaxed(model, table, permission, *(joined or (None, None)))
        offset = req.offset + (dsl.offset or 0)
        try:
            if dsl.compound:
                return await why_set_empty(fetch, relaxed, dsl, offset)
            query = None if joined is None else relaxed.query(dsl)
            return await why_empty(fetch, model, table, permission, dsl.wheres, offset, query=query)
        except SourceError as exc:
            return [f"why {model.name} has no rows was not checked: {exc}"]


def _share(value: Any, name: str) -> float:
    """A confidence threshold: a number from 0 (never refuse) to 1 (every word used)."""
    try:
        share = float(value)
    except (TypeError, ValueError):
        share = -1.0
    if not 0.0 <= share <= 1.0:
        raise ConfigError(f"{name} is a share of the question's words from 0 to 1, got {value!r}")
    return share


def _check_confidence(gen: Generation, model: Model, floor: float) -> None:
    """Refuse a generated query that used less than ``floor`` of the question's content words
    (issue #19 scope 1): the message names the words it could not map and what the model
    can answer. A query an agent wrote (no question read) has no confidence: never refused."""
    if gen.confidence is None or gen.confidence >= floor or gen.off_topic:
        return
    unused = [w for w, use in gen.understood if use.startswith("not used")]
    raise GenerationError(
        f"too little of the question understood for {model.name!r} (confidence "
        f"{gen.confidence:.2f} < {floor:.2f}): could not map "
        f"{', '.join(repr(w) for w in unused) or 'most words'}; {_answers_about(model)}",
        Reason.NOT_UNDERSTOOD,
    )


def _pass_over(runs: list[_Run]) -> None:
    """A model the question is not about is refused only when no other model answered: when
    one did, it is passed over (``skipped``), and the answer's status is the answer's."""
    if not any(r.report is not None and r.report.status is Status.OK for r in runs):
        return
    for r in runs:
        if r.off_topic and r.report is not None and r.report.status is Status.DEGRADED:
            r.report = LegReport(leg="db", backend=r.model, status=Status.SKIPPED,
                                 reason=Reason.NOT_REQUESTED, note=r.report.error)  # fmt: skip


#: How a note and a refusal say that a question is not about a model.
OFF_TOPIC = "the question does not seem to be about"


def _off_topic(gen: Generation, model: Model) -> str:
    """Why a question nothing of ``model`` answers is refused: the words it could not map
    and what the model answers about (an empty list with status ok read as "no such rows")."""
    unused = [w for w in gen.unknown if isinstance(w, str) and len(w) < 40]
    said = ", ".join(repr(w) for w in unused) or "any word"
    return f"{OFF_TOPIC} {model.name}: could not map {said}; {_answers_about(model)}"


def _answers_about(model: Model) -> str:
    columns = ", ".join(list(model.columns)[:12]) + (", ..." if len(model.columns) > 12 else "")
    related = f"; related: {', '.join(model.joins)}" if model.joins else ""
    return f"{model.name} answers about: {columns}{related}"


def _check_offset(offset: int, dsl_offset: int | None) -> None:
    """An offset the database can't bind (64-bit signed) is the caller's to fix."""
    if offset > MAX_INT:
        raise InputError(f"offset {str(offset)[:24]} is out of range: give 0 to {MAX_INT}")
    if dsl_offset is not None and offset + dsl_offset > MAX_INT:
        raise InputError(f"offset + dsl.offset ({offset} + {dsl_offset}) is out of range: "
                         f"together they may be at most {MAX_INT}")  # fmt: skip


#: ``uses`` value that runs the request's DSL as written, with no generator.
AS_WRITTEN = "dsl"


class AsWritten:
    """The "generator" of a DSL an agent wrote: it is the query."""

    name = AS_WRITTEN

    def __init__(self, dsl: QueryDSL) -> None:
        self.dsl = dsl

    async def generate(self, question: str, model: Model, *, strict: bool = False) -> Generation:
        return Generation(dsl=self.dsl)


class _Run:
    """What one model's search produced."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.items: list[Item] = []
        self.report: LegReport | None = None
        self.dsl: dict[str, Any] | None = None
        self.sql: dict[str, Any] | None = None
        """With explain: ``{model, sql, params}`` of the statement compiled."""
        self.notes: list[str] = []
        self.unknown = 0
        """Words of the question the generator could not account for."""
        self.off_topic = False
        self.understood: tuple[tuple[str, str], ...] = ()
        self.confidence: float | None = None
        self.partial: LegReport | None = None
        """The ``understanding`` stage's report when a word of the question was not used."""


def uses_name(generator: Generator) -> str:
    return getattr(generator, "uses", generator.name)


def _introspect(engine: sa.Engine, declared: dict[str, Model], budget_s: float) -> dict[str, Model]:
    try:
        return introspect(engine, declared, sample_budget_s=min(budget_s, SAMPLE_BUDGET_S))
    except sa.exc.DBAPIError as exc:
        if not exc.connection_invalidated:
            raise source_error(exc) from exc
    # A pooled connection the server dropped (the engine has no pre-ping, make_engine):
    # SQLAlchemy invalidated the pool on that failure; read once more on a new connection.
    try:
        return introspect(engine, declared, sample_budget_s=min(budget_s, SAMPLE_BUDGET_S))
    except sa.exc.DBAPIError as exc:
        raise source_error(exc) from exc


def _as_source_error(exc: BaseException) -> SourceError:
    if isinstance(exc, SourceError):
        return exc
    if isinstance(exc, TimeoutError):
        return SourceError(Reason.TIMEOUT, "reading the database schema timed out")
    return SourceError(Reason.ERROR, str(exc))


def _choose(
    req: SearchRequest, preset: QueryDSL | None, models: dict[str, Model]
) -> tuple[list[Model], list[tuple[str, str]]]:
    """Models to search, and those passed over with why."""
    if preset is not None and preset.model:
        names = [preset.model]
    elif req.models:
        names = list(req.models)
    else:
        text = normalise(req.query)
        names = [n for n, m in models.items()
                 if _mentioned(m, text) or head_named(m, models, text)] or list(models)  # fmt: skip
        if len(names) < len(models):
            others = [(n, "the question names other models") for n in models if n not in names]
            return [models[n] for n in names], others
    for n in names:
        if n not in models:
            raise UnknownName("db model", n, models)
    return [models[n] for n in names], [(n, "not requested") for n in models if n not in names]


def _mentioned(model: Model, text: str) -> bool:
    """Named by an alias, or one of its enumerated values is ("sony" → products)."""
    words = {*spelt(model), *model.aliases}  # "which customer", "body builders"
    for col in model.columns.values():
        for value, aliases in (col.values or {}).items():
            words.update((value, value.replace("_", " "), *aliases))
    return any(phrase_pattern(w).search(text) for w in words if normalise(w))


def _degraded(backend: str, reason: Reason, error: str, t0: float) -> LegReport:
    return LegReport(leg="db", backend=backend, status=Status.DEGRADED, reason=reason,
                     error=error, took_ms=_ms(t0))  # fmt: skip


def _result(
    req: SearchRequest,
    runs: list[_Run],
    skipped: list[tuple[str, str]],
    took_ms: float,
    picked: list[str] | None = None,
) -> SearchResult:
    items = sorted((i for r in runs for i in r.items), key=lambda i: -i.score)[: req.limit]
    reports = [r.report for r in runs if r.report is not None]
    answered = [r for r in runs if r.report is not None and r.report.status is Status.OK]
    reports += [r.partial for r in answered if r.partial is not None]
    reports += [LegReport(leg="db", backend=n, status=Status.SKIPPED,
                          reason=Reason.NOT_REQUESTED, note=why) for n, why in skipped]  # fmt: skip
    dsls = [r.dsl for r in runs if r.dsl is not None]
    dsl = dsls[0] if len(dsls) == 1 else ({"queries": dsls} if dsls else None)
    sql = tuple(r.sql for r in runs if r.sql is not None) or None
    notes = (*(picked or ()), *(n for r in runs for n in r.notes))
    shown = next((r for r in answered if r.confidence is not None and not r.off_topic), None)
    return SearchResult(type="db", query=req.query, items=tuple(items), reports=tuple(reports),
                        took_ms=took_ms, dsl=dsl, sql=sql, notes=notes,
                        understood=dict(shown.understood) if shown else None,
                        confidence=shown.confidence if shown else None)  # fmt: skip


#: Rows read past a generated "top N" to find those tied with the N-th.
TIE_WINDOW = 20


def _tie_window(
    dsl: QueryDSL, limit: int, req: SearchRequest, row_cap: int, generator: Generator
) -> int:
    """How many rows past ``limit`` to read for ties (0: none). Only for a generated
    superlative: a query an agent wrote keeps the limit it wrote."""
    if not (dsl.limit and dsl.orders) or generator.name == AS_WRITTEN or req.offset:
        return 0
    return max(0, min(TIE_WINDOW, row_cap - limit, req.limit - limit))


def _keep_ties(
    rows: list[dict[str, Any]], dsl: QueryDSL, limit: int, window: int
) -> tuple[list[dict[str, Any]], str]:
    """The first ``limit`` rows, and a note when rows past them tie with the last on every
    sort key (issue #19: "the most common age" where two ages share the top count has no
    single answer; the one shown is the database's pick, and the note says so)."""
    keys = [o.field for o in dsl.orders]
    if len(rows) <= limit or any(k not in rows[0] for k in keys):
        return rows[:limit], ""
    last = [rows[limit - 1][k] for k in keys]
    n = limit
    while n < len(rows) and [rows[n][k] for k in keys] == last:
        n += 1
    if n == limit:
        return rows[:limit], ""
    shown = ", ".join(f"{k} = {v}" for k, v in zip(keys, last, strict=True))
    more = " or more" if n == limit + window else ""
    return rows[:limit], (f"tie: {n - limit}{more} row(s) not shown have the same {shown} "
                          f"as row {limit}; the top {limit} is not unique (ask for more rows "
                          "to see them)")  # fmt: skip


def _partial(backend: str, gen: Generation) -> LegReport | None:
    """A question answered without some of its words is a partial answer (DESIGN §7): the
    ``understanding`` stage reports which words, and what was done instead."""
    if not gen.unknown:
        return None
    said = [n for n in gen.notes if n.startswith("not understood") or "not compared" in n]
    why = "; ".join(said) or f"not understood: {', '.join(gen.unknown)}"
    return LegReport(leg="db", backend=backend, stage="understanding", status=Status.DEGRADED,
                     reason=Reason.NOT_UNDERSTOOD, error=f"{backend}: {why}")  # fmt: skip


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 2)
