"""A small sports schema written for the issue-#19 tests (no benchmark data), declared the
plain way the Spider bench declares tables: a type and a short natural description per
column, text columns searchable, no aliases."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

ATHLETES = [
    # athlete_id, name, country, sport, age, height, medals, total_points, club_id
    (1, "Ana Lima", "Brazil", "swimming", 24, 1.71, 3, 88, 1),
    (2, "Ben Okoro", "Kenya", "running", 31, 1.80, 5, 120, 2),
    (3, "Chen Wei", "China", "diving", 22, 1.62, 2, 64, 1),
    (4, "Dana Moss", "Kenya", "running", 28, 1.75, 0, 15, 3),
    (5, "Eli Stone", "Canada", "rowing", 35, 1.92, 1, 40, 2),
    (6, "Femi Ade", "Kenya", "running", 26, 1.70, 4, 99, 3),
    (7, "Gia Rossi", "Italy", "swimming", 30, 1.68, 0, 22, 1),
    (8, "Hugo Blanc", "Canada", "swimming", 27, 1.85, 2, 51, 2),
    (9, "Ines Sousa", "Brazil", "diving", 33, 1.66, 1, 37, 3),
    (10, "Jon Berg", "Canada", "rowing", 29, 1.95, 6, 130, 1),
]

COLUMNS: dict[str, dict[str, Any]] = {
    "athlete_id": {"type": "integer", "description": "athlete id"},
    "name": {"type": "string", "description": "name", "searchable": True},
    "country": {"type": "string", "description": "country", "searchable": True},
    "sport": {"type": "string", "description": "sport", "searchable": True},
    "age": {"type": "integer", "description": "age"},
    "height": {"type": "number", "description": "height"},
    "medals": {"type": "integer", "description": "medals"},
    "pts": {"type": "integer", "description": "total points"},
    "club_id": {"type": "integer", "description": "club id"},
}


def athletes_db(folder: Path) -> tuple[str, dict[str, Any]]:
    """The database URL and its models."""
    path = folder / "sports.sqlite"
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE athletes (athlete_id INTEGER PRIMARY KEY, name TEXT, country TEXT, "
        "sport TEXT, age INTEGER, height REAL, medals INTEGER, pts INTEGER, club_id INTEGER)"
    )
    conn.executemany("INSERT INTO athletes VALUES (?,?,?,?,?,?,?,?,?)", ATHLETES)
    conn.commit()
    conn.close()
    models = {"athletes": {"description": "athletes", "primary_key": "athlete_id",
                           "columns": COLUMNS}}  # fmt: skip
    return f"sqlite:///{path}", models


def query(url: str, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(url.removeprefix("sqlite:///"))
    try:
        return [tuple(r) for r in conn.execute(sql)]
    finally:
        conn.close()
