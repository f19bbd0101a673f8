"""Relations between models: declared (the seeds' Yao ``relations``) or learned from the
database's foreign keys, checked when the models load (issue #19).

A relation ``customers`` on ``orders`` reads ``customers.key = orders.foreign``. The DSL
follows relations only along paths a query spells out (``customers.country``), never by
searching for one, so a cycle (``orders → customers → orders``) costs nothing: a path is
as long as it is written, and its length is bounded (:data:`unifind.db.joins.MAX_PATH`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, field_validator

from unifind.errors import ConfigError

if TYPE_CHECKING:
    from unifind.db.models import ColumnType, Model

RelationType = Literal["has_one", "has_many", "belongs_to"]
_SPELLINGS = {"hasone": "has_one", "hasmany": "has_many", "belongsto": "belongs_to"}


class Relation(BaseModel):
    """A join to another model: ``other.key = this.foreign``.

    ``belongs_to``/``has_one`` reach at most one row of ``model``; ``has_many`` several.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    model: str
    """The other model's name."""
    type: RelationType = "belongs_to"
    key: str
    """The column of the other model."""
    foreign: str
    """The column of this model."""
    learned: bool = False
    """Read from the database's foreign keys rather than declared."""

    @field_validator("type", mode="before")
    @classmethod
    def _yao_spelling(cls, v: Any) -> Any:
        # Yao writes hasOne / hasMany; accept both spellings.
        if isinstance(v, str):
            return _SPELLINGS.get(v.replace("_", "").replace("-", "").lower(), v)
        return v


def check_relations(models: Mapping[str, Model]) -> None:
    """A relation to an undeclared model is a ConfigError naming it; its keys are checked
    against the tables at introspection (:func:`learn_relations`): a join key need not be
    a declared column."""
    for model in models.values():
        for rel in model.joins.values():
            where = f"DB model {model.name!r}, relation {rel.name!r}"
            if "." in rel.name or not rel.name:
                raise ConfigError(f"{where}: a relation name is a non-empty word without '.'")
            if rel.model not in models:
                raise ConfigError(f"{where}: model {rel.model!r} is not declared; "
                                  f"declared models: {', '.join(models)}")  # fmt: skip


def learn_relations(
    models: dict[str, Model], tables: Mapping[str, dict[str, ColumnType]], insp: Any
) -> dict[str, Model]:
    """Check every relation's keys against the tables, learn relations from foreign keys
    for models that declare none, and record the types of unexposed join keys."""
    learned = _from_foreign_keys(models, insp, tables)
    out = {
        n: m.model_copy(update={"relations": learned[n]}) if n in learned else m
        for n, m in models.items()
    }
    for model in out.values():
        for rel in model.joins.values():
            other = out[rel.model]
            actual = tables[rel.model]
            if rel.key not in actual:
                raise ConfigError(
                    f"DB model {model.name!r}, relation {rel.name!r}: key {rel.key!r} is not a "
                    f"column of {other.table!r} (model {other.name!r}); it has: "
                    f"{', '.join(actual)}"
                )
            if rel.key not in other.columns and rel.key not in other.permission_types:
                types = {**other.permission_types, rel.key: actual[rel.key]}
                out[rel.model] = other = other.model_copy(update={"permission_types": types})
            mine = out[model.name]
            if rel.foreign not in mine.columns and rel.foreign not in mine.permission_types:
                types = {**mine.permission_types, rel.foreign: tables[model.name][rel.foreign]}
                out[model.name] = mine.model_copy(update={"permission_types": types})
    return out


def _from_foreign_keys(
    models: Mapping[str, Model], insp: Any, tables: Mapping[str, dict[str, ColumnType]]
) -> dict[str, dict[str, Relation]]:
    """``belongs_to`` along each single-column foreign key between two declared models, and
    the ``has_many`` back, named after the other model (each after its column without
    ``_id`` when two keys of a table reach one model). Only for models whose ``relations``
    are not declared."""
    by_table: dict[tuple[Any, Any], str] = {(m.table, m.db_schema): m.name for m in models.values()}
    found: dict[str, dict[str, Relation]] = {
        n: {} for n, m in models.items() if m.relations is None
    }
    if not found:
        return found  # every model declares its relations: no reflection needed
    keys: list[tuple[str, str, list[str], list[str]]] = []
    for name, model in models.items():
        for fk in _foreign_keys(insp, model):
            cols, refs = fk.get("constrained_columns") or [], fk.get("referred_columns") or []
            target = by_table.get((fk.get("referred_table"), fk.get("referred_schema")))
            if target is None and fk.get("referred_schema") is None:
                target = by_table.get((fk.get("referred_table"), model.db_schema))
            if target is not None and len(cols) == 1 and len(refs) == 1:
                keys.append((name, target, cols, refs))
    # Two keys of one table reaching one model (borrower_id, lender_id → members): each
    # relation is named after its column, never one of them after the model.
    twice = Counter((name, target) for name, target, _, _ in keys)
    for name, target, cols, refs in keys:
        # SQLite keeps a key's column as written in the constraint ('Cust_ID' for the
        # column cust_ID): the table's own spelling, or no relation (issue #19: a
        # KeyError here failed every request on such a database).
        col, ref = _spelt(cols[0], tables.get(name)), _spelt(refs[0], tables.get(target))
        if col is None or ref is None:
            continue
        cols, refs = [col], [ref]
        if name in found:
            _add(found[name], target, cols[0], "belongs_to", refs[0], cols[0],
                 by_column=twice[(name, target)] > 1)  # fmt: skip
        if target in found:
            _add(found[target], name, cols[0], "has_many", cols[0], refs[0])
    return found


def _spelt(column: str, actual: dict[str, ColumnType] | None) -> str | None:
    """``column`` as the table spells it (SQL names are case-insensitive), or None."""
    if actual is None or column in actual:
        return column if actual is not None else None
    return next((c for c in actual if c.casefold() == column.casefold()), None)


def _add(
    into: dict[str, Relation], model: str, column: str, kind: str, key: str, foreign: str,
    *, by_column: bool = False,
) -> None:  # fmt: skip
    names = (model, column.removesuffix("_id"))
    for name in names[1:] if by_column else names:
        if name not in into and name:
            into[name] = Relation.model_validate({"name": name, "model": model, "type": kind,
                                                  "key": key, "foreign": foreign,
                                                  "learned": True})  # fmt: skip
            return


def _foreign_keys(insp: Any, model: Model) -> list[dict[str, Any]]:
    try:
        keys: list[dict[str, Any]] = insp.get_foreign_keys(model.table, schema=model.db_schema)
    except (NotImplementedError, sa.exc.SQLAlchemyError):
        return []  # views, and DuckDB (no pg_catalog): declare the relations instead
    return keys
