"""PDF → text with pypdf: page texts joined by blank lines."""

from __future__ import annotations

import io
import logging
from typing import Any


class PdfProblem(ValueError):
    """The PDF can't be read: not a PDF, encrypted, or damaged."""


def pdf(data: bytes) -> tuple[str, str]:
    """(text, title) of a PDF; raises PdfProblem with a reason a person can act on."""
    # PDF 2.0 (ISO 32000-2) §7.5.2: the file begins with "%PDF-"; readers, Acrobat
    # included, accept it anywhere in the first 1024 bytes.
    if b"%PDF-" not in data[:1024]:
        raise PdfProblem("it is not a PDF (no %PDF- header)")
    from pypdf import PdfReader

    # pypdf logs recoverable damage ("EOF marker not found") straight to stderr; the
    # outcome is reported per file instead.
    logging.getLogger("pypdf").setLevel(logging.ERROR)

    try:
        reader = PdfReader(io.BytesIO(data))
        _unlock(reader)
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
    except PdfProblem:
        raise
    except Exception as exc:
        # pypdf reports damage through many exception types (PdfReadError, KeyError,
        # ValueError, struct.error, ...) depending on where parsing stops.
        raise PdfProblem(f"the PDF is damaged or unreadable ({type(exc).__name__}: {exc})") from exc
    return "\n\n".join(p for p in pages if p), _title(reader)


def _unlock(reader: Any) -> None:
    if not reader.is_encrypted:
        return
    from pypdf.errors import DependencyError

    # Many PDFs are encrypted only to set owner permissions, with an empty user
    # password (PDF 2.0 §7.6.4.4); those open without asking anyone.
    try:
        opened = reader.decrypt("")
    except DependencyError as exc:
        raise PdfProblem(f"it is encrypted and pypdf needs a crypto library: {exc}") from exc
    if not opened:
        raise PdfProblem("it is encrypted with a password; save an unencrypted copy to index it")


def _title(reader: Any) -> str:
    try:
        meta = reader.metadata
        title = meta.title if meta is not None else None
    except Exception:  # a damaged Info dictionary only costs us the title
        return ""
    return " ".join(str(title).split()) if title else ""
