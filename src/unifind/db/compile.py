"""QueryDSL → SQLAlchemy Core ``SELECT`` with bound parameters only (DESIGN §7).

Names reach SQL only after :func:`~unifind.db.dsl.validate_dsl` matched them against the
declared model, and SQLAlchemy quotes them; values are always bound parameters. The
permission predicate is AND-ed *outside* the generated conditions, so an ``or`` in the DSL
cannot widen it: ``WHERE (perm) AND ((generated...))``. Every joined model's predicate is
AND-ed the same way (a left join's goes into its ON), and a sub-aggregate reads only the
rows its model's predicate lets the caller see (:mod:`unifind.db.joins`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.sql.elements import ColumnElement

from unifind.db.dsl import FieldRef, QueryDSL, SubAggregate, SubQuery, Where
from unifind.db.joins import Permit, Scope
from unifind.db.models import Model, sql_table
from unifind.db.permissions import permission_clause

#: LIKE escape character; ``%`` and ``_`` in keyword values are escaped with it.
LIKE_ESCAPE = "\\"


def like_pattern(text: str) -> str:
    """``%text%`` with LIKE wildcards in ``text`` escaped (so "50%" matches a literal %)."""
    escaped = text.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2).replace("%", r"\%").replace("_", r"\_")
    return f"%{escaped}%"


def _condition(col: ColumnElement[Any], op: str, value: Any) -> ColumnElement[bool]:
    cond: ColumnElement[bool] = _operator(col, op, value)
    return cond


def _operator(col: ColumnElement[Any], op: str, value: Any) -> Any:
    match op:
        case "=":
            return col == value
        case "!=":
            # SQL's three-valued logic would drop NULLs from "not apple"; a person means
            # "anything but apple", NULL included.
            return sa.or_(col != value, col.is_(None))
        case ">":
            return col > value
        case ">=":
            return col >= value
        case "<":
            return col < value
        case "<=":
            return col <= value
        # Case-insensitive on every dialect (SQLite's LIKE already is, for ASCII;
        # PostgreSQL's is not): ILIKE there, lower(x) LIKE lower(y) elsewhere.
        case "like":
            return col.ilike(value, escape=LIKE_ESCAPE)
        case "notlike":
            return sa.or_(col.not_ilike(value, escape=LIKE_ESCAPE), col.is_(None))
        case "in":
            return col.in_(value)
        case "notin":
            return sa.or_(col.not_in(value), col.is_(None))
        case "null":
            return col.is_(None)
        case "notnull":
            return col.is_not(None)
        case "between":
            return col.between(value[0], value[1])
    raise ValueError(f"unknown op {op!r}")  # unreachable after validation


Columns = Callable[[str], ColumnElement[Any]]
Values = Callable[[Any], Any]


def compile_wheres(
    wheres: Sequence[Where],
    table: sa.TableClause | Columns,
    value: Values | None = None,
) -> ColumnElement[bool] | None:
    """OR of AND-runs: ``or: true`` starts a new run (AND binds tighter, as in SQL).

    ``table`` is the queried table, or a function from a (dotted) field to its column;
    ``value`` turns a sub-aggregate into its scalar subquery."""
    column: Columns = table if callable(table) else _columns_of(table)
    runs: list[list[ColumnElement[bool]]] = []
    for w in wheres:
        if w.wheres is not None:
            inner = compile_wheres(w.wheres, column, value)
            if inner is None:
                continue
            cond = inner.self_group()
        else:
            assert w.field is not None
            v = value(w.value) if value is not None else w.value
            cond = _condition(column(w.field), w.op, v)
        if not runs or w.or_:
            runs.append([])
        runs[-1].append(cond)
    if not runs:
        return None
    groups = [sa.and_(*r).self_group() if len(r) > 1 else r[0] for r in runs]
    return sa.or_(*groups).self_group() if len(groups) > 1 else groups[0]


def _columns_of(table: sa.TableClause) -> Columns:
    def column(name: str) -> ColumnElement[Any]:
        col: ColumnElement[Any] = table.c[name]
        return col

    return column


@dataclass(frozen=True, slots=True)
class Compiled:
    """A compiled query and how to show it."""

    statement: sa.Select[Any]
    limit: int


def compile_select(
    dsl: QueryDSL,
    model: Model,
    *,
    permission: ColumnElement[bool] | None,
    limit: int,
    offset: int = 0,
    table: sa.TableClause | None = None,
    models: Mapping[str, Model] | None = None,
    permit: Permit | None = None,
) -> Compiled:
    """The SELECT for a validated ``dsl``; ``limit`` is already capped by the caller.

    Pass the ``table`` the permission predicate was built on, so both name one FROM, and
    ``permit`` (model, table → predicate) for the other models a join or sub-aggregate
    reads; without it a protected model is refused (fail closed).
    """
    q = _Query(dsl, model, table if table is not None else sql_table(model), models, permit)
    clauses = [c for c in (permission, *q.outside, q.where(dsl.wheres)) if c is not None]
    if dsl.compound:
        return _compile_compound(dsl, q, clauses, limit, offset)
    if dsl.aggregates:
        return _compile_aggregate(dsl, q, clauses, limit, offset)
    names = list(dsl.select or model.columns)
    if model.primary_key and model.primary_key not in names and not dsl.distinct:
        names.insert(0, model.primary_key)  # items need a record id
    stmt = sa.select(*(q.column(n).label(n) for n in names)).select_from(q.source)
    # Permission first and outside: (perm) AND (generated) — see module docstring.
    if clauses:
        stmt = stmt.where(sa.and_(*(c.self_group() for c in clauses)))
    if dsl.distinct:
        stmt = stmt.distinct()
    orders = [_key(q.column(o.field), o.sort) for o in dsl.orders]
    if model.primary_key and not dsl.distinct:
        orders.append(q.table.c[model.primary_key].asc())  # deterministic paging
    elif dsl.distinct:
        orders += [q.column(n).asc() for n in names if n not in {o.field for o in dsl.orders}]
    stmt = stmt.order_by(*orders).limit(limit).offset(offset + (dsl.offset or 0) or None)
    return Compiled(stmt, limit)


def _key(col: ColumnElement[Any], sort: str) -> Any:
    return col.desc() if sort == "desc" else col.asc()


class _Query:
    """The FROM of one query: the queried table, its joins, and how a field reads."""

    def __init__(
        self,
        dsl: QueryDSL,
        model: Model,
        table: sa.TableClause,
        models: Mapping[str, Model] | None,
        permit: Permit | None,
    ) -> None:
        self.table = table
        self.permit: Permit = permit or (lambda m, t: permission_clause(m, t, None))
        self.scope = Scope.of(model, models, dsl.joins)
        for name in _fields(dsl):  # every path first: the FROM is built once
            self.scope.resolve(name, "query")
        self.source, self.tables, self.outside = self.scope.build(table, self.permit)
        self._subs = 0

    def column(self, name: str) -> ColumnElement[Any]:
        ref = self.scope.resolve(name, "query")
        col: ColumnElement[Any] = self.tables[ref.path].c[ref.column.name]
        return col

    def where(self, wheres: Sequence[Where]) -> ColumnElement[bool] | None:
        return compile_wheres(wheres, self.column, self.value)

    def value(self, value: Any) -> Any:
        """A sub-aggregate's scalar subquery, or an in/notin subquery's SELECT, over the rows
        its model lets the caller see; another field's column."""
        if isinstance(value, FieldRef):
            return self.column(value.field)
        if isinstance(value, SubQuery):
            return self._subquery(value.query)
        if not isinstance(value, SubAggregate):
            return value
        self._subs += 1
        ref = self.scope.resolve(value.field, "wheres value") if value.field else None
        model = ref.model if ref is not None else self.scope.model
        table: Any = sql_table(model).alias(f"s{self._subs}")
        fn = _FNS[value.agg]
        arg = fn(table.c[ref.column.name]) if ref is not None else fn()
        source, conds = table, [self.permit(model, table)]
        if value.wheres:  # "the highest salary in Biology": its own conditions
            inner = QueryDSL(model=model.name, wheres=value.wheres)
            q = _Query(inner, model, table, self.scope.models, self.permit)
            source, conds = q.source, [*conds, *q.outside, q.where(value.wheres)]
        sub = sa.select(arg).select_from(source)
        kept = [c for c in conds if c is not None]
        if kept:
            sub = sub.where(sa.and_(*(c.self_group() for c in kept)))
        return sub.scalar_subquery()

    def _subquery(self, dsl: QueryDSL) -> sa.Select[Any]:
        """``SELECT field FROM model ... WHERE (perm) AND (...) [GROUP BY field HAVING ...]``:
        not correlated with the outer query; every model it reads is permission-checked.
        With a limit, its first rows, read through a derived table (MySQL and MariaDB take
        no LIMIT directly inside IN)."""
        self._subs += 1
        model = self.scope.models[dsl.model or ""]
        table: Any = sql_table(model).alias(f"s{self._subs}")
        q = _Query(dsl, model, table, self.scope.models, self.permit)
        clauses = [c for c in (self.permit(model, table), *q.outside, q.where(dsl.wheres))
                   if c is not None]  # fmt: skip
        field = dsl.groups[0] if dsl.aggregates else (dsl.select or ("",))[0]
        stmt = sa.select(q.column(field)).select_from(q.source)
        if clauses:
            stmt = stmt.where(sa.and_(*(c.self_group() for c in clauses)))
        if dsl.aggregates:
            stmt = stmt.group_by(q.column(field))
        known = {a.name: _agg_expr(a, q) for a in dsl.aggregates}
        for h in dsl.havings:
            stmt = stmt.having(_operator(known[h.field or ""], h.op, h.value))
        if dsl.limit is None:
            return stmt
        keys = [_key(known[o.field] if o.field in known else q.column(o.field), o.sort)
                for o in dsl.orders]  # fmt: skip
        # The field last: rows tied on every key are cut the same way on every dialect.
        stmt = stmt.order_by(*keys, q.column(field).asc()).limit(dsl.limit)
        top = stmt.subquery(f"s{self._subs}t")
        return sa.select(top.c[0])


