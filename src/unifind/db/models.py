"""Declared DB models: the only tables, views and columns the DB leg may touch (DESIGN §7).

A model is declared in YAML or Python::

    products:
      table: products
      description: Items for sale
      aliases: [product, 产品, 商品]
      title: name
      columns:
        name: {searchable: true, description: Product name}
        price: {unit: USD, aliases: [cost, 价格]}
        category: {values: {laptop: [laptops, notebook, 笔记本]}}
        brand: {sample_values: true}
      permissions: {tenant: tenant_id}
      relations:
        orders: {model: orders, type: has_many, key: product_id, foreign: id}

Anything not declared (a column's type, the primary key, a model without ``columns``) is
filled by introspection through SQLAlchemy (:func:`introspect`). Declared names that the
database lacks are a :class:`~unifind.errors.ConfigError`, never silently dropped.
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import sqlalchemy as sa
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from unifind.db._memo import per_object
from unifind.db.relations import Relation, check_relations, learn_relations
from unifind.errors import ConfigError, UnknownName, describe

ColumnType = Literal["string", "integer", "number", "boolean", "date", "datetime"]

#: Distinct values sampled per column when ``sample_values`` is set.
SAMPLE_LIMIT = 50
#: A text column is treated as enumerated (its values become entities) when it has at most
#: SAMPLE_LIMIT distinct values and they repeat: distinct <= this share of its rows.
ENUM_RATIO = 0.5
#: Rows read from each searchable column to learn which words its text contains.
VOCAB_ROWS = 2000


class Column(BaseModel):
    """One column a model exposes."""

    model_config = ConfigDict(extra="forbid")

    name: str
    type: ColumnType | None = None
    """Filled by introspection when not declared."""
    description: str = ""
    searchable: bool = False
    """Text used for keyword (LIKE) matching."""
    aliases: tuple[str, ...] = ()
    """Words that name this column in a question ("cost", "价格")."""
    flags: tuple[str, ...] = ()
    """Words meaning "this is set / non-zero" ("discounted", "打折"); negated: zero or NULL."""
    unit: str | None = None
    """``USD``/``EUR``/``CNY`` (money), ``kg``, ``stars``...: lets "under $100" find it."""
    values: dict[str, tuple[str, ...]] | None = None
    """Enumerated values, each with the words that mean it ("in stock" → ``in_stock``)."""
    sample_values: bool | None = None
    """Fill ``values`` with up to 50 distinct values read from the database. ``None`` (the
    default): only when the column looks enumerated (few distinct values that repeat)."""

    @field_validator("values", mode="before")
    @classmethod
    def _values_as_mapping(cls, v: Any) -> Any:
        # A plain list is the common case: each value is its own only alias.
        if isinstance(v, list | tuple):
            return {str(x): () for x in v}
        return v


class Permissions(BaseModel):
    """Permission columns, compared with the caller's principal (never with request fields)."""

    model_config = ConfigDict(extra="forbid")

    tenant: str | None = None
    """Row visible only when this column equals ``principal.tenant``."""
    owner: str | None = None
    """Row visible only when this column equals ``principal.user`` (or the row is public)."""
    visibility: str | None = None
    """Row visible when this column is one of ``public_values`` or one of the caller's roles."""
    public_values: tuple[str, ...] = ("public",)

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(c for c in (self.tenant, self.owner, self.visibility) if c)


