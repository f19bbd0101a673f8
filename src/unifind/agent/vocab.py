"""What the sources know by name, for the intent stage: DB models' words, KB collections'."""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import time
import weakref
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from unifind.agent import _terms
from unifind.agent._cues import GLOSSARY

# Re-exported: the DB words were read from here before they had a module of their own.
from unifind.agent._dbwords import db_attrs_of as db_attrs_of
from unifind.agent._dbwords import db_vocabulary as db_vocabulary
from unifind.agent._dbwords import db_vocabulary_of as db_vocabulary_of
from unifind.agent._dbwords import db_weak_of as db_weak_of
from unifind.agent._dbwords import row_words as row_words
from unifind.agent._kbcache import (
    KBCache,
    Read,
    Stamp,
    Terms,
    db_key,
    doc_key,
    kb_key,
    key,
    settled,
    terms_key,
)
from unifind.agent._normalise import common_words
from unifind.agent._sections import _NOISE as _SALIENT_NOISE
from unifind.agent._sections import Section, sections
from unifind.agent.intent import Vocabulary

if TYPE_CHECKING:
    from unifind.engine import Searcher

log = logging.getLogger("unifind.agent")


async def vocabulary(searcher: Searcher) -> tuple[Vocabulary, list[str]]:
    """The vocabulary of the configured sources; a source that can't be read is a note."""
    notes: list[str] = []
    cache = KBCache(searcher.settings.home)
    db_part = await _db_part(searcher, cache, notes)
    theirs = db_part.db | db_part.db_attrs | db_part.db_models
    whole = kb_key(searcher.settings, theirs)
    kept_part = cache.kb_part(whole[0]) if whole is not None else None
    if kept_part is not None:  # the KB's file is as it was: not opened, not imported
        return replace(db_part, **kept_part), notes
    said = len(notes)
    vocab = _kb_part(searcher, cache, db_part, notes)
    if whole is not None and len(notes) == said and _kept_whole(searcher, theirs, whole):
        cache.keep_kb_part(whole[0], vocab)
    return vocab, notes


def _kept_whole(
    searcher: Searcher, theirs: frozenset[str], whole: tuple[str, list[Stamp | None]]
) -> bool:
    """Whether the KB part just read may be kept under ``whole``: every collection lives in
    the embedded store and its files neither changed during the read nor just before it."""
    placements = getattr(searcher.kb.store, "placements", None)
    try:
        placed = placements() if callable(placements) else {"?": "unknown store"}
    except Exception as exc:  # a catalog that can't be read: nothing kept
        log.debug("no placements: %s", exc)
        return False
    if placed:  # another store's collection changes without this file changing
        return False
    return kb_key(searcher.settings, theirs) == whole and settled(whole[1])


def _kb_part(
    searcher: Searcher, cache: KBCache, db_part: Vocabulary, notes: list[str]
) -> Vocabulary:
    """``db_part`` with the KB's fields, read from the KB (a document once per version)."""
    names: list[str] = []
    secs: list[Section] = []
    counted: list[dict[str, int]] = []
    versions: list[str] = []
    try:
        who = searcher.settings.principal
        for info in searcher.kb.collections(principal=who):
            if info.name.startswith("_"):  # ephemeral (attachments) and internal ones
                continue
            names.append(info.name)
            docs = searcher.kb.documents(info.name, limit=_DOCS_PER_COLLECTION, principal=who)
            names.extend(_stem(d.title or d.document_id) for d in docs)
            keys = [doc_key(searcher.settings.kb.store, info, d) for d in docs]
            read = [
                _sections_of(searcher, info.name, d, k, cache)
                for d, k in zip(docs, keys, strict=True)
            ]
            versions.extend(keys)
            secs.extend(s for found, _ in read for s in found)
            counted.extend(c for _, c in read)
    except Exception as exc:
        notes.append(f"kb collections unreadable for intent: {type(exc).__name__}: {exc}")
    vocab = replace(db_part, kb=_names_words(names, cache))
    # A heading word that is a column's or a model's ("Delivery times and costs") is the
    # database's word still: a title says what a document is about, a heading less so.
    theirs = vocab.db | vocab.db_attrs | vocab.db_models
    kept = tuple((keys - theirs, every) for keys, every in secs if keys - theirs)
    terms, specific, everyday = _kb_terms(terms_key(versions, theirs), counted, theirs, cache)
    return replace(vocab, kb_sections=kept, kb_terms=terms, kb_rare=specific,
                   kb_everyday=everyday)  # fmt: skip


#: The Vocabulary fields read from the database.
_DB_FIELDS = ("db", "db_weak", "db_attrs", "db_models", "db_rows", "people_zh")


