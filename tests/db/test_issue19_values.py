"""Issue #19: a stored value its column's type can't read (text in a SQLite DATE column) is
that model's degraded report naming the fix, never an exception out of the leg."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from unifind.db.leg import DBLeg
from unifind.types import Reason, SearchRequest, Status


async def test_a_date_column_holding_other_text_degrades_the_model(tmp_path: Path) -> None:
    path = tmp_path / "trips.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE trips (id INTEGER PRIMARY KEY, city TEXT, start DATE)")
    conn.executemany("INSERT INTO trips VALUES (?,?,?)",
                     [(1, "Oslo", "2004-03-27"), (2, "Rome", "27-MAR-2004")])  # fmt: skip
    conn.commit()
    conn.close()
    leg = DBLeg(f"sqlite:///{path}", {"trips": {}})
    try:
        res = await leg.search(SearchRequest(type="db", query="trips", models=("trips",)))
        (report,) = res.reports
        assert report.status is Status.DEGRADED and report.reason is Reason.ERROR
        assert "declare that column's type as string" in (report.error or "")
        # Declared as text, the same rows read.
        fixed = DBLeg(f"sqlite:///{path}", {"trips": {"columns": {
            "city": {"searchable": True}, "start": {"type": "string"}}}})  # fmt: skip
        res = await fixed.search(SearchRequest(type="db", query="trips", models=("trips",)))
        fixed.close()
        assert res.reports[0].status is Status.OK and len(res.items) == 2
    finally:
        leg.close()
