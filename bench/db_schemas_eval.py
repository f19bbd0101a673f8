"""Accuracy of the builtin generator on schemas declared the plain way, per schema and dialect.

    python bench/db_schemas_eval.py [--split dev|heldout] [--dialect sqlite duckdb mysql]
                                    [--schema hr library clinic] [--verbose] [--json]

Each schema of bench/db_schemas.py is loaded into each dialect; every question runs through
the real DB leg (generator → DSL → SQL → rows) and its rows must equal those of the SQL truth
run on the same database: the same ids (in order when ``ordered``), or for an aggregate the
same rows of values. MySQL/MariaDB runs when a server answers at UNIFIND_TEST_MYSQL_DSN
(default ``mysql+pymysql://root@127.0.0.1:3306/test``); DuckDB needs the ``duckdb`` extra.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).parent))
import db_schemas

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest

MYSQL_DSN = os.environ.get("UNIFIND_TEST_MYSQL_DSN", "mysql+pymysql://root@127.0.0.1:3306/test")
#: Value of one unit of each currency in a common base (only the ratios matter).
RATES = {"USD": 1.0, "EUR": 1.08, "CNY": 0.138}


@contextmanager
def database(dialect: str, tmp: Path) -> Iterator[str | None]:
    """A URL for ``dialect`` (None when it can't run here)."""
    if dialect == "sqlite":
        yield f"sqlite:///{tmp / 'bench.sqlite'}"
    elif dialect == "duckdb":
        try:
            import duckdb_engine  # noqa: F401
        except ImportError:
            yield None
            return
        yield f"duckdb:///{tmp / 'bench.duckdb'}"
    elif dialect == "mysql":
        try:
            engine = sa.create_engine(MYSQL_DSN)
            with engine.connect():
                pass
            engine.dispose()
        except Exception:
            yield None
            return
        yield MYSQL_DSN


def _norm(v: Any) -> Any:
    if isinstance(v, float):
        return round(v, 2)
    if hasattr(v, "as_integer_ratio") and not isinstance(v, int | bool):  # Decimal
        return round(float(v), 2)
    return v


def _truth(conn: sa.Connection, q: dict[str, Any]) -> list[Any]:
    result = conn.execute(sa.text(q["sql"])).all()
    if q.get("agg"):
        return [tuple(_norm(v) for v in r) for r in result]
    return [r[0] for r in result]


def _got(items: Any, q: dict[str, Any]) -> list[Any]:
    if q.get("agg"):
        return [tuple(_norm(v) for v in i.data.values()) for i in items]
    return [int(i.record_id) for i in items if i.record_id is not None]


async def run_schema(schema: str, dialect: str, split: str) -> dict[str, Any] | None:
    spec = db_schemas.spec(schema)
    questions = [q for q in spec["questions"] if q.get("split", "dev") == split]
    with tempfile.TemporaryDirectory() as tmp, database(dialect, Path(tmp)) as url:
        if url is None:
            return None
        engine = sa.create_engine(url)
        db_schemas.load(engine, schema)
        if dialect == "duckdb":
            # One process may not hold a DuckDB file both read-write and read-only.
            engine.dispose()
            engine = sa.create_engine(url, connect_args={"read_only": True})
        config = {"today": db_schemas.TODAY.isoformat(), "currency_rates": RATES}
        leg = DBLeg(url, spec["models"], row_cap=1000, config=config)
        rows = []
        try:
            with engine.connect() as conn:
                for q in questions:
                    expected = _truth(conn, q)
                    req = SearchRequest(type="db", query=q["q"], models=(q["model"],), limit=1000)
                    res = await leg.search(req)
                    got = _got(res.items, q)
                    if not q.get("ordered"):
                        got, expected = sorted(got, key=repr), sorted(expected, key=repr)
                    # Right rows count whether every word was used (ok) or not (partial:
                    # the answer names the word it left out; issue #19); partial ones are
                    # listed apart.
                    answered = res.status.value in ("ok", "partial")
                    rows.append({**q, "ok": got == expected and answered, "expected": expected,
                                 "got": got, "dsl": res.dsl, "notes": list(res.notes),
                                 "status": res.status.value})  # fmt: skip
        finally:
            leg.close()
            engine.dispose()
    ok = sum(r["ok"] for r in rows)
    return {"schema": schema, "dialect": dialect, "n": len(rows), "ok": ok,
            "failures": [r for r in rows if not r["ok"]],
            "partial": [r["id"] for r in rows if r["ok"] and r["status"] == "partial"]}  # fmt: skip


async def evaluate(schemas: list[str], dialects: list[str], split: str) -> list[dict[str, Any]]:
    out = []
    for schema in schemas:
        for dialect in dialects:
            res = await run_schema(schema, dialect, split)
            out.append(res or {"schema": schema, "dialect": dialect, "skipped": True})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="dev", choices=("dev", "heldout"))
    ap.add_argument("--schema", nargs="+", default=list(db_schemas.SCHEMAS))
    ap.add_argument("--dialect", nargs="+", default=["sqlite", "duckdb", "mysql"])
    ap.add_argument("--verbose", action="store_true", help="print the DSL of each failure")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results = asyncio.run(evaluate(args.schema, args.dialect, args.split))
    if args.json:
        print(json.dumps(results, ensure_ascii=False, indent=2, default=str))
        return 0
    print(f"| schema | dialect | {args.split} exact match |\n|---|---|---|")
    for r in results:
        score = "skipped (unavailable)" if r.get("skipped") else (
            f"{r['ok']}/{r['n']} = {r['ok'] / max(1, r['n']):.1%}")  # fmt: skip
        print(f"| {r['schema']} | {r['dialect']} | {score} |")
    partial = [f"{r['dialect']} {i}" for r in results for i in r.get("partial", [])]
    if partial:
        print(f"right, but partial (a word of the question not used): {', '.join(partial)}")
    for r in results:
        for f in r.get("failures", []):
            print(f"FAIL {r['dialect']} {f['id']}: {f['q']!r} expected {f['expected'][:6]} "
                  f"got {f['got'][:6]} ({f['status']})")  # fmt: skip
            if args.verbose:
                print(f"    dsl: {json.dumps(f['dsl'], ensure_ascii=False, default=str)}")
                print(f"    notes: {f['notes']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
