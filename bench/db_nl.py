"""Exact-match accuracy of the builtin NL → DSL generator on bench/db_devset.yaml.

    python bench/db_nl.py [--verbose] [--json]

Each question runs through the real DB leg (generator → DSL → SQL → rows) on the demo shop
built for the dev set's fixed ``today``; its row ids must equal those of the hand-written
SQL (same order when ``ordered``). Failures are printed by category.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import sqlite3
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import yaml

from unifind.db.demo import DEMO_MODELS_YAML, create_demo
from unifind.db.leg import DBLeg
from unifind.types import Principal, SearchRequest

DEVSET = Path(__file__).with_name("db_devset.yaml")


async def evaluate(devset: Path = DEVSET) -> dict[str, Any]:
    spec = yaml.safe_load(devset.read_text(encoding="utf-8"))
    today = dt.date.fromisoformat(spec["today"])
    with tempfile.TemporaryDirectory() as tmp:
        path = create_demo(Path(tmp) / "shop.sqlite", today=today)
        leg = DBLeg(f"sqlite:///{path}", DEMO_MODELS_YAML, row_cap=1000,
                    config={"today": spec["today"]})  # fmt: skip
        principal = Principal(tenant=spec["tenant"])
        conn = sqlite3.connect(path)
        rows = []
        for q in spec["questions"]:
            expected = [r[0] for r in conn.execute(q["sql"])]
            req = SearchRequest(type="db", query=q["q"], models=(q["model"],), limit=1000)
            res = await leg.search(req, principal=principal)
            got = [int(i.record_id) for i in res.items if i.record_id is not None]
            if not q.get("ordered"):
                got, expected = sorted(got), sorted(expected)
            # Right rows with status partial (a word or comparison left out, said in a
            # note: a currency with no rate) count as right and are listed apart.
            right = got == expected and res.status.value in ("ok", "partial")
            rows.append({**q, "ok": right, "expected": expected, "got": got, "dsl": res.dsl,
                         "status": res.status.value})  # fmt: skip
        conn.close()
        leg.close()
    return summarise(rows)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_cat: dict[str, Counter[str]] = defaultdict(Counter)
    by_lang: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        for table, key in ((by_cat, r["cat"]), (by_lang, r["lang"])):
            table[key]["n"] += 1
            table[key]["ok"] += r["ok"]
    return {
        "n": len(rows),
        "ok": sum(r["ok"] for r in rows),
        "accuracy": sum(r["ok"] for r in rows) / len(rows),
        "empty_expected": sum(not r["expected"] for r in rows),
        "by_category": {k: dict(v) for k, v in sorted(by_cat.items())},
        "by_lang": {k: dict(v) for k, v in sorted(by_lang.items())},
        "failures": [r for r in rows if not r["ok"]],
        "partial": [r["id"] for r in rows if r["ok"] and r["status"] == "partial"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    ap.add_argument("--verbose", action="store_true", help="print the DSL of each failure")
    ap.add_argument("--devset", type=Path, default=DEVSET, help="questions YAML")
    args = ap.parse_args()
    s = asyncio.run(evaluate(args.devset))
    if args.json:
        print(json.dumps(s, ensure_ascii=False, indent=2, default=str))
        return 0
    print(f"builtin generator, exact match: {s['ok']}/{s['n']} = {s['accuracy']:.1%} "
          f"({s['empty_expected']} questions expect no rows)")  # fmt: skip
    for name in ("by_lang", "by_category"):
        print(f"{name.replace('_', ' ')}: " + ", ".join(
            f"{k} {v.get('ok', 0)}/{v['n']}" for k, v in s[name].items()))  # fmt: skip
    if s["partial"]:
        print(f"right, but partial (said in a note): {', '.join(s['partial'])}")
    fails: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in s["failures"]:
        fails[f["cat"]].append(f)
    for cat, items in sorted(fails.items()):
        print(f"failures [{cat}]:")
        for f in items:
            print(f"  {f['id']}: {f['q']!r} expected {len(f['expected'])} rows, got {len(f['got'])}"
                  f" ({f['status']})")  # fmt: skip
            if args.verbose:
                print(f"    dsl: {json.dumps(f['dsl'], ensure_ascii=False, default=str)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
