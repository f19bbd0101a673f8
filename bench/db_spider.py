"""The DB leg on Spider's TRAIN split, scored by execution (issue #19).

    python bench/db_spider.py                       # both modes, every database
    python bench/db_spider.py --sample 300          # a quick, fixed random sample
    python bench/db_spider.py --dbs pets_x,bike_1 --limit 50 --verbose
    python bench/db_spider.py --resume              # skip questions already in the cache

Data: ``../shared/datasets/text2sql/spider-train/`` (its README's rules apply: read-only,
development data only, nothing copied into the repository). Each database's models are
declared by :func:`declare` from ``tables.json`` alone: one model per table, its natural
table name as description, each column with its type and the benchmark's own natural
column name as description, text columns searchable, the primary key. Foreign keys have no
place in the model format yet (no ``relations:``), so they are counted, not declared. One
configuration for every database; no aliases.

Modes: ``pick`` (the leg chooses the model, every question) and ``told`` (the request names
the gold table; single-table questions only). Each question runs through the real
:class:`~unifind.db.leg.DBLeg`; gold and generated queries run on the same read-only file.

Scoring. The leg answers with whole rows (every declared column) or aggregate rows, while
the gold SQL projects chosen columns, so a prediction is *correct* when some choice of its
columns, one per gold column, gives exactly the gold rows as a multiset (as a sequence when
the gold has ORDER BY). A wrong answer is *partial-with-note* when the status is partial or
a note names what was not understood, *wrong-with-note* when some other note came with it,
and *silent wrong* when status is ok and no note was given (a note that a model "does not
seem to be about" the question, or that names the model that answered, warns of nothing
and is not counted). *Refused*:
no rows and no ok answer (every model degraded or off topic). *Error*: the leg raised.
The 3 failing gold queries are excluded; the empty-gold ones are reported apart (a wrong
query that returns nothing matches them).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import sqlite3
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from itertools import product
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "datasets" / "text2sql" / "spider-train"
CACHE = ROOT / "bench" / ".cache" / "db_spider"
OUTCOMES = ("correct", "partial_note", "refused", "silent_wrong", "wrong_note", "error")
TYPES = ("count", "aggregate", "group", "order", "comparison", "nested", "other")
_TYPES = {"text": "string", "number": "number", "boolean": "boolean"}
#: Notes about a model that was passed over, or naming the one that answered: they warn of
#: nothing in the answer given.
_NOT_ABOUT = "does not seem to be about"
_NO_WARNING = (_NOT_ABOUT, "answered from model")
_UNDERSTOOD = re.compile(r"not understood|could not map|ignored|merged", re.I)


def declare(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Models for one database from its tables.json entry only (no hand-written words)."""
    models: dict[str, dict[str, Any]] = {}
    pks: dict[int, list[str]] = defaultdict(list)
    for index in schema["primary_keys"]:
        table, name = schema["column_names_original"][index]
        pks[table].append(name)
    for t, table in enumerate(schema["table_names_original"]):
        if table.lower().startswith("sqlite_"):
            continue
        columns: dict[str, dict[str, Any]] = {}
        for i, (owner, name) in enumerate(schema["column_names_original"]):
            if owner != t:
                continue
            col: dict[str, Any] = {"description": schema["column_names"][i][1]}
            kind = _TYPES.get(schema["column_types"][i])
            if kind:  # "time" and "others": left to introspection (formats vary)
                col["type"] = kind
            col["searchable"] = kind == "string"
            columns[name] = col
        model: dict[str, Any] = {"table": table, "description": schema["table_names"][t],
                                 "columns": columns}  # fmt: skip
        if len(pks[t]) == 1:
            model["primary_key"] = pks[t][0]
        models[table] = model
    return models


def question_type(sql: str) -> str:
    """The gold query's shape, most specific first."""
    s = " ".join(sql.upper().split())
    if s.count("SELECT") > 1 or re.search(r"\b(UNION|INTERSECT|EXCEPT)\b", s):
        return "nested"
    if "GROUP BY" in s:
        return "group"
    if "ORDER BY" in s:
        return "order"
    head = s.split(" FROM ")[0]
    if "COUNT(" in head.replace(" ", ""):
        return "count"
    if re.search(r"\b(AVG|SUM|MIN|MAX)\s*\(", head):
        return "aggregate"
    if " WHERE " in s:
        return "comparison"
    return "other"


#: An ISO datetime as the leg returns it ('1972-03-31T09:47:22') and as SQLite stores it
#: ('1972-03-31 09:47:22') is one value.
_ISO_T = re.compile(r"^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)")