class Model(BaseModel):
    """A table or view the DB leg may search."""

    name: str
    table: str = ""
    """Defaults to ``name``."""
    db_schema: str | None = Field(default=None, alias="schema")
    description: str = ""
    aliases: tuple[str, ...] = ()
    """Words that name this model in a question ("orders", "订单")."""
    primary_key: str | None = None
    title: str | None = None
    """Column used as the item title; defaults to the first searchable column."""
    columns: dict[str, Column] = Field(default_factory=dict)
    permissions: Permissions = Field(default_factory=Permissions)
    permission_types: dict[str, ColumnType] = Field(default_factory=dict)
    """Types of permission and join-key columns not exposed as columns (introspection)."""
    relations: dict[str, Relation] | None = None
    """Joins to other models; learned from foreign keys when not declared (``None``)."""
    vocabulary: frozenset[str] = Field(default=frozenset(), exclude=True)
    """Lower-cased words found in the searchable columns (filled by introspection)."""
    vocabulary_complete: bool = Field(default=False, exclude=True)
    """True when every row was read: a word outside ``vocabulary`` matches no row."""
    cells: dict[str, tuple[tuple[str, str], ...]] = Field(default_factory=dict, exclude=True)
    """Short whole values of the searchable columns (lower case, one space) → the
    ``(column, stored value)`` pairs holding them, read with ``vocabulary``: a question
    naming one ("Nancy Edwards", "Male") is bound to its column, not searched as words."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @field_validator("columns", mode="before")
    @classmethod
    def _named_columns(cls, v: Any) -> Any:
        if isinstance(v, list):
            return {c["name"] if isinstance(c, dict) else str(c): c for c in v}
        if isinstance(v, dict):
            return {k: _with_name(k, c) for k, c in v.items()}
        return v

    @field_validator("relations", mode="before")
    @classmethod
    def _named_relations(cls, v: Any) -> Any:
        if isinstance(v, dict):
            return {k: {"name": k, **r} if isinstance(r, dict) else r for k, r in v.items()}
        return v

    @property
    def joins(self) -> dict[str, Relation]:
        return self.relations or {}

    @property
    def hidden_columns(self) -> tuple[str, ...]:
        """Permission and join-key columns the table has that are not exposed."""
        names = [*self.permissions.columns, *(r.foreign for r in self.joins.values())]
        return tuple(dict.fromkeys(n for n in names if n not in self.columns))

    def column(self, name: str) -> Column:
        """The declared column ``name``; an unknown name raises listing the valid ones."""
        if name not in self.columns:
            raise UnknownName(f"field of model {self.name!r}", name, self.columns)
        return self.columns[name]

    @property
    def searchable(self) -> list[Column]:
        return [c for c in self.columns.values() if c.searchable]

    @property
    def title_column(self) -> str | None:
        if self.title:
            return self.title
        first = self.searchable[:1] or [c for c in self.columns.values() if c.type == "string"]
        return first[0].name if first else None

    def schema_summary(self, *, relations: bool = False) -> dict[str, Any]:
        """A compact description for an LLM prompt or ``unifind db schema``; ``relations``
        adds them (for a caller that writes the DSL over every model, not one)."""
        cols = []
        for c in self.columns.values():
            entry: dict[str, Any] = {"name": c.name, "type": c.type}
            for key in ("description", "unit"):
                if getattr(c, key):
                    entry[key] = getattr(c, key)
            if c.searchable:
                entry["searchable"] = True
            if c.values:
                entry["values"] = list(c.values)
            cols.append(entry)
        out: dict[str, Any] = {"model": self.name, "description": self.description,
                               "columns": cols}  # fmt: skip
        if relations and self.joins:
            out["relations"] = {
                n: r.model_dump(include={"model", "type", "key", "foreign"})
                for n, r in self.joins.items()
            }
        return out


def _with_name(name: str, column: Any) -> Any:
    if column is None:
        return {"name": name}
    if isinstance(column, dict):
        return {"name": name, **column}
    return column


def load_models(spec: str | Path | Mapping[str, Any] | list[Any]) -> dict[str, Model]:
    """Models from a YAML path, YAML text, a ``{name: {...}}`` mapping or a list of dicts."""
    data: Any = spec
    if isinstance(spec, Path) or (isinstance(spec, str) and "\n" not in spec and ":" not in spec):
        path = Path(spec)
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"cannot read DB models {path}: {exc}") from exc
    elif isinstance(spec, str):
        try:
            data = yaml.safe_load(spec)
        except yaml.YAMLError as exc:
            raise ConfigError(f"DB models are not valid YAML: {exc}") from exc
    if isinstance(data, dict) and isinstance(data.get("models"), dict | list):
        data = data["models"]  # allow a top-level ``models:`` key
    if isinstance(data, list):
        if not all(isinstance(m, dict) and "name" in m for m in data):
            raise ConfigError("a list of DB models needs a mapping with a 'name' for each model")
        data = {m["name"]: m for m in data}
    if not isinstance(data, dict) or not data:
        raise ConfigError("DB models must be a non-empty mapping of model name to declaration")
    models: dict[str, Model] = {}
    for name, decl in data.items():
        if decl is not None and not isinstance(decl, dict):
            raise ConfigError(
                f"DB model {name!r} must be a mapping (table, description, columns, ...), "
                f"got {decl!r}"
            )
        try:
            models[name] = Model.model_validate({"name": name, **(decl or {})})
        except ValidationError as exc:
            raise ConfigError(f"DB model {name!r} is invalid: {describe(exc)}") from exc
        if not models[name].table:
            models[name] = models[name].model_copy(update={"table": name})
    check_relations(models)
    return models


def _column_type(satype: Any) -> ColumnType:
    # MySQL/MariaDB store BOOLEAN as TINYINT(1), which reflects as an integer.
    if type(satype).__name__ == "TINYINT" and getattr(satype, "display_width", None) == 1:
        return "boolean"
    # Order matters: DateTime is not a Date subclass, Boolean before Integer for some dialects.
    checks: list[tuple[type[Any], ColumnType]] = [
        (sa.Boolean, "boolean"),
        (sa.DateTime, "datetime"),
        (sa.Date, "date"),
        (sa.Integer, "integer"),
        (sa.Numeric, "number"),
        (sa.Float, "number"),
    ]
    for cls, name in checks:
        if isinstance(satype, cls):
            return name
    return "string"


def introspect(
    engine: sa.Engine, models: Mapping[str, Model], *, sample_budget_s: float | None = None
) -> dict[str, Model]:
    """Fill types, primary keys, missing columns and sampled values from the database.

    A model with no declared columns exposes every column (text ones searchable).
    """
    insp = sa.inspect(engine)
    out: dict[str, Model] = {}
    actuals: dict[str, dict[str, ColumnType]] = {}
    for name, model in models.items():
        try:
            if engine.dialect.name == "duckdb":
                actual = _duckdb_columns(engine, model)
            else:
                reflected = insp.get_columns(model.table, schema=model.db_schema)
                actual = {c["name"]: _column_type(c["type"]) for c in reflected}
        except sa.exc.NoSuchTableError as exc:
            tables = insp.get_table_names(schema=model.db_schema)
            views = insp.get_view_names(schema=model.db_schema)
            raise ConfigError(
                f"DB model {name!r}: table {model.table!r} does not exist; "
                f"tables: {', '.join(tables) or 'none'}; views: {', '.join(views) or 'none'}"
            ) from exc
        out[name] = _fill(model, actual, insp)
        actuals[name] = actual
    out = learn_relations(out, actuals, insp)
    with engine.connect() as conn:
        for name, model in out.items():
            out[name] = _sample_bounded(conn, model, sample_budget_s or SAMPLE_BUDGET_S)
    return out


_DUCK_TYPES: list[tuple[str, ColumnType]] = [
    ("BOOL", "boolean"), ("TIMESTAMP", "datetime"), ("DATE", "date"), ("INT", "integer"),
    ("DECIMAL", "number"), ("NUMERIC", "number"), ("DOUBLE", "number"), ("FLOAT", "number"),
    ("REAL", "number"),
]  # fmt: skip


def _duckdb_columns(engine: sa.Engine, model: Model) -> dict[str, ColumnType]:
    """DuckDB's columns from information_schema: duckdb-engine's reflection queries
    ``pg_catalog`` tables that recent DuckDB releases no longer emulate."""
    stmt = sa.text(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_name = :t AND table_schema = coalesce(:s, current_schema()) "
        "ORDER BY ordinal_position"
    )
    with engine.connect() as conn:
        rows = conn.execute(stmt, {"t": model.table, "s": model.db_schema}).all()
    if not rows:
        raise sa.exc.NoSuchTableError(model.table)
    out: dict[str, ColumnType] = {}
    for name, kind in rows:
        upper = str(kind).upper()
        out[str(name)] = next((t for key, t in _DUCK_TYPES if key in upper), "string")
    return out


#: Seconds sampling may take per model; a slow view keeps its declarations as they are.
SAMPLE_BUDGET_S = 2.0


def _sample_bounded(conn: sa.Connection, model: Model, budget_s: float) -> Model:
    """:func:`_sample` under a time budget where the dialect allows one; best effort."""
    raw = conn.connection.driver_connection
    sqlite = conn.dialect.name == "sqlite"
    if sqlite and raw is not None:
        deadline = time.monotonic() + budget_s
        raw.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 1000)
    elif conn.dialect.name == "postgresql":
        ms = str(max(1, int(budget_s * 1000)))
        conn.execute(sa.text("SELECT set_config('statement_timeout', :ms, true)"), {"ms": ms})
    try:
        return _sample(conn, model)
    except sa.exc.DBAPIError:
        conn.rollback()
        if any(c.sample_values for c in model.columns.values()):
            raise  # asked for explicitly: a failure is the caller's to see
        return model
    finally:
        if sqlite and raw is not None:
            raw.set_progress_handler(None, 0)


def _fill(model: Model, actual: dict[str, ColumnType], insp: sa.Inspector) -> Model:
    declared = model.columns or {
        n: Column(name=n, searchable=t == "string") for n, t in actual.items()
    }
    needed = set(declared) | set(model.permissions.columns)
    if bad := sorted({r.foreign for r in model.joins.values()} - set(actual)):
        raise ConfigError(
            f"DB model {model.name!r}: relation key {', '.join(bad)} is not a column of "
            f"{model.table!r}; it has: {', '.join(actual)}"
        )
    if missing := sorted(needed - set(actual)):
        raise ConfigError(
            f"DB model {model.name!r}: columns {', '.join(missing)} are not in "
            f"{model.table!r}; it has: {', '.join(actual)}"
        )
    columns = {
        n: c if c.type else c.model_copy(update={"type": actual[n]}) for n, c in declared.items()
    }
    pk = model.primary_key
    if pk is None:
        try:
            keys = insp.get_pk_constraint(model.table, schema=model.db_schema)
            pk = next(iter(keys.get("constrained_columns") or []), None)
        except (NotImplementedError, sa.exc.DBAPIError):  # views; DuckDB lacks pg_catalog
            pk = None
        pk = pk or ("id" if "id" in actual else None)
    if pk and pk not in columns:
        columns = {pk: Column(name=pk, type=actual[pk]), **columns}
    hidden = {p: actual[p] for p in model.hidden_columns if p not in columns}
    return model.model_copy(
        update={"columns": columns, "primary_key": pk, "permission_types": hidden}
    )


def _sample(conn: sa.Connection, model: Model) -> Model:
    """Enumerated values of low-cardinality text columns, and the searchable text's words."""
    table = sql_table(model)
    columns = dict(model.columns)
    rows: int | None = None
    for col in model.columns.values():
        if col.values or col.sample_values is False or col.type != "string":
            continue
        if col.name == model.title_column and col.sample_values is None:
            continue  # a title names one row; it is text to search, not a category
        column = table.c[col.name]
        stmt = sa.select(column).where(column.is_not(None)).distinct().limit(SAMPLE_LIMIT + 1)
        found = [str(v) for v in conn.execute(stmt).scalars()]
        if col.sample_values is None:
            if rows is None:
                rows = int(conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())
            if len(found) > SAMPLE_LIMIT or len(found) > max(2, ENUM_RATIO * rows):
                continue
        values = {v: () for v in sorted(found[:SAMPLE_LIMIT]) if v.strip()}
        columns[col.name] = col.model_copy(update={"values": values})
    vocab, complete, cells = _vocabulary(conn, table, model)
    update = {"columns": columns, "vocabulary": vocab, "vocabulary_complete": complete}
    return model.model_copy(update={**update, "cells": cells})


