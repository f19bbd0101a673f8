"""The builtin generator: rules over the model's own declarations, no model of language.

Rules run in a fixed order, each consuming the words it understood so later rules (and the
keyword fallback) don't read them twice: top-N and superlatives → dates → numbers with
units → enumerated values (and their negation) → flags ("discounted", "without discount")
→ negated free words → leftover keywords, matched with LIKE across searchable columns.
Everything is derived from the model (aliases, units, values), so a new schema needs
declarations, not code.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Mapping
from typing import Any

from unifind.db.compile import like_pattern
from unifind.db.dsl import Order, QueryDSL, Where, validate_dsl
from unifind.db.generate._dates import read_dates
from unifind.db.generate._numbers import read_numbers
from unifind.db.generate._order import read_order
from unifind.db.generate._scan import Scan, is_cjk, normalise, phrase_pattern
from unifind.db.generate.base import Generation, GenerationError
from unifind.db.models import Column, Model

# fmt: off
STOPWORDS = frozenset(
    (
        "a", "an", "the", "and", "or", "of", "for", "to", "in", "on", "at", "by", "with", "from",
        "show", "me", "list", "find", "get", "give", "all", "any", "some", "i", "we", "you",
        "want", "need", "looking", "look", "search", "please", "which", "what", "that", "who",
        "whose", "where", "are", "is", "was", "were", "be", "been", "have", "has", "had", "there",
        "their", "them", "it", "its", "this", "these", "those", "than", "then", "do", "does",
        "did", "can", "could", "would", "should", "will", "my", "our", "your", "how", "many",
        "much", "more", "most", "less", "least", "very", "also", "just", "only", "please", "items",
        "item", "things", "stuff", "ones", "one", "sold", "bought", "placed", "made", "costing",
        "priced", "under", "over", "above", "below", "between", "about", "around",
    )
)
# fmt: on
_ZH_FILLER = re.compile(
    r"的|和|与|或|在|是|有|我|想|要|找|买|给|看|查|请|一下|哪些|什么|所有|全部|列出|显示|查询|"
    r"查找|搜索|推荐|帮我|一个|一些|吗|呢|吧|了|里|中|被|把|并且|而且|以及|价格|元|块"
)
_NEG = re.compile(
    r"(?:(?<![a-z])(?:not|no|non|without|excluding|except|other than|never|isn't|aren't)"
    r"\s*-?\s*(?:from\s+|by\s+|made by\s+|in\s+)?|(?:不是|不要|非|除了|除|没有|无|不含|不))\s*$"
)
_POSITIVE = re.compile(
    r"(?:(?<![a-z])(?:with|has|having|have|that have)\s+(?:a\s+|an\s+|some\s+)?|有|带)\s*$"
)
_NEG_WORD = re.compile(
    r"(?<![a-z])(?:(?:not|without|excluding|except|no)\s+|non-)(?P<w>[a-z0-9][a-z0-9+#.-]*[a-z0-9])"
    r"|(?:不是|不要|除了|不含|没有)(?P<z>[\u4e00-\u9fff]{2,4})"
)
_TOKEN = re.compile(r"[a-z0-9][a-z0-9+#.-]*[a-z0-9+#]|[a-z0-9]|[\u4e00-\u9fff]+")


class BuiltinGenerator:
    """Rule-based NL → DSL over one model, English and Chinese."""

    name = "builtin"

    def __init__(self, *, today: dt.date | None = None) -> None:
        self._today = today

    @classmethod
    def from_config(cls, arg: str, config: Mapping[str, Any]) -> BuiltinGenerator:
        today = config.get("today")
        return cls(today=dt.date.fromisoformat(str(today)) if today else None)

    async def generate(self, question: str, model: Model, *, strict: bool = False) -> Generation:
        return self.generate_sync(question, model, strict=strict)

    def generate_sync(self, question: str, model: Model, *, strict: bool = False) -> Generation:
        """The DSL for ``question`` (pure CPU, microseconds: no thread needed)."""
        scan = Scan(question)
        # Dates first: "最近30天" / "last 3 days" are ranges, not "the 30 most recent".
        wheres = self._dates(scan, model)
        orders, limit = read_order(scan, model)
        wheres += [Where(field=c.column, op=c.op, value=c.value) for c in read_numbers(scan, model)]  # type: ignore[arg-type]
        wheres += _values(scan, model)
        wheres += _flags(scan, model)
        wheres += _negated_words(scan, model)
        keywords = _keywords(scan, model)
        searchable = model.searchable
        notes: tuple[str, ...] = ()
        if keywords and strict:
            raise GenerationError(
                f"could not map {', '.join(repr(k) for k in keywords)} onto model "
                f"{model.name!r} (strict: no keyword fallback)"
            )
        if keywords and not searchable:
            notes = (f"ignored {', '.join(keywords)}: {model.name} has no searchable columns",)
            keywords = []
        wheres += [_like_any(kw, searchable, "like") for kw in keywords]
        dsl = QueryDSL(
            model=model.name,
            wheres=tuple(wheres),
            orders=tuple(Order(field=o.column, sort=o.sort) for o in orders),  # type: ignore[arg-type]
            limit=limit,
        )
        return Generation(validate_dsl(dsl, model), keywords=tuple(keywords), notes=notes)

    def _dates(self, scan: Scan, model: Model) -> list[Where]:
        conds = read_dates(scan, self._today or dt.date.today())
        dated = [c for c in model.columns.values() if c.type in ("date", "datetime")]
        if not conds or not dated:
            return []
        named = [c for c in dated if any(phrase_pattern(a).search(scan.text) for a in c.aliases)]
        col = (named or dated)[0]
        out: list[Where] = []
        for d in conds:
            if d.op == "between" and col.type == "date":
                last = d.end - dt.timedelta(days=1)
                out.append(Where(field=col.name, op="between", value=[d.start, last]))
            elif d.op == "between":
                out.append(Where(field=col.name, op=">=", value=d.start))
                out.append(Where(field=col.name, op="<", value=d.end))
            else:
                out.append(Where(field=col.name, op=d.op, value=d.start))  # type: ignore[arg-type]
        return out


def _values(scan: Scan, model: Model) -> list[Where]:
    """Enumerated values named in the question; several for a column mean any of them."""
    phrases: list[tuple[str, Column, str]] = []
    for col in model.columns.values():
        for value, aliases in (col.values or {}).items():
            for p in {value, value.replace("_", " "), *aliases}:
                phrases.append((p, col, value))
    picked: dict[tuple[str, bool], list[str]] = {}
    for phrase, col, value in sorted(phrases, key=lambda t: -len(t[0])):
        if not normalise(phrase):
            continue
        for m in scan.find(phrase_pattern(phrase)):
            neg = _NEG.search(scan.rest[: m.start()])
            start = neg.start() if neg else m.start()
            scan.consume(start, m.end())
            bucket = picked.setdefault((col.name, bool(neg)), [])
            if value not in bucket:
                bucket.append(value)
    out = []
    for (name, negated), values in picked.items():
        if len(values) == 1:
            out.append(Where(field=name, op="!=" if negated else "=", value=values[0]))
        else:
            out.append(Where(field=name, op="notin" if negated else "in", value=values))
    return out


def _flags(scan: Scan, model: Model) -> list[Where]:
    """ "discounted", "with discount" → non-zero; "without discount", "不打折" → zero or NULL."""
    out = []
    for col in model.columns.values():
        if col.type not in ("integer", "number", "boolean"):
            continue
        words = [(f, True) for f in col.flags] + [(a, False) for a in col.aliases]
        for word, is_flag in sorted(words, key=lambda t: -len(t[0])):
            for m in scan.find(phrase_pattern(word)):
                before = scan.rest[: m.start()]
                neg, pos = _NEG.search(before), _POSITIVE.search(before)
                if not (is_flag or neg or pos):
                    continue  # a bare column name ("price") states no condition
                scan.consume((neg or pos or m).start(), m.end())
                out.append(_zero(col) if neg else _nonzero(col))
    return out


def _zero(col: Column) -> Where:
    if col.type == "boolean":
        return Where(field=col.name, op="=", value=False)
    either = Where.model_validate({"field": col.name, "op": "null", "or": True})
    return Where(wheres=(Where(field=col.name, op="=", value=0), either))


def _nonzero(col: Column) -> Where:
    if col.type == "boolean":
        return Where(field=col.name, op="=", value=True)
    return Where(field=col.name, op=">", value=0)


def _negated_words(scan: Scan, model: Model) -> list[Where]:
    out = []
    for m in scan.find(_NEG_WORD):
        word = m["w"] or m["z"]
        if word in STOPWORDS or _is_alias(word, model) or not model.searchable:
            continue
        scan.consume(*m.span())
        out.append(_like_any(_singular(word), model.searchable, "notlike"))
    return out


def _like_any(word: str, columns: list[Column], op: str) -> Where:
    """LIKE: the word in any searchable column; NOT LIKE: in none of them."""
    conds = tuple(
        Where.model_validate(
            {"field": c.name, "op": op, "value": like_pattern(word), "or": op == "like" and i > 0}
        )
        for i, c in enumerate(columns)
    )
    return conds[0] if len(conds) == 1 else Where(wheres=conds)


def _keywords(scan: Scan, model: Model) -> list[str]:
    out: list[str] = []
    for tok in _TOKEN.findall(scan.rest):
        pieces = [p for p in _ZH_FILLER.split(tok) if len(p) >= 2] if is_cjk(tok[0]) else [tok]
        for p in pieces:
            if p in STOPWORDS or _is_alias(p, model) or (len(p) < 2 and not p.isdigit()):
                continue
            word = p if is_cjk(p[0]) else _singular(p)
            if word not in out:
                out.append(word)
    return out


def _is_alias(word: str, model: Model) -> bool:
    names = _names(model)
    return word in names or _singular(word) in names or f"{word}s" in names


def _names(model: Model) -> frozenset[str]:
    """Every word that names the model or one of its columns (never a keyword)."""
    words = [model.name, model.table, *model.aliases]
    for col in model.columns.values():
        words += [col.name, col.name.replace("_", " "), *col.aliases]
    return _normalised(tuple(words))


@functools.lru_cache(maxsize=256)
def _normalised(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(normalise(w) for w in words)


def _singular(word: str) -> str:
    # Plural -s only: "laptops"→"laptop", keeps "glass", "bus", "xps" (consonant cluster ok).
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "ps")):
        return word[:-1]
    return word


def keyword_generation(question: str, model: Model) -> Generation:
    """The fallback: every content word LIKE-matched across searchable columns, nothing else."""
    scan = Scan(question)
    keywords = _keywords(scan, model) if model.searchable else []
    wheres = tuple(_like_any(kw, model.searchable, "like") for kw in keywords)
    dsl = validate_dsl(QueryDSL(model=model.name, wheres=wheres), model)
    return Generation(dsl, keywords=tuple(keywords))
