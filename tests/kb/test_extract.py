"""Extraction: each format's text and title, encodings, and every way a file can fail."""

from __future__ import annotations

import io
from pathlib import Path

import docx
import pytest
from pypdf import PdfReader, PdfWriter

from unifind.errors import InputError
from unifind.kb.extract import Extracted, ExtractError, extract, extract_bytes, extract_text

SUPPORTED_LIST = ".docx, .htm, .html, .log, .markdown, .md, .pdf, .text, .txt"


# -- fixtures built here, byte by byte --------------------------------------------------


def make_pdf(pages: list[list[str]], title: str | None = None) -> bytes:
    """A minimal valid PDF 1.4: one Helvetica text object per page, lines set with Tj/T*."""
    n = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(n))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i, lines in enumerate(pages):
        shown = " T* ".join(f"({line})Tj" for line in lines)
        stream = f"BT /F1 12 Tf 14 TL 72 720 Td {shown} ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {5 + 2 * i} 0 R "
            "/Resources << /Font << /F1 3 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
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
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="RC4-128")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def make_docx(title: str | None = None) -> bytes:
    document = docx.Document()
    if title:
        document.core_properties.title = title
    document.add_heading("Expense policy", level=1)
    document.add_paragraph("Meals are reimbursed up to 40 euros per day.")
    table = document.add_table(rows=2, cols=3)
    for row, cells in zip(
        table.rows, [("Item", "Limit", "Receipt"), ("Taxi", "60", "yes")], strict=True
    ):
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    merged = document.add_table(rows=1, cols=2)
    merged.rows[0].cells[0].merge(merged.rows[0].cells[1]).text = "Merged cell"
    document.add_paragraph("Claims older than 90 days are rejected.")
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


# -- text and markdown --------------------------------------------------------------------


def test_txt(tmp_path: Path) -> None:
    got = extract(write(tmp_path, "notes.txt", "Refunds within 30 days.\r\nKeep receipts.\r\n"))
    assert got == Extracted("Refunds within 30 days.\nKeep receipts.", "notes", "text/plain")


@pytest.mark.parametrize(
    ("name", "content", "title"),
    [
        (
            "policy.txt",
            "Account security policy\n\nPasswords have 14 characters.",
            "Account security policy",
        ),
        ("policy.txt", "Passwords have 14 characters.\nUse MFA.", "policy"),  # a sentence
        ("policy.txt", "Only one line, no body", "policy"),
        ("app.log", "2024-05-01 INFO started\n2024-05-01 INFO ready", "app"),  # entries
    ],
)
def test_plain_text_title_from_a_title_like_first_line(
    tmp_path: Path, name: str, content: str, title: str
) -> None:
    assert extract(write(tmp_path, name, content)).title == title


@pytest.mark.parametrize(
    ("encoded", "label"),
    [
        ("\ufeffCafé déjà vu".encode(), "utf-8 BOM"),
        ("Café déjà vu".encode("utf-16"), "utf-16 with BOM"),
        ("Café déjà vu".encode("utf-32"), "utf-32 with BOM"),
    ],
)
def test_boms_are_honoured_and_stripped(tmp_path: Path, encoded: bytes, label: str) -> None:
    assert extract(write(tmp_path, "a.txt", encoded)).text == "Café déjà vu", label


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        (
            "Le café est servi à la réception. Les employés reçoivent une prime de fin "
            "d'année selon l'ancienneté. Été comme hiver, la cafétéria reste ouverte.",
            "cp1252",
        ),
        ("退款流程需要在三十天内完成。客户可以联系客服申请退款，退款会退回原支付方式。", "gbk"),
    ],
)
def test_legacy_encodings_are_detected(tmp_path: Path, text: str, encoding: str) -> None:
    assert extract(write(tmp_path, "legacy.txt", text.encode(encoding))).text == text


def test_markdown_title_from_first_heading_outside_code(tmp_path: Path) -> None:
    md = "```sh\n# not a title\n```\n\nIntro line.\n\n## Returns policy ##\n\nBody.\n"
    got = extract(write(tmp_path, "guide.md", md))
    assert got.title == "Returns policy"
    assert got.mime == "text/markdown"
    assert got.text == md.strip()  # Markdown is indexed as written


