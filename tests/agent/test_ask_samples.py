"""Sample N answers, keep the best by the citation check: through a loopback LLM server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind import load_settings
from unifind.engine import Searcher
from unifind.errors import InputError
from unifind.testing.openai_server import OpenAIServer, Reply

REFUND = (
    "Refunds are issued within 30 days of purchase. The refund window starts at delivery. "
    "Opened software cannot be returned unless it is faulty."
)
SHIPPING = "Orders ship from the Leeds warehouse. Standard delivery takes three working days."

GOOD = (
    "You can get your money back within 30 days of buying [ref_001]. "
    "Standard delivery takes three working days [ref_002]."
)
INVENTED = (
    "Refunds are issued within 30 days of purchase [ref_001]. "
    "Delivery takes three working days [ref_007]."
)
UNSUPPORTED = (
    "Refunds are issued within 30 days of purchase [ref_001]. "
    "Every refund also earns a free gift card worth 50 euros [ref_002]."
)


@pytest.fixture
def searcher(tmp_path: Path) -> Iterator[Searcher]:
    s = Searcher(load_settings(home=tmp_path, kb={"embedder": "hash"}))
    s.kb.create("handbook", embedder=None)
    s.kb.ingest_text("handbook", REFUND, document_id="refunds", title="Refunds")
    s.kb.ingest_text("handbook", SHIPPING, document_id="shipping", title="Shipping")
    yield s
    s.close()


def _with_llm(searcher: Searcher, srv: OpenAIServer) -> Searcher:
    data = searcher.settings.model_dump()
    data["agents"] = {"answer": {"base_url": srv.base_url, "model": "test-model"}}
    return Searcher(type(searcher.settings).model_validate(data), kb=searcher.kb)


async def _ask(
    s: Searcher, message: str = "refund window and delivery time?", **kw: object
) -> tuple[list[str], Any]:
    events = [ev async for ev in s.ask_stream(message, **kw)]  # type: ignore[arg-type]
    deltas = [e.data["text"] for e in events if e.kind == "answer.delta"]
    return deltas, events[-1].data["output"]


async def test_three_samples_keep_the_one_whose_citations_all_check(searcher: Searcher) -> None:
    with OpenAIServer() as srv:
        srv.script_chat(INVENTED, GOOD, UNSUPPORTED)
        deltas, out = await _ask(_with_llm(searcher, srv), samples=3)
        sent = [r.json for r in srv.requests if r.path.endswith("/chat/completions")]
    assert len(sent) == 3 and all(p["temperature"] == 0.7 for p in sent)
    assert out.text == GOOD and deltas == [GOOD]  # one delta, after the check
    c = out.citations
    assert (c.unknown, c.unsupported, c.checked_sentences) == ([], [], 2)
    assert c.support == "embed" and all(s.supported for s in c.sentences)
    # Every sample was checked; each wrong citation of the others was flagged.
    by_chars = {s.chars: s for s in out.samples}
    assert [s.kept for s in out.samples].count(True) == 1 and by_chars[len(GOOD)].kept
    # A sentence citing only an invented id is unsupported as well: no shown source says it.
    assert (by_chars[len(INVENTED)].unknown, by_chars[len(INVENTED)].unsupported) == (1, 1)
    assert (by_chars[len(UNSUPPORTED)].unknown, by_chars[len(UNSUPPORTED)].unsupported) == (0, 1)


async def test_one_answer_flags_every_wrong_citation_and_no_right_one(searcher: Searcher) -> None:
    mixed = f"{GOOD} Delivery is free on Sundays [ref_002]. Returns need a receipt [ref_009]."
    with OpenAIServer() as srv:
        srv.script_chat(mixed)
        deltas, out = await _ask(_with_llm(searcher, srv))
    assert len(deltas) > 1 and out.samples == []  # streamed as it came
    c = out.citations
    flagged = [s.sentence for s in c.sentences if not s.supported]
    assert flagged == [
        "Delivery is free on Sundays [ref_002].",
        "Returns need a receipt [ref_009].",
    ]
    assert c.unknown == ["ref_009"] and [u.sentence for u in c.unsupported] == flagged
    assert all(0.0 <= s.probability <= 1.0 for s in c.sentences)


async def test_failed_samples_are_reported_and_the_rest_still_answer(searcher: Searcher) -> None:
    with OpenAIServer() as srv:
        srv.script_chat(Reply(status=503), GOOD)
        _, out = await _ask(_with_llm(searcher, srv), samples=2)
        assert out.text == GOOD and out.note is None
        assert sorted(s.error is not None for s in out.samples) == [False, True]
        srv.script_chat(Reply(status=503), Reply(status=500))
        _, out = await _ask(_with_llm(searcher, srv), samples=2)
    assert out.note is not None and "all 2 answers" in out.note
    assert out.references
    # Issue #20: the failed LLM leaves an extractive answer from the references, said so.
    assert out.text.endswith("[ref_001]") and out.llm is None
    assert "extractive answer from the references" in out.note


async def test_bad_samples_or_support_are_refused_before_searching(searcher: Searcher) -> None:
    for kw in ({"samples": 0}, {"samples": 99}, {"support": "bm25"}):
        with pytest.raises(InputError):
            await searcher.ask("refund window?", **kw)


async def test_the_lexical_support_mode_needs_no_model(searcher: Searcher) -> None:
    out = await searcher.ask("what is the refund window?", support="lexical")
    assert out.citations.support == "lexical" and out.citations.checked_sentences >= 1
    assert all(s.mode == "lexical" for s in out.citations.sentences)


def test_cli_samples_prints_the_kept_answer_and_its_check(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from unifind.cli import app

    runner = CliRunner()
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a_refunds.txt").write_text(REFUND)
    (folder / "b_shipping.txt").write_text(SHIPPING)
    assert runner.invoke(app, ["kb", "create", "docs", "--no-embedder"]).exit_code == 0
    assert runner.invoke(app, ["kb", "ingest", "docs", str(folder)]).exit_code == 0
    with OpenAIServer() as srv:
        srv.script_chat(UNSUPPORTED, GOOD)
        cfg = tmp_path / "unifind.yaml"
        cfg.write_text(f"agents:\n  answer:\n    base_url: {srv.base_url}\n    model: m\n")
        args = ["ask", "refund window and delivery time?", "--samples", "2", "--config", str(cfg)]
        res = runner.invoke(app, [*args, "--json"])
        assert res.exit_code == 0, res.output
        out = json.loads(res.output)
        srv.script_chat(UNSUPPORTED, GOOD)
        text = runner.invoke(app, args)
    valid = out["citations"]["valid"]
    assert out["text"] == GOOD and out["citations"]["unsupported"] == [] and len(valid) == 2
    assert [s["kept"] for s in out["samples"]].count(True) == 1
    assert text.exit_code == 0 and GOOD in text.output and "samples: 2, kept #" in text.output


async def test_a_chinese_answer_is_checked_by_the_lexical_model(searcher: Searcher) -> None:
    leave = "员工每年享有15天带薪年假。年假需提前两周申请，由部门经理审批。"
    searcher.kb.ingest_text("handbook", leave, document_id="leave", title="年假")
    answer = "员工每年有15天带薪年假【ref_001】。公司食堂每天中午供应免费午餐［ref_001］。"
    with OpenAIServer() as srv:
        srv.script_chat(answer)
        _, out = await _ask(_with_llm(searcher, srv), "公司的年假制度是怎么规定的？")
    assert out.references[0]["title"] == "年假" and out.text == answer
    c = out.citations
    assert [(s.mode, s.supported) for s in c.sentences] == [("lexical", True), ("lexical", False)]
    assert [u.sentence for u in c.unsupported] == ["公司食堂每天中午供应免费午餐［ref_001］。"]
