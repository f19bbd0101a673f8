"""Text → overlapping chunks with exact character offsets.

The text is cut into *units* — sentences (English ``. ! ?``, CJK ``。！？``) and lines,
grouped into paragraphs (blank lines; a Markdown heading also opens one) — and units are
packed greedily into chunks of at most ``max_chars``. A full chunk ends at the last
paragraph break in its second half when there is one, else at a sentence end. The next
chunk repeats the previous chunk's last whole sentences, up to ``overlap`` characters, so
a fact that straddles a cut is still whole in one chunk. A sentence longer than a chunk
is cut at whitespace or CJK commas (at a hard offset as the last resort), its pieces
overlapping by about ``overlap`` characters.

Guarantees (tested as properties): ``span.text == text[span.start:span.end]``; no chunk
is empty, longer than ``max_chars``, or begins or ends with whitespace; every
non-whitespace character lies in some chunk; the output depends only on the arguments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from unifind.errors import InputError

__all__ = ["Span", "chunk"]

_PARAGRAPH, _SENTENCE, _PIECE = 2, 1, 0

# A blank line, or a line break before a Markdown ATX heading (CommonMark §4.2).
_PARA_BREAK = re.compile(r"\n[ \t]*\n\s*|\n(?=[ \t]{0,3}#{1,6}[ \t])")
# After sentence-final punctuation plus closing quotes/brackets: English needs whitespace
# next ("3.5" and "e.g.x" are not ends); CJK full stops end a sentence outright.
_SENTENCE_END = re.compile(r"""[.!?]+["'”’)\]]*(?=\s)|[。！？]+[」』”’）"']*|\n""")
# Where a too-long sentence may be cut: after whitespace or a clause mark.
_SOFT_CUT = frozenset(" \t\n\u3000，、；：,;:")


@dataclass(frozen=True, slots=True)
class Span:
    """One chunk: ``text == source[start:end]``."""

    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class _Unit:
    start: int
    end: int
    opens: int
    """What boundary precedes it: _PARAGRAPH, _SENTENCE, or _PIECE (inside a sentence)."""


def chunk(text: str, *, max_chars: int = 1200, overlap: int = 150) -> list[Span]:
    """Split ``text`` into chunks of at most ``max_chars``, overlapping by ≤ ``overlap``."""
    if max_chars < 1:
        raise InputError(f"max_chars must be at least 1, got {max_chars}")
    if not 0 <= overlap < max_chars:
        raise InputError(f"overlap must be between 0 and max_chars - 1, got {overlap}")
    units = _units(text, max_chars, overlap)
    return [Span(s, e, text[s:e]) for s, e in _pack(units, max_chars, overlap)]


# -- text → units -----------------------------------------------------------------------


def _units(text: str, max_chars: int, overlap: int) -> list[_Unit]:
    units: list[_Unit] = []
    para_start = 0
    for brk in [*_PARA_BREAK.finditer(text), None]:
        para_end = brk.start() if brk else len(text)
        opens = _PARAGRAPH
        sent_start = para_start
        for end in [m.end() for m in _SENTENCE_END.finditer(text, para_start, para_end)]:
            opens = _add(units, text, sent_start, end, opens, max_chars, overlap)
            sent_start = end
        _add(units, text, sent_start, para_end, opens, max_chars, overlap)
        para_start = brk.end() if brk else len(text)
    return units


def _add(
    units: list[_Unit], text: str, start: int, end: int, opens: int, max_chars: int, overlap: int
) -> int:
    """Append the sentence text[start:end] (trimmed, split if too long); next ``opens``."""
    start, end = _trim(text, start, end)
    if start >= end:
        return opens  # nothing here: a paragraph break before it still counts
    while end - start > max_chars:
        cut = _cut_point(text, start, start + max_chars)
        piece_end = _trim(text, start, cut)[1]
        units.append(_Unit(start, piece_end, opens))
        opens = _PIECE
        start = _next_piece_start(text, start, cut, end, overlap)
    units.append(_Unit(start, end, opens))
    return _SENTENCE


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _cut_point(text: str, start: int, limit: int) -> int:
    """The last soft cut in the window's second half, else ``limit`` (a hard cut)."""
    for i in range(limit, start + (limit - start) // 2, -1):
        if text[i - 1] in _SOFT_CUT and not text[start:i].isspace():
            return i
    return limit


def _next_piece_start(text: str, start: int, cut: int, end: int, overlap: int) -> int:
    """Back up ≤ ``overlap`` chars from ``cut`` to a word start; advance ≥ half a piece."""
    back = max(cut - min(overlap, (cut - start) // 2), start + 1)
    while back < cut and not (text[back - 1] in _SOFT_CUT and text[back] not in _SOFT_CUT):
        back += 1
    return _trim(text, back, end)[0]


# -- units → chunks ---------------------------------------------------------------------


def _pack(units: list[_Unit], max_chars: int, overlap: int) -> list[tuple[int, int]]:
    chunks: list[tuple[int, int]] = []
    i, prev_first = 0, 0
    while i < len(units):
        first = _overlap_from(units, i, prev_first, overlap) if chunks else i
        if units[i].end - units[first].start > max_chars:
            first = i  # the overlap would crowd out the new unit: start fresh
        j = i + 1
        while j < len(units) and units[j].end - units[first].start <= max_chars:
            j += 1
        if j < len(units):
            j = _prefer_paragraph_end(units, first, i, j, max_chars)
        chunks.append((units[first].start, units[j - 1].end))
        prev_first, i = first, j
    return chunks


def _overlap_from(units: list[_Unit], i: int, prev_first: int, overlap: int) -> int:
    """The earliest unit before ``i`` whose tail to ``i`` fits in ``overlap``."""
    if units[i].opens == _PIECE:
        return i  # pieces of one long sentence already overlap among themselves
    first = i
    # Whole units only, and never the previous chunk's first (that would repeat it all).
    while first - 1 > prev_first and units[i - 1].end - units[first - 1].start <= overlap:
        first -= 1
    return first


def _prefer_paragraph_end(units: list[_Unit], first: int, i: int, j: int, max_chars: int) -> int:
    """End a full chunk at its last paragraph break if that keeps ≥ half the chunk."""
    for k in range(j - 1, i, -1):
        if units[k].opens == _PARAGRAPH and units[k - 1].end - units[first].start >= max_chars / 2:
            return k
    return j
