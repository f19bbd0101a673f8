"""The demo shop database: products (English and Chinese names), customers, orders.

Deterministic for a given ``today`` (the dev set pins it); dates are relative to it so
"last week" finds orders whichever day the demo is built.
"""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
from pathlib import Path
from typing import Any

DEMO_FILE = "shop.sqlite"

# (name, name_zh, category, brand, price_usd, weight_kg, rating)
PRODUCTS: list[tuple[str, str, str, str, float, float, float]] = [
    ("MacBook Air 13 M3", "苹果 MacBook Air 13 M3 笔记本", "laptop", "Apple", 1099, 1.24, 4.8),
    ("MacBook Pro 14 M3 Pro", "苹果 MacBook Pro 14 笔记本", "laptop", "Apple", 1999, 1.61, 4.9),
    (
        "ThinkPad X1 Carbon Gen 12",
        "联想 ThinkPad X1 Carbon 笔记本",
        "laptop",
        "Lenovo",
        1649,
        1.09,
        4.6,
    ),
    ("IdeaPad Slim 5", "联想 小新 IdeaPad Slim 5 笔记本", "laptop", "Lenovo", 749, 1.46, 4.3),
    ("Dell XPS 13", "戴尔 XPS 13 笔记本", "laptop", "Dell", 999, 1.19, 4.4),
    ("Dell Inspiron 15", "戴尔 灵越 15 笔记本", "laptop", "Dell", 549, 1.65, 3.9),
    ("HP Pavilion 14", "惠普 星 14 笔记本", "laptop", "HP", 629, 1.41, 4.0),
    ("Asus Zenbook 14 OLED", "华硕 灵耀 14 OLED 笔记本", "laptop", "Asus", 899, 1.2, 4.5),
    ("Huawei MateBook X Pro", "华为 MateBook X Pro 笔记本", "laptop", "Huawei", 1499, 0.98, 4.6),
    ("Xiaomi RedmiBook 15", "小米 红米 RedmiBook 15 笔记本", "laptop", "Xiaomi", 459, 1.8, 4.1),
    ("iPhone 15", "苹果 iPhone 15 手机", "phone", "Apple", 799, 0.171, 4.7),
    ("iPhone 15 Pro Max", "苹果 iPhone 15 Pro Max 手机", "phone", "Apple", 1199, 0.221, 4.8),
    ("Galaxy S24", "三星 Galaxy S24 手机", "phone", "Samsung", 859, 0.167, 4.6),
    ("Galaxy A55", "三星 Galaxy A55 手机", "phone", "Samsung", 449, 0.213, 4.2),
    ("Huawei Pura 70", "华为 Pura 70 手机", "phone", "Huawei", 899, 0.207, 4.5),
    ("Xiaomi 14", "小米 14 手机", "phone", "Xiaomi", 699, 0.193, 4.5),
    ("Redmi Note 13", "红米 Note 13 手机", "phone", "Xiaomi", 199, 0.188, 4.1),
    ("AirPods Pro 2", "苹果 AirPods Pro 2 降噪耳机", "headphones", "Apple", 249, 0.051, 4.7),
    ("Sony WH-1000XM5", "索尼 WH-1000XM5 头戴式降噪耳机", "headphones", "Sony", 399, 0.25, 4.8),
    ("Sony WF-C700N", "索尼 WF-C700N 真无线耳机", "headphones", "Sony", 119, 0.046, 4.2),
    ("Bose QuietComfort Ultra", "Bose QC Ultra 降噪耳机", "headphones", "Bose", 429, 0.254, 4.6),
    ("Xiaomi Buds 4", "小米 Buds 4 蓝牙耳机", "headphones", "Xiaomi", 69, 0.047, 4.0),
    ("Anker Soundcore Life Q30", "安克 声阔 Life Q30 耳机", "headphones", "Anker", 79, 0.26, 4.3),
    ("Huawei FreeBuds 5", "华为 FreeBuds 5 无线耳机", "headphones", "Huawei", 129, 0.046, 4.3),
    ("iPad Air 11", "苹果 iPad Air 11 平板", "tablet", "Apple", 599, 0.462, 4.7),
    ("Galaxy Tab S9", "三星 Galaxy Tab S9 平板", "tablet", "Samsung", 799, 0.498, 4.5),
    ("Xiaomi Pad 6", "小米 平板 6", "tablet", "Xiaomi", 329, 0.49, 4.4),
    ("Lenovo Tab P12", "联想 小新 Pad P12 平板", "tablet", "Lenovo", 279, 0.615, 4.1),
    ("Dell UltraSharp U2723QE", "戴尔 U2723QE 4K 显示器", "monitor", "Dell", 579, 6.6, 4.7),
    ("LG UltraGear 27GP850", "LG 27GP850 电竞显示器", "monitor", "LG", 379, 6.3, 4.6),
    ("Samsung Odyssey G5", "三星 玄龙骑士 G5 曲面显示器", "monitor", "Samsung", 299, 5.4, 4.3),
    ("Xiaomi Monitor A27i", "小米 显示器 A27i", "monitor", "Xiaomi", 119, 3.3, 4.0),
    ("Logitech MX Keys S", "罗技 MX Keys S 无线键盘", "keyboard", "Logitech", 109, 0.81, 4.6),
    ("Keychron K2", "Keychron K2 机械键盘", "keyboard", "Keychron", 89, 0.79, 4.5),
    ("Apple Magic Keyboard", "苹果 妙控键盘", "keyboard", "Apple", 99, 0.24, 4.2),
    ("Logitech MX Master 3S", "罗技 MX Master 3S 无线鼠标", "mouse", "Logitech", 99, 0.141, 4.8),
    ("Logitech G305", "罗技 G305 游戏鼠标", "mouse", "Logitech", 39, 0.099, 4.6),
    ("Apple Magic Mouse", "苹果 妙控鼠标", "mouse", "Apple", 79, 0.099, 3.6),
    ("Razer DeathAdder V3", "雷蛇 炼狱蝰蛇 V3 鼠标", "mouse", "Razer", 89, 0.059, 4.5),
    ("Sony Alpha 7 IV", "索尼 Alpha 7 IV 全画幅相机", "camera", "Sony", 2499, 0.658, 4.8),
    ("Canon EOS R50", "佳能 EOS R50 微单相机", "camera", "Canon", 679, 0.375, 4.5),
    ("Fujifilm X100VI", "富士 X100VI 相机", "camera", "Fujifilm", 1599, 0.521, 4.7),
    ("GoPro HERO12", "GoPro HERO12 运动相机", "camera", "GoPro", 399, 0.154, 4.4),
    (
        "Apple Watch Series 9",
        "苹果 Apple Watch Series 9 手表",
        "smartwatch",
        "Apple",
        399,
        0.039,
        4.7,
    ),
    ("Galaxy Watch 6", "三星 Galaxy Watch 6 手表", "smartwatch", "Samsung", 299, 0.033, 4.4),
    ("Huawei Watch GT 4", "华为 Watch GT 4 手表", "smartwatch", "Huawei", 249, 0.048, 4.5),
    ("Xiaomi Smart Band 8", "小米 手环 8", "smartwatch", "Xiaomi", 49, 0.027, 4.3),
    ("Sonos Era 100", "Sonos Era 100 智能音箱", "speaker", "Sonos", 249, 2.0, 4.5),
    ("JBL Flip 6", "JBL Flip 6 蓝牙音箱", "speaker", "JBL", 129, 0.55, 4.6),
    ("Bose SoundLink Flex", "Bose SoundLink Flex 蓝牙音箱", "speaker", "Bose", 149, 0.6, 4.5),
]