def _agg_expr(agg: Any, q: _Query) -> ColumnElement[Any]:
    """``fn(field)`` of one aggregate (``count(*)`` without a field)."""
    fn = _FNS[agg.fn]
    if agg.field is None:
        return fn()  # type: ignore[no-any-return]
    arg = q.column(agg.field)
    return fn(arg.distinct() if agg.distinct else arg)  # type: ignore[no-any-return]


def _fields(dsl: QueryDSL) -> list[str]:
    """Every field a query names, in a fixed order (join aliases follow it)."""
    names = [*(dsl.select or ()), *dsl.groups, *(a.field for a in dsl.aggregates if a.field)]

    def walk(ws: Sequence[Where]) -> None:
        for w in ws:
            names.extend([w.field] if w.field else [])
            names.extend([w.value.field] if isinstance(w.value, FieldRef) else [])
            walk(w.wheres or ())

    walk(dsl.wheres)
    aggs = {a.name for a in dsl.aggregates} | set(dsl.groups)
    return names + [o.field for o in dsl.orders if o.field not in aggs]


_FNS: dict[str, Any] = {"count": sa.func.count, "avg": sa.func.avg, "sum": sa.func.sum,
                        "min": sa.func.min, "max": sa.func.max}  # fmt: skip


_SET_OPS: dict[str, Any] = {"union": sa.union, "intersect": sa.intersect, "except": sa.except_}


