"""jieba's dictionary: cached under UNIFIND_HOME, read from disk for queries, load counted."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from unifind import KnowledgeBase, SearchRequest, load_settings
from unifind import analysis as an

TEXTS = (
    "退款流程",
    "年假有几天",
    "员工每年享有十五天带薪年假，入职满一年后可以申请。",
    "小明硕士毕业于中国科学院计算所，后在日本京都大学深造",  # unknown names: the HMM path
    "订单实付金额满199元包邮；不满199元的订单收取运费12元",
    "退款 refund policy 流程 三十天",
)


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """No tokenizer loaded in this process yet (each test has its own UNIFIND_HOME)."""
    monkeypatch.setattr(an, "_jieba", None)
    monkeypatch.setattr(an, "_lookup", None)


def test_the_cache_lives_under_unifind_home(fresh: None, unifind_home: Path) -> None:
    assert an.get_analyzer("auto").terms("退款流程") == ["退款", "流程"]
    cache = an.jieba_cache_file("0.42.1")
    assert cache.parent == unifind_home / "cache"
    names = {p.suffix for p in cache.parent.glob("unifind-jieba-*")}
    assert names == {".cache", ".sqlite"}


def test_the_on_disk_dictionary_segments_exactly_like_the_loaded_one(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    auto = an.get_analyzer("auto")
    full = [auto.terms(t) for t in TEXTS]  # loads the dictionary, writes both caches
    assert an._jieba is not None
    monkeypatch.setattr(an, "_jieba", None)  # a new process: only the files remain
    from_disk = [auto.terms(t) for t in TEXTS]
    assert an._jieba is None and an._lookup is not None
    assert from_disk == full
    long_text = "员工每年享有十五天带薪年假。" * 40  # > LOOKUP_MAX_HAN: loads the dictionary
    assert auto.terms(long_text)[:3] == full[2][:3] and an._jieba is not None


def test_a_second_process_segments_a_query_without_loading_the_dictionary(
    fresh: None, unifind_home: Path
) -> None:
    expected = an.get_analyzer("auto").terms("年假有几天")  # this process builds the caches
    code = (
        "from unifind import analysis as an\n"
        "print(an.get_analyzer('auto').terms('年假有几天'), an._jieba is None)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"{expected} True"


def test_the_load_is_counted_in_the_lexical_stage(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = load_settings()
    with KnowledgeBase.open(settings) as kb:
        kb.create("zh", embedder=None)
        kb.ingest_text("zh", "员工每年享有十五天带薪年假。", document_id="leave")
        for f in (settings.home / "cache").glob("unifind-jieba-*"):
            f.unlink()  # the query's process must load the dictionary itself
        monkeypatch.setattr(an, "_jieba", None)
        loads: list[float] = []
        real = an._jieba_tokenizer

        def timed() -> Any:
            t0 = time.perf_counter()
            try:
                return real()
            finally:
                loads.append((time.perf_counter() - t0) * 1000)

        monkeypatch.setattr(an, "_jieba_tokenizer", timed)
        req = SearchRequest(type="kb", query="年假", collections=("zh",), mode="text")
        res = kb.search_sync(req)
    lexical = next(r for r in res.reports if r.stage == "lexical")
    assert res.items and len(loads) == 1
    assert lexical.took_ms >= loads[0]  # the report that paid for the load shows it
