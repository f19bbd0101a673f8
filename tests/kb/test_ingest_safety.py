"""Ingest against hostile or unlucky folders: FIFOs, link loops, links out, huge files,
zip bombs, a full disk, unsupported types, blank text (issue #9)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import tracemalloc
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from unifind.analysis import get_analyzer
from unifind.cli import app
from unifind.config import KBSettings, Settings
from unifind.kb.base import ChunkIn, DocumentIn, UpsertOutcome
from unifind.kb.extract import ExtractError, extract_bytes
from unifind.kb.ingest import IngestReport, ingest_files, ingest_text
from unifind.kb.service import KnowledgeBase
from unifind.kb.sqlite import SQLiteStore

AUTO = get_analyzer("auto")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    with SQLiteStore(tmp_path / "kb.sqlite") as s:
        s.create_collection("docs", embedder=None, dim=None)
        yield s


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "folder"
    root.mkdir()
    (root / "good.md").write_text("# Refunds\n\nRefunds are paid within 30 days.")
    return root


def ingest(store: SQLiteStore, paths: Sequence[Any], **kw: Any) -> IngestReport:
    return ingest_files(store, "docs", list(paths), analyzer=AUTO, embedder=None, **kw)


def by_name(report: IngestReport) -> dict[str, Any]:
    return {Path(o.path).name: o for o in report.outcomes}


def test_a_fifo_in_a_folder_is_skipped_not_read(store: SQLiteStore, folder: Path) -> None:
    fifo = folder / "pipe.txt"
    os.mkfifo(fifo)
    result: list[IngestReport] = []
    worker = threading.Thread(target=lambda: result.append(ingest(store, [folder])), daemon=True)
    worker.start()
    worker.join(timeout=20)
    if worker.is_alive():  # unblock the open() that hangs, so the thread can end
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("ingest blocked on a FIFO")
    (report,) = result
    assert (report.added, report.failed, report.skipped) == (1, 0, 1)
    skipped = by_name(report)["pipe.txt"]
    assert skipped.status == "skipped" and skipped.reason == "special"
    assert skipped.error == f"{fifo}: not a regular file (a FIFO): not read"


def test_a_named_fifo_or_device_fails_by_name(store: SQLiteStore, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    report = ingest(store, [fifo, "/dev/zero"])
    assert report.failed == 2 and not report.added
    errors = sorted(o.error or "" for o in report.outcomes)
    assert errors == [
        "/dev/zero: not a regular file (a character device): only regular files are read",
        f"{fifo}: not a regular file (a FIFO): only regular files are read",
    ]


def test_a_symlink_loop_is_reported_and_the_rest_ingested(store: SQLiteStore, folder: Path) -> None:
    (folder / "a.txt").symlink_to(folder / "b.txt")
    (folder / "b.txt").symlink_to(folder / "a.txt")
    (folder / "self").symlink_to(folder / "self")
    (folder / "gone.txt").symlink_to(folder / "nowhere.txt")
    report = ingest(store, [folder])
    assert (report.added, report.failed, report.skipped) == (1, 0, 4)
    found = by_name(report)
    for name in ("a.txt", "b.txt", "self"):
        assert found[name].reason == "link"
        assert found[name].error == f"{folder / name}: a symbolic link loop: not followed"
    assert found["gone.txt"].error.endswith("a broken symbolic link: not followed")


def test_links_leading_out_of_the_folder_are_not_followed(
    store: SQLiteStore, folder: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "key.txt").write_text("the launch code is 0000")
    (folder / "key.txt").symlink_to(secret / "key.txt")
    (folder / "secrets").symlink_to(secret)
    (folder / "zero").symlink_to("/dev/zero")
    (folder / "sub").mkdir()
    (folder / "sub" / "again.md").symlink_to(folder / "good.md")  # inside: no duplicate
    (folder / "alias").symlink_to(folder / "sub")  # inside: walked once, as sub
    report = ingest(store, [folder])
    assert (report.added, report.failed, report.skipped) == (1, 0, 3)
    found = by_name(report)
    assert {n for n, o in found.items() if o.reason == "outside"} == {"key.txt", "secrets", "zero"}
    assert (
        found["zero"].error
        == f"{folder / 'zero'}: a link to /dev/zero, outside {folder}: not followed"
    )
    assert store.lexical_search("docs", AUTO.terms("launch code"), limit=5) == []


def test_files_over_the_cap_are_refused_unread(store: SQLiteStore, folder: Path) -> None:
    huge = folder / "huge.txt"
    with huge.open("wb") as f:  # sparse: 60 MB that cost no disk
        f.truncate(60 * 1024 * 1024)
    report = ingest(store, [folder])
    assert (report.added, report.failed) == (1, 1)
    assert by_name(report)["huge.txt"].error == (
        f"{huge}: too large to ingest (62.9 MB, the limit is 52.4 MB):"
        " split it or raise kb.max_file_bytes"
    )
    small = ingest(store, [folder / "good.md"], max_file_bytes=10)
    assert small.failed == 1 and "too large" in (small.outcomes[0].error or "")


def test_the_cap_is_a_setting(tmp_path: Path, folder: Path) -> None:
    assert KBSettings().max_file_bytes == 50 * 1024 * 1024
    settings = Settings(home=tmp_path / "home", kb=KBSettings(max_file_bytes=20))
    with KnowledgeBase.open(settings) as kb:
        kb.create("docs", embedder=None)
        report = kb.ingest("docs", [folder])
    assert report.failed == 1 and "the limit is 0.0 MB" in (report.outcomes[0].error or "")


@pytest.fixture(scope="module")
def docx_bomb(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A .docx whose document part inflates to 1 GiB of zeros (about 1 MB on disk)."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.docx"
    block = bytes(1 << 20)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        with z.open("word/document.xml", "w", force_zip64=True) as member:
            for _ in range(1024):
                member.write(block)
    return path.read_bytes()


def test_a_docx_zip_bomb_is_refused_before_inflating(docx_bomb: bytes) -> None:
    assert len(docx_bomb) < 8 << 20
    tracemalloc.start()
    try:
        started = time.perf_counter()
        with pytest.raises(ExtractError, match="possible zip bomb") as caught:
            extract_bytes(docx_bomb, name="bomb.docx")
        elapsed = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "bomb.docx: it would unpack to 1,074 MB" in str(caught.value)
    assert peak < 4 * len(docx_bomb) and elapsed < 2


def test_a_docx_part_inflating_too_much_is_refused() -> None:
    path_bytes = _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": bytes(8 << 20)})
    with pytest.raises(ExtractError, match=r"'word/document.xml' inflates [\d,]+-fold"):
        extract_bytes(path_bytes, name="dense.docx")


def _zip(members: dict[str, bytes]) -> bytes:
    import io

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


class FullDiskStore(SQLiteStore):
    """A store whose disk fills up after ``room`` documents (ENOSPC from the write path)."""

    room = 2

    def upsert_document(
        self, collection: str, doc: DocumentIn, chunks: Sequence[ChunkIn]
    ) -> UpsertOutcome:
        self.room -= 1
        if self.room < 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return super().upsert_document(collection, doc, chunks)


def test_a_full_disk_stops_the_batch(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(6):
        (folder / f"d{i}.txt").write_text(f"Document {i} about refunds.")
    with FullDiskStore(tmp_path / "kb.sqlite") as full:
        full.create_collection("docs", embedder=None, dim=None)
        report = ingest_files(full, "docs", [folder], analyzer=AUTO, embedder=None)
    assert (report.added, report.failed) == (2, 1)
    failed = report.failures[0]
    assert failed.path.endswith("d2.txt")
    assert failed.error == (
        f"{failed.path}: not written, the disk is full ([Errno 28] No space left on device):"
        " free space, then ingest again"
    )
    assert report.stopped == failed.error
    assert [Path(p).name for p in report.not_tried] == ["d3.txt", "d4.txt", "d5.txt"]


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs util-linux unshare")
def test_a_really_full_disk_stops_the_cli_with_exit_1(tmp_path: Path) -> None:
    """A 600 KB tmpfs as UNIFIND_HOME, in a private mount namespace (no root needed)."""
    home, folder = tmp_path / "home", tmp_path / "many"
    home.mkdir()
    folder.mkdir()
    for i in range(40):
        words = " ".join(f"w{i}x{j}" for j in range(4000))
        (folder / f"d{i:02d}.txt").write_text(f"Document {i}.\n\n{words}")
    cli = "import sys; from unifind.cli import main; sys.argv[0] = 'unifind'; main()"
    script = (
        'mount -t tmpfs -o size=600k tmpfs "$HOME_DIR" || exit 77\n'
        '"$PY" -c "$CLI" kb create docs --no-embedder >/dev/null || exit 78\n'
        'exec "$PY" -c "$CLI" kb ingest docs "$FOLDER" --json\n'
    )
    env = {**os.environ, "UNIFIND_HOME": str(home), "HOME_DIR": str(home), "PY": sys.executable,
           "CLI": cli, "FOLDER": str(folder)}  # fmt: skip
    proc = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    if proc.returncode == 77:
        pytest.skip(f"can't mount a tmpfs here: {proc.stderr.strip()}")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert report["failed"] == 1 and 0 < report["added"] < 39
    assert "the disk is full" in report["stopped"]
    assert len(report["not_tried"]) == 40 - report["added"] - 1


def test_unsupported_types_in_a_folder_are_skipped_and_counted(
    store: SQLiteStore, folder: Path
) -> None:
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / "data.ZIP").write_bytes(b"PK\x05\x06" + bytes(18))
    (folder / "README").write_text("No suffix: read as plain text.")
    report = ingest(store, [folder])
    assert (report.added, report.failed, report.skipped, report.unsupported) == (2, 0, 2, 2)
    assert (
        by_name(report)["data.ZIP"].error == f"{folder / 'data.ZIP'}: unsupported file type '.ZIP'"
    )
    named = ingest(store, [folder / "logo.png"])  # named explicitly: the caller asked for it
    assert named.failed == 1 and "unsupported file type '.png'" in (named.outcomes[0].error or "")


def test_cli_counts_skipped_and_exits_1_when_a_file_failed(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.md").write_text("# Refunds\n\nRefunds are paid within 30 days.")
    (folder / "empty.md").write_text("")
    (folder / "a.png").write_bytes(b"\x89PNG")
    (folder / "b.png").write_bytes(b"\x89PNG")
    runner = CliRunner()
    assert runner.invoke(app, ["kb", "create", "docs", "--no-embedder"]).exit_code == 0
    res = runner.invoke(app, ["kb", "ingest", "docs", str(folder)])
    assert res.exit_code == 1
    assert "skipped 2 unsupported" in res.output and "a.png" not in res.output
    assert "1 added" in res.output and "1 failed" in res.output
    (folder / "empty.md").unlink()
    assert runner.invoke(app, ["kb", "ingest", "docs", str(folder)]).exit_code == 0


def test_blank_text_is_a_failed_outcome_naming_the_document(
    store: SQLiteStore, tmp_path: Path
) -> None:
    out = ingest_text(store, "docs", " \n\t", document_id="faq-7", analyzer=AUTO, embedder=None)
    assert (out.status, out.document_id) == ("failed", "faq-7")
    assert out.error == "document 'faq-7': no text to index (nothing readable was found in it)"
    settings = Settings(home=tmp_path / "home")
    with KnowledgeBase.open(settings) as kb:
        kb.create("docs", embedder=None)
        assert kb.ingest_text("docs", "", document_id="blank").status == "failed"
