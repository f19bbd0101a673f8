"""Plain text and Markdown: decoding with sniffing, and a Markdown title."""

from __future__ import annotations

import codecs
import contextlib
import re
import unicodedata

# Byte-order marks, longest first: the UTF-32 LE mark starts with the UTF-16 LE one.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

_SNIFF_BYTES = 8192
# Above this share of control characters (other than tab, newlines, form feed) the
# "text" is really binary that happened to decode, e.g. through a single-byte charset.
_MAX_CONTROL_SHARE = 0.01


class NotText(ValueError):
    """The bytes are not text in any encoding we can trust."""


def decode_text(data: bytes) -> str:
    """Bytes → str: BOM, then UTF-8, then charset detection; binary raises NotText."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(encoding)
            except UnicodeDecodeError as exc:
                raise NotText(f"it starts with a {encoding} byte-order mark but {exc}") from exc
    # NUL never occurs in text files without a UTF-16/32 BOM; it is the test git and
    # grep use to call a file binary (git's buffer_is_binary looks at the first 8000 bytes).
    if b"\x00" in data[:_SNIFF_BYTES]:
        raise NotText("it contains NUL bytes (a binary file)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = _decode_legacy(data)
    if _control_share(text[:_SNIFF_BYTES]) > _MAX_CONTROL_SHARE:
        raise NotText("it is mostly control characters (a binary file)")
    return text


def _decode_legacy(data: bytes) -> str:
    # charset-normalizer ships with trafilatura (a base dependency); the latin-1 fallback
    # only runs if a packager stripped it: latin-1 decodes every byte, so it never fails.
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # pragma: no cover - depends on the environment
        return data.decode("latin-1")
    matches = from_bytes(data)
    best = matches.best()
    if best is None:
        raise NotText("it is not UTF-8 and no text encoding fits it")
    # Short Latin texts often fit several single-byte code pages equally well (cp1250,
    # cp1252, cp1257, ...); on a tie take windows-1252, the web's legacy default (the
    # WHATWG Encoding Standard even maps the "iso-8859-1" label to it).
    for m in matches:
        tied = (m.percent_chaos, m.percent_coherence) == (
            best.percent_chaos,
            best.percent_coherence,
        )
        if tied and "cp1252" in m.could_be_from_charset:
            with contextlib.suppress(UnicodeDecodeError):
                return data.decode("cp1252")
    return str(best)


def _control_share(text: str) -> float:
    if not text:
        return 0.0
    bad = sum(1 for ch in text if ch not in "\t\n\r\f\v" and unicodedata.category(ch) == "Cc")
    return bad / len(text)


# -- titles ---------------------------------------------------------------------------

_NOT_TITLE_END = tuple(".!?,;:。！？，；：")


def plain_title(text: str) -> str:
    """The first line when it reads as a title: short, not a sentence, more text below."""
    head, newline, rest = text.lstrip().partition("\n")
    head = head.strip()
    if newline and rest.strip() and 0 < len(head) <= 100 and not head.endswith(_NOT_TITLE_END):
        return head
    return ""


# -- Markdown ---------------------------------------------------------------------------

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_FM_TITLE = re.compile(r"^title:[ \t]*(.+?)[ \t]*$", re.MULTILINE)
_ATX = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def markdown(text: str) -> tuple[str, str]:
    """(text without YAML front matter, title) — front matter ``title:`` or first heading."""
    title = ""
    if m := _FRONT_MATTER.match(text):
        if t := _FM_TITLE.search(m.group(1)):
            title = t.group(1).strip("'\"")
        text = text[m.end() :]
    return text, title or _first_heading(text)


def _first_heading(text: str) -> str:
    """The first ATX (``# x``) or Setext (``x\\n===``) heading outside code fences."""
    fenced = False
    previous = ""
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            if m := _ATX.match(line):
                return m.group(1).strip()
            # A Setext underline needs a paragraph line above it; "---" alone is a rule.
            if previous.strip() and _SETEXT.match(line) and not _ATX.match(previous):
                return previous.strip()
        previous = "" if fenced else line
    return ""