CUSTOMERS: list[tuple[str, str, str, str]] = [
    ("Alice Martin", "Paris", "France", "gold"), ("Bruno Rossi", "Milan", "Italy", "silver"),
    ("Chen Wei", "Shanghai", "China", "gold"), ("Dana Schulz", "Berlin", "Germany", "bronze"),
    ("Elena García", "Madrid", "Spain", "silver"), ("Farid Haddad", "Lyon", "France", "bronze"),
    ("Grace Lee", "London", "United Kingdom", "gold"),
    ("Hans Becker", "Munich", "Germany", "silver"),
    ("Ines Costa", "Lisbon", "Portugal", "bronze"), ("Jun Tanaka", "Tokyo", "Japan", "silver"),
    ("Li Na", "Beijing", "China", "silver"), ("Marco Bianchi", "Rome", "Italy", "bronze"),
    ("Nora Jensen", "Copenhagen", "Denmark", "gold"), ("Omar Aziz", "Paris", "France", "silver"),
    ("Paula Novak", "Prague", "Czechia", "bronze"), ("Wang Fang", "Shenzhen", "China", "gold"),
]  # fmt: skip

STATUSES = ("pending", "paid", "shipped", "delivered", "cancelled")
#: Stock per product index chosen so some are sold out and some are on pre-order.
_SOLD_OUT = {1, 8, 14, 21, 30, 38, 44}
_PREORDER = {11, 41}

SCHEMA = """
CREATE TABLE products (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, name_zh TEXT NOT NULL, category TEXT NOT NULL,
  brand TEXT NOT NULL, price REAL NOT NULL, weight_kg REAL NOT NULL, rating REAL NOT NULL,
  stock INTEGER NOT NULL, availability TEXT NOT NULL, discount INTEGER NOT NULL,
  added_on DATE NOT NULL);
CREATE TABLE customers (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, city TEXT NOT NULL,
  country TEXT NOT NULL, tier TEXT NOT NULL, tenant_id TEXT NOT NULL, joined_on DATE NOT NULL);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
  product_id INTEGER NOT NULL REFERENCES products(id), product TEXT NOT NULL,
  customer TEXT NOT NULL, quantity INTEGER NOT NULL, total REAL NOT NULL, status TEXT NOT NULL,
  ordered_on DATE NOT NULL, tenant_id TEXT NOT NULL);
"""


