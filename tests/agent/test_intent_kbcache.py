"""The intent stage's reading of the KB is kept on disk per document version (#18): a new
process reuses it without loading jieba, and a changed or added document is read again."""

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
