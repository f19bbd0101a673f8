"""DSL expressiveness on Spider's TRAIN split: each gold SQL written in the QueryDSL (issue #19).

    python bench/spider_dsl.py                      # every question
    python bench/spider_dsl.py --dbs pets_1 --verbose
    python bench/spider_dsl.py --json /tmp/spider-dsl.json

The ceiling a host LLM can reach with ``--dsl``: a converter parses each gold query with
sqlglot and writes it in the DSL (joins as gou ``from/key/foreign`` entries with their own
aliases, conditions, ``distinct``, aggregates with ``distinct``, groups, havings, orders,
limit, a comparison with an un-filtered sub-aggregate). The DSL then runs through the
leg's DSL input path (``uses="dsl"``, validated and permission-checked like an agent's
query), on models declared by ``bench/db_spider.py``'s :func:`declare` (relations learned
from the files' foreign keys), and its rows are scored with the same :func:`matches`.

Outcomes per question: ``match`` (the DSL's rows are the gold's), ``mismatch`` (it ran,
other rows), ``refused`` (the leg's validation refused it: the message is kept),
``unsupported`` (the converter found a construct the DSL can't say; the construct is
counted), ``error`` (the leg raised something else). The 3 failing gold queries are excluded.
Nothing here is a hand-written query: only the gold SQL's parse.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sqlite3
import sys
import time
from collections import Counter, defaultdict
from itertools import product
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from db_spider import DATA, _norm, declare, matches, sort_keys

from unifind.db.leg import DBLeg
from unifind.errors import InputError
from unifind.types import SearchRequest

OUTCOMES = ("match", "mismatch", "refused", "unsupported", "error")


class Unsupported(Exception):
    """The gold query uses a construct the DSL can't say; ``construct`` names it."""

    def __init__(self, construct: str, detail: str = "") -> None:
        self.construct = construct
        super().__init__(f"{construct}: {detail}" if detail else construct)