def _part(dsl: QueryDSL, q: _Query, clauses: list[ColumnElement[bool]]) -> sa.Select[Any]:
    """One query of a set operation: its fields, no order or limit (SQLite takes none)."""
    if dsl.aggregates:
        return _aggregate_select(dsl, q, clauses)[0]
    stmt = sa.select(*(q.column(n).label(n) for n in dsl.select or ())).select_from(q.source)
    if clauses:
        stmt = stmt.where(sa.and_(*(c.self_group() for c in clauses)))
    return stmt


def _compile_compound(
    dsl: QueryDSL, q: _Query, clauses: list[ColumnElement[bool]], limit: int, offset: int
) -> Compiled:
    """``SELECT * FROM (first UNION|INTERSECT|EXCEPT second) ORDER BY ... LIMIT``; the
    second query's model gets its own permission predicate (fail closed)."""
    part = dsl.compound[0]
    other = q.scope.models[part.query.model or ""]
    table: Any = sql_table(other).alias("c1")
    q2 = _Query(part.query, other, table, q.scope.models, q.permit)
    clauses2 = [c for c in (q.permit(other, table), *q2.outside, q2.where(part.query.wheres))
                if c is not None]  # fmt: skip
    first = _part(dsl, q, clauses)
    both = _SET_OPS[part.op](first, _part(part.query, q2, clauses2)).subquery("u")
    names = list(first.selected_columns.keys())
    stmt = sa.select(*(both.c[n] for n in names))
    keys = [_key(both.c[o.field], o.sort) for o in dsl.orders]
    keys += [both.c[n].asc() for n in names if n not in {o.field for o in dsl.orders}]
    stmt = stmt.order_by(*keys).limit(limit).offset(offset + (dsl.offset or 0) or None)
    return Compiled(stmt, limit)


