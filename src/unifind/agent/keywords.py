"""The builtin keywords stage: a message → the words worth searching for (EN + ZH).

Quoted phrases stay whole; English words lose question and function words; Chinese runs
are segmented with jieba (the same dictionary as the KB's analyser) and lose particles
and question words. Ranked by frequency, then first appearance; at most ``limit``.
"""

from __future__ import annotations

import re
from collections import Counter

from unifind.agent._host import own_turn
from unifind.agent._normalise import normalise
from unifind.analysis import ENGLISH_STOPWORDS, _segmenter

#: Lucene's list plus the words questions are made of ("what is our ..."), which a
#: lexical index finds everywhere and a web provider ignores anyway.
_EN_STOP = ENGLISH_STOPWORDS | frozenset(
    [
        "what",
        "whats",
        "what's",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "is",
        "are",
        "was",
        "were",
        "do",
        "does",
        "did",
        "can",
        "could",
        "should",
        "would",
        "may",
        "might",
        "i",
        "me",
        "my",
        "mine",
        "you",
        "your",
        "yours",
        "we",
        "our",
        "ours",
        "us",
        "he",
        "she",
        "his",
        "her",
        "its",
        "they",
        "them",
        "please",
        "tell",
        "show",
        "find",
        "give",
        "list",
        "get",
        "got",
        "have",
        "has",
        "had",
        "about",
        "any",
        "some",
        "there",
        "here",
        "than",
        "more",
        "most",
        "very",
        "much",
        "many",
        "also",
        "just",
        "like",
        "want",
        "need",
        "know",
        "let",
        "lets",
        "let's",
        "hi",
        "hello",
        "hey",
        "thanks",
        "thank",
        "ok",
        "okay",
        "yes",
        "one",
        "ones",
        "been",
        "being",
        "am",
        "don't",
        "doesn't",
        "isn't",
    ]
)
_ZH_STOP = frozenset(
    [
        "的",
        "了",
        "是",
        "有",
        "在",
        "和",
        "与",
        "吗",
        "呢",
        "吧",
        "啊",
        "呀",
        "么",
        "哪些",
        "哪个",
        "哪款",
        "什么",
        "怎么",
        "怎样",
        "如何",
        "多少",
        "几",
        "请",
        "帮",
        "帮我",
        "我",
        "你",
        "您",
        "他",
        "她",
        "它",
        "我们",
        "你们",
        "他们",
        "这",
        "那",
        "这个",
        "那个",
        "一下",
        "一些",
        "能",
        "可以",
        "会",
        "要",
        "想",
        "需要",
        "告诉",
        "给",
        "把",
        "被",
        "对",
        "就",
        "都",
        "也",
        "还",
        "又",
        "吗",
        "呢",
        "是否",
        "有没有",
        "为什么",
        "一个",
        "哪里",
        "哪儿",
        "谁",
    ]
)
_PHRASE = re.compile(r"[\"“«「](.+?)[\"”»」]")
_HAN_RUN = re.compile(r"[\u4e00-\u9fff]+")
_WORD = re.compile(r"[$€£¥]?\d+(?:[.,]\d+)*%?|[^\W_]+(?:['-][^\W_]+)*")


def keywords(message: str, *, limit: int = 8) -> list[str]:
    """The message's search words, best first (see the module docstring)."""
    # "pls", "tmrw", "rn": chat-speak is not a search word; nor is a host's wrapping
    # ("[forwarded from Slack] User says:", quoted earlier turns): the writer's turn is.
    message = normalise(own_turn(message), simplify=False)
    order: list[str] = []
    phrases = [p.strip() for p in _PHRASE.findall(message) if p.strip()]
    rest = _PHRASE.sub(" ", message)
    order.extend(phrases)
    for piece in re.split(f"({_HAN_RUN.pattern})", rest):
        if not piece:
            continue
        if _HAN_RUN.fullmatch(piece):
            # A message's run is short: read from the on-disk dictionary, not loaded whole
            # (the same words; unifind.analysis._segmenter).
            order.extend(w for w in _segmenter(len(piece)).lcut(piece) if _keep_zh(w))
        else:
            order.extend(w for w in _WORD.findall(piece) if _keep_en(w))
    counts = Counter(w.lower() for w in order)
    first: dict[str, int] = {}
    shown: dict[str, str] = {}
    for i, w in enumerate(order):
        first.setdefault(w.lower(), i)
        shown.setdefault(w.lower(), w)
    ranked = sorted(counts, key=lambda w: (-counts[w], first[w]))
    return [shown[w] for w in ranked[:limit]]


def _keep_en(word: str) -> bool:
    return word.lower() not in _EN_STOP and (len(word) > 1 or word.isdigit())


def _keep_zh(word: str) -> bool:
    return word not in _ZH_STOP and (len(word) > 1 or word not in "的了是有在和吗呢吧")
