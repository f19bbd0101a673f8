"""The intent stage's reading of the KB is kept on disk per document version (#18): a new
process reuses it without loading jieba, and a changed or added document is read again.
While the embedded store's file is unchanged the whole KB part is kept: the next plan
neither opens nor imports the KB."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from unifind import load_settings
from unifind.agent import _kbcache
from unifind.agent import vocab as vocab_mod
from unifind.agent.intent import Vocabulary
from unifind.agent.vocab import vocabulary
from unifind.engine import Searcher

TRAVEL = """# Travel rules

Book trains through the travel desk. The hotel allowance is 180 euros a night in Berlin.

## Per diem

The per diem covers meals. Claim the per diem within 30 days.
"""
LEAVE = """# 婚假规定

员工登记结婚后可申请婚假十天。婚假须在登记后一年内休完，婚假期间工资照发。
"""


def _fresh_process() -> None:
    """Forget what this process read, as a new process would."""
    vocab_mod._SECTIONS.clear()
    vocab_mod._KB_TERMS.clear()
    vocab_mod._NAMES.clear()


@pytest.fixture(autouse=True)
def _forget() -> Iterator[None]:
    _fresh_process()
    yield
    _fresh_process()


def _vocab(home: Path) -> Vocabulary:
    s = Searcher(load_settings(home=home))
    try:
        vocab, notes = asyncio.run(vocabulary(s))
    finally:
        s.close()
    assert not [n for n in notes if "kb" in n], notes
    return vocab


def _ingest(home: Path, text: str, doc: str, title: str) -> None:
    s = Searcher(load_settings(home=home))
    try:
        if "handbook" not in {c.name for c in s.kb.collections()}:
            s.kb.create("handbook", embedder=None)
        s.kb.ingest_text("handbook", text, document_id=doc, title=title)
    finally:
        s.close()


def _section_words(vocab: Vocabulary) -> set[str]:
    return {w for _, every in vocab.kb_sections for w in every}


def test_a_new_process_reads_the_kept_vocabulary_without_loading_jieba(tmp_path: Path) -> None:
    _ingest(tmp_path, TRAVEL, "travel.md", "Travel rules")
    _ingest(tmp_path, LEAVE, "leave.md", "婚假规定")
    first = _vocab(tmp_path)
    assert "婚假" in _section_words(first) and "allowance" in _section_words(first)
    assert (tmp_path / "cache" / "intent-kb.sqlite").is_file()
    code = (
        "import asyncio, json, sys\n"
        "from unifind import load_settings\n"
        "from unifind.agent.vocab import vocabulary\n"
        "from unifind.engine import Searcher\n"
        f"s = Searcher(load_settings(home={str(tmp_path)!r}))\n"
        "v, notes = asyncio.run(vocabulary(s))\n"
        "s.close()\n"
        "print(json.dumps({'jieba': 'jieba' in sys.modules, 'terms': sorted(v.kb_terms),\n"
        "  'rare': sorted(v.kb_rare), 'kb': sorted(v.kb), 'sections': sorted(\n"
        "  [sorted(k), sorted(e)] for k, e in v.kb_sections)}, ensure_ascii=False))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    assert got["jieba"] is False  # the Chinese title and document came from the cache
    assert got["terms"] == sorted(first.kb_terms) and got["rare"] == sorted(first.kb_rare)
    assert got["kb"] == sorted(first.kb)
    assert got["sections"] == sorted([sorted(k), sorted(e)] for k, e in first.kb_sections)


def test_an_added_or_changed_document_is_read_again(tmp_path: Path) -> None:
    _ingest(tmp_path, TRAVEL, "travel.md", "Travel rules")
    before = _vocab(tmp_path)
    assert "sabbatical" not in _section_words(before) | before.kb_terms
    _fresh_process()
    added = "# Sabbatical\n\nA sabbatical of three months after five years; ask for a sabbatical."
    _ingest(tmp_path, added, "sabbatical.md", "Sabbatical")
    after = _vocab(tmp_path)
    assert "sabbatical" in _section_words(after) and "sabbatical" in after.kb_terms
    _fresh_process()
    changed = TRAVEL.replace("per diem", "subsistence").replace("allowance", "ceiling")
    _ingest(tmp_path, changed, "travel.md", "Travel rules")
    again = _vocab(tmp_path)
    assert "subsistence" in _section_words(again) and "allowance" not in _section_words(again)


def test_a_broken_cache_file_costs_the_reading_not_the_plan(tmp_path: Path) -> None:
    _ingest(tmp_path, TRAVEL, "travel.md", "Travel rules")
    expected = _vocab(tmp_path)
    _fresh_process()
    cache = tmp_path / "cache" / "intent-kb.sqlite"
    with sqlite3.connect(cache) as db:
        db.execute("UPDATE entry SET value = '{not json'")
    assert _vocab(tmp_path) == expected
    _fresh_process()
    cache.write_bytes(b"not a database at all")
    assert _vocab(tmp_path) == expected


# -- the whole KB part, under the embedded store's file ----------------------------------

_FRESH_KB = (
    "import asyncio, json, sys\n"
    "from unifind import load_settings\n"
    "from unifind.agent.vocab import vocabulary\n"
    "from unifind.engine import Searcher\n"
    "s = Searcher(load_settings(home=sys.argv[1]))\n"
    "v, notes = asyncio.run(vocabulary(s))\n"
    "print(json.dumps({'opened': [m for m in ('numpy', 'unifind.kb.service', 'jieba')\n"
    "  if m in sys.modules], 'terms': sorted(v.kb_terms), 'rare': sorted(v.kb_rare),\n"
    "  'kb': sorted(v.kb), 'everyday': [sorted(e) for e in v.kb_everyday],\n"
    "  'sections': [[sorted(k), sorted(e)] for k, e in v.kb_sections], 'notes': notes},\n"
    "  ensure_ascii=False))\n"
)


def _as_json(v: Vocabulary) -> dict[str, object]:
    return {"terms": sorted(v.kb_terms), "rare": sorted(v.kb_rare), "kb": sorted(v.kb),
            "everyday": [sorted(e) for e in v.kb_everyday],
            "sections": [[sorted(k), sorted(e)] for k, e in v.kb_sections]}  # fmt: skip


def _kb_vocab_in_a_new_process(home: Path) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", _FRESH_KB, str(home)], capture_output=True, text=True, check=True
    )
    got: dict[str, object] = json.loads(out.stdout)
    return got


def _kb_part_kept(home: Path) -> bool:
    settings = load_settings(home=home)
    whole = _kbcache.kb_key(settings, frozenset())
    assert whole is not None
    return _kbcache.KBCache(home).kb_part(whole[0]) is not None


def test_an_unchanged_kb_is_neither_opened_nor_imported_by_the_next_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _ingest(tmp_path, TRAVEL, "travel.md", "Travel rules")
    _ingest(tmp_path, LEAVE, "leave.md", "婚假规定")
    monkeypatch.setattr(_kbcache, "SETTLED_NS", 0)  # the files were written just now
    first = _vocab(tmp_path)  # read the long way, and kept under kb.sqlite's stat
    assert _kb_part_kept(tmp_path)
    got = _kb_vocab_in_a_new_process(tmp_path)
    assert got.pop("opened") == [] and got.pop("notes") == []
    assert got == _as_json(first)
    _fresh_process()
    added = "# Sabbatical\n\nA sabbatical of three months after five years; ask for a sabbatical."
    _ingest(tmp_path, added, "sabbatical.md", "Sabbatical")  # the file changes: read again
    after = _kb_vocab_in_a_new_process(tmp_path)
    assert {"numpy", "unifind.kb.service"} <= set(after.pop("opened"))  # type: ignore[call-overload]
    assert "sabbatical" in after["terms"]  # type: ignore[operator]


def test_a_kb_written_just_now_is_read_again_not_kept(tmp_path: Path) -> None:
    # A write inside one timestamp tick may not move the file's mtime or ctime: a file
    # changed within SETTLED_NS is read the long way and its reading not kept whole.
    _ingest(tmp_path, TRAVEL, "travel.md", "Travel rules")
    _vocab(tmp_path)
    assert not _kb_part_kept(tmp_path)


def test_a_collection_placed_in_another_store_keeps_the_kb_part_from_being_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from unifind.kb.routing import RoutingStore

    _ingest(tmp_path, TRAVEL, "travel.md", "Travel rules")
    monkeypatch.setattr(_kbcache, "SETTLED_NS", 0)
    monkeypatch.setattr(RoutingStore, "placements", lambda self: {"elsewhere": object()})
    _vocab(tmp_path)
    assert not _kb_part_kept(tmp_path)
    monkeypatch.undo()
    monkeypatch.setattr(_kbcache, "SETTLED_NS", 0)
    _fresh_process()
    _vocab(tmp_path)
    assert _kb_part_kept(tmp_path)


# -- the DB's words -------------------------------------------------------------------------

_FRESH_DB = (
    "import asyncio, json, sys\n"
    "from unifind import load_settings\n"
    "from unifind.agent.vocab import vocabulary\n"
    "from unifind.engine import Searcher\n"
    "s = Searcher(load_settings(home=sys.argv[1], db={{'sample_ttl_s': {ttl}}}))\n"
    "v, notes = asyncio.run(vocabulary(s))\n"
    "s.close()\n"
    "print(json.dumps({{'sqlalchemy': 'sqlalchemy' in sys.modules, 'db': sorted(v.db),\n"
    "  'rows': sorted(v.db_rows), 'models': sorted(v.db_models)}}))\n"
)


def _db_vocab_in_a_new_process(home: Path, ttl: float = 3600) -> dict[str, object]:
    code = _FRESH_DB.format(ttl=ttl)
    out = subprocess.run(
        [sys.executable, "-c", code, str(home)], capture_output=True, text=True, check=True
    )
    got: dict[str, object] = json.loads(out.stdout)
    return got


def test_the_db_words_are_kept_until_the_database_file_changes(tmp_path: Path) -> None:
    from unifind.db.demo import DEMO_FILE, create_demo

    shop = create_demo(tmp_path / DEMO_FILE)
    first = _db_vocab_in_a_new_process(tmp_path)
    assert first["sqlalchemy"] is True and "products" in first["models"]  # type: ignore[operator]
    assert "xylophonium" not in first["rows"]  # type: ignore[operator]
    again = _db_vocab_in_a_new_process(tmp_path)
    assert again["sqlalchemy"] is False  # the shop was not opened: its words were kept
    assert {**again, "sqlalchemy": True} == first
    with sqlite3.connect(shop) as db:
        db.execute("UPDATE products SET name = 'Xylophonium Tent 3' WHERE id = 2")
    db.close()
    changed = _db_vocab_in_a_new_process(tmp_path)
    assert changed["sqlalchemy"] is True
    assert "xylophonium" in changed["rows"]  # type: ignore[operator]


def test_db_words_are_not_kept_when_samples_may_not_be(tmp_path: Path) -> None:
    from unifind.db.demo import DEMO_FILE, create_demo

    create_demo(tmp_path / DEMO_FILE)
    _db_vocab_in_a_new_process(tmp_path, ttl=0)
    assert _db_vocab_in_a_new_process(tmp_path, ttl=0)["sqlalchemy"] is True