def _aggregate_select(
    dsl: QueryDSL, q: _Query, clauses: list[ColumnElement[bool]]
) -> tuple[sa.Select[Any], dict[str, ColumnElement[Any]], dict[str, ColumnElement[Any]]]:
    """``SELECT groups..., fn(field)... GROUP BY groups HAVING ...`` (no order, no limit)."""
    exprs: dict[str, ColumnElement[Any]] = {}
    for agg in dsl.aggregates:
        fn = _FNS[agg.fn]
        if agg.field is None:
            exprs[agg.name] = fn().label(agg.name)
            continue
        arg = q.column(agg.field)
        exprs[agg.name] = fn(arg.distinct() if agg.distinct else arg).label(agg.name)
    groups = {g: q.column(g) for g in dsl.groups}
    # An explicit FROM: ``count(*)`` names no column, and without a WHERE on the table
    # SQLAlchemy would emit ``SELECT count(*)`` alone, which counts one row (issue #19).
    stmt = sa.select(*(c.label(g) for g, c in groups.items()), *exprs.values())
    stmt = stmt.select_from(q.source)
    if clauses:
        stmt = stmt.where(sa.and_(*(c.self_group() for c in clauses)))
    if groups:
        stmt = stmt.group_by(*groups.values())
    for h in dsl.havings:
        assert h.field is not None
        stmt = stmt.having(_operator(exprs[h.field].element, h.op, h.value))  # type: ignore[attr-defined]
    return stmt, groups, exprs


def _compile_aggregate(
    dsl: QueryDSL,
    q: _Query,
    clauses: list[ColumnElement[bool]],
    limit: int,
    offset: int,
) -> Compiled:
    """``SELECT groups..., fn(field)... GROUP BY groups HAVING ...``: one row per group."""
    stmt, groups, exprs = _aggregate_select(dsl, q, clauses)
    known: dict[str, ColumnElement[Any]] = {**groups, **exprs}
    keys = [_key(known[o.field] if o.field in known else q.column(o.field), o.sort)
            for o in dsl.orders]  # fmt: skip
    stmt = stmt.order_by(*keys, *groups.values())
    stmt = stmt.limit(limit).offset(offset + (dsl.offset or 0) or None)
    return Compiled(stmt, limit)


def render(stmt: sa.Select[Any], dialect: sa.Dialect) -> tuple[str, dict[str, Any]]:
    """The SQL text with placeholders, and the bound parameters shown separately."""
    compiled = stmt.compile(dialect=dialect)
    return str(compiled), {k: _jsonable(v) for k, v in compiled.params.items()}


def _jsonable(v: Any) -> Any:
    if isinstance(v, list | tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, int | float | str | bool) or v is None:
        return v
    return str(v)
