"""Files → plain text to index: txt, Markdown, HTML, PDF and Word (.docx).

The extracted ``text`` is the document's canonical text: chunk spans are offsets into it.
It has ``\\n`` line ends and no leading or trailing whitespace. Anything that can't yield
text (binary data, an unsupported type, an encrypted or damaged file, an empty one)
raises :class:`ExtractError` naming the file and what to do.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from unifind.errors import InputError
from unifind.kb.extract._docx import DocxProblem, docx
from unifind.kb.extract._html import decode_html, html
from unifind.kb.extract._pdf import PdfProblem, pdf
from unifind.kb.extract._text import NotText, decode_text, markdown, plain_title

__all__ = ["SUPPORTED", "ExtractError", "Extracted", "extract", "extract_bytes", "extract_text"]

_TITLE_MAX = 300


@dataclass(frozen=True, slots=True)
class Extracted:
    """A document's text, ready to chunk."""

    text: str
    """Plain text, ``\\n`` line ends, stripped; chunk spans index into it."""
    title: str
    """From the document itself (heading, <title>, metadata), else the file name's stem."""
    mime: str
    """The type it was read as (``text/markdown``, ``application/pdf``, ...)."""


class ExtractError(InputError):
    """A file that yields no text to index; the message names it and says why."""


Reader = Callable[[bytes], tuple[str, str]]


def _plain(data: bytes) -> tuple[str, str]:
    text = decode_text(data)
    return text, plain_title(text)


def _log(data: bytes) -> tuple[str, str]:
    return decode_text(data), ""  # a log's first line is an entry, not a title


def _markdown(data: bytes) -> tuple[str, str]:
    return markdown(decode_text(data))


def _html(data: bytes) -> tuple[str, str]:
    return html(decode_html(data))


_TEXT, _MD, _HTML = "text/plain", "text/markdown", "text/html"
_PDF = "application/pdf"
_DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

_FORMATS: dict[str, tuple[str, Reader]] = {
    ".txt": (_TEXT, _plain), ".text": (_TEXT, _plain), ".log": (_TEXT, _log),
    ".md": (_MD, _markdown), ".markdown": (_MD, _markdown),
    ".html": (_HTML, _html), ".htm": (_HTML, _html),
    ".pdf": (_PDF, pdf),
    ".docx": (_DOCX, docx),
}  # fmt: skip
_BY_MIME: dict[str, Reader] = {_TEXT: _plain, _MD: _markdown, _HTML: _html, _PDF: pdf, _DOCX: docx}
_MIME_ALIASES = {"application/xhtml+xml": _HTML, "text/x-markdown": _MD}

#: File suffix → the MIME type it is read as.
SUPPORTED: dict[str, str] = {suffix: mime for suffix, (mime, _) in _FORMATS.items()}


def supported_types() -> str:
    return ", ".join(sorted(SUPPORTED))


def extract(path: str | os.PathLike[str]) -> Extracted:
    """Read and extract one file; the type comes from its suffix.

    A file without a suffix (``README``, ``LICENSE``) is read as plain text if it is text.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise ExtractError(f"{path}: is a directory, not a file") from None
    except OSError as exc:
        raise ExtractError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
    return extract_bytes(data, name=str(path))


def extract_bytes(data: bytes, *, name: str, mime: str | None = None) -> Extracted:
    """Extract from bytes: ``mime`` (e.g. an HTTP Content-Type) wins over ``name``'s suffix."""
    kind, reader = _format(name, mime)
    if not data or data.isspace():
        raise ExtractError(f"{name}: the file is empty: no text to index")
    try:
        text, title = reader(data)
    except NotText as exc:
        raise ExtractError(
            f"{name}: not a text file: {exc}; supported types: {supported_types()}"
        ) from exc
    except (PdfProblem, DocxProblem) as exc:
        raise ExtractError(f"{name}: {exc}") from exc
    return _finish(text, title or Path(name).stem, kind, name)


def extract_text(text: str, title: str = "", *, name: str = "the text") -> Extracted:
    """Wrap raw text the same way a file's text is (line ends, stripping, empty check)."""
    return _finish(text, title, _TEXT, name)


def _format(name: str, mime: str | None) -> tuple[str, Reader]:
    if mime:
        base = mime.split(";", 1)[0].strip().lower()
        base = _MIME_ALIASES.get(base, base)
        if base in _BY_MIME:
            return base, _BY_MIME[base]
    suffix = Path(name).suffix.lower()
    if suffix in _FORMATS:
        return _FORMATS[suffix]
    if not suffix:
        return _TEXT, _plain
    raise ExtractError(
        f"{name}: unsupported file type {suffix!r}; supported types: {supported_types()}"
    )


def _finish(text: str, title: str, mime: str, name: str) -> Extracted:
    # U+FEFF inside text (a BOM glued on by concatenation) is invisible noise.
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "").strip()
    if not text:
        raise ExtractError(f"{name}: no text to index (nothing readable was found in it)")
    title = " ".join(title.split())[:_TITLE_MAX]
    return Extracted(text=text, title=title, mime=mime)
