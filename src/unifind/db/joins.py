"""Joins in the QueryDSL: dotted fields along relations and an explicit ``joins`` list.

A field ``customers.country`` on ``orders`` follows the relation ``customers`` of
``orders`` and names the column ``country`` of the model it reaches; paths may chain
(``orders.products.brand`` from ``customers``) up to :data:`MAX_PATH` relations. A
``joins`` entry either names such a path (``{"relation": "customers", "left": true}``) or,
as in the seeds' gou QueryDSL, a model and the keys (``{"from": "customers", "as": "c",
"key": "id", "foreign": "customer_id"}``), after which ``c.country`` is a field. Every
name is checked against the declared models: the relation, the model, each column.

:class:`Scope` resolves names for validation and builds the FROM clause for compilation:
each joined model gets a generated alias (``j1``, ``j2``: no request text in SQL) and its
own permission predicate, which the compiler AND-s outside the generated conditions (for
a left join, into the join's ON, so an invisible row is never joined).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.sql.elements import ColumnElement

from unifind._fielddocs import describe_fields
from unifind.db.models import Column, Model, sql_table
from unifind.errors import InputError

#: Relations one dotted field may follow; a path is as long as it is written, never searched.
MAX_PATH = 3
#: Joined tables in one query (each a distinct path or ``joins`` entry).
MAX_JOINS = 8

Permit = Callable[[Model, Any], ColumnElement[bool] | None]


class Join(BaseModel):
    """``{"relation": "customers"}`` or gou's ``{"from": "customers", "key": "id",
    "foreign": "customer_id", "as": "c"}``; ``left: true`` keeps rows with no match."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", populate_by_name=True, json_schema_extra=describe_fields
    )

    relation: str | None = None
    """A path of relations from the queried model (``customers``, ``customers.orders``)."""
    from_: str | None = Field(default=None, alias="from")
    """A declared model to join on ``key = foreign``."""
    key: str | None = None
    """A column of ``from``."""
    foreign: str | None = None
    """A field of the query so far (may be dotted) that ``key`` equals."""
    as_: str | None = Field(default=None, alias="as")
    """The prefix its fields take; defaults to the relation path or the model's name."""
    left: bool = False


@dataclass(slots=True)
class _Hop:
    model: Model
    parent: str
    """The path of the table this one joins to ("" is the queried model)."""
    key: str
    foreign: str
    """A column of the parent's model."""
    left: bool = False


@dataclass(frozen=True, slots=True)
class Ref:
    """A resolved field: the path of its table ("" for the queried model) and its column."""

    path: str
    model: Model
    column: Column


