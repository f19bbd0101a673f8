"""Word (.docx) → text with python-docx: body paragraphs and tables, in document order."""

from __future__ import annotations

import io
import zipfile
from typing import Any

# Limits in the spirit of Apache POI's ZipSecureFile: a member may not inflate more than
# 100-fold (POI's MIN_INFLATE_RATIO 0.01) once past a grace size, and the package's
# declared total is capped. zipfile stops inflating a member at its declared size, so
# checking the central directory's sizes bounds what decompression can produce.
_MAX_RATIO = 100
_RATIO_GRACE = 1 << 20  # small XML parts legitimately compress 100-fold
_MAX_UNZIPPED = 256 << 20


class DocxProblem(ValueError):
    """The file isn't a readable .docx."""


def docx(data: bytes) -> tuple[str, str]:
    """(text, title) of a .docx; raises DocxProblem with a reason a person can act on."""
    # A .docx is an OOXML package, i.e. a ZIP archive (ECMA-376 Part 2); a legacy binary
    # .doc starts with the OLE2 signature D0 CF 11 E0 instead.
    if data.startswith(b"\xd0\xcf\x11\xe0"):
        raise DocxProblem("it is a legacy Word 97-2003 file; save it as .docx to index it")
    if not data.startswith(b"PK\x03\x04"):
        raise DocxProblem("it is not a .docx file (not a ZIP package)")
    _refuse_bomb(data)
    import docx as python_docx
    from docx.table import Table

    try:
        document = python_docx.Document(io.BytesIO(data))
        blocks: list[str] = []
        heading = ""
        for block in document.iter_inner_content():
            if isinstance(block, Table):
                blocks.extend(_table_rows(block))
                continue
            text = block.text.strip()
            if text:
                blocks.append(text)
                if not heading and _is_heading(block):
                    heading = text
        title = (document.core_properties.title or "").strip() or heading
    except Exception as exc:
        # python-docx surfaces damage as KeyError, BadZipFile, lxml errors, ... .
        raise DocxProblem(
            f"the .docx is damaged or unreadable ({type(exc).__name__}: {exc})"
        ) from exc
    return "\n\n".join(blocks), " ".join(title.split())


def _refuse_bomb(data: bytes) -> None:
    """Refuse a package whose declared sizes say it would inflate past the limits."""
    try:
        members = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise DocxProblem(f"the .docx is damaged or unreadable (BadZipFile: {exc})") from exc
    total = sum(m.file_size for m in members)
    if total > _MAX_UNZIPPED:
        raise DocxProblem(
            f"it would unpack to {total / 1e6:,.0f} MB (limit {_MAX_UNZIPPED / 1e6:,.0f} MB): "
            "refused unread as a possible zip bomb"
        )
    for m in members:
        if m.file_size > _RATIO_GRACE and m.file_size > _MAX_RATIO * max(m.compress_size, 1):
            raise DocxProblem(
                f"its part {m.filename!r} inflates {m.file_size // max(m.compress_size, 1):,}-fold"
                f" (limit {_MAX_RATIO}-fold): refused unread as a possible zip bomb"
            )


def _is_heading(paragraph: Any) -> bool:
    name = paragraph.style.name if paragraph.style is not None else ""
    return bool(name == "Title" or name.startswith("Heading"))


def _table_rows(table: Any) -> list[str]:
    """One line per row, cells joined by " | "; a merged cell is written once."""
    rows: list[str] = []
    for row in table.rows:
        seen: set[Any] = set()
        cells: list[str] = []
        for cell in row.cells:
            # Horizontally merged cells come back as the same <w:tc> element repeated.
            if cell._tc in seen:
                continue
            seen.add(cell._tc)
            cells.append(" ".join(cell.text.split()))
        if any(cells):
            rows.append(" | ".join(cells))
    return rows
