"""Word (.docx) → text with python-docx: body paragraphs and tables, in document order."""

from __future__ import annotations

import io
from typing import Any


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
