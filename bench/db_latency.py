"""Latency of NL → DSL → SQL → rows through the DB leg vs the same SQL run by hand.

    python bench/db_latency.py [--reps 30] [--pg DSN] [--write bench/results/db.md]
    python bench/db_latency.py --pg '' --only joins     # the join questions alone

Both sides run on the same warm engine kind (pooled connection, schema already read).
"Hand" executes the dev set's hand-written SQL with SQLAlchemy; "leg" is ``DBLeg.search``
(generation, validation, compilation, permission predicate, the worker thread, the
statement timeout and item rendering included); "generate" is the builtin generator alone.
PostgreSQL runs when a server answers at ``--pg`` (default: UNIFIND_TEST_PG_DSN or the
local test DSN), in a scratch schema dropped afterwards. Each database is measured on the
dev set's one-table questions and, apart, on :data:`JOIN_QUESTIONS` (questions the builtin
answers along the demo's relations, issue #19), each with a hand-written join as "hand".
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import platform
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa
import yaml

from unifind.db.demo import DEMO_MODELS_YAML, create_demo, load_demo
from unifind.db.generate.builtin import BuiltinGenerator
from unifind.db.leg import DBLeg
from unifind.types import Principal, SearchRequest

DEVSET = Path(__file__).with_name("db_devset.yaml")
PG_DSN = os.environ.get("UNIFIND_TEST_PG_DSN", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


#: Questions the builtin answers with a join on the demo shop (checked: the DSL follows a
#: relation), with the join a person would write; tenant acme, as the leg runs them.
JOIN_QUESTIONS: list[dict[str, Any]] = [
    {"model": "orders", "q": "orders of customers in Germany",
     "sql": "SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id WHERE "
            "o.tenant_id = 'acme' AND c.tenant_id = 'acme' AND c.country = 'Germany'"},
    {"model": "customers", "q": "which customer has the most orders",
     "sql": "SELECT c.id, c.name, count(*) AS n FROM customers c JOIN orders o ON "
            "o.customer_id = c.id WHERE c.tenant_id = 'acme' AND o.tenant_id = 'acme' "
            "GROUP BY c.id, c.name ORDER BY n DESC LIMIT 1"},
    {"model": "customers", "q": "how many orders does each customer have",
     "sql": "SELECT c.id, c.name, count(*) AS n FROM customers c JOIN orders o ON "
            "o.customer_id = c.id WHERE c.tenant_id = 'acme' AND o.tenant_id = 'acme' "
            "GROUP BY c.id, c.name"},
    {"model": "customers", "q": "customers with at least 3 orders",
     "sql": "SELECT c.id, c.name FROM customers c JOIN orders o ON o.customer_id = c.id WHERE "
            "c.tenant_id = 'acme' AND o.tenant_id = 'acme' GROUP BY c.id, c.name "
            "HAVING count(*) >= 3"},
    {"model": "products", "q": "products ordered by customers in France",
     "sql": "SELECT DISTINCT p.id, p.name FROM products p JOIN orders o ON o.product_id = p.id "
            "JOIN customers c ON c.id = o.customer_id WHERE o.tenant_id = 'acme' AND "
            "c.tenant_id = 'acme' AND c.country = 'France'"},
    {"model": "customers", "q": "customers who ordered a Sony product",
     "sql": "SELECT DISTINCT c.id, c.name FROM customers c JOIN orders o ON o.customer_id = c.id "
            "JOIN products p ON p.id = o.product_id WHERE c.tenant_id = 'acme' AND "
            "o.tenant_id = 'acme' AND p.brand = 'Sony'"},
]  # fmt: skip


def _ms(samples: list[float]) -> tuple[float, float]:
    samples = sorted(samples)
    return statistics.median(samples) * 1000, samples[int(len(samples) * 0.95) - 1] * 1000


async def measure(url: str, models: Any, questions: list[dict[str, Any]], reps: int,
                  today: str, setup_sql: str | None = None) -> dict[str, Any]:  # fmt: skip
    leg = DBLeg(url, models, row_cap=1000, config={"today": today})
    principal = Principal(tenant="acme")
    found = await leg.models()
    engine = sa.create_engine(url)
    gen = BuiltinGenerator(today=dt.date.fromisoformat(today))
    full, hand, generate, cpu = [], [], [], []
    with engine.connect() as conn:
        if setup_sql:
            conn.execute(sa.text(setup_sql))
        for q in questions:
            req = SearchRequest(type="db", query=q["q"], models=(q["model"],), limit=1000)
            await leg.search(req, principal=principal)  # warm
            conn.execute(sa.text(q["sql"])).all()
            for _ in range(reps):
                t0, c0 = time.perf_counter(), time.process_time()
                await leg.search(req, principal=principal)
                full.append(time.perf_counter() - t0)
                c1 = time.process_time()
                t0 = time.perf_counter()
                conn.execute(sa.text(q["sql"])).all()
                hand.append(time.perf_counter() - t0)
                # CPU seconds of this process (every thread): on a loaded machine the wall
                # clock counts the time other processes ran; this does not.
                cpu.append((c1 - c0) - (time.process_time() - c1))
                t0 = time.perf_counter()
                gen.generate_sync(q["q"], found[q["model"]])
                generate.append(time.perf_counter() - t0)
    engine.dispose()
    leg.close()
    (f50, f95), (h50, h95), (g50, g95) = _ms(full), _ms(hand), _ms(generate)
    # The leg's overhead over the raw SQL, per question and run (paired, same minute).
    over = statistics.median(f - h for f, h in zip(full, hand, strict=True)) * 1000
    return {"leg": (f50, f95), "hand": (h50, h95), "generate": (g50, g95), "ratio": f50 / h50,
            "over": over, "cpu": statistics.median(cpu) * 1000, "n": len(full)}  # fmt: skip


async def run(reps: int, pg_dsn: str | None, only: str = "all") -> dict[str, dict[str, Any]]:
    spec = yaml.safe_load(DEVSET.read_text(encoding="utf-8"))
    today = spec["today"]
    sets = {"one table": spec["questions"], "joins": JOIN_QUESTIONS}
    sets = {k: v for k, v in sets.items() if only in ("all", k.split()[0])}
    out: dict[str, dict[str, Any]] = {}
    for name, questions in sets.items():
        with tempfile.TemporaryDirectory() as tmp:
            path = create_demo(Path(tmp) / "shop.sqlite", today=dt.date.fromisoformat(today))
            url = f"sqlite:///{path}"
            out[f"sqlite, {name}"] = await measure(url, DEMO_MODELS_YAML, questions, reps, today)
        if pg_dsn:
            got = await _postgres(pg_dsn, questions, reps, today)
            out.update({f"{k}, {name}": v for k, v in got.items()})
    return out


async def _postgres(dsn: str, questions: list[dict[str, Any]], reps: int,
                    today: str) -> dict[str, dict[str, Any]]:  # fmt: skip
    try:
        engine = sa.create_engine(dsn, connect_args={"connect_timeout": 3})
        with engine.connect() as conn:
            version = conn.execute(sa.text("SHOW server_version")).scalar_one()
    except Exception as exc:  # no driver or no server: say so and measure SQLite only
        print(f"postgresql skipped: {exc}", file=sys.stderr)
        return {}
    schema = f"unifind_bench_{secrets.token_hex(4)}"
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        load_demo(engine, schema=schema, today=dt.date.fromisoformat(today))
        models = {n: {**m, "schema": schema} for n, m in yaml.safe_load(DEMO_MODELS_YAML).items()}
        res = await measure(dsn, models, questions, reps, today,
                            setup_sql=f'SET search_path TO "{schema}"')  # fmt: skip
        return {f"postgresql {version}": res}
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        engine.dispose()


def report(results: dict[str, dict[str, Any]], reps: int, command: str) -> str:
    lines = [
        "## DB leg latency: NL → DSL → SQL → rows vs hand-written SQL",
        "",
        f"Command: `{command}`  ",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, SQLAlchemy {sa.__version__}; {reps} runs of each of the "
        f"dev set's questions, warm.",
        "",
        "| database, questions | runs | leg p50 ms | leg p95 ms | hand SQL p50 ms "
        "| hand SQL p95 ms | generate p50 ms | leg − hand p50 ms | leg − hand CPU p50 ms |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        lines.append(
            f"| {name} | {r['n']} | {r['leg'][0]:.2f} | {r['leg'][1]:.2f} | {r['hand'][0]:.3f} "
            f"| {r['hand'][1]:.3f} | {r['generate'][0]:.3f} | {r['over']:.2f} | {r['cpu']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--pg", default=PG_DSN, help="PostgreSQL DSN; '' to skip")
    ap.add_argument("--write", type=Path, help="also write the table (markdown) here")
    ap.add_argument("--only", choices=("all", "one", "joins"), default="all",
                    help="the dev set's one-table questions, the joins, or both")  # fmt: skip
    args = ap.parse_args()
    results = asyncio.run(run(args.reps, args.pg or None, args.only))
    text = report(results, args.reps, "python " + " ".join(sys.argv))
    print(text)
    if args.write:
        args.write.parent.mkdir(parents=True, exist_ok=True)
        args.write.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
