"""What a plainly declared schema means: words for each column, its role, its currency, and
which phrases say "zero" or "non-zero" — learnt from names, types, units and descriptions.

Nothing here is keyed to a question. Words come from (1) declared aliases, (2) the column
name split on ``_`` ("vacation_days_left" → "vacation days left", "vacation"), (3) a small
bilingual glossary of common database words ("salary" ↔ 工资, "department" ↔ 部门/科室), and
(4) the description: "0 means no fee" makes "no fee" / "without fee" mean ``= 0``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from unifind.db._memo import per_object
from unifind.db.models import Column, Model

CURRENCIES = {"usd": "USD", "eur": "EUR", "cny": "CNY", "rmb": "CNY", "gbp": "GBP",
              "jpy": "JPY"}  # fmt: skip
_DESC_CURRENCY = [
    (re.compile(r"\b(?:us )?dollars?\b|\busd\b|\$|美元"), "USD"),
    (re.compile(r"\beuros?\b|\beur\b|€|欧元"), "EUR"),
    (re.compile(r"\byuan\b|\brmb\b|\bcny\b|人民币|元"), "CNY"),
    (re.compile(r"\bpounds? sterling\b|\bgbp\b|£|英镑"), "GBP"),
]

#: Common database words in English and Chinese: a word found in a column name brings the
#: others along. Generic vocabulary, not any one schema's.
GLOSSARY: list[tuple[str, ...]] = [
    ("salary", "salaries", "pay", "paid", "earning", "earn", "earns", "wage", "工资", "薪资",
     "薪水", "薪酬", "收入"),
    ("price", "cost", "costs", "costing", "priced", "价格", "售价", "价钱"),
    ("cost", "costs", "costing", "成本", "费用"),
    ("fee", "fees", "charge", "费用", "收费"),
    ("amount", "total", "金额", "总额"),
    ("rating", "rated", "评分", "评价"),
    ("performance", "绩效", "表现"),
    ("score", "分数", "得分"),
    ("stock", "inventory", "库存"),
    ("quantity", "qty", "数量"),
    ("pages", "page", "页数"),
    ("department", "dept", "部门", "科室"),
    ("city", "城市"),
    ("country", "国家"),
    ("level", "seniority", "级别", "职级"),
    ("status", "state", "状态"),
    ("genre", "类型", "体裁"),
    ("language", "语言", "语种"),
    ("author", "written", "作者"),
    ("category", "品类", "类别", "分类", "类目"),
    ("brand", "品牌"),
    ("doctor", "医生", "大夫"),
    ("patient", "患者", "病人"),
    ("member", "会员", "读者"),
    ("branch", "分馆", "分店", "分行"),
    ("duration", "length", "long", "时长"),
    ("weight", "重量"),
    ("discount", "折扣"),
    ("hired", "hire", "joined", "入职"),
    ("added", "listed", "created", "上架", "添加", "加入"),
    ("created", "创建"),
    ("borrowed", "borrow", "lent", "借出", "借阅"),
    ("returned", "归还"),
    ("due", "到期"),
    ("published", "publication", "出版", "发表"),
    ("year", "年份"),
    ("remote", "remotely", "远程"),
    ("insurance", "保险"),
    ("priority", "优先级"),
    ("age", "年龄"),
    ("gender", "性别"),
    ("type", "类型"),
    ("copies", "copy", "副本", "册数"),
    ("ordered", "下单"),
    ("employee", "employees", "staff", "people", "员工", "职员"),
    ("appointment", "appointments", "visit", "visits", "预约", "就诊"),
    ("loan", "loans", "借阅", "借书"),
    ("book", "books", "书", "图书", "书籍"),
    ("product", "products", "产品", "商品"),
    ("order", "orders", "订单"),
    ("customer", "customers", "客户", "顾客"),
]  # fmt: skip
#: Common enumerated values in English and Chinese (matched against a column's own values).
VALUE_GLOSSARY: dict[str, tuple[str, ...]] = {
    "overdue": ("逾期", "过期"), "returned": ("已归还", "归还"), "completed": ("已完成", "完成"),
    "cancelled": ("canceled", "已取消", "取消"), "canceled": ("cancelled", "已取消", "取消"),
    "scheduled": ("已预约", "待就诊"), "pending": ("待处理",), "paid": ("已付款", "已支付"),
    "shipped": ("已发货",), "delivered": ("已送达", "已签收"), "urgent": ("紧急", "加急"),
    "routine": ("常规", "普通"), "active": ("活跃",), "inactive": ("停用",),
    "approved": ("已批准",), "rejected": ("已拒绝",), "full-time": ("全职",),
    "part-time": ("兼职",), "contractor": ("外包", "合同工"), "junior": ("初级",),
    "senior": ("高级", "资深"), "video": ("视频", "线上"), "in-person": ("面诊", "线下"),
    "male": ("男",), "female": ("女",), "english": ("英文", "英语"), "chinese": ("中文", "汉语"),
    "french": ("法文", "法语"), "open": ("未关闭",), "closed": ("已关闭",),
}  # fmt: skip
_GENERIC = frozenset(("id", "on", "at", "is", "has", "num", "no", "the", "of", "in", "date",
                      "time", "name", "code", "flag", "value", "left", "minutes", "hours", "days",
                      "kg", "usd", "eur", "cny", "pct", "percent"))  # fmt: skip
_ZERO = re.compile(r"\b0\s*(?:means|=|is|:)\s*(?P<p>[a-z][a-z -]{1,40}?)\s*(?:[;.,)]|$)")
_ROLE_NAMES = {
    "money": ("price", "cost", "salary", "fee", "amount", "total", "revenue", "wage", "pay",
              "spend", "budget", "income"),
    "rating": ("rating", "score", "stars", "performance"),
    "quantity": ("stock", "inventory", "quantity", "qty", "copies", "units", "seats",
                 "available"),
    "year": ("year",),
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Sense:
    """What one column means to a question."""

    column: Column
    words: tuple[str, ...]
    """Phrases naming the column, longest first."""
    role: str | None = None
    """``money``, ``rating``, ``quantity``, ``year``, ``date``, ``flag`` or None."""
    currency: str | None = None
    zero: tuple[str, ...] = ()
    """Phrases meaning the value is 0 / false ("no fee", "out of stock", "free")."""
    nonzero: tuple[str, ...] = ()
    values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each enumerated value with the phrases that name it (itself included)."""


