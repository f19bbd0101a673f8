"""What the sources know by name, for the intent stage: DB models' words, KB collections'."""

from __future__ import annotations

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
            for value, synonyms in (col.values or {}).items():
                words.add(value.replace("_", " "))
                words.update(synonyms)
            words.update(col.flags)
    # One- and two-letter codes ("HP", "LG") collide with ordinary words and abbreviations.
    return frozenset(w for w in words if len(w) > 2 or any("\u4e00" <= c <= "\u9fff" for c in w))


async def vocabulary(searcher: Searcher) -> tuple[Vocabulary, list[str]]:
    """The vocabulary of the configured sources; a source that can't be read is a note."""
    notes: list[str] = []
    db_words: frozenset[str] = frozenset()
    try:
        leg = searcher.leg("db")
        declared = getattr(leg, "declared", None) or getattr(leg, "_declared", None) or {}
        db_words = db_vocabulary_of(declared.values())
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
    return Vocabulary(db=db_words, kb=kb_words_of(names)), notes


#: Document names read per collection for the vocabulary: the topics of a small team KB,
#: bounded so a large one costs one short query.
_DOCS_PER_COLLECTION = 200


def _stem(name: str) -> str:
    """``/path/to/refunds-and-returns.md`` → ``refunds-and-returns``."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[0] if "." in base[1:] else base


def kb_words_of(names: Iterable[str]) -> frozenset[str]:
    """Topic words of KB collection and document names ("refunds-and-returns" → refunds,
    returns), less the words that say nothing about a topic."""
    words: set[str] = set()
    for name in names:
        for w in re.split(r"[\W_]+", name):
            han = any("\u4e00" <= c <= "\u9fff" for c in w)
            if (len(w) > 2 or (han and len(w) > 1)) and w.lower() not in _NAME_NOISE:
                words.add(w.lower())
    return frozenset(words)


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
    ]
)