def _norm(v: Any) -> Any:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int | float):
        return round(float(v), 4)
    if isinstance(v, bytes):
        return v.hex()
    return v if v is None else _ISO_T.sub(r"\1 \2", str(v))


def _key(v: Any) -> tuple[int, str]:
    return (0, "") if v is None else (1, repr(v))


def matches(
    gold: Sequence[tuple[Any, ...]], pred: Sequence[dict[str, Any]], ordered: bool,
    keys: Sequence[tuple[Any, ...]] | None = None,
) -> bool:  # fmt: skip
    """Some choice of predicted columns, one per gold column, reproduces the gold rows.

    ``keys``: each gold row's ORDER BY values (:func:`sort_keys`). Rows an ORDER BY leaves
    tied come out in whatever order the engine's scan gave them; an ordered prediction may
    order tied rows any way (the gold's order among them is arbitrary)."""
    if len(gold) != len(pred):
        return False
    if not gold:
        return True
    width = len(gold[0])
    names = list(dict.fromkeys(k for row in pred for k in row))
    cols = {n: [_norm(r.get(n)) for r in pred] for n in names}
    golds = [[_norm(r[j]) for r in gold] for j in range(width)]

    def same(a: list[Any], b: list[Any]) -> bool:
        return sorted(a, key=_key) == sorted(b, key=_key)

    candidates = [[n for n in names if same(cols[n], golds[j])] for j in range(width)]
    if any(not c for c in candidates):
        return False
    want = [tuple(g[i] for g in golds) for i in range(len(gold))]
    for choice in _choices(candidates):
        got = [tuple(cols[n][i] for n in choice) for i in range(len(pred))]
        if not same(got, want):  # type: ignore[arg-type]
            continue
        if not ordered or got == want or (keys is not None and _tied(got, want, keys)):
            return True
    return False


def _tied(got: list[tuple[Any, ...]], want: list[tuple[Any, ...]],
          keys: Sequence[tuple[Any, ...]]) -> bool:  # fmt: skip
    """``got`` orders the rows as ``want`` does, up to rows with equal sort keys."""
    start = 0
    for k in range(1, len(want) + 1):
        if k == len(want) or keys[k] != keys[start]:
            if Counter(got[start:k]) != Counter(want[start:k]):
                return False
            start = k
    return True