def _name_words(col: Column, model: Model) -> list[str]:
    parts = col.name.lower().split("_")
    words = [" ".join(parts)]
    if len(parts) > 1 and parts[-1] in ("id", "ids"):
        # A key is named only with its "id": "mountain" names the model, not Mountain_ID,
        # and "3 heads" is a count, not head_ID >= 3 (issue #19).
        return words
    others = {p for c in model.columns.values() if c.name != col.name
              for p in c.name.lower().split("_")}  # fmt: skip
    core = [p for p in parts if p not in _GENERIC]
    if len(parts) > 2 and len(parts[-1]) == 1 and parts[-1].isalpha():
        # "mean_temperature_f": a one-letter unit; "mean temperature" names the column.
        words.append(" ".join(parts[:-1]))
    words += [p for p in core if len(p) >= 3 and p not in others]
    if len(core) >= 2 and core != parts:
        words.append(" ".join(core))
    if len(core) == 2 and core[1].endswith("ed"):  # insurance_covered → "covered by insurance"
        words.append(f"{core[1]} by {core[0]}")
    return words


def _description_words(col: Column) -> list[str]:
    """A short description that is a plain noun phrase names its column ("Manufacturer",
    "official name"); a sentence ("Date the product was listed") does not."""
    text = col.description.strip().lower()
    if not re.fullmatch(r"[a-z]+(?: [a-z]+){0,2}", text) or text in _GENERIC:
        return []
    return [text]


def _glossary(words: list[str]) -> list[str]:
    out: list[str] = []
    for w in words:
        for group in GLOSSARY:
            if w in group or w.split(" ")[0] in group:
                out.extend(group)
    return out


def currency_of(col: Column) -> str | None:
    """The column's currency from its unit, else from its description."""
    if col.unit and col.unit.lower() in CURRENCIES:
        return CURRENCIES[col.unit.lower()]
    text = f"{col.unit or ''} {col.description}".lower()
    for pattern, code in _DESC_CURRENCY:
        if pattern.search(text):
            return code
    return None