def test_markdown_setext_heading_and_front_matter(tmp_path: Path) -> None:
    assert extract(write(tmp_path, "a.markdown", "Warranty\n========\n\nTwo years.")).title == (
        "Warranty"
    )
    got = extract(write(tmp_path, "b.md", '---\ntitle: "On-call"\ntags: [ops]\n---\n# H\nText'))
    assert got.title == "On-call"
    assert got.text == "# H\nText"  # front matter is metadata, not text


def test_markdown_without_heading_falls_back_to_file_name(tmp_path: Path) -> None:
    assert extract(write(tmp_path, "expense-policy.md", "Just text.\n\n---\n")).title == (
        "expense-policy"
    )


def test_file_without_suffix_is_read_as_text(tmp_path: Path) -> None:
    got = extract(write(tmp_path, "README", "Read me first."))
    assert (got.text, got.mime) == ("Read me first.", "text/plain")


# -- html --------------------------------------------------------------------------------

ARTICLE = """<!doctype html><html><head><title>Shipping policy | Acme</title>
<style>.x{color:red}</style><script>var secret = "do-not-index";</script></head>
<body><nav><a href="/">Home</a> <a href="/jobs">Jobs</a></nav>
<article><h1>Shipping</h1>
<p>Orders placed before 14:00 ship the same business day from our Rotterdam warehouse.
Standard delivery inside the EU takes 3 to 5 business days and costs 4.95 euros.</p>
<p>Express delivery costs 15 euros and arrives the next business day in the Benelux,
within two business days elsewhere in the EU. Tracking numbers are e-mailed at dispatch.</p>
<p>Orders over 50 euros ship free. We do not ship to PO boxes or military addresses.</p>
</article><footer>© 2024 Acme BV</footer></body></html>"""


def test_html_article(tmp_path: Path) -> None:
    got = extract(write(tmp_path, "shipping.html", ARTICLE))
    assert got.title == "Shipping"  # trafilatura's choice: the <h1>, not "... | Acme"
    assert got.mime == "text/html"
    assert "Express delivery costs 15 euros" in got.text
    assert "Orders over 50 euros ship free." in got.text
    for noise in ("do-not-index", "color:red", "<p>", "&nbsp;"):
        assert noise not in got.text


def test_short_html_falls_back_to_dom_text(tmp_path: Path) -> None:
    page = (
        "<html><body><h1>Closed</h1><p>Office closed on 1 May.</p>"
        "<script>track()</script><table><tr><td>Desk</td><td>B2</td></tr></table></body></html>"
    )
    got = extract(write(tmp_path, "notice.htm", page))
    assert got.title == "Closed"  # no <title>: the first <h1>
    assert "Office closed on 1 May." in got.text
    assert "track()" not in got.text


def test_html_declared_charset_is_used(tmp_path: Path) -> None:
    page = "<html><head><meta charset='gbk'><title>退款流程</title></head><p>三十天内退款。</p>"
    got = extract(write(tmp_path, "zh.html", page.encode("gbk")))
    assert got.title == "退款流程"
    assert "三十天内退款" in got.text


def test_html_with_no_text_fails(tmp_path: Path) -> None:
    with pytest.raises(ExtractError, match=r"empty\.html: no text to index"):
        extract(write(tmp_path, "empty.html", "<html><body><script>x()</script></body></html>"))


# -- pdf ---------------------------------------------------------------------------------


def test_pdf_pages_joined_by_blank_lines(tmp_path: Path) -> None:
    data = make_pdf([["Warranty lasts 24 months.", "Keep the invoice."], ["Page two text."]])
    got = extract(write(tmp_path, "warranty.pdf", data))
    assert got.mime == "application/pdf"
    assert got.title == "warranty"
    assert got.text == "Warranty lasts 24 months.\nKeep the invoice.\n\nPage two text."


def test_pdf_title_from_metadata(tmp_path: Path) -> None:
    got = extract(write(tmp_path, "w.pdf", make_pdf([["Body."]], title="Warranty terms")))
    assert got.title == "Warranty terms"


def test_pdf_with_empty_user_password_opens(tmp_path: Path) -> None:
    data = encrypt_pdf(make_pdf([["Owner-locked but readable."]]), user_password="")
    assert extract(write(tmp_path, "locked.pdf", data)).text == "Owner-locked but readable."


