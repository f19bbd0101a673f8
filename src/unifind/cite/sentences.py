"""Sentences as a reader splits them (issue #20), each with the citations that trail it.

A markdown block ends a sentence: a blank line, a heading, a list item (``- ``, ``* ``,
``+ ``, ``1.``, ``1)``), a quote and a table row; a table row is one unit of its own (its
cells joined by ``; ``), so a fact in a row is read, and judged, against that row. Inside a
paragraph a sentence ends at ``. ! ?`` before a space and a word that does not start in
lower case, or at CJK ``。！？；`` — except after an abbreviation a reader reads through:
an initial ("H. pylori", "J. Smith"), a dotted acronym ("U.S.", "e.g.", "i.e.") or a title
word ("Dr.", "Prof.", "vs.", "approx."). "3.5" never ends a sentence (no space follows the
dot). A citation right after a full stop ("... window. [ref_001] Next") belongs to the
sentence it follows.
"""

from __future__ import annotations

import re

# A line that starts a block of its own; wrapped lines of a paragraph are joined.
_BLOCK = re.compile(r"^\s*(?:#{1,6}\s|[-*+•]\s|\d{1,3}[.)]\s|>)")
_MARKER = re.compile(r"\s*\d{1,3}\.")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?[\s:|\-]+\|?\s*$")
# A candidate end: . ! ? (with closing quotes/brackets) then space, or CJK punctuation.
_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s)|[。！？；]+[”’」』）]*")
# Words a reader reads through when a full stop follows them (lower-cased, without it).
_ABBREV = frozenset(
    [
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "sr",
        "jr",
        "st",
        "vs",
        "etc",
        "al",
        "approx",
        "fig",
        "figs",
        "vol",
        "eq",
        "eqs",
        "ref",
        "refs",
        "cf",
        "ca",
        "inc",
        "ltd",
        "co",
        "corp",
        "dept",
        "est",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "mt",
    ]
)
_DOTTED = re.compile(r"(?:^|[\s(])(?:[A-Za-z]\.){1,4}[A-Za-z]?\.?$")  # e.g. U.S. i.e. H.
_LAST_WORD = re.compile(r"([A-Za-z]+)\.+[\"'”’)\]]*$")
# Citation groups that may trail a full stop: brackets, parenthesised or bare ids.
_PAREN_IDS = r"[(（]\s*ref_\d+(?:\s*[,;，；、]\s*ref_\d+)*\s*[)）]"
_LEAD_CITES = re.compile(
    rf"^(?:\s*(?:[\[【［][^\]】］\n]{{1,64}}[\]】］]|{_PAREN_IDS}|ref_\d+\b)[.,;。]?)+", re.I
)
_CITE_GROUP = re.compile(
    rf"[\[【［][^\]】］\n]{{1,64}}[\]】］]|{_PAREN_IDS}|(?<![A-Za-z0-9_])ref_\d+(?![A-Za-z0-9_])",
    re.I,
)
_CITE_TOKEN = re.compile(r"ref_\d+|[\[【［]\s*\^?\d+(?:\s*[-–,;]\s*\d+)*\s*[\]】］]", re.I)


def blocks(text: str) -> list[str]:
    """The text's blocks: paragraphs (wrapped lines joined), headings, list items and table
    rows (cells joined by ``; ``); rules and blank lines dropped."""
    out: list[str] = []
    joinable = False  # the last block is a paragraph or list item a wrapped line continues
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            joinable = False
        elif _TABLE_ROW.match(line):
            joinable = False
            if not _TABLE_RULE.match(line):
                cells = [c.strip() for c in stripped.strip("|").split("|")]
                out.append("; ".join(c for c in cells if c))
        elif _BLOCK.match(line) or not joinable:
            out.append(stripped)
            joinable = not stripped.startswith("#")
        else:
            out[-1] = f"{out[-1]} {stripped}"
    return out


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, each with the citations that trail it."""
    out: list[str] = []
    for block in blocks(text):
        for piece in _split_block(block):
            # "Claim. [ref_001] Next claim.": the leading citations are the last one's.
            lead = _LEAD_CITES.match(piece)
            if out and lead and _CITE_TOKEN.search(lead.group(0)):
                out[-1] = f"{out[-1]} {lead.group(0).strip()}"
                piece = piece[lead.end() :].strip()
            if not piece:
                continue
            if out and _only_citations(piece):
                out[-1] = f"{out[-1]} {piece}"
            else:
                out.append(piece)
    return out


def _only_citations(piece: str) -> bool:
    """``piece`` holds citations and nothing a reader would read as words."""
    rest = _CITE_GROUP.sub("", piece)
    return rest != piece and not any(c.isalnum() for c in rest)


def _split_block(block: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for m in _END.finditer(block):
        if m.group(0)[0] in ".!?" and not _ends_here(block, m.start(), m.end()):
            continue
        pieces.append(block[start : m.end()].strip())
        start = m.end()
    pieces.append(block[start:].strip())
    return [p for p in pieces if p]


def _ends_here(block: str, at: int, end: int) -> bool:
    """Does the ``. ! ?`` run at ``block[at:end]`` end a sentence?"""
    following = block[end:].lstrip()
    if following[:1].islower():
        return False  # "H. pylori", "approx. three", "e.g. the"
    if block[at] != ".":
        return True
    if end <= 5 and _MARKER.fullmatch(block[:end]):
        return False  # "1. Refunds ...": a list item's number
    head = block[max(0, end - 40) : end].rstrip("\"'”’)]")  # a bounded look back: linear
    if _DOTTED.search(head) and not _is_word_end(head):
        return False  # "U.S.", "H." (an initial), "e.g."
    word = _LAST_WORD.search(head)
    return not (word and word.group(1).lower() in _ABBREV)


def _is_word_end(head: str) -> bool:
    """``head`` ends with a whole word of two letters or more, then a full stop ("is.")."""
    return bool(re.search(r"[A-Za-z]{2,}\.$", head))
