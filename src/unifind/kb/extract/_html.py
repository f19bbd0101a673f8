"""HTML → readable text: trafilatura's main-content extraction (as Markdown), lxml as fallback."""

from __future__ import annotations

import codecs
import re
from typing import Any

from unifind.kb.extract._text import decode_text, markdown

# Only the first bytes may declare the encoding (WHATWG HTML §13.2.3.2 "prescan": 1024).
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)

# Elements that hold no readable text; trafilatura drops them too.
_DROP = ("script", "style", "noscript", "template", "svg", "iframe", "object", "head")
# Elements after which a reader sees a line break.
_BLOCK_TAGS = (
    "address article aside blockquote br dd div dl dt figcaption figure footer form h1 h2 h3 "
    "h4 h5 h6 header hr li main nav ol p pre section table tbody thead tfoot tr ul"
)
_BLOCKS = frozenset(_BLOCK_TAGS.split())
_CELLS = frozenset({"td", "th"})


def decode_html(data: bytes) -> str:
    """Decode with the document's declared charset when it has one, else sniff."""
    if m := _META_CHARSET.search(data[:1024]):
        name = m.group(1).decode("ascii")
        try:
            codecs.lookup(name)
        except LookupError:
            pass
        else:
            if not data.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
                return data.decode(name, errors="replace")
    return decode_text(data)


def html(markup: str) -> tuple[str, str]:
    """(readable text, title) of an HTML document."""
    import lxml.html
    from lxml.etree import ParserError

    try:
        tree = lxml.html.document_fromstring(_without_xml_declaration(markup))
    except (ParserError, ValueError):
        return "", ""
    fallback_title = _title(tree)  # before _dom_text edits the tree
    # With metadata, trafilatura heads its Markdown with YAML front matter whose title is
    # cleaned of site-name suffixes ("Shipping | Acme" → "Shipping").
    text, title = markdown(_trafilatura_text(markup))
    if not text.strip():
        # trafilatura discards pages it judges too short to be an article (a one-paragraph
        # notice, a table-only page); the plain DOM text is then better than nothing.
        text = _dom_text(tree)
    return text, title or fallback_title


def _without_xml_declaration(markup: str) -> str:
    # lxml refuses str input that carries an encoding declaration (the text is decoded).
    return re.sub(r"\A\s*<\?xml[^>]*\?>", "", markup)


def _title(tree: Any) -> str:
    for path in ("//title", "//h1"):
        for el in tree.xpath(path):
            text = " ".join(el.text_content().split())
            if text:
                return text
    return ""


def _trafilatura_text(markup: str) -> str:
    import trafilatura

    text = trafilatura.extract(
        markup,
        output_format="markdown",
        include_comments=False,
        include_tables=True,
        include_images=False,
        include_links=False,
        deduplicate=False,
        with_metadata=True,
    )
    return text or ""


def _dom_text(tree: Any) -> str:
    for el in tree.xpath("|".join(f"//{tag}" for tag in _DROP)):
        el.drop_tree()
    for el in tree.iter():
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag in _BLOCKS:
            el.tail = "\n" + (el.tail or "")
        elif tag in _CELLS:
            el.tail = " | " + (el.tail or "")
    lines = (" ".join(line.split()) for line in tree.text_content().splitlines())
    return "\n".join(line.strip(" |") for line in lines if line.strip(" |"))