def _role(col: Column, currency: str | None) -> str | None:
    if col.type in ("date", "datetime"):
        return "date"
    if col.type == "boolean":
        return "flag"
    if col.type not in ("integer", "number"):
        return None
    unit = (col.unit or "").lower()
    if currency:
        return "money"
    if unit in ("stars", "star", "rating"):
        return "rating"
    parts = col.name.lower().split("_")
    for role, names in _ROLE_NAMES.items():
        if any(p in names for p in parts):
            return role
    if re.search(r"\b(?:rating|score)\b|from 1 to \d|\b1-\d\b", col.description.lower()):
        return "rating"
    return None


def _zero_phrases(col: Column, role: str | None, words: list[str]) -> tuple[list[str], list[str]]:
    zero: list[str] = []
    nonzero: list[str] = []
    for m in _ZERO.finditer(col.description.lower()):
        phrase = m["p"].strip()
        zero.append(phrase)
        neg = re.match(r"(?:no|not|without|none)\s+(?P<x>.+)", phrase)
        if neg:
            x = neg["x"]
            zero += [f"without {x}", f"no {x}", f"not {x}", f"without a {x}"]
            nonzero += [f"with {x}", f"with a {x}", f"{x}ed" if not x.endswith("e") else f"{x}d"]
        elif phrase.startswith("out of "):
            nonzero.append("in " + phrase[7:])
    if role == "quantity" and any(w in ("stock", "inventory") for w in words):
        zero += ["out of stock", "sold out", "缺货", "无货", "售罄", "没货"]
        nonzero += ["in stock", "有货", "有库存", "现货"]
    return zero, nonzero


def _values(col: Column, model: Model) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for value, aliases in (col.values or {}).items():
        low = value.lower()
        phrases = {value, value.replace("_", " "), *aliases, *VALUE_GLOSSARY.get(low, ())}
        out[value] = tuple(p for p in phrases if p.strip() and not p.strip().isdigit())
    return out


def learn(model: Model) -> dict[str, Sense]:
    """Every column's :class:`Sense` (cached per model object)."""
    key = id(model)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]
    senses: dict[str, Sense] = {}
    for col in model.columns.values():
        own = _name_words(col, model)
        is_key = col.name.lower().split("_")[-1] in ("id", "ids")
        # A key keeps its own name: the glossary would let "customer" name customer_id.
        words = [*col.aliases, *own, *_description_words(col), *([] if is_key else _glossary(own))]
        currency = currency_of(col)
        role = _role(col, currency)
        zero, nonzero = _zero_phrases(col, role, own)
        if col.type == "boolean":
            nonzero = [*col.flags, *words]
        unique = tuple(sorted(dict.fromkeys(w.lower() for w in words if w), key=len, reverse=True))
        senses[col.name] = Sense(col, unique, role, currency, tuple(zero),
                                 tuple(dict.fromkeys([*col.flags, *nonzero])),
                                 _values(col, model))  # fmt: skip
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[key] = (model, senses)
    return senses


_DESCRIPTION_FILLER = frozenset(
    (
        "the",
        "and",
        "for",
        "with",
        "from",
        "that",
        "this",
        "are",
        "was",
        "what",
        "which",
        "who",
        "all",
        "any",
        "its",
        "their",
        "our",
        "your",
        "how",
        "many",
        "much",
        "not",
        "has",
        "have",
    )
)
_CACHE: dict[int, tuple[Model, dict[str, Sense]]] = {}


def model_words(model: Model) -> frozenset[str]:
    """Words that name the model itself (its name, table, aliases, description's nouns)."""
    return _model_words(model)


@per_object
def _model_words(model: Model) -> frozenset[str]:
    # Once per model object: several rules ask per word of a question (issue #19 latency).
    words = {model.name, model.table, *model.aliases}
    words.update(w for w in re.findall(r"[a-z]{3,}", model.description.lower())
                 if w not in _DESCRIPTION_FILLER)  # fmt: skip
    for w in list(words):
        if w.endswith("s"):
            words.add(w[:-1])
        for group in GLOSSARY:
            if w in group:
                words.update(group)
    return frozenset(w.lower() for w in words)
