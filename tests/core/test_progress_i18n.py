"""Progress messages in every language: every template and label defined, nothing left in
English in a Chinese run except proper names (backends, collections)."""

from __future__ import annotations

import re
import string
import typing

import pytest
from typer.testing import CliRunner

from unifind import Reason, Searcher, SearchRequest, Status, load_settings
from unifind.cli import app
from unifind.ops.stream import EventKind as OpEventKind
from unifind.testing.legs import FakeLeg, fake_items
from unifind.trace import LABELS, MESSAGES, EventKind, label, message, pick_locale, report_line
from unifind.types import LegReport

LEGS = ("web", "kb", "db")
#: Proper names that stay as they are in any language.
NAMES = {"duckduckgo", "docs", "fake", "web", "kb", "db"}


def fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def english_words(text: str, names: set[str] = frozenset()) -> set[str]:  # type: ignore[assignment]
    return {w for w in re.findall(r"[A-Za-z_]+", text) if w not in names}


@pytest.mark.parametrize("lang", sorted(MESSAGES))
def test_every_language_defines_every_template_with_the_same_fields(lang: str) -> None:
    assert MESSAGES[lang].keys() == MESSAGES["en"].keys()
    for key, template in MESSAGES["en"].items():
        # ``{s}`` is the English plural; other languages need not use it.
        assert fields(MESSAGES[lang][key]) - {"s"} == fields(template) - {"s"}, key


def test_chinese_labels_cover_every_leg_status_reason_and_event_kind() -> None:
    zh = LABELS["zh"]
    assert set(LEGS) <= zh["leg"].keys()
    assert {s.value for s in Status} <= zh["status"].keys()
    assert {r.value for r in Reason} <= zh["reason"].keys()
    kinds = set(typing.get_args(EventKind)) | set(typing.get_args(OpEventKind))
    assert kinds <= zh["kind"].keys()
    for kind, words in zh.items():
        for code, shown in words.items():
            assert not english_words(shown), (kind, code, shown)
    assert LABELS.keys() == MESSAGES.keys()


def sample_values() -> list[dict[str, object]]:
    """Every combination a template is filled with: each leg, status and reason."""
    reasons = [r.value for r in Reason] + ["none"]
    out: list[dict[str, object]] = []
    for leg in LEGS:
        for status in [s.value for s in Status]:
            for reason in reasons:
                out.append({"n": 2, "hits": 1, "failed": 1, "total": 3, "leg": leg,
                            "legs": list(LEGS), "status": status, "reason": [reason],
                            "backend": "duckduckgo", "details": "docs",
                            # the CLI's footers and summary lines (#18)
                            "score": "0.50", "text": "备注", "count": "2", "ms": "1.5",
                            "request": "1", "valid": 2, "unknown": 0, "ids": "",
                            "unsupported": 1, "checked": 3, "sentence": "句子", "kept": 1,
                            "why": "原因", "keywords": "退款", "query": "退款",
                            "source": "user",
                            # the citation verdict lines of ask (#20)
                            "verdict": "矛盾", "cite": " [ref_001]"})  # fmt: skip
    return out


def test_every_chinese_message_is_chinese_but_for_proper_names() -> None:
    for key in MESSAGES["zh"]:
        for values in sample_values():
            text = message("zh", key, **values)
            # a citation id ([ref_001]) is a name, the same in every language
            assert not english_words(text, {"duckduckgo", "docs", "ref_"}), (key, text)
    # And English stays the machine words people know.
    assert message("en", "leg_failed", leg="web", reason=["timeout"]) == "web: failed (timeout)"
    assert message("zh", "leg_failed", leg="web", reason=["timeout", "auth"]) == (
        "网页：失败（超时、认证失败）"
    )


@pytest.mark.parametrize(
    ("asked", "lang"),
    [("zh", "zh"), ("zh-CN", "zh"), ("ZH_tw", "zh"), ("zh-CN,zh;q=0.9,en;q=0.8", "zh"),
     ("de, zh;q=0.5", "zh"), ("fr", "en"), ("", "en"), (None, "en"), ("en-GB", "en")],
)  # fmt: skip
def test_the_language_is_picked_from_a_code_or_an_accept_language_list(
    asked: str | None, lang: str
) -> None:
    assert pick_locale(asked) == lang


def test_report_lines_in_both_languages() -> None:
    ok = LegReport(leg="web", backend="duckduckgo", status=Status.OK, hits=2)
    bad = LegReport(leg="kb", backend="docs", status=Status.DEGRADED, reason=Reason.TIMEOUT,
                    error="docs: no answer in 1 s")  # fmt: skip
    assert report_line("en", ok.model_dump(mode="json")) == "web/duckduckgo: ok, 2 hits"
    assert report_line("en", bad.model_dump(mode="json")) == "kb/docs: degraded (timeout)"
    assert report_line("zh", ok.model_dump(mode="json")) == "网页/duckduckgo：正常，2 条结果"
    assert report_line("zh", bad.model_dump(mode="json")) == "知识库/docs：降级（超时）"
    assert label("zh-CN", "kind", "done") == "完成" and label("en", "kind", "done") == "done"


async def test_a_chinese_run_says_nothing_in_english() -> None:
    s = Searcher(load_settings(), legs={
        "web": FakeLeg("web", 0.01, fail=Reason.RATE_LIMITED),
        "kb": FakeLeg("kb", 0.02, fake_items("kb", 2)),
        "db": FakeLeg("db", 0.0),
    })  # fmt: skip
    reqs = [SearchRequest(type=leg, query="退款政策") for leg in LEGS]  # type: ignore[arg-type]
    events = [ev async for ev in s.stream(reqs, locale="zh-CN")]
    assert {e.kind for e in events} >= {"loading", "leg", "partial", "done"}
    for ev in events:
        assert not english_words(ev.message), ev.message
    assert any(e.message == "网页：失败（被限流）" for e in events)


def test_the_cli_prints_progress_labels_in_chinese_and_refuses_an_unknown_language() -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["search", "refund", "--stream", "--lang", "zh"])
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    progress = [ln for ln in lines if "搜索" in ln or "完成" in ln or "参考资料" in ln]
    assert progress, res.output
    for line in progress:
        assert not english_words(line, NAMES), line
    res = runner.invoke(app, ["search", "refund", "--lang", "fr"])
    assert res.exit_code == 2 and "--lang 'fr': choose one of en, zh" in res.output


def test_a_report_line_names_the_kb_stage_in_both_languages() -> None:
    lex = LegReport(leg="kb", backend="docs", stage="lexical", status=Status.OK, hits=3)
    assert report_line("en", lex.model_dump(mode="json")) == "kb/docs lexical: ok, 3 hits"
    assert report_line("zh", lex.model_dump(mode="json")) == "知识库/docs 关键词：正常，3 条结果"
