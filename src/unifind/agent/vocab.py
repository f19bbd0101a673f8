"""What the sources know by name, for the intent stage: DB models' words, KB collections'."""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import time
import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from unifind.agent._cues import GLOSSARY
from unifind.agent._normalise import common_words
from unifind.agent.intent import Vocabulary

if TYPE_CHECKING:
    from unifind.engine import Searcher

log = logging.getLogger("unifind.agent")


def db_vocabulary_of(models: Iterable[Any]) -> frozenset[str]:
    """Names of declared DB models, their aliases and their columns' enumerated values."""
    words: set[str] = set()
    for model in models:
        words.add(model.name)
        words.update(model.aliases)
        for col in model.columns.values():
            words.update(_values(col))
            words.update(col.flags)
    return _no_codes(words)


def db_weak_of(models: Iterable[Any]) -> frozenset[str]:
    """Values of sampled columns (cities, countries, people's names): open-ended names that
    mean things outside the database too ("the GDP of Germany"), so alone, without a model
    word, a filter or an amount, they do not make a DB question."""
    cols = (c for m in models for c in m.columns.values() if c.sample_values)
    return _no_codes({w for c in cols for w in _values(c)})


def db_attrs_of(models: Iterable[Any]) -> frozenset[str]:
    """Column aliases ("price", "rating", "金额"): with a filter or an aggregate ("total
    amount spent by …") they ask the database even when no model is named."""
    return _no_codes({a for m in models for c in m.columns.values() for a in c.aliases})


def db_vocabulary(models: Iterable[Any], kb: frozenset[str] = frozenset()) -> Vocabulary:
    """The intent's vocabulary of declared DB models (and KB words already gathered); with
    introspected models, also the words of their rows' names."""
    models = list(models)
    names = _no_codes({w for m in models for w in (m.name, *m.aliases)})
    weak = db_weak_of(models)
    bags = tuple(getattr(m, "vocabulary", None) or frozenset() for m in models)
    distinct, tokens = row_words(bags, weak)
    return Vocabulary(db=db_vocabulary_of(models) | distinct, kb=kb, db_weak=weak,
                      db_attrs=db_attrs_of(models), db_models=names,
                      db_rows=tokens)  # fmt: skip


#: Words read from the rows' searchable text per model (its names, titles, brands).
_ROW_WORDS_CAP = 5000
_CODE = re.compile(r"^(?=[a-z0-9-]*[a-z])(?=[a-z0-9-]*\d)[a-z0-9][a-z0-9-]*$")
_ALPHA = re.compile(r"^[a-z]{5,}$")


@functools.lru_cache(maxsize=8)  # the leg keeps the same sampled sets until it re-reads
def row_words(
    bags: tuple[frozenset[str], ...], weak: frozenset[str] = frozenset()
) -> tuple[frozenset[str], frozenset[str]]:
    """(the words of the rows' searchable text that name a thing, every ASCII word of it).

    A model's rows name things the declared words don't ("Galaxy Tab S9"): a code with
    letters and digits ("s9", "wh-1000xm5"), a word of 5+ letters that is not common
    English ("thinkpad", not "galaxy"), a Chinese run ("玄龙骑士") name one. The ASCII
    words are kept too: two of them side by side, one with a digit ("iphone 15"), name a
    row as well (the intent stage checks that). Places and people's names from sampled
    columns stay weak (:func:`db_weak_of`)."""
    common = common_words()
    weak_words = {w for v in weak for w in v.lower().split()}
    distinct: set[str] = set()
    tokens: set[str] = set()
    for bag in bags:
        for w in sorted(bag)[:_ROW_WORDS_CAP]:
            if w in weak_words or "." in w or "@" in w:
                continue
            if w.isascii():
                tokens.add(w)
                if _CODE.match(w) or (_ALPHA.match(w) and w not in common):
                    distinct.add(w)
            elif len(w) > 1 and all("\u3400" <= c <= "\u9fff" for c in w):
                distinct.add(w)
    return frozenset(distinct), frozenset(tokens)


def _values(col: Any) -> set[str]:
    words: set[str] = set()
    for value, synonyms in (col.values or {}).items():
        words.add(value.replace("_", " "))
        words.update(synonyms)
    return words


def _no_codes(words: set[str]) -> frozenset[str]:
    # One- and two-letter codes ("HP", "LG") collide with ordinary words and abbreviations.
    return frozenset(w for w in words if len(w) > 2 or any("\u4e00" <= c <= "\u9fff" for c in w))


