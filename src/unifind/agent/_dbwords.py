"""The DB side of the intent's vocabulary: declared models' names, aliases and values, and
the words of their rows' names (read by :mod:`unifind.agent.vocab`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

from unifind.agent._normalise import common_words
from unifind.agent.intent import Vocabulary


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