def demo_rows(today: dt.date) -> dict[str, list[tuple[Any, ...]]]:
    """All demo rows, deterministic for ``today``."""
    rng = random.Random(20240301)
    products = []
    for i, (name, zh, cat, brand, price, kg, rating) in enumerate(PRODUCTS, start=1):
        stock = 0 if i in _SOLD_OUT | _PREORDER else rng.randint(1, 120)
        avail = "out_of_stock" if i in _SOLD_OUT else "preorder" if i in _PREORDER else "in_stock"
        discount = rng.choice((0, 0, 0, 10, 15, 20))
        added = today - dt.timedelta(days=rng.randint(0, 720))
        products.append((i, name, zh, cat, brand, price, kg, rating, stock, avail, discount, added))
    customers = []
    for i, (name, city, country, tier) in enumerate(CUSTOMERS, start=1):
        email = name.lower().replace(" ", ".").replace("í", "i") + "@example.com"
        tenant = "acme" if i % 2 else "globex"
        joined = today - dt.timedelta(days=rng.randint(30, 900))
        customers.append((i, name, email, city, country, tier, tenant, joined))
    orders = []
    for i in range(1, 161):
        cust = customers[rng.randrange(len(customers))]
        prod = products[rng.randrange(len(products))]
        qty = rng.choice((1, 1, 1, 2, 2, 3))
        # Totals are in EUR; prices are in USD (0.92 EUR per USD is the demo's fixed rate).
        total = round(float(prod[5]) * qty * 0.92, 2)
        status = STATUSES[rng.randrange(len(STATUSES))]
        ordered = today - dt.timedelta(days=rng.randint(0, 400))
        orders.append((i, cust[0], prod[0], prod[1], cust[1], qty, total, status, ordered, cust[6]))
    return {"products": products, "customers": customers, "orders": orders}


def create_demo(path: str | Path, *, today: dt.date | None = None, force: bool = False) -> Path:
    """Write the demo database to ``path``; refuses to overwrite unless ``force``."""
    path = Path(path)
    if path.exists():
        if not force:
            raise FileExistsError(f"{path} exists; pass force=True (--force) to rebuild it")
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = demo_rows(today or dt.date.today())
    with sqlite3.connect(path) as conn:
        conn.executescript(SCHEMA)
        for table, data in rows.items():
            marks = ",".join("?" * len(data[0]))
            conn.executemany(f"INSERT INTO {table} VALUES ({marks})", _iso(data))
    conn.close()
    return path


def _iso(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return [tuple(v.isoformat() if isinstance(v, dt.date) else v for v in r) for r in rows]


#: The demo's model declarations (``demo_models.yaml`` next to this module).
DEMO_MODELS_YAML = (Path(__file__).parent / "demo_models.yaml").read_text(encoding="utf-8")


def _pk() -> Any:
    import sqlalchemy as sa

    # No autoincrement: DuckDB has no SERIAL, and the demo's ids are given.
    return sa.Column("id", sa.Integer, primary_key=True, autoincrement=False)


def load_demo(engine: Any, *, schema: str | None = None, today: dt.date | None = None) -> None:
    """Create and fill the demo tables through SQLAlchemy (any dialect, e.g. PostgreSQL)."""
    import sqlalchemy as sa

    md = sa.MetaData(schema=schema)
    text, num, day = sa.String(200), sa.Float(), sa.Date()
    tables = {
        "products": sa.Table("products", md, _pk(),
                             *(sa.Column(n, text)
                               for n in ("name", "name_zh", "category", "brand")),
                             *(sa.Column(n, num) for n in ("price", "weight_kg", "rating")),
                             sa.Column("stock", sa.Integer), sa.Column("availability", text),
                             sa.Column("discount", sa.Integer), sa.Column("added_on", day)),
        "customers": sa.Table("customers", md, _pk(),
                              *(sa.Column(n, text) for n in ("name", "email", "city", "country",
                                                             "tier", "tenant_id")),
                              sa.Column("joined_on", day)),
        "orders": sa.Table("orders", md, _pk(),
                           sa.Column("customer_id", sa.Integer),
                           sa.Column("product_id", sa.Integer),
                           sa.Column("product", text), sa.Column("customer", text),
                           sa.Column("quantity", sa.Integer), sa.Column("total", num),
                           sa.Column("status", text), sa.Column("ordered_on", day),
                           sa.Column("tenant_id", text)),
    }  # fmt: skip
    rows = demo_rows(today or dt.date.today())
    with engine.begin() as conn:
        md.create_all(conn)
        for name, table in tables.items():
            keys = [c.name for c in table.columns]
            conn.execute(table.insert(), [dict(zip(keys, r, strict=True)) for r in rows[name]])
