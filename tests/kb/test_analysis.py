"""The text analysers: English stemming, Chinese segmentation, determinism."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest

from unifind.analysis import (
    ENGLISH_STOPWORDS,
    Analyzer,
    analyzer_names,
    get_analyzer,
    guess_lang,
)
from unifind.errors import InputError, UnknownName


@pytest.fixture(scope="module")
def auto() -> Analyzer:
    return get_analyzer("auto")


def test_mixed_chinese_and_english(auto: Analyzer) -> None:
    assert auto.terms("退款 refund policy 流程") == ["退款", "refund", "polici", "流程"]


def test_english_stopwords_removed_and_words_stemmed(auto: Analyzer) -> None:
    terms = auto.terms("The refunds and the Policies of a customer's returns")
    assert terms == ["refund", "polici", "custom", "return"]
    assert not ENGLISH_STOPWORDS & set(terms)
    # The same stem for inflections: a query for "refund" meets "refunded"/"refunding".
    assert {t for w in ("refund", "refunded", "refunding") for t in auto.terms(w)} == {"refund"}


def test_lucene_stopword_list_is_the_short_one() -> None:
    assert len(ENGLISH_STOPWORDS) == 33
    assert {"how", "what", "should"}.isdisjoint(ENGLISH_STOPWORDS)


def test_numbers_survive_whole(auto: Analyzer) -> None:
    assert auto.terms("within 30 days, 3.5% fee, up to 1,200 USD") == [
        "within", "30", "day", "3.5", "fee", "up", "1,200", "usd",
    ]  # fmt: skip


def test_nfkc_and_apostrophes_normalised(auto: Analyzer) -> None:
    assert auto.terms("ＲＥＦＵＮＤ") == auto.terms("refund")  # fullwidth letters
    assert auto.terms("ﬁle") == auto.terms("file")  # the fi ligature
    assert auto.terms("customer’s") == auto.terms("customer's")
    assert auto.terms("２０２４") == ["2024"]


def test_chinese_search_mode_emits_sub_words(auto: Analyzer) -> None:
    terms = auto.terms("中华人民共和国")
    # jieba's search mode: the long word plus its dictionary sub-words.
    assert "中华人民共和国" in terms and {"中华", "人民", "共和国"} <= set(terms)
    # So a short query term meets a compound in a document.
    assert set(auto.terms("退款")) <= set(auto.terms("客户可以在三十天内申请退款流程"))


def test_chinese_stopwords_and_punctuation_dropped(auto: Analyzer) -> None:
    terms = auto.terms("退款的流程是这样的：先申请了，再审核。")
    assert not {"的", "是", "了", "：", "，", "。", "、"} & set(terms)
    assert {"退款", "流程", "申请", "审核"} <= set(terms)


def test_other_scripts_are_tokenised(auto: Analyzer) -> None:
    assert auto.terms("Привет, мир") == ["привет", "мир"]


def test_empty_and_punctuation_only(auto: Analyzer) -> None:
    assert auto.terms("") == []
    assert auto.terms("  ...!!! —— 。，") == []


def test_simple_analyzer_lowercases_and_splits_only() -> None:
    simple = get_analyzer("simple")
    assert simple.terms("The Refunds, the POLICY") == ["the", "refunds", "the", "policy"]


def test_get_analyzer_is_cached_and_unknown_names_list_valid_ones() -> None:
    assert get_analyzer() is get_analyzer("auto")
    assert analyzer_names() == ["auto", "simple"]
    with pytest.raises(UnknownName, match=r"unknown analyzer 'stemmy'; valid: auto, simple"):
        get_analyzer("stemmy")
    with pytest.raises(InputError):
        get_analyzer("")


def test_deterministic_across_threads(auto: Analyzer) -> None:
    texts = [
        f"Refunds number {i} are processed within {i % 40} days. 第{i}个订单的退款流程已经完成。"
        for i in range(300)
    ]
    serial = [auto.terms(t) for t in texts]
    with ThreadPoolExecutor(max_workers=8) as pool:
        parallel = list(pool.map(auto.terms, texts))
    assert parallel == serial


def test_jieba_is_lazy_and_quiet() -> None:
    code = textwrap.dedent(
        """
        import sys
        from unifind.analysis import get_analyzer
        a = get_analyzer()
        a.terms("plain English only")
        assert "jieba" not in sys.modules, "jieba loaded for English text"
        print(a.terms("退款流程"))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['退款', '流程']"
    assert out.stderr == ""  # no "Building prefix dict ..." chatter


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("The customer can return the product within thirty days of delivery for a refund.", "en"),
        ("客户在收到商品后三十天内可以申请退款。", "zh"),
        ("Le client peut retourner le produit dans les trente jours suivant la livraison.", None),
        ("Der Kunde kann die Ware innerhalb von dreißig Tagen nach Lieferung zurückgeben.", None),
        ("12 34 56", None),
        ("", None),
    ],
)
def test_guess_lang(text: str, lang: str | None) -> None:
    assert guess_lang(text) == lang
