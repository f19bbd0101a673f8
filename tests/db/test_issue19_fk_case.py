"""Issue #19: a foreign key whose column is spelt in another case than the table's (SQLite
keeps the constraint's text: 'Cust_ID' for the column cust_ID) is learned with the table's
spelling; it never fails introspection (a KeyError failed every request on the database)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest, Status


# SQLAlchemy warns that the constraint's spelling is not PRAGMA foreign_keys' spelling:
# exactly the case under test.
@pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")
async def test_a_foreign_key_in_another_case_is_learned(tmp_path: Path) -> None:
    path = tmp_path / "bank.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE customer (cust_ID TEXT PRIMARY KEY, cust_name TEXT);"
        "CREATE TABLE loan (loan_ID TEXT PRIMARY KEY, cust_ID TEXT, amount INTEGER,"
        " FOREIGN KEY (Cust_ID) REFERENCES customer (Cust_ID));"
        "INSERT INTO customer VALUES ('1', 'Mary'), ('2', 'Jack');"
        "INSERT INTO loan VALUES ('a', '1', 100), ('b', '1', 300), ('c', '2', 50);"
    )
    conn.commit()
    conn.close()
    leg = DBLeg(f"sqlite:///{path}", {"customer": {}, "loan": {}})
    try:
        models = await leg.models()
        rel = models["loan"].joins["customer"]
        assert (rel.key, rel.foreign) == ("cust_ID", "cust_ID")
        res = await leg.search(SearchRequest(type="db", query="loans", models=("loan",)))
        assert res.reports[0].status is Status.OK and len(res.items) == 3
    finally:
        leg.close()
