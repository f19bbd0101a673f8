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
from unifind.agent._normalise import common_words
from unifind.agent._sections import _NOISE as _SALIENT_NOISE
from unifind.agent._sections import Section, sections
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
    people = frozenset(zh for zh, latin in _SURNAMES.items() if latin in tokens)
    return Vocabulary(db=db_vocabulary_of(models) | distinct, kb=kb, db_weak=weak,
                      db_attrs=db_attrs_of(models), db_models=names,
                      db_rows=tokens, people_zh=people)  # fmt: skip


#: The ~100 commonest Chinese surnames and their pinyin: a DB that spells "Chen Wei" in
#: Latin letters is asked about "陈伟" (no pinyin library is a dependency).
_SURNAMES = dict(
    zip(
        "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡"
        "余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯"
        "龙史陶黎贺顾毛郝龚邵万钱严武戴莫孔向汤",
        (
            "wang",
            "li",
            "zhang",
            "liu",
            "chen",
            "yang",
            "huang",
            "zhao",
            "wu",
            "zhou",
            "xu",
            "sun",
            "ma",
            "zhu",
            "hu",
            "guo",
            "he",
            "lin",
            "luo",
            "gao",
            "zheng",
            "liang",
            "xie",
            "song",
            "tang",
            "xu",
            "han",
            "feng",
            "deng",
            "cao",
            "peng",
            "zeng",
            "xiao",
            "tian",
            "dong",
            "yuan",
            "pan",
            "yu",
            "jiang",
            "cai",
            "yu",
            "du",
            "ye",
            "cheng",
            "su",
            "wei",
            "lv",
            "ding",
            "ren",
            "shen",
            "yao",
            "lu",
            "jiang",
            "cui",
            "zhong",
            "tan",
            "lu",
            "wang",
            "fan",
            "jin",
            "shi",
            "liao",
            "jia",
            "xia",
            "wei",
            "fu",
            "fang",
            "bai",
            "zou",
            "meng",
            "xiong",
            "qin",
            "qiu",
            "jiang",
            "yin",
            "xue",
            "yan",
            "duan",
            "lei",
            "hou",
            "long",
            "shi",
            "tao",
            "li",
            "he",
            "gu",
            "mao",
            "hao",
            "gong",
            "shao",
            "wan",
            "qian",
            "yan",
            "wu",
            "dai",
            "mo",
            "kong",
            "xiang",
            "tang",
        ),
        strict=True,
    )
)


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
    secs: list[Section] = []
    counted: list[dict[str, int]] = []
    try:
        who = searcher.settings.principal
        for info in searcher.kb.collections(principal=who):
            if info.name.startswith("_"):  # ephemeral (attachments) and internal ones
                continue
            names.append(info.name)
            docs = searcher.kb.documents(info.name, limit=_DOCS_PER_COLLECTION, principal=who)
            names.extend(_stem(d.title or d.document_id) for d in docs)
            read = [_sections_of(searcher, info.name, d) for d in docs]
            secs.extend(s for found, _ in read for s in found)
            counted.extend(c for _, c in read)
    except Exception as exc:
        notes.append(f"kb collections unreadable for intent: {type(exc).__name__}: {exc}")
    vocab = db_vocabulary(declared.values(), kb_words_of(names))
    # A heading word that is a column's or a model's ("Delivery times and costs") is the
    # database's word still: a title says what a document is about, a heading less so.
    theirs = vocab.db | vocab.db_attrs | vocab.db_models
    kept = tuple((keys - theirs, every) for keys, every in secs if keys - theirs)
    terms = _terms.salient(counted, common_words(), _SALIENT_NOISE) - theirs
    return replace(vocab, kb_sections=kept, kb_terms=terms), notes


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


#: Sections per (collection, document, content hash): a document is read once per
#: version, not on every ask.
_SECTIONS: dict[tuple[str, str, str], tuple[tuple[Section, ...], dict[str, int]]] = {}
_SECTIONS_CAP = 20_000


def _sections_of(
    searcher: Searcher, collection: str, doc: Any
) -> tuple[tuple[Section, ...], dict[str, int]]:
    """The sections of a stored document (:mod:`unifind.agent._sections`) and its words'
    counts (:mod:`unifind.agent._terms`); none from a store that can't export documents."""
    key = (collection, doc.document_id, doc.content_hash)
    if key in _SECTIONS:
        return _SECTIONS[key]
    export = getattr(getattr(searcher.kb, "store", None), "export_document", None)
    found: tuple[Section, ...] = ()
    counts: dict[str, int] = {}
    if export is not None:
        try:
            got = export(collection, doc.document_id)
        except Exception as exc:  # sections only add words; the titles still work
            log.debug("no sections of %s: %s", doc.document_id, exc)
            got = None
        if got is not None:
            text = "\n\n".join(c.text for c in sorted(got[1], key=lambda c: c.ordinal))
            found = tuple(sections(text, _segments))
            counts = _terms.counts(text, _segments)
    if len(_SECTIONS) >= _SECTIONS_CAP:
        _SECTIONS.clear()
    _SECTIONS[key] = (found, counts)
    return found, counts


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
