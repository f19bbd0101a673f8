"""What the sources know by name, for the intent stage: DB models' words, KB collections'."""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

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
    """The intent's vocabulary of declared DB models (and KB words already gathered)."""
    models = list(models)
    names = _no_codes({w for m in models for w in (m.name, *m.aliases)})
    return Vocabulary(db=db_vocabulary_of(models), kb=kb, db_weak=db_weak_of(models),
                      db_attrs=db_attrs_of(models), db_models=names)  # fmt: skip


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
