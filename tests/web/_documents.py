"""PDFs built byte by byte for fetch and crawl tests: plain, encrypted, and a zip bomb."""

from __future__ import annotations

import io
import zlib


def make_pdf(lines: list[str], title: str | None = None, *, bomb_bytes: int = 0) -> bytes:
    """A one-page PDF 1.4 showing ``lines``; ``bomb_bytes`` > 0 adds a Flate stream that
    inflates to that many bytes (a decompression bomb: ~1,000x smaller on the wire)."""
    shown = " T* ".join(f"({line})Tj" for line in lines)
    stream = f"BT /F1 12 Tf 14 TL 72 720 Td {shown} ET".encode()
    content = b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream)
    if bomb_bytes:
        packed = zlib.compress(b" " * bomb_bytes, 9)
        content = b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (
            len(packed),
            packed,
        )
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R "
        b"/Resources << /Font << /F1 3 0 R >> >> >>",
        content,
    ]
    if title is not None:
        objects.append(f"<< /Title ({title}) >>".encode())
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    info = b" /Info %d 0 R" % len(objects) if title is not None else b""
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\n" % (len(objects) + 1, info)
    return out + b"startxref\n%d\n%%%%EOF\n" % xref


def encrypt_pdf(data: bytes, user_password: str) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="RC4-128")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()