@dataclass(slots=True)
class Scope:
    """The tables a query reaches from ``model``: names resolved, paths kept in order."""

    model: Model
    models: Mapping[str, Model]
    hops: dict[str, _Hop] = field(default_factory=dict)
    aliases: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, model: Model, models: Mapping[str, Model] | None, joins: Iterable[Join]) -> Scope:
        scope = cls(model, models or {model.name: model})
        for i, join in enumerate(joins):
            scope._join(join, f"joins[{i}]")
        return scope

    def _join(self, join: Join, where: str) -> None:
        if (join.relation is None) == (join.from_ is None):
            raise InputError(f"{where} names either a relation (a path like 'customers') "
                             "or a model with from, key and foreign")  # fmt: skip
        if join.relation is not None:
            if join.key or join.foreign:
                raise InputError(f"{where}: key and foreign go with from, not relation")
            path = self._path(join.relation.split("."), where)
            hop = self.hops[path]
            hop.left = join.left
            if join.as_ and join.as_ != path:
                self._alias(join.as_, where)
                self.hops[join.as_] = self.hops.pop(path)
            return
        other = self.models.get(join.from_ or "")
        if other is None:
            raise InputError(f"{where}: unknown model {join.from_!r}; "
                             f"models: {', '.join(self.models)}")  # fmt: skip
        if not join.key or not join.foreign:
            raise InputError(f"{where}: a join from a model needs key (a column of "
                             f"{other.name}) and foreign (a field of the query)")  # fmt: skip
        key = _column(other, join.key, f"{where}.key")
        parent = self.resolve(join.foreign, f"{where}.foreign")
        alias = join.as_ or other.name
        self._alias(alias, where)
        self._add(alias, _Hop(other, parent.path, key.name, parent.column.name, join.left))

    def _alias(self, alias: str, where: str) -> None:
        if not alias or "." in alias or alias in self.hops or alias in self.model.joins:
            used = ", ".join([*self.hops, *self.model.joins]) or "none"
            raise InputError(
                f"{where}: alias {alias!r} is taken or not a plain word; in use: {used}"
            )
        self.aliases.add(alias)

    def _add(self, path: str, hop: _Hop) -> None:
        if len(self.hops) >= MAX_JOINS:
            raise InputError(f"a query joins at most {MAX_JOINS} tables")
        self.hops[path] = hop

    def _path(self, parts: list[str], where: str) -> str:
        """The path key of a chain of relations, adding the hops it needs."""
        if len(parts) > MAX_PATH:
            raise InputError(f"{where}: {'.'.join(parts)!r} follows {len(parts)} relations; "
                             f"at most {MAX_PATH}")  # fmt: skip
        path, model = "", self.model
        for i, part in enumerate(parts):
            if i == 0 and part in self.aliases:
                path, model = part, self.hops[part].model
                continue
            rel = model.joins.get(part)
            if rel is None or rel.model not in self.models:
                raise InputError(
                    f"{where}: {'.'.join(parts)!r}: {part!r} is not a relation of model "
                    f"{model.name!r}; relations: {', '.join(model.joins) or 'none'}"
                    + (f"; joins: {', '.join(sorted(self.aliases))}" if self.aliases else "")
                    + f"; allowed: {', '.join(model.columns)}"
                )
            child = f"{path}.{part}" if path else part
            if child not in self.hops:
                self._add(child, _Hop(self.models[rel.model], path, rel.key, rel.foreign))
            path, model = child, self.models[rel.model]
        return path

    def resolve(self, name: str, where: str) -> Ref:
        """The table and column a field names; an unknown one raises listing what is allowed."""
        if "." not in name:
            return Ref("", self.model, _column(self.model, name, where))
        *parts, col = name.split(".")
        path = self._path(parts, where)
        model = self.hops[path].model
        return Ref(path, model, _column(model, col, where))

    @property
    def joined(self) -> bool:
        return bool(self.hops)

    def build(
        self, base: Any, permit: Permit
    ) -> tuple[Any, dict[str, Any], list[ColumnElement[bool]]]:
        """The FROM clause, each path's table and the inner joins' permission predicates."""
        tables: dict[str, Any] = {"": base}
        source, outside = base, []
        for i, (path, hop) in enumerate(self.hops.items(), start=1):
            table = sql_table(hop.model).alias(f"j{i}")
            tables[path] = table
            on = table.c[hop.key] == tables[hop.parent].c[hop.foreign]
            perm = permit(hop.model, table)
            if hop.left:
                on = sa.and_(on, perm) if perm is not None else on
                source = source.outerjoin(table, on)
            else:
                source = source.join(table, on)
                if perm is not None:
                    outside.append(perm)
        return source, tables, outside


def _column(model: Model, name: str, where: str) -> Column:
    if name not in model.columns:
        raise InputError(
            f"unknown field {name!r} in {where} of model {model.name!r}; "
            f"allowed: {', '.join(model.columns)}"
            + (f"; relations: {', '.join(model.joins)}" if model.joins else "")
        )
    return model.columns[name]


def single_table(dsl: Any) -> bool:
    """No join, no dotted field, no sub-aggregate or subquery, no set operation: the query
    reads one table only."""
    if (
        getattr(dsl, "compound", ())
        or dsl.joins
        or any("." in f for f in (*(dsl.select or ()), *dsl.groups))
    ):
        return False
    if any(o.field and "." in o.field for o in dsl.orders):
        return False
    if any(a.field and "." in a.field for a in dsl.aggregates):
        return False

    def plain(ws: Any) -> bool:
        return all(
            (w.field is None or "." not in w.field)
            and not isinstance(w.value, BaseModel)
            and plain(w.wheres or ())
            for w in ws
        )

    return bool(plain(dsl.wheres))