def test_password_protected_pdf_fails_clearly(tmp_path: Path) -> None:
    data = encrypt_pdf(make_pdf([["Secret."]]), user_password="s3cret")
    with pytest.raises(ExtractError, match=r"secret\.pdf: it is encrypted with a password"):
        extract(write(tmp_path, "secret.pdf", data))


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (make_pdf([["Fine."]])[:60], "damaged or unreadable"),
        (b"%PDF-1.4\n" + bytes(range(256)) * 4, "damaged or unreadable"),
        (b"Just some text pretending.", "not a PDF"),
    ],
)
def test_corrupt_pdf_fails_with_the_file_name(tmp_path: Path, data: bytes, reason: str) -> None:
    with pytest.raises(ExtractError, match=rf"broken\.pdf: .*{reason}"):
        extract(write(tmp_path, "broken.pdf", data))


def test_pdf_without_text_layer_fails(tmp_path: Path) -> None:
    with pytest.raises(ExtractError, match=r"scan\.pdf: no text to index"):
        extract(write(tmp_path, "scan.pdf", make_pdf([[]])))


# -- docx --------------------------------------------------------------------------------


def test_docx_paragraphs_and_tables_in_order(tmp_path: Path) -> None:
    got = extract(write(tmp_path, "expenses.docx", make_docx()))
    assert got.title == "Expense policy"  # the first heading
    assert got.text == (
        "Expense policy\n\nMeals are reimbursed up to 40 euros per day.\n\n"
        "Item | Limit | Receipt\n\nTaxi | 60 | yes\n\nMerged cell\n\n"
        "Claims older than 90 days are rejected."
    )


def test_docx_title_from_core_properties(tmp_path: Path) -> None:
    assert extract(write(tmp_path, "e.docx", make_docx(title="Expenses 2024"))).title == (
        "Expenses 2024"
    )


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100, "legacy Word 97-2003"),
        (b"PK\x03\x04" + b"garbage" * 20, "damaged or unreadable"),
        (b"plain text", "not a .docx file"),
    ],
)
def test_bad_docx_fails_with_the_file_name(tmp_path: Path, data: bytes, reason: str) -> None:
    with pytest.raises(ExtractError, match=rf"bad\.docx: .*{reason}"):
        extract(write(tmp_path, "bad.docx", data))


# -- refusals ----------------------------------------------------------------------------


def test_binary_file_is_refused_naming_file_and_types(tmp_path: Path) -> None:
    path = write(tmp_path, "photo.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 64)
    with pytest.raises(ExtractError) as info:
        extract(path)
    message = str(info.value)
    assert str(path) in message and "not a text file" in message and SUPPORTED_LIST in message


def test_undecodable_bytes_without_nul_are_refused(tmp_path: Path) -> None:
    data = bytes(b for b in range(1, 32) if b not in (9, 10, 12, 13)) * 40
    with pytest.raises(ExtractError, match=r"blob\.log: not a text file"):
        extract(write(tmp_path, "blob.log", data))


def test_unsupported_extension_lists_supported_types(tmp_path: Path) -> None:
    with pytest.raises(ExtractError, match=r"sheet\.xlsx: unsupported file type '\.xlsx'"):
        extract(write(tmp_path, "sheet.xlsx", b"PK\x03\x04"))
    with pytest.raises(ExtractError, match=SUPPORTED_LIST.replace(".", r"\.")):
        extract(write(tmp_path, "image.png", b"x"))


@pytest.mark.parametrize("content", [b"", b"   \n\t\n"])
def test_empty_file_has_no_text_to_index(tmp_path: Path, content: bytes) -> None:
    with pytest.raises(ExtractError, match=r"empty\.md: .*no text to index"):
        extract(write(tmp_path, "empty.md", content))


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ExtractError, match=r"nope\.txt: cannot read it"):
        extract(tmp_path / "nope.txt")
    with pytest.raises(ExtractError, match="is a directory"):
        extract(tmp_path)


def test_extract_error_is_input_error() -> None:
    assert issubclass(ExtractError, InputError)


def test_mime_wins_over_name() -> None:
    got = extract_bytes(b"<html><body><p>Hello from a URL.</p></body></html>", name="https://x/y",
                        mime="text/html; charset=utf-8")  # fmt: skip
    assert (got.text, got.mime) == ("Hello from a URL.", "text/html")


def test_extract_text() -> None:
    assert extract_text("\ufeff  Raw\r\ntext  ", title=" My  title ") == Extracted(
        "Raw\ntext", "My title", "text/plain"
    )
    with pytest.raises(ExtractError, match="no text to index"):
        extract_text(" \n ")