_WORD = re.compile(r"[a-z0-9][a-z0-9+#.'-]*[a-z0-9+#]|[a-z0-9]|[\u3400-\u9fff]+")


#: A cell this short (characters, words) may be named whole in a question; longer text is
#: only searched.
CELL_CHARS, CELL_WORDS = 40, 5


def _vocabulary(
    conn: sa.Connection, table: sa.TableClause, model: Model
) -> tuple[frozenset[str], bool, dict[str, tuple[tuple[str, str], ...]]]:
    searchable = model.searchable
    if not searchable:
        return frozenset(), True, {}
    found = conn.execute(sa.select(*(table.c[c.name] for c in searchable))
                         .limit(VOCAB_ROWS + 1)).all()  # fmt: skip
    words: set[str] = set()
    cells: dict[str, dict[tuple[str, str], None]] = {}
    for row in found[:VOCAB_ROWS]:
        for col, cell in zip(searchable, row, strict=True):
            if cell is None:
                continue
            text = " ".join(unicodedata.normalize("NFKC", str(cell)).lower().split())
            words.update(_WORD.findall(text))
            if len(text) <= CELL_CHARS and text.count(" ") < CELL_WORDS and _WORD.search(text):
                cells.setdefault(text, {})[(col.name, str(cell))] = None
    whole = {k: tuple(v) for k, v in cells.items()}
    return frozenset(words), len(found) <= VOCAB_ROWS, whole


_SA_TYPES: dict[str, Any] = {
    "string": sa.String(),
    "integer": sa.Integer(),
    "number": sa.Float(),
    "boolean": sa.Boolean(),
    "date": sa.Date(),
    "datetime": sa.DateTime(),
}


def sql_table(model: Model) -> sa.TableClause:
    """A lightweight SQLAlchemy table of the model's columns (no reflection at query time)."""
    return _sql_table(model)


@per_object  # built once per model object; a join question reads several (issue #19 latency)
def _sql_table(model: Model) -> sa.TableClause:
    cols = [sa.column(c.name, _SA_TYPES[c.type or "string"]) for c in model.columns.values()]
    hidden = dict.fromkeys([*model.permissions.columns, *model.permission_types])
    extra = [
        sa.column(p, _SA_TYPES[model.permission_types.get(p, "string")])
        for p in hidden
        if p not in model.columns
    ]
    return sa.table(model.table, *cols, *extra, schema=model.db_schema)