_OPS = {exp.EQ: "=", exp.NEQ: "!=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
_FLIP = {"=": "=", "!=": "!=", ">": "<", ">=": "<=", "<": ">", "<=": ">="}
_AGGS = {exp.Count: "count", exp.Avg: "avg", exp.Sum: "sum", exp.Min: "min", exp.Max: "max"}


class Converter:
    """One gold SELECT → one DSL dict over ``models`` (declared names, any case in SQL)."""

    def __init__(self, models: dict[str, dict[str, Any]]) -> None:
        self.models = models
        self.tables = {n.lower(): n for n in models}
        self.columns = {n: {c.lower(): c for c in m["columns"]} for n, m in models.items()}

    def convert(self, sql: str) -> dict[str, Any]:
        try:
            tree = sqlglot.parse_one(sql, read="sqlite")
        except sqlglot.errors.ParseError as exc:
            raise Unsupported("parse error", str(exc)[:80]) from exc
        if isinstance(tree, exp.Union | exp.Intersect | exp.Except):
            return self._compound(tree)
        if not isinstance(tree, exp.Select):
            raise Unsupported("not a select")
        return _Query(self, tree).dsl()

    def _compound(self, tree: exp.Union | exp.Intersect | exp.Except) -> dict[str, Any]:
        """``A UNION|INTERSECT|EXCEPT B`` → A's DSL with ``compound: [{op, query: B}]``."""
        op = type(tree).__name__.lower()
        kind = f"set operation ({op})"
        left, right = tree.this, tree.expression
        if not isinstance(left, exp.Select) or not isinstance(right, exp.Select):
            raise Unsupported(f"{kind} of more than two queries")
        if not tree.args.get("distinct", True):
            raise Unsupported(f"{kind} ALL")
        if tree.args.get("order") or tree.args.get("limit"):
            raise Unsupported(f"{kind} with ORDER BY/LIMIT over both")
        try:
            base, other = _Query(self, left).dsl(), _Query(self, right).dsl()
        except Unsupported as exc:
            raise Unsupported(f"{kind}: {exc.construct}") from exc
        if other.get("orders") or other.get("limit"):
            raise Unsupported(f"{kind} with ORDER BY/LIMIT in the second query")
        base["compound"] = [{"op": op, "query": other}]
        return base


class _Query:
    def __init__(self, conv: Converter, sel: exp.Select) -> None:
        self.conv, self.sel = conv, sel
        self.alias: dict[str, tuple[str, str]] = {}  # SQL alias → (model, DSL prefix)
        self.order: list[str] = []  # SQL aliases in FROM order
        self.joins: list[dict[str, Any]] = []
        self.aggs: dict[tuple[str, str | None, bool], str] = {}
        self.agg_list: list[dict[str, Any]] = []
        self.constructs: set[str] = set()
        self.extra: list[Any] = []  # ON terms no join took as its key: conditions

    # -- FROM -------------------------------------------------------------------------
    def _table(self, node: Any) -> tuple[str, str]:
        if not isinstance(node, exp.Table):
            raise Unsupported("subquery in FROM")
        model = self.conv.tables.get(node.name.lower())
        if model is None:
            raise Unsupported("unknown table", node.name)
        return model, (node.alias or node.name).lower()

    def _from(self) -> str:
        """The base model; each joined table becomes a ``joins`` entry keyed by an equality
        of its ON that links it to a table before it. SQLite lets an ON name tables joined
        later (``a JOIN b JOIN c ON a.x = b.x AND b.y = c.y``): the ONs of inner joins are
        pooled, and what no join takes as its key is a condition (``self.extra``)."""
        src = self.sel.args.get("from_")
        if src is None:
            raise Unsupported("no FROM")
        base, alias = self._table(src.this)
        self.alias[alias], self.order = (base, ""), [alias]
        joins = self.sel.args.get("joins") or ()
        for i, join in enumerate(joins, start=1):
            model, sql_alias = self._table(join.this)
            if sql_alias in self.alias:
                raise Unsupported("repeated alias")
            if join.args.get("using"):
                raise Unsupported("join USING")
            self.alias[sql_alias] = (model, f"t{i}")
            self.order.append(sql_alias)
        pool = [t for j in joins if j.side.upper() != "LEFT" for t in _on_terms(j.args.get("on"))]
        joined = {""}
        for i, join in enumerate(joins, start=1):
            prefix, left = f"t{i}", join.side.upper() == "LEFT"
            own = _on_terms(join.args.get("on"))
            key = self._link(own if left else pool, prefix, joined)
            if key is None:
                raise Unsupported("join without a key (cross join)")
            if left and len(own) != 1:
                raise Unsupported("LEFT JOIN on more than one condition")
            if not left:
                pool.remove(key[0])
            entry = {"from": self.alias[self.order[i]][0], "as": prefix, "key": key[1],
                     "foreign": key[2]}  # fmt: skip
            self.joins.append({**entry, "left": True} if left else entry)
            joined.add(prefix)
            self.constructs.add("join")
        self.extra = pool
        return base

    def _link(self, terms: list[Any], prefix: str, joined: set[str]) -> tuple[Any, str, str] | None:
        """The first ``new.col = earlier.col`` among ``terms``: (term, key, foreign field)."""
        for term in terms:
            if not isinstance(term, exp.EQ) or not all(
                isinstance(x, exp.Column) for x in (term.this, term.expression)
            ):
                continue
            a, b = self._column(term.this), self._column(term.expression)
            for mine, other in ((a, b), (b, a)):
                if mine[0] == prefix and other[0] in joined:
                    return term, mine[1], _field(*other)
        return None

    def _column(self, col: exp.Column) -> tuple[str, str]:
        """(DSL prefix, declared column name) of a SQL column reference."""
        name = col.name.lower()
        if col.table:
            found = self.alias.get(col.table.lower())
            if found is None:
                raise Unsupported("column of a table outside the query", col.sql())
            real = self.conv.columns[found[0]].get(name)
            if real is None:
                raise Unsupported("undeclared column", col.sql())
            return found[1], real
        for a in self.order:
            model, prefix = self.alias[a]
            real = self.conv.columns[model].get(name)
            if real is not None:
                return prefix, real
        raise Unsupported("undeclared column", col.sql())

    def _field(self, node: Any) -> str:
        if not isinstance(node, exp.Column):
            raise Unsupported("expression where a column is due", type(node).__name__)
        return _field(*self._column(node))

    # -- aggregates -------------------------------------------------------------------
    def _agg(self, node: Any) -> str | None:
        """The DSL name of an aggregate node (added once), or None if it is none."""
        fn = next((f for t, f in _AGGS.items() if isinstance(node, t)), None)
        if fn is None:
            return None
        arg, distinct = node.this, False
        if isinstance(arg, exp.Distinct):
            distinct, exprs = True, arg.expressions
            if len(exprs) != 1:
                raise Unsupported("aggregate over several columns")
            arg = exprs[0]
        if isinstance(arg, exp.Star):
            if fn != "count":
                raise Unsupported("aggregate of *")
            field = None
        else:
            field = self._field(arg)
        key = (fn, field, distinct)
        if key not in self.aggs:
            name = f"a{len(self.aggs) + 1}"
            self.aggs[key] = name
            agg: dict[str, Any] = {"fn": fn, "as": name}
            if field is not None:
                agg["field"] = field
            if distinct:
                agg["distinct"] = True
                self.constructs.add("count distinct")
            self.agg_list.append(agg)
        return self.aggs[key]

    def _has_agg(self) -> bool:
        parts = [*self.sel.expressions]
        for key in ("having", "order"):
            if self.sel.args.get(key) is not None:
                parts.append(self.sel.args[key])
        return any(p.find(*_AGGS) is not None for p in parts) or bool(self.sel.args.get("group"))

    # -- WHERE ------------------------------------------------------------------------
    def _where(self, node: Any, negate: bool = False) -> dict[str, Any]:
        if isinstance(node, exp.Paren):
            return self._where(node.this, negate)
        if isinstance(node, exp.Not):
            return self._where(node.this, not negate)
        if isinstance(node, exp.And | exp.Or):
            if negate:
                raise Unsupported("NOT over AND/OR")
            left, right = self._where(node.this), self._where(node.expression)
            if isinstance(node, exp.Or):
                right = {**right, "or": True}
                self.constructs.add("or")
            return {"wheres": [left, right]}
        if isinstance(node, exp.Like):
            self.constructs.add("like")
            negate ^= bool(node.args.get("negate"))  # sqlglot reads NOT LIKE as Like(negate)
            return {"field": self._field(node.this), "op": "notlike" if negate else "like",
                    "value": self._literal(node.expression)}  # fmt: skip
        if isinstance(node, exp.In):
            if node.args.get("query") is not None:
                return self._in_query(node, negate)
            values = [self._literal(v) for v in node.expressions]
            return {"field": self._field(node.this), "op": "notin" if negate else "in",
                    "value": values}  # fmt: skip
        if isinstance(node, exp.Between):
            if negate:
                raise Unsupported("NOT BETWEEN")
            return {
                "field": self._field(node.this),
                "op": "between",
                "value": [self._literal(node.args["low"]), self._literal(node.args["high"])],
            }
        if isinstance(node, exp.Is):
            if not isinstance(node.expression, exp.Null):
                raise Unsupported("IS other than NULL")
            return {"field": self._field(node.this), "op": "notnull" if negate else "null"}
        op = next((o for t, o in _OPS.items() if isinstance(node, t)), None)
        if op is None:
            raise Unsupported("condition", type(node).__name__)
        left, right = node.this, node.expression
        if not self._is_column(left):
            left, right, op = right, left, _FLIP[op]
        if not self._is_column(left):
            raise Unsupported("comparison without a column")
        if negate:
            op = {"=": "!=", "!=": "=", ">": "<=", ">=": "<", "<": ">=", "<=": ">"}[op]
        field = self._field(left)
        if isinstance(right, exp.Subquery | exp.Select):
            return self._compare_sub(field, op, right)
        if self._is_column(right):
            self.constructs.add("field value")
            return {"field": field, "op": op, "value": {"field": self._field(right)}}
        return {"field": field, "op": op, "value": self._literal(right)}

    def _compare_sub(self, field: str, op: str, node: Any) -> dict[str, Any]:
        """``x op (SELECT agg(y) ...)`` → a sub-aggregate; ``x = (SELECT y ...)`` (one value:
        its first row, or the rows of a key) → ``in`` that subquery, ``!=`` → ``notin``."""
        sel = node.this if isinstance(node, exp.Subquery) else node
        first = sel.expressions[0] if isinstance(sel, exp.Select) and sel.expressions else None
        if first is not None and first.find(*_AGGS) is None and op in ("=", "!="):
            try:
                inner = _Query(self.conv, sel).dsl()
            except Unsupported as exc:
                raise Unsupported(f"nested subquery: {exc.construct}") from exc
            self.constructs.add("in subquery")
            return {"field": field, "op": "in" if op == "=" else "notin",
                    "value": {"query": inner}}  # fmt: skip
        return {"field": field, "op": op, "value": self._sub(node)}

    def _in_query(self, node: exp.In, negate: bool) -> dict[str, Any]:
        """``x [NOT] IN (SELECT y FROM ...)`` → an in/notin subquery (not correlated)."""
        kind = "NOT IN subquery" if negate else "IN subquery"
        sub = node.args["query"]
        sel = sub.this if isinstance(sub, exp.Subquery) else sub
        if not isinstance(sel, exp.Select):
            raise Unsupported(f"{kind} over a set operation")
        try:
            inner = _Query(self.conv, sel).dsl()
        except Unsupported as exc:
            raise Unsupported(f"{kind}: {exc.construct}") from exc
        if bool(inner.get("orders")) != bool(inner.get("limit")):
            raise Unsupported(f"{kind} with ORDER BY or LIMIT alone")
        self.constructs.add("in subquery")
        return {"field": self._field(node.this), "op": "notin" if negate else "in",
                "value": {"query": inner}}  # fmt: skip

    def _is_column(self, node: Any) -> bool:
        """A column reference (a double-quoted string that names no column is a literal)."""
        if not isinstance(node, exp.Column):
            return False
        if node.table or not node.this.args.get("quoted"):
            return True
        return any(node.name.lower() in self.conv.columns[m] for m, _ in self.alias.values())

    def _sub(self, node: Any) -> dict[str, Any]:
        """``(SELECT avg(col) FROM t)`` with nothing else → a sub-aggregate."""
        sel = node.this if isinstance(node, exp.Subquery) else node
        if not isinstance(sel, exp.Select) or len(sel.expressions) != 1:
            raise Unsupported("nested subquery")
        keys = ("group", "having", "order", "limit", "joins")
        if any(sel.args.get(k) for k in keys):
            raise Unsupported("nested subquery")
        src = sel.args.get("from_")
        fn_node = sel.expressions[0]
        fn = next((f for t, f in _AGGS.items() if isinstance(fn_node, t)), None)
        if src is None or fn is None or not isinstance(src.this, exp.Table):
            raise Unsupported("nested subquery")
        model = self.conv.tables.get(src.this.name.lower())
        prefixes = [p for m, p in self.alias.values() if m == model]
        if not prefixes:
            raise Unsupported("sub-aggregate over a table outside the query")
        self.constructs.add("sub-aggregate")
        arg = fn_node.this
        out: dict[str, Any] = {"agg": fn}
        if isinstance(arg, exp.Star):
            if prefixes[0]:
                raise Unsupported("count(*) sub-aggregate over another table")
        elif not isinstance(arg, exp.Column) or model is None:
            raise Unsupported("nested subquery")
        else:
            real = self.conv.columns[model].get(arg.name.lower())
            if real is None:
                raise Unsupported("undeclared column", arg.sql())
            out["field"] = _field(prefixes[0], real)
        where = sel.args.get("where")
        if where is not None:  # conditions on the aggregated table's own fields
            inner = _Query(self.conv, sel)
            inner._from()
            out["wheres"] = _flatten(inner._where(where.this))
        return out

    def _literal(self, node: Any) -> Any:
        if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
            return -_number(node.this.this)
        if isinstance(node, exp.Literal):
            return node.this if node.is_string else _number(node.this)
        if isinstance(node, exp.Column) and node.this.args.get("quoted") and not node.table:
            return node.name  # "text" in double quotes: SQLite reads it as a string
        if isinstance(node, exp.Boolean):
            return bool(node.this)
        if isinstance(node, exp.Subquery | exp.Select):
            raise Unsupported("nested subquery")
        raise Unsupported("value that is not a literal", type(node).__name__)

    # -- the whole query ---------------------------------------------------------------
    def dsl(self) -> dict[str, Any]:
        base = self._from()
        out: dict[str, Any] = {"model": base}
        if self.joins:
            out["joins"] = self.joins
        wheres = [w for t in self.extra for w in _flatten(self._where(t))]
        where = self.sel.args.get("where")
        if where is not None:
            wheres += _flatten(self._where(where.this))
            self.constructs.add("where")
        if wheres:
            out["wheres"] = wheres
        if self._has_agg():
            self._aggregate(out)
        else:
            self._rows(out)
        order = self.sel.args.get("order")
        if order is not None:
            out["orders"] = [self._order(o, out) for o in order.expressions]
            self.constructs.add("order")
        limit = self.sel.args.get("limit")
        if limit is not None:
            out["limit"] = int(_number(limit.expression.this))
            self.constructs.add("limit")
        if self.sel.args.get("offset") is not None:
            raise Unsupported("offset")
        return out

    def _rows(self, out: dict[str, Any]) -> None:
        select: list[str] = []
        for e in self.sel.expressions:
            e = e.this if isinstance(e, exp.Alias) else e
            if isinstance(e, exp.Star):
                if self.joins:
                    raise Unsupported("SELECT * over a join")
                continue
            if isinstance(e, exp.Column) and isinstance(e.this, exp.Star):
                raise Unsupported("SELECT t.* over a join")
            select.append(self._field(e))
        if select:
            out["select"] = list(dict.fromkeys(select))
        if self.sel.args.get("distinct"):
            out["distinct"] = True
            self.constructs.add("distinct")

    def _aggregate(self, out: dict[str, Any]) -> None:
        self.constructs.add("aggregate")
        groups = [self._field(g) for g in (self.sel.args["group"].expressions
                                           if self.sel.args.get("group") else ())]  # fmt: skip
        if groups:
            self.constructs.add("group")
        for e in self.sel.expressions:
            e = e.this if isinstance(e, exp.Alias) else e
            if self._agg(e) is not None:
                continue
            if not isinstance(e, exp.Column):
                raise Unsupported("expression in select", type(e).__name__)
            field = self._field(e)
            if not groups:
                raise Unsupported("bare column beside an aggregate (no GROUP BY)")
            groups.append(field)
        if self.sel.args.get("distinct") and not groups:
            pass  # one row: distinct changes nothing
        elif self.sel.args.get("distinct"):
            raise Unsupported("DISTINCT over groups")
        havings = []
        having = self.sel.args.get("having")
        if having is not None:
            self.constructs.add("having")
            havings = [self._having(h) for h in _and_terms(having.this)]
        out["groups"] = list(dict.fromkeys(groups))
        self._groups = set(out["groups"])
        if havings:
            out["havings"] = havings
        out["aggregates"] = self.agg_list  # filled further by orders: same list

    def _having(self, node: Any) -> dict[str, Any]:
        op = next((o for t, o in _OPS.items() if isinstance(node, t)), None)
        if op is None:
            raise Unsupported("HAVING other than a comparison", type(node).__name__)
        left, right = node.this, node.expression
        name = self._agg(left)
        if name is None:
            left, right, op = right, left, _FLIP[op]
            name = self._agg(left)
        if name is None:
            raise Unsupported("HAVING on something other than an aggregate")
        value = self._literal(right)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise Unsupported("HAVING compared with a non-number")
        return {"field": name, "op": op, "value": value}

    def _order(self, o: exp.Ordered, out: dict[str, Any]) -> dict[str, Any]:
        sort = "desc" if o.args.get("desc") else "asc"
        node = o.this
        if "aggregates" in out:
            name = self._agg(node)
            if name is None:
                field = self._field(node)
                if field not in self._groups:
                    raise Unsupported("ORDER BY a column that is not grouped")
                name = field
            return {"field": name, "sort": sort}
        if node.find(*_AGGS) is not None:
            raise Unsupported("ORDER BY an aggregate without GROUP BY")
        return {"field": self._field(node), "sort": sort}


def _field(prefix: str, column: str) -> str:
    return f"{prefix}.{column}" if prefix else column


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() and "." not in text else value


def _flatten(where: dict[str, Any]) -> list[dict[str, Any]]:
    """Top-level AND groups become a plain list (no nesting deeper than needed)."""
    inner = where.get("wheres")
    if inner is None or any(w.get("or") for w in inner):
        return [where]
    return [x for w in inner for x in _flatten(w)]


def _on_terms(node: Any) -> list[Any]:
    """An ON's AND-ed terms (an OR stays one term); sqlglot reads a missing ON as TRUE."""
    if node is None or (isinstance(node, exp.Boolean) and node.this is True):
        return []
    if isinstance(node, exp.Paren):
        return _on_terms(node.this)
    if isinstance(node, exp.And):
        return _on_terms(node.this) + _on_terms(node.expression)
    return [node]


def _and_terms(node: Any) -> list[Any]:
    if isinstance(node, exp.Paren):
        return _and_terms(node.this)
    if isinstance(node, exp.And):
        return _and_terms(node.this) + _and_terms(node.expression)
    if isinstance(node, exp.Or):
        raise Unsupported("HAVING with OR")
    return [node]


def _constructs(sql: str) -> list[str]:
    """The gold query's constructs by its text (for per-construct figures)."""
    s = " ".join(sql.upper().split())
    found = []
    for name, probe in (("join", " JOIN "), ("group", "GROUP BY"), ("having", "HAVING"),
                        ("order", "ORDER BY"), ("like", " LIKE "), ("distinct", "DISTINCT"),
                        ("limit", " LIMIT "), ("or", " OR "),
                        ("set operation", ("UNION", "INTERSECT", "EXCEPT")),
                        ("subquery", "(SELECT")):  # fmt: skip
        probes = probe if isinstance(probe, tuple) else (probe,)
        if any(p in s.replace("( SELECT", "(SELECT") for p in probes):
            found.append(name)
    return found or ["plain"]


async def run_db(db_id: str, schema: dict[str, Any], questions: list[dict[str, Any]],
                 verbose: bool) -> list[dict[str, Any]]:  # fmt: skip
    path = DATA / "database" / db_id / f"{db_id}.sqlite"
    models = declare(schema)
    leg = DBLeg(f"sqlite:///file:{path}?mode=ro&uri=true", models, row_cap=1000, sample_ttl_s=0)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.text_factory = lambda b: b.decode("utf-8", "replace")
    conv = Converter(models)
    out = []
    try:
        with contextlib.suppress(Exception):
            await leg.models()
        for q in questions:
            if not q["gold_exec_ok"]:
                continue
            rec: dict[str, Any] = {"i": q["train_index"], "db": db_id,
                                   "constructs": _constructs(q["query"])}  # fmt: skip
            try:
                dsl = conv.convert(q["query"])
            except Unsupported as exc:
                rec.update(outcome="unsupported", construct=exc.construct, why=str(exc))
                out.append(rec)
                continue
            rec["dsl"] = dsl
            gold = [tuple(r) for r in conn.execute(q["query"])]
            ordered = "ORDER BY" in " ".join(q["query"].upper().split())
            keys = sort_keys(conn, q["query"], gold) if ordered and gold else None
            try:
                result, rows = await _all_rows(leg, q["question"], dsl)
            except InputError as exc:
                rec.update(outcome="refused", why=str(exc)[:300])
            except Exception as exc:  # an outcome to count, not to stop on
                rec.update(outcome="error", why=f"{type(exc).__name__}: {exc}"[:300])
            else:
                ok = any(r.status.value == "ok" for r in result.reports)
                if not ok:
                    errors = [r.error or r.note or "" for r in result.reports]
                    rec.update(outcome="error", why="; ".join(errors)[:300])
                else:
                    rec["outcome"] = _score(conn, q["query"], gold, rows, ordered, keys, rec)
            if verbose and rec["outcome"] != "match":
                print(f"{rec['outcome']:10} {q['query']}\n    dsl: {json.dumps(dsl)[:400]}\n"
                      f"    {rec.get('why', '')}")  # fmt: skip
            out.append(rec)
    finally:
        leg.close()
        conn.close()
    return out


#: Rows per page: the most a request returns (``SearchRequest.limit``, the bench's row_cap).
PAGE = 1000


async def _all_rows(leg: DBLeg, question: str, dsl: dict[str, Any]) -> tuple[Any, list[Any]]:
    """Every row the DSL returns: pages of ``PAGE`` rows, as a caller pages with ``offset``
    (30 gold queries return more than one page)."""
    rows: list[dict[str, Any]] = []
    while True:
        req = SearchRequest(type="db", query=question, uses="dsl", dsl=dsl, limit=PAGE,
                            offset=len(rows))  # fmt: skip
        result = await leg.search(req)
        rows += [dict(i.data or {}) for i in result.items]
        if len(result.items) < PAGE or len(rows) >= (dsl.get("limit") or 50 * PAGE):
            return result, rows


def _score(conn: sqlite3.Connection, sql: str, gold: list[tuple[Any, ...]],
           rows: list[dict[str, Any]], ordered: bool, keys: list[Any] | None,
           rec: dict[str, Any]) -> str:  # fmt: skip
    """``match`` when the rows are the gold's (rows an ORDER BY leaves tied in any order),
    or, for ``ORDER BY ... LIMIT n`` whose n-th row ties with rows past it, when they are
    one of the gold's equally right choices (``rec["tie"]``: :func:`limit_choices`)."""
    if matches(gold, rows, ordered, keys):
        return "match"
    pool = limit_choices(conn, sql, len(gold)) if ordered and gold else None
    if pool is not None and tie_match(pool, rows):
        rec["tie"] = True
        return "match"
    return "mismatch"


def limit_choices(conn: sqlite3.Connection, sql: str, n: int) -> list[list[tuple[Any, ...]]] | None:
    """For a gold ``ORDER BY k LIMIT n`` whose n-th row ties on ``k`` with a row past n: per
    position i < n, every row the query without its LIMIT gives with the i-th sort key (the
    rows SQLite could have put there). None when the n-th row has no tie past it, or when
    that can't be read exactly (a set operation, an offset, a sort by position)."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
        if not isinstance(tree, exp.Select) or tree.args.get("offset") is not None:
            return None
        order, limit = tree.args.get("order"), tree.args.get("limit")
        if order is None or limit is None or any(isinstance(o.this, exp.Literal)
                                                 for o in order.expressions):  # fmt: skip
            return None
        width = len(tree.expressions)
        full = tree.copy()
        full.set("limit", None)
        full = full.select(*(o.this.copy() for o in order.expressions), append=True)
        rows = [tuple(r) for r in conn.execute(full.sql(dialect="sqlite"))]
    except (sqlglot.errors.SqlglotError, sqlite3.Error):
        return None
    if len(rows) <= n or any(len(r) != width + len(order.expressions) for r in rows):
        return None
    keys = [r[width:] for r in rows]
    if keys[n] != keys[n - 1]:
        return None  # the n-th row is the last of its sort key: one right answer
    by_key: dict[tuple[Any, ...], list[tuple[Any, ...]]] = defaultdict(list)
    for r in rows:
        by_key[r[width:]].append(tuple(_norm(v) for v in r[:width]))
    return [by_key[k] for k in keys[:n]]


def tie_match(pool: list[list[tuple[Any, ...]]], pred: list[dict[str, Any]]) -> bool:
    """Some choice of predicted columns (one per gold column) makes row i of ``pred`` one of
    the rows ``pool[i]`` allows, no row used more often than the gold's rows hold it: the
    rows are one of the gold's tied choices, in the gold's order of sort keys."""
    if len(pred) != len(pool) or not pool or not pool[0]:
        return False
    width = len(pool[0][0])
    names = list(dict.fromkeys(k for row in pred for k in row))
    cols = {m: [_norm(r.get(m)) for r in pred] for m in names}
    allowed = [[{row[j] for row in p} for p in pool] for j in range(width)]
    candidates = [[m for m in names if all(v in allowed[j][i] for i, v in enumerate(cols[m]))]
                  for j in range(width)]  # fmt: skip
    if any(not c for c in candidates):
        return False
    for count, choice in enumerate(product(*candidates)):
        if count >= 512:
            return False
        got = [tuple(cols[m][i] for m in choice) for i in range(len(pred))]
        if all(g in pool[i] for i, g in enumerate(got)) and _within(got, pool):
            return True
    return False


def _within(got: list[tuple[Any, ...]], pool: list[list[tuple[Any, ...]]]) -> bool:
    """No row chosen more often than the tied rows of its key hold it."""
    have: dict[int, Counter[tuple[Any, ...]]] = {}
    for g, p in zip(got, pool, strict=True):
        have.setdefault(id(p), Counter(p))
        have[id(p)][g] -= 1
        if have[id(p)][g] < 0:
            return False
    return True


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(records)
    outcomes = Counter(r["outcome"] for r in records)
    unsupported = Counter(r["construct"] for r in records if r["outcome"] == "unsupported")
    refused = Counter(_reason(r["why"]) for r in records if r["outcome"] == "refused")
    per: dict[str, Counter[str]] = defaultdict(Counter)
    for r in records:
        for c in r["constructs"]:
            per[c][r["outcome"]] += 1
            per[c]["n"] += 1
    ties = sum(1 for r in records if r.get("tie"))
    return {"n": n, "outcomes": dict(outcomes), "tie_matches": ties,
            "unsupported": dict(unsupported.most_common()),
            "refused": dict(refused.most_common()),
            "per_construct": {c: dict(v) for c, v in sorted(per.items())}}  # fmt: skip


def _reason(why: str) -> str:
    return why.split(";")[0].split(":")[0][:70]


def render(s: dict[str, Any]) -> str:
    n = s["n"]
    o = s["outcomes"]
    converted = n - o.get("unsupported", 0)
    lines = [f"questions: {n}; converted: {converted} ({100 * converted / n:.1f} %); "
             f"rows match gold: {o.get('match', 0)} ({100 * o.get('match', 0) / n:.1f} %)",
             f"matches that are one of the gold's tied choices at its LIMIT: "
             f"{s.get('tie_matches', 0)}",
             "", "| outcome | n | % |", "|---|---|---|"]  # fmt: skip
    lines += [f"| {k} | {o.get(k, 0)} | {100 * o.get(k, 0) / n:.1f} |" for k in OUTCOMES]
    lines += ["", "| construct not converted | n |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in s["unsupported"].items()]
    if s["refused"]:
        lines += ["", "| refused by validation | n |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in s["refused"].items()]
    lines += ["", f"| gold has | n | {' | '.join(OUTCOMES)} |", "|---" * (len(OUTCOMES) + 2) + "|"]
    for c, v in s["per_construct"].items():
        cells = " | ".join(f"{100 * v.get(k, 0) / v['n']:.1f}" for k in OUTCOMES)
        lines.append(f"| {c} | {v['n']} | {cells} |")
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    schemas = {s["db_id"]: s for s in json.loads((args.data / "tables.json").read_text("utf-8"))}
    by_db: dict[str, list[dict[str, Any]]] = defaultdict(list)
    wanted = set(args.dbs.split(",")) if args.dbs else None
    for line in (args.data / "questions.jsonl").open(encoding="utf-8"):
        q = json.loads(line)
        if wanted is None or q["db_id"] in wanted:
            by_db[q["db_id"]].append(q)
    records = []
    for db_id, qs in by_db.items():
        records += await run_db(db_id, schemas[db_id], qs, args.verbose)
    return records


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the spider-train folder")
    ap.add_argument("--dbs", help="comma-separated db_ids only")
    ap.add_argument("--json", type=Path, help="also write the summary here")
    ap.add_argument("--records", type=Path, help="per-question records (JSONL)")
    ap.add_argument("--verbose", action="store_true", help="print every miss")
    args = ap.parse_args()
    if not (args.data / "tables.json").is_file():
        raise SystemExit(f"no Spider train data at {args.data}; pass --data")
    t0 = time.perf_counter()
    records = asyncio.run(main_async(args))
    summary = summarise(records)
    summary["seconds"] = round(time.perf_counter() - t0, 1)
    print(render(summary))
    print(f"\n{len(records)} questions in {summary['seconds']} s")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    if args.records:
        with args.records.open("w", encoding="utf-8") as fh:
            for r in records:
                fh.write(json.dumps(r, ensure_ascii=False, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