def sort_keys(conn: sqlite3.Connection, sql: str, gold: list[tuple[Any, ...]]) -> list[Any] | None:
    """Each gold row's ORDER BY values: the gold query with its sort expressions appended to
    its columns (sqlglot). None when that can't be done exactly (a set operation, a sort by
    position, rows that change)."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
        order = tree.args.get("order") if isinstance(tree, exp.Select) else None
        if order is None or any(isinstance(o.this, exp.Literal) for o in order.expressions):
            return None
        keyed = tree.select(*(o.this.copy() for o in order.expressions), append=True)
        rows = [tuple(r) for r in conn.execute(keyed.sql(dialect="sqlite"))]
    except (sqlglot.errors.SqlglotError, sqlite3.Error):
        return None
    width = len(gold[0]) if gold else 0
    if [r[:width] for r in rows] != gold:
        return None
    return [r[width:] for r in rows]


def _choices(candidates: list[list[str]], cap: int = 512) -> Iterable[tuple[str, ...]]:
    for i, choice in enumerate(product(*candidates)):
        if i >= cap:
            return
        yield choice


def classify(
    result: Any, gold: list[tuple[Any, ...]], ordered: bool,
    keys: list[tuple[Any, ...]] | None = None,
) -> tuple[str, list[Any]]:  # fmt: skip
    rows = [dict(i.data or {}) for i in result.items]
    notes = [n for n in result.notes if not any(w in n for w in _NO_WARNING)]
    answered = any(r.status.value == "ok" for r in result.reports)
    off_topic = any(_NOT_ABOUT in n for n in result.notes) and not notes
    if not rows and (not answered or off_topic):
        return "refused", rows
    if answered and matches(gold, rows, ordered, keys):
        return "correct", rows
    if result.status.value == "partial" or any(_UNDERSTOOD.search(n) for n in notes):
        return "partial_note", rows
    if not answered:
        return "refused", rows
    return ("wrong_note" if notes else "silent_wrong"), rows


async def run_db(
    db_id: str, schema: dict[str, Any], questions: list[dict[str, Any]], modes: Sequence[str],
    verbose: bool,
) -> list[dict[str, Any]]:  # fmt: skip
    path = DATA / "database" / db_id / f"{db_id}.sqlite"
    url = f"sqlite:///file:{path}?mode=ro&uri=true"
    leg = DBLeg(url, declare(schema), row_cap=1000, sample_ttl_s=0)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.text_factory = lambda b: b.decode("utf-8", "replace")
    out: list[dict[str, Any]] = []
    try:
        # A failing introspection: each question then counts it as its own outcome.
        with contextlib.suppress(Exception):
            await leg.models()
        for q in questions:
            gold = [tuple(r) for r in conn.execute(q["query"])] if q["gold_exec_ok"] else []
            ordered = "ORDER BY" in " ".join(q["query"].upper().split())
            keys = sort_keys(conn, q["query"], gold) if ordered and gold else None
            for mode in modes:
                if mode == "told" and not q["single_table"]:
                    continue
                out.append(await _one(leg, q, mode, (gold, keys), ordered, schema, verbose))
    finally:
        leg.close()
        conn.close()
    return out


async def _one(
    leg: DBLeg, q: dict[str, Any], mode: str,
    golds: tuple[list[tuple[Any, ...]], list[Any] | None], ordered: bool,
    schema: dict[str, Any], verbose: bool,
) -> dict[str, Any]:  # fmt: skip
    gold, keys = golds
    tables = {t.lower(): t for t in schema["table_names_original"]}
    told = (tables.get(q["tables_used"][0].lower(), q["tables_used"][0]),)
    req = SearchRequest(type="db", query=q["question"], limit=1000,
                        models=told if mode == "told" else None)  # fmt: skip
    t0 = time.perf_counter()
    rec: dict[str, Any] = {"i": q["train_index"], "db": q["db_id"], "mode": mode,
                           "single": q["single_table"], "type": question_type(q["query"]),
                           "empty_gold": not gold, "excluded": not q["gold_exec_ok"]}  # fmt: skip
    try:
        result = await leg.search(req)
        rec["outcome"], rows = classify(result, gold, ordered, keys)
        rec["models"] = sorted({i.model for i in result.items if i.model})
        rec["notes"], rec["dsl"], rec["status"] = (
            list(result.notes),
            result.dsl,
            result.status.value,
        )
        rec["rows"] = len(rows)
        rec["confidence"] = result.confidence  # the share of content words used (scope 1)
    except Exception as exc:  # a raise is an outcome to count, not to stop on
        rec["outcome"], rec["error"] = "error", f"{type(exc).__name__}: {exc}"[:300]
    rec["ms"] = round((time.perf_counter() - t0) * 1000, 2)
    if verbose and rec["outcome"] != "correct":
        print(f"[{mode}] {rec['outcome']:12} {q['question']}\n    gold: {q['query']}\n"
              f"    dsl: {json.dumps(rec.get('dsl'))[:300]}\n    notes: {rec.get('notes')}"
              f"{'  error: ' + rec['error'] if 'error' in rec else ''}")  # fmt: skip
    return rec


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per mode × single/multi × question type: counts of each outcome."""
    table: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    excluded = sorted({r["i"] for r in records if r["excluded"]})
    for r in records:
        if r["excluded"]:
            continue
        part = "single" if r["single"] else "multi"
        part = f"{r['mode']}/{part}" + ("/empty-gold" if r["empty_gold"] else "")
        for t in (r["type"], "all"):
            table[part][t][r["outcome"]] += 1
            table[part][t]["n"] += 1
    ms = sorted(r["ms"] for r in records)
    return {
        "excluded": excluded,
        "ms_p50": ms[len(ms) // 2] if ms else None,
        "ms_p95": ms[int(len(ms) * 0.95)] if ms else None,
        "table": {p: {t: dict(c) for t, c in v.items()} for p, v in sorted(table.items())},
    }


def render(summary: dict[str, Any]) -> str:
    lines = []
    for part, types in summary["table"].items():
        lines += [f"\n{part}", f"| type | n | {' | '.join(OUTCOMES)} |",
                  "|---" * (len(OUTCOMES) + 2) + "|"]  # fmt: skip
        for t in (*TYPES, "all"):
            c = types.get(t)
            if not c:
                continue
            cells = [f"{c.get(o, 0)} ({100 * c.get(o, 0) / c['n']:.1f} %)" for o in OUTCOMES]
            lines.append(f"| {'**all**' if t == 'all' else t} | {c['n']} | {' | '.join(cells)} |")
    lines.append(f"\nexcluded (gold fails): {summary['excluded']}; per question "
                 f"p50 {summary['ms_p50']} ms, p95 {summary['ms_p95']} ms")  # fmt: skip
    return "\n".join(lines)


def compare(before: dict[str, Any], after: dict[str, Any]) -> str:
    """Per part and type: each outcome's share before → after (same questions)."""
    short = ("correct", "partial+note", "refused", "silent wrong", "wrong+note", "error")
    lines = []
    for part, types in after["table"].items():
        old = before["table"].get(part, {})
        lines += [f"\n{part}", f"| type | n | {' | '.join(short)} |",
                  "|---" * (len(OUTCOMES) + 2) + "|"]  # fmt: skip
        for t in (*TYPES, "all"):
            a, b = types.get(t), old.get(t, {})
            if not a:
                continue
            cells = [
                f"{100 * b.get(o, 0) / max(1, b.get('n', 0)):.1f} → "
                f"{100 * a.get(o, 0) / a['n']:.1f}"
                for o in OUTCOMES
            ]
            lines.append(f"| {'**all**' if t == 'all' else t} | {a['n']} | {' | '.join(cells)} |")
    return "\n".join(lines)


def _load(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    schemas = {s["db_id"]: s for s in json.loads((args.data / "tables.json").read_text("utf-8"))}
    questions = [
        json.loads(line) for line in (args.data / "questions.jsonl").open(encoding="utf-8")
    ]
    if args.dbs:
        wanted = set(args.dbs.split(","))
        if unknown := wanted - set(schemas):
            raise SystemExit(f"unknown --dbs {sorted(unknown)}; e.g. {sorted(schemas)[:5]}")
        questions = [q for q in questions if q["db_id"] in wanted]
    if args.part != "all":
        questions = [q for q in questions if q["single_table"] == (args.part == "single")]
    if args.sample:
        questions = sorted(random.Random(19).sample(questions, min(args.sample, len(questions))),
                           key=lambda q: q["train_index"])  # fmt: skip
    by_db: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in questions:
        if args.limit is None or len(by_db[q["db_id"]]) < args.limit:
            by_db[q["db_id"]].append(q)
    return schemas, by_db


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    schemas, by_db = _load(args)
    modes = ("pick", "told") if args.mode == "both" else (args.mode,)
    cache = args.out
    done: dict[tuple[int, str], dict[str, Any]] = {}
    if args.resume and cache.exists():
        for line in cache.open(encoding="utf-8"):
            r = json.loads(line)
            done[(r["i"], r["mode"])] = r
    cache.parent.mkdir(parents=True, exist_ok=True)
    records = []
    with cache.open("a" if args.resume else "w", encoding="utf-8") as fh:
        for db_id, qs in by_db.items():
            todo = [q for q in qs if any((q["train_index"], m) not in done for m in modes)]
            records += [done[(q["train_index"], m)] for q in qs for m in modes
                        if (q["train_index"], m) in done]  # fmt: skip
            if not todo:
                continue
            t0 = time.perf_counter()
            new = await run_db(db_id, schemas[db_id], todo, modes, args.verbose)
            for r in new:
                fh.write(json.dumps(r, ensure_ascii=False, default=str) + "\n")
            fh.flush()
            records += new
            if args.progress:
                print(f"{db_id}: {len(todo)} q in {time.perf_counter() - t0:.1f} s",
                      file=sys.stderr)  # fmt: skip
    return records


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the spider-train folder")
    ap.add_argument("--mode", choices=("pick", "told", "both"), default="both")
    ap.add_argument("--dbs", help="comma-separated db_ids only")
    ap.add_argument("--limit", type=int, help="at most N questions per database")
    ap.add_argument("--sample", type=int, help="a fixed random sample of N questions")
    ap.add_argument(
        "--part",
        choices=("all", "single", "multi"),
        default="all",
        help="only the questions whose gold reads one table (single) or several",
    )
    ap.add_argument("--resume", action="store_true", help="skip questions already in --out")
    ap.add_argument("--out", type=Path, default=CACHE / "records.jsonl",
                    help="per-question records (JSONL; gitignored)")  # fmt: skip
    ap.add_argument("--json", type=Path, help="also write the summary here")
    ap.add_argument("--compare", type=Path, help="a summary JSON to show before → after")
    ap.add_argument("--verbose", action="store_true", help="print every miss")
    ap.add_argument("--progress", action="store_true", help="one line per database")
    args = ap.parse_args()
    if not (args.data / "tables.json").is_file():
        raise SystemExit(f"no Spider train data at {args.data}; pass --data")
    t0 = time.perf_counter()
    records = asyncio.run(main_async(args))
    summary = summarise(records)
    summary["seconds"] = round(time.perf_counter() - t0, 1)
    print(render(summary))
    print(f"{len(records)} runs in {summary['seconds']} s")
    if args.compare:
        print(compare(json.loads(args.compare.read_text(encoding="utf-8")), summary))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
