"""Three schemas the DB leg never saw while it was written: HR, library loans, clinic visits.

Each is declared the plain way a new user would (descriptions, types, units; no alias lists,
no enumerated values) in ``bench/db_<name>.yaml`` next to its questions, and filled here with
deterministic rows pinned to ``TODAY``. :func:`load` writes a schema into any SQLAlchemy
engine (SQLite, MySQL/MariaDB, DuckDB, PostgreSQL).
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path
from typing import Any

import sqlalchemy as sa
import yaml

TODAY = dt.date(2025, 6, 15)
HERE = Path(__file__).parent
SCHEMAS = ("hr", "library", "clinic")

S, I, F, D, B = sa.String(120), sa.Integer(), sa.Float(), sa.Date(), sa.Boolean()  # noqa: E741

TABLES: dict[str, dict[str, list[tuple[str, Any]]]] = {
    "hr": {
        "employees": [("id", I), ("full_name", S), ("department", S), ("job_title", S),
                      ("city", S), ("level", S), ("employment_type", S), ("salary", F),
                      ("hired_on", D), ("remote", B), ("performance", F),
                      ("vacation_days_left", I)],
    },
    "library": {
        "books": [("id", I), ("title", S), ("author", S), ("genre", S), ("language", S),
                  ("published_year", I), ("pages", I), ("copies_available", I),
                  ("replacement_cost", F), ("added_on", D)],
        "loans": [("id", I), ("book_title", S), ("member", S), ("branch", S),
                  ("borrowed_on", D), ("due_on", D), ("returned_on", D), ("status", S),
                  ("late_fee", F)],
    },
    "clinic": {
        "appointments": [("id", I), ("patient", S), ("doctor", S), ("department", S),
                         ("appointment_date", D), ("status", S), ("visit_type", S),
                         ("priority", S), ("fee", F), ("duration_minutes", I),
                         ("insurance_covered", B)],
    },
}  # fmt: skip


def _day(rng: random.Random, back: int, forward: int = 0) -> dt.date:
    return TODAY + dt.timedelta(days=rng.randint(-back, forward))


def _hr(rng: random.Random) -> dict[str, list[tuple[Any, ...]]]:
    first = [
        "Anna",
        "Ben",
        "Chloe",
        "David",
        "Emma",
        "Felix",
        "Grace",
        "Hugo",
        "Iris",
        "Jack",
        "Kai",
        "Lena",
        "Mia",
        "Noah",
        "Olivia",
        "Paul",
        "Quinn",
        "Rosa",
        "Sam",
        "Tara",
    ]
    last = ["Wang", "Smith", "Li", "Müller", "Zhang", "Brown", "Chen", "Garcia", "Liu", "Jones"]
    depts = {
        "Engineering": ["Software Engineer", "Data Engineer", "QA Engineer"],
        "Sales": ["Account Executive", "Sales Manager"],
        "Marketing": ["Content Writer", "Marketing Analyst"],
        "Finance": ["Accountant", "Financial Analyst"],
        "Human Resources": ["Recruiter", "HR Partner"],
        "Customer Support": ["Support Agent", "Support Lead"],
    }
    cities = ["北京", "上海", "深圳", "London", "Berlin", "New York"]
    rows = []
    for i in range(1, 61):
        dept = rng.choice(list(depts))
        level = rng.choice(["junior", "mid", "mid", "senior", "lead"])
        kind = rng.choice(["full-time", "full-time", "full-time", "part-time", "contractor"])
        base = {"junior": 38000, "mid": 52000, "senior": 70000, "lead": 88000}[level]
        salary = float(base + rng.randint(0, 30) * 1000)
        hired = _day(rng, 3650, 0)
        rows.append(
            (
                i,
                f"{rng.choice(first)} {rng.choice(last)}",
                dept,
                rng.choice(depts[dept]),
                rng.choice(cities),
                level,
                kind,
                salary,
                hired,
                rng.random() < 0.3,
                round(rng.uniform(2.0, 5.0), 1),
                rng.choice([0, 0, 3, 5, 8, 12, 20]),
            )
        )
    return {"employees": rows}


_BOOKS = [
    ("三体", "刘慈欣", "Science Fiction", "Chinese", 2006), ("The Wandering Earth", "刘慈欣",
     "Science Fiction", "English", 2000), ("活着", "余华", "Fiction", "Chinese", 1993),
    ("许三观卖血记", "余华", "Fiction", "Chinese", 1995), ("围城", "钱钟书", "Fiction", "Chinese",
     1947), ("1984", "George Orwell", "Fiction", "English", 1949), ("Animal Farm",
     "George Orwell", "Fiction", "English", 1945), ("Pride and Prejudice", "Jane Austen",
     "Fiction", "English", 1813), ("Emma", "Jane Austen", "Fiction", "English", 1815),
    ("Murder on the Orient Express", "Agatha Christie", "Mystery", "English", 1934),
    ("And Then There Were None", "Agatha Christie", "Mystery", "English", 1939),
    ("Le Petit Prince", "Antoine de Saint-Exupéry", "Children", "French", 1943),
    ("Harry Potter and the Philosopher's Stone", "J.K. Rowling", "Children", "English", 1997),
    ("Harry Potter and the Chamber of Secrets", "J.K. Rowling", "Children", "English", 1998),
    ("Sapiens", "Yuval Noah Harari", "History", "English", 2011), ("万历十五年", "黄仁宇",
     "History", "Chinese", 1981), ("The Guns of August", "Barbara Tuchman", "History",
     "English", 1962), ("Dune", "Frank Herbert", "Science Fiction", "English", 1965),
    ("Foundation", "Isaac Asimov", "Science Fiction", "English", 1951), ("I, Robot",
     "Isaac Asimov", "Science Fiction", "English", 1950), ("Les Misérables", "Victor Hugo",
     "Fiction", "French", 1862), ("L'Étranger", "Albert Camus", "Fiction", "French", 1942),
    ("The Hound of the Baskervilles", "Arthur Conan Doyle", "Mystery", "English", 1902),
    ("白夜行", "东野圭吾", "Mystery", "Chinese", 1999), ("解忧杂货店", "东野圭吾", "Fiction",
     "Chinese", 2012), ("唐诗三百首", "蘅塘退士", "Poetry", "Chinese", 1763),
    ("Leaves of Grass", "Walt Whitman", "Poetry", "English", 1855), ("The Hobbit",
     "J.R.R. Tolkien", "Children", "English", 1937), ("中国历代政治得失", "钱穆", "History",
     "Chinese", 1952), ("The Martian", "Andy Weir", "Science Fiction", "English", 2011),
    ("Project Hail Mary", "Andy Weir", "Science Fiction", "English", 2021),
    ("Gone Girl", "Gillian Flynn", "Mystery", "English", 2012), ("红楼梦", "曹雪芹", "Fiction",
     "Chinese", 1791), ("西游记", "吴承恩", "Fiction", "Chinese", 1592), ("Charlotte's Web",
     "E.B. White", "Children", "English", 1952), ("The Odyssey", "Homer", "Poetry", "English",
     -700), ("SPQR", "Mary Beard", "History", "English", 2015), ("球状闪电", "刘慈欣",
     "Science Fiction", "Chinese", 2004), ("Madame Bovary", "Gustave Flaubert", "Fiction",
     "French", 1857), ("The Silent Patient", "Alex Michaelides", "Mystery", "English", 2019),
]  # fmt: skip


def _library(rng: random.Random) -> dict[str, list[tuple[Any, ...]]]:
    books = []
    for i, (title, author, genre, lang, year) in enumerate(_BOOKS, start=1):
        books.append((i, title, author, genre, lang, year, rng.randint(90, 900),
                      rng.choice([0, 0, 1, 2, 3, 5]), float(rng.choice([25, 39, 45, 58, 68, 99,
                                                                        120])),
                      _day(rng, 1500)))  # fmt: skip
    members = ["Alice Zhou", "Bob Martin", "王芳", "李雷", "Carmen Diaz", "Deepak Rao",
               "韩梅梅", "Erik Larsen", "Fatima Khan", "张伟"]  # fmt: skip
    branches = ["Central", "Riverside", "东区分馆"]
    loans = []
    for i in range(1, 91):
        book = rng.choice(books)
        borrowed = _day(rng, 200)
        due = borrowed + dt.timedelta(days=21)
        returned: dt.date | None = borrowed + dt.timedelta(days=rng.randint(2, 35))
        if returned and returned > TODAY:
            returned = None
        if returned is not None:
            status, late = "returned", max(0, (returned - due).days) * 0.5
        elif due < TODAY:
            status, late = "overdue", (TODAY - due).days * 0.5
        else:
            status, late = "on loan", 0.0
        loans.append((i, book[1], rng.choice(members), rng.choice(branches), borrowed, due,
                      returned, status, float(late)))  # fmt: skip
    return {"books": books, "loans": loans}


def _clinic(rng: random.Random) -> dict[str, list[tuple[Any, ...]]]:
    doctors = {"Cardiology": ["Dr. Li Ming", "Dr. Sarah Cohen"],
               "Pediatrics": ["Dr. Emily Stone", "Dr. 陈静"],
               "Dermatology": ["Dr. Raj Patel"], "Orthopedics": ["Dr. Tom Becker"],
               "中医科": ["Dr. 张仲", "Dr. 王和"]}  # fmt: skip
    patients = [
        "Ava Thompson",
        "刘洋",
        "Ben Carter",
        "赵敏",
        "Carla Ruiz",
        "Diego Santos",
        "孙丽",
        "Ella Fischer",
        "Frank Moore",
        "周杰",
        "Hannah Kim",
        "Ivan Petrov",
    ]
    rows = []
    for i in range(1, 81):
        dept = rng.choice(list(doctors))
        day = _day(rng, 150, 30)
        if day > TODAY:
            status = rng.choice(["scheduled", "scheduled", "cancelled"])
        else:
            status = rng.choice(["completed", "completed", "completed", "cancelled", "no-show"])
        fee = float(rng.choice([0, 40, 60, 80, 120, 150, 200, 250]))
        rows.append((i, rng.choice(patients), rng.choice(doctors[dept]), dept, day, status,
                     rng.choice(["in-person", "in-person", "video"]),
                     rng.choice(["routine", "routine", "routine", "urgent"]), fee,
                     rng.choice([15, 20, 30, 45, 60]), rng.random() < 0.6))  # fmt: skip
    return {"appointments": rows}


def rows(schema: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of ``schema``, the same on every run."""
    rng = random.Random(f"unifind-{schema}")
    return {"hr": _hr, "library": _library, "clinic": _clinic}[schema](rng)


def spec(schema: str) -> dict[str, Any]:
    """The schema's YAML: ``models`` (the plain declarations) and ``questions``."""
    data: dict[str, Any] = yaml.safe_load((HERE / f"db_{schema}.yaml").read_text("utf-8"))
    return data


def load(engine: sa.Engine, schema: str) -> None:
    """Create (replacing) and fill the schema's tables through SQLAlchemy."""
    md = sa.MetaData()
    tables = {
        name: sa.Table(
            name,
            md,
            *(sa.Column(c, t, primary_key=c == "id", autoincrement=False) for c, t in cols),
        )
        for name, cols in TABLES[schema].items()
    }
    data = rows(schema)
    with engine.begin() as conn:
        md.drop_all(conn)
        md.create_all(conn)
        for name, table in tables.items():
            keys = [c.name for c in table.columns]
            conn.execute(table.insert(), [dict(zip(keys, r, strict=True)) for r in data[name]])
