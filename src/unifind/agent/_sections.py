"""A knowledge base's sections, as the intent stage reads them, and the test of whether a
message names one.

A question names a handbook's section far more often than its title ("mfa rules for the
vpn?", "the hotel limit in london" ask the account-security and expense documents; #10,
set D). Each section is kept as its key words (its heading's words and the acronyms in
it) and its other content words. A message names a section when it has one of its keys
and a second word of the same section: a heading word alone ("exceptions", "budget",
"repair") is too often the world's.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

#: (key words, every content word) of one section.
Section = tuple[frozenset[str], frozenset[str]]

_ATX = re.compile(r"^#{1,6}\s+(.+?)[\s#]*$")
_ACRONYM = re.compile(r"(?<![\w-])[A-Z]{3,5}\d?(?![\w-])")
_ENDS_SENTENCE = re.compile(r"[.。:：,，;；!！?？)）]$")
_NUMBERING = re.compile(r"^([一二三四五六七八九十]+[、.．]|\d+[.、)])\s*")
_ASCII = re.compile(r"[a-z][a-z0-9'-]*[a-z0-9]")
_HAN_RUN = re.compile("[\u4e00-\u9fff]+")


def sections(text: str, segment: Callable[[str], list[str]]) -> list[Section]:
    """The sections of a document's text: a Markdown heading, or a short line that opens a
    paragraph and ends no sentence ("Passwords\\nPasswords must be …", "一、年假天数\\n…"),
    starts one. ``segment`` splits a Chinese run into words."""
    found: list[Section] = []
    head: list[str] = []
    body: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        lines = [line.strip() for line in para.strip().split("\n")]
        title = _heading(lines)
        if title is None:
            body.extend(lines)
            continue
        found.append(_section(head, body, segment))
        head, body = [title], lines[1:]
    found.append(_section(head, body, segment))
    return [s for s in found if s[0]]


def _heading(lines: list[str]) -> str | None:
    first = lines[0] if lines else ""
    if m := _ATX.match(first):
        return m.group(1)
    plain = len(lines) > 1 and 0 < len(first) <= 48 and len(first.split()) <= 5
    if plain and first[0] not in "|-*>#" and not _ENDS_SENTENCE.search(first):
        return first
    return None


def _section(head: list[str], body: list[str], segment: Callable[[str], list[str]]) -> Section:
    text = "\n".join(body)
    keys = {w for h in head for w in words(_NUMBERING.sub("", h), segment)} - _NOISE
    keys |= {a.lower() for a in _ACRONYM.findall(text)}
    return frozenset(keys), frozenset(keys | (words(text, segment) - _NOISE))


def words(text: str, segment: Callable[[str], list[str]]) -> set[str]:
    """Content words of ``text``: ASCII words of 3+ letters (singular), Chinese words."""
    low = text.lower()
    found = {singular(w) for w in _ASCII.findall(low) if len(w) > 2}
    found.update(w for run in _HAN_RUN.findall(text) for w in segment(run) if len(w) > 1)
    return found


def singular(word: str) -> str:
    """``limits`` → ``limit``: titles and headings are often plural, questions not."""
    long = len(word) > 4 and word.isascii()
    return word[:-1] if long and word.endswith("s") and not word.endswith(("ss", "us")) else word


def named(low: str, found: tuple[Section, ...]) -> list[str]:
    """The key words of the sections ``low`` (a lower-cased message) names: a key and a
    second word of the same section."""
    if not found:
        return []
    index = _index(found)
    tokens = {singular(w) for w in _ASCII.findall(low)}
    tokens.update(run[i : i + n] for run in _HAN_RUN.findall(low) for n in (2, 3, 4)
                  for i in range(len(run) - n + 1))  # fmt: skip
    hits: dict[int, set[str]] = {}
    for token in tokens:
        for i in index.get(token, ()):
            hits.setdefault(i, set()).add(token)
    keys = (found[i][0] & seen for i, seen in hits.items() if len(seen) > 1)
    return sorted({k for ks in keys for k in ks})


@functools.lru_cache(maxsize=8)  # one per vocabulary; the same one comes with every ask
def _index(found: tuple[Section, ...]) -> dict[str, tuple[int, ...]]:
    index: dict[str, list[int]] = {}
    for i, (_, all_words) in enumerate(found):
        for w in all_words:
            index.setdefault(w, []).append(i)
    return {w: tuple(ids) for w, ids in index.items()}


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Words that name no topic: function words, and heading words such as "When you get your
#: money back", "常见问题".
_NOISE = _words(
    "a an the and or of to in on at for by with from your you we our it its is are was be "
    "not no do does did what when how who where why which this that these those there "
    "their they them than then also only any all each every other more most such some "
    "can will must may should would could has have had been into onto over under about "
    "before after during within per via one two three first day days time times get back "
    "making make start money wrong rest general overview introduction summary contents "
    "section part faq questions question information details notes items item covers cover "
    "reviews review new use used see same next last"
) | _words(
    "申请 方式 其他 其它 条件 操作 步骤 时间 特殊 情况 常见 问题 概述 说明 简介 注意 事项 "
    "一般 相关 操作步骤 常见问题 注意事项 天数 可以 需要 以及 或者 如果 我们 公司"
)