async def vocabulary(searcher: Searcher) -> tuple[Vocabulary, list[str]]:
    """The vocabulary of the configured sources; a source that can't be read is a note."""
    notes: list[str] = []
    declared: dict[str, Any] = {}
    try:
        leg = searcher.leg("db")
        declared = getattr(leg, "declared", None) or getattr(leg, "_declared", None) or {}
        if declared:
            declared = await _sampled(leg, declared, notes)
    except Exception as exc:  # a broken DB config must not stop a plan; it is said
        notes.append(f"db models unreadable for intent: {type(exc).__name__}: {exc}")
    names: list[str] = []
    try:
        who = searcher.settings.principal
        for info in searcher.kb.collections(principal=who):
            if info.name.startswith("_"):  # ephemeral (attachments) and internal ones
                continue
            names.append(info.name)
            docs = searcher.kb.documents(info.name, limit=_DOCS_PER_COLLECTION, principal=who)
            names.extend(_stem(d.title or d.document_id) for d in docs)
    except Exception as exc:
        notes.append(f"kb collections unreadable for intent: {type(exc).__name__}: {exc}")
    return db_vocabulary(declared.values(), kb_words_of(names)), notes


#: How long a plan waits for the DB leg's first read of its rows (later reads are cached
#: by the leg for ``db.sample_ttl_s``), and how long a failed read is not tried again.
_SAMPLE_WAIT_S = 2.0
_RETRY_AFTER_S = 60.0
_failed: weakref.WeakKeyDictionary[Any, tuple[float, str]] = weakref.WeakKeyDictionary()


async def _sampled(leg: Any, declared: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """The DB leg's models as introspected (sampled values, the words of their rows), or
    the declared ones with a note when the database can't be read now."""
    models = getattr(leg, "models", None)
    if models is None:
        return declared
    at, why = _failed.get(leg, (-_RETRY_AFTER_S, ""))
    if time.monotonic() - at >= _RETRY_AFTER_S:
        try:
            found: dict[str, Any] = await asyncio.wait_for(models(), _SAMPLE_WAIT_S)
            return found
        except Exception as exc:  # the DB leg reports it; the plan uses the declared words
            why = f"{type(exc).__name__}: {exc}"
            _failed[leg] = (time.monotonic(), why)
    notes.append(f"db rows unreadable for intent (declared words only): {why}")
    return declared


#: Document names read per collection for the vocabulary: the topics of a small team KB,
#: bounded so a large one costs one short query.
_DOCS_PER_COLLECTION = 200


def _stem(name: str) -> str:
    """``/path/to/refunds-and-returns.md`` → ``refunds-and-returns``."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[0] if "." in base[1:] else base


def kb_words_of(names: Iterable[str]) -> frozenset[str]:
    """Topic words of KB collection and document names ("refunds-and-returns" → refunds,
    returns; "退款流程" → 退款流程, 退款, 流程), less the words that say nothing about a topic."""
    return _kb_words(tuple(names))


@functools.lru_cache(maxsize=16)  # read on every ask; a KB's titles rarely change
def _kb_words(names: tuple[str, ...]) -> frozenset[str]:
    words: set[str] = set()
    for name in names:
        for w in re.split(r"[\W_]+", name):
            han = any("\u4e00" <= c <= "\u9fff" for c in w)
            if (len(w) > 2 or (han and len(w) > 1)) and w.lower() not in _NAME_NOISE:
                words.add(w.lower())
                # Titles are often plural ("Refunds"); questions ask about "a refund".
                if not han and len(w) > 4 and w.lower().endswith("s") and w[-2] not in "sSuU":
                    words.add(w.lower()[:-1])
            if han and len(w) > 2:  # a Chinese title is one run: its words match questions
                words.update(p for p in _segments(w) if len(p) > 1 and p not in _NAME_NOISE)
    # A title in one language names the topic in the other too ("warranty" -> 保修).
    words.update(t for w in list(words) for t in GLOSSARY.get(w, ()))
    return frozenset(words)


def _segments(run: str) -> list[str]:
    from unifind.analysis import _jieba_tokenizer

    words: list[str] = _jieba_tokenizer().lcut(run)
    return words


_NAME_NOISE = frozenset(
    [
        "and",
        "the",
        "for",
        "with",
        "from",
        "default",
        "docs",
        "demo",
        "kb",
        "readme",
        "index",
        "notes",
        "draft",
        "copy",
        "final",
        "new",
        "old",
        "txt",
        "pdf",
        "html",
        "docx",
        "zh",
        "en",
        "手册",
        "说明",
        "文档",
        "介绍",
        "指南",
    ]
)
