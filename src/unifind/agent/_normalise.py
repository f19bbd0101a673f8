"""Informal English made plain for the intent rules: chat-speak, missing apostrophes,
stretched words ("heyyy"), money slang, and one-letter typos of the sources' own words.

The rules match standard spellings ("please translate", "what's", "headphones"); people
type "pls translate", "whats", "headphnes". Normalising first keeps the rules one list.
Chinese is made simplified (the rules' and the sources' words are; people in Taiwan and Hong
Kong write traditional characters), and a number followed by 刀 (slang for dollars) is
dollars.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from importlib.resources import files

#: Chat-speak and shorthand → the standard words (lower case; whole tokens only).
_LEXICON = {
    "u": "you", "ya": "you", "ur": "your", "urs": "yours", "r": "are",
    "pls": "please", "plz": "please", "plse": "please", "pleas": "please", "pleez": "please",
    "thx": "thanks", "thnx": "thanks", "thanx": "thanks", "thnks": "thanks", "thks": "thanks",
    "tnx": "thanks", "tx": "thanks", "tks": "thanks", "tysm": "thank you so much",
    "tyvm": "thank you very much", "thanku": "thank you", "thankyou": "thank you",
    "gm": "good morning", "gn": "good night", "gnite": "good night", "hru": "how are you",
    "wbu": "what about you", "wyd": "what are you doing", "sup": "what's up",
    "wassup": "what's up", "whatsup": "what's up", "nvm": "never mind", "np": "no problem",
    "idk": "i don't know", "idc": "i don't care", "dunno": "don't know", "btw": "by the way",
    "fyi": "for your information", "imo": "in my opinion", "imho": "in my opinion",
    "tbh": "to be honest", "rn": "right now", "asap": "as soon as possible",
    "tmrw": "tomorrow", "tmr": "tomorrow", "tmrow": "tomorrow", "tmw": "tomorrow",
    "2moro": "tomorrow", "2morrow": "tomorrow", "tomoro": "tomorrow", "2day": "today",
    "2nite": "tonight", "tonite": "tonight", "yday": "yesterday", "ppl": "people",
    "msg": "message", "abt": "about", "bc": "because", "cuz": "because", "coz": "because",
    "wanna": "want to", "gonna": "going to", "gotta": "have to", "lemme": "let me",
    "gimme": "give me", "kinda": "kind of", "sorta": "sort of", "wat": "what", "wut": "what",
    "cud": "could", "shud": "should", "wud": "would", "thru": "through", "tho": "though",
    "b4": "before", "gr8": "great", "l8r": "later", "k": "ok", "kk": "ok", "okey": "ok",
    "okie": "ok", "oki": "ok", "okk": "ok", "yup": "yep", "yeh": "yes", "nah": "no",
    "any1": "anyone", "some1": "someone", "bucks": "dollars", "buck": "dollar",
    "quid": "pounds", "w/": "with", "w/o": "without",
    # Apostrophes left out: only forms that are not words of their own ("its", "id", "ill",
    # "were", "wont", "lets" are, and stay).
    "whats": "what's", "hows": "how's", "wheres": "where's", "whos": "who's",
    "whens": "when's", "whys": "why's", "thats": "that's", "theres": "there's", "im": "i'm",
    "ive": "i've", "dont": "don't", "doesnt": "doesn't", "didnt": "didn't", "cant": "can't",
    "isnt": "isn't", "arent": "aren't", "wasnt": "wasn't", "werent": "weren't",
    "havent": "haven't", "hasnt": "hasn't", "shouldnt": "shouldn't", "couldnt": "couldn't",
    "wouldnt": "wouldn't", "youre": "you're", "youve": "you've", "theyre": "they're",
}  # fmt: skip
#: Short social words people stretch ("hii", "yess", "thankss"): a doubled last letter.
_STRETCHED = frozenset({"hi", "hey", "yes", "ok", "bye", "thanks", "yo", "no", "so", "lol"})
#: A whole token: not part of "r&d", "u.s.", "x-ray", "it's" or "and/or".
_TOKEN = re.compile(r"(?<![\w'/&.-])([a-z0-9]+(?:/o?)?)(?![\w'&-]|\.\w)", re.I)
_RUN = re.compile(r"([a-z])\1{2,}", re.I)
#: "100刀", "100 刀": dollars in Chinese chat.
_DAO = re.compile(r"(\d)\s*刀")


def normalise(text: str, *, simplify: bool = True) -> str:
    """``text`` with chat-speak, missing apostrophes and stretched words made standard, and
    traditional Chinese characters simplified (``simplify``: search keywords keep the
    writer's script, which a traditional-Chinese source's text is in)."""
    text = _DAO.sub(r"\1美元", simplified(text) if simplify else text)
    return _TOKEN.sub(_standard, text)


def simplified(text: str) -> str:
    """``text`` with traditional Chinese characters replaced by simplified ones, one
    character at a time (enough for cue words; not a full OpenCC phrase conversion)."""
    return text.translate(_traditional()) if _HAN.search(text) else text


_HAN = re.compile("[\u3400-\u9fff]")


@functools.cache
def _traditional() -> dict[int, str]:
    lines = files("unifind.agent").joinpath("zh_traditional.txt").read_text(encoding="utf-8")
    pairs = (w for w in lines.split("\n") if len(w) == 2 and not w.startswith("#"))
    return {ord(p[0]): p[1] for p in pairs}


def _standard(m: re.Match[str]) -> str:
    word = m.group(1)
    low = word.lower()
    if len(word) == 1 and word.isupper():  # "R", "U": a language, a letter, not chat-speak
        return word
    if low in _LEXICON:
        return _LEXICON[low]
    if _RUN.search(low):  # "heyyy", "sooo", "pleaseee"
        low = _RUN.sub(r"\1", low)
        return _LEXICON.get(low, low)
    if len(low) > 2 and low[-1] == low[-2] and low[:-1] in _STRETCHED:
        return low[:-1]
    return word


# -- one-letter typos of the sources' words ----------------------------------------------
#: Shorter words have too many neighbours to correct safely ("price"/"prize" is 5 already;
#: the common-word guard below keeps real words as they are).
_MIN_LEN = 5
_ASCII_WORD = re.compile(r"(?<![\w'-])([a-z]{5,})(?![\w'-])")


@functools.cache
def common_words() -> frozenset[str]:
    """Common English words of 5-12 letters (``common_en.txt``)."""
    lines = files("unifind.agent").joinpath("common_en.txt").read_text(encoding="utf-8")
    return frozenset(w for w in lines.split("\n") if w and not w.startswith("#"))


@functools.lru_cache(maxsize=8)  # one per vocabulary; the same frozensets come every ask
def _index(words: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """Each word of ``words`` (ASCII, one token, >= 5 letters) under every one-letter
    deletion of it and itself: two words one edit apart share a key (symmetric delete)."""
    index: dict[str, set[str]] = {}
    for w in words:
        if len(w) < _MIN_LEN or not w.isascii() or not w.isalpha():
            continue
        for key in {w, *_deletes(w)}:
            index.setdefault(key, set()).add(w)
    return {k: tuple(sorted(v)) for k, v in index.items()}


def _deletes(word: str) -> Iterable[str]:
    return (word[:i] + word[i + 1 :] for i in range(len(word)))


def _one_edit(a: str, b: str) -> bool:
    """Damerau distance exactly 1: one substitution, insertion, deletion or transposition."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        i, j = diff[0], diff[-1]
        return len(diff) == 2 and j == i + 1 and a[i] == b[j] and a[j] == b[i]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def correct(low: str, vocabulary: frozenset[str]) -> str:
    """``low`` (lower-cased) with each unknown word of >= 5 letters one edit away from
    exactly one word of ``vocabulary`` replaced by it ("headphnes" → "headphones").

    A word in ``vocabulary`` or among the common English words is never changed, nor
    one whose first letter differs (first letters are rarely mistyped, and the guard
    halves the false corrections)."""
    words = {w for w in _ASCII_WORD.findall(low) if w not in vocabulary}
    if not words:
        return low
    common = common_words()
    index = _index(vocabulary)
    fixes = {}
    for w in words - common:
        found = {c for key in (w, *_deletes(w)) for c in index.get(key, ())}
        found = {c for c in found if c[0] == w[0] and _one_edit(w, c)}
        if len(found) == 1:
            fixes[w] = found.pop()
    if not fixes:
        return low
    return _ASCII_WORD.sub(lambda m: fixes.get(m.group(1), m.group(1)), low)