async def _db_part(searcher: Searcher, cache: KBCache, notes: list[str]) -> Vocabulary:
    """The DB's words, kept on disk between processes when they were read cleanly
    (:func:`unifind.agent._kbcache.db_key`)."""
    try:
        at, ttl = db_key(searcher.settings)
    except Exception as exc:  # an odd db section: read it the long way, as before
        log.debug("no DB cache key: %s", exc)
        at, ttl = "", 0.0
    kept = cache.sets(at, ttl) if ttl > 0 else None
    if kept is not None and set(kept) == set(_DB_FIELDS):
        fields: dict[str, Any] = dict(kept)
        return Vocabulary(**fields)
    said = len(notes)
    declared: dict[str, Any] = {}
    try:
        leg = searcher.leg("db")
        declared = getattr(leg, "declared", None) or getattr(leg, "_declared", None) or {}
        if declared:
            declared = await _sampled(leg, declared, notes)
    except Exception as exc:  # a broken DB config must not stop a plan; it is said
        notes.append(f"db models unreadable for intent: {type(exc).__name__}: {exc}")
    found = db_vocabulary(declared.values())
    if ttl > 0 and len(notes) == said:  # only a clean read is kept
        cache.keep_sets(at, {f: getattr(found, f) for f in _DB_FIELDS})
    return found


#: The KB's own words per (documents' versions, the DB's words): read once, not every ask.
_KB_TERMS: dict[str, Terms] = {}


def _kb_terms(key: str, counted: list[dict[str, int]], theirs: frozenset[str],
              cache: KBCache) -> Terms:  # fmt: skip
    """(salient terms, specific words, each document's everyday words) of the KB
    (:mod:`unifind.agent._terms`), less the DB's words; ``key`` names their versions."""
    if key not in _KB_TERMS:
        if len(_KB_TERMS) >= 64:
            _KB_TERMS.clear()
        found = cache.terms(key)
        if found is None:
            terms = _terms.salient(counted, common_words(), _SALIENT_NOISE) - theirs
            specific, everyday = _terms.rare(counted, common_words(), _SALIENT_NOISE, _common_zh)
            found = (terms, specific - theirs - terms, tuple(e - theirs for e in everyday))
            cache.keep_terms(key, found)
        _KB_TERMS[key] = found
    return _KB_TERMS[key]


#: jieba's dictionary frequency above which a Chinese word is everyday ("工作", "没有", "上海"),
#: not a handbook's own ("婚假" 8, "周日" 337, "发票" 271).
_ZH_EVERYDAY_FREQ = 1000


def _common_zh(word: str) -> bool:
    tok = _segmenter(0)  # a word's count: the on-disk dictionary answers without loading it
    tok.check_initialized()
    return int(tok.FREQ.get(word) or 0) > _ZH_EVERYDAY_FREQ


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


#: Sections per document version (:func:`unifind.agent._kbcache.doc_key`): a document is
#: read once per version, not on every ask, and kept on disk for the next process.
_SECTIONS: dict[str, Read] = {}
_SECTIONS_CAP = 20_000


def _sections_of(searcher: Searcher, collection: str, doc: Any, key: str, cache: KBCache) -> Read:
    """The sections of a stored document (:mod:`unifind.agent._sections`) and its words'
    counts (:mod:`unifind.agent._terms`); none from a store that can't export documents."""
    if key in _SECTIONS:
        return _SECTIONS[key]
    kept = cache.read(key)
    if kept is not None:
        found, counts = kept
    else:
        found, counts = _read(searcher, collection, doc)
        if found or counts:  # an unreadable document is tried again next time
            cache.keep_read(key, (found, counts))
    if len(_SECTIONS) >= _SECTIONS_CAP:
        _SECTIONS.clear()
    _SECTIONS[key] = (found, counts)
    return found, counts


def _read(searcher: Searcher, collection: str, doc: Any) -> Read:
    export = getattr(getattr(searcher.kb, "store", None), "export_document", None)
    if export is None:
        return (), {}
    try:
        got = export(collection, doc.document_id)
    except Exception as exc:  # sections only add words; the titles still work
        log.debug("no sections of %s: %s", doc.document_id, exc)
        return (), {}
    if got is None:
        return (), {}
    text = "\n\n".join(c.text for c in sorted(got[1], key=lambda c: c.ordinal))
    # A long text is segmented with the dictionary in memory, a short one from its copy
    # on disk (unifind.analysis._segmenter): the same words either way.
    segment = _segmenter(len(_HAN.findall(text))).lcut
    return tuple(sections(text, segment)), _terms.counts(text, segment)


def _stem(name: str) -> str:
    """``/path/to/refunds-and-returns.md`` → ``refunds-and-returns``."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[0] if "." in base[1:] else base


#: Topic words per list of names (:func:`unifind.agent._kbcache.key` of the names).
_NAMES: dict[str, frozenset[str]] = {}


def _names_words(names: list[str], cache: KBCache) -> frozenset[str]:
    """:func:`kb_words_of` ``names``, kept on disk: segmenting a Chinese title loads jieba."""
    at = key("names", names)
    if at not in _NAMES:
        if len(_NAMES) >= 64:
            _NAMES.clear()
        words = cache.words(at)
        if words is None:
            words = kb_words_of(names)
            cache.keep_words(at, words)
        _NAMES[at] = words
    return _NAMES[at]


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
    words: list[str] = _segmenter(len(run)).lcut(run)
    return words


def _segmenter(han_chars: int) -> Any:
    from unifind.analysis import _segmenter

    return _segmenter(han_chars)


_HAN = re.compile("[\u4e00-\u9fff]")


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
