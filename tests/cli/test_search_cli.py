"""`unifind search` and `unifind db search` show a citation id on every item."""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from typer.testing import CliRunner

from unifind.cli import app
from unifind.testing.web_server import FakeWebServer, Respond

runner = CliRunner()


@pytest.fixture
def docs(tmp_path: Path) -> str:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "refunds.md").write_text("# Refunds\n\nRefunds are paid within 30 days.\n")
    (folder / "returns.md").write_text("# Returns\n\nReturns and refunds need a receipt.\n")
    (folder / "leave.txt").write_text("年假制度\n员工每年享有十五天带薪年假。\n", encoding="utf-8")
    assert runner.invoke(app, ["kb", "create", "docs", "--no-embedder"]).exit_code == 0
    assert runner.invoke(app, ["kb", "ingest", "docs", str(folder)]).exit_code == 0
    return "docs"


def test_json_items_carry_citation_ids(docs: str) -> None:
    res = runner.invoke(app, ["search", "refunds", "--kb", docs, "--json"])
    out = json.loads(res.output)
    assert re.fullmatch(r"req_[0-9a-f]{12}", out["request_id"])
    assert [i["citation_id"] for i in out["items"]] == ["ref_001", "ref_002"]


def test_multi_leg_json_cites_fused_items(docs: str) -> None:
    res = runner.invoke(app, ["search", "refunds", "--kb", docs, "--db", "default", "--json"])
    out = json.loads(res.output)
    assert out["request_id"].startswith("req_")
    assert [i["citation_id"] for i in out["items"]] == ["ref_001", "ref_002"]
    assert [leg["type"] for leg in out["legs"]] == ["kb", "db"]
    assert {r["leg"] for r in out["reports"]} == {"kb", "db"}


def test_text_output_shows_the_id_before_each_title(docs: str) -> None:
    res = runner.invoke(app, ["search", "年假", "--kb", docs, "--mode", "text"])
    assert res.exit_code == 0
    assert re.search(r"^1\. \[ref_001\] 年假制度", res.output, re.M), res.output


def test_db_search_items_carry_citation_ids() -> None:
    assert runner.invoke(app, ["db", "demo"]).exit_code == 0
    res = runner.invoke(app, ["db", "search", "cheapest 3 laptops", "--json"])
    items = json.loads(res.output)["items"]
    assert items and [i["citation_id"] for i in items] == [
        f"ref_{n:03d}" for n in range(1, len(items) + 1)
    ]


# -- formats to pipe into an LLM (issue #9) ---------------------------------------------


def test_ndjson_prints_one_cited_item_per_line(docs: str) -> None:
    res = runner.invoke(app, ["search", "refunds", "--kb", docs, "--format", "ndjson"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert [json.loads(line)["citation_id"] for line in lines] == ["ref_001", "ref_002"]


def test_references_format_is_the_xml_alone(docs: str) -> None:
    res = runner.invoke(app, ["search", "refunds", "--kb", docs, "--format", "references"])
    assert res.exit_code == 0, res.output
    root = ElementTree.fromstring(res.stdout)
    assert root.tag == "references"
    assert [ref.get("id") for ref in root] == ["ref_001", "ref_002"]


def test_prompt_format_is_references_then_the_citation_prompt(docs: str) -> None:
    res = runner.invoke(app, ["search", "refunds", "--kb", docs, "--format", "prompt"])
    assert res.exit_code == 0, res.output
    xml, _, prompt = res.stdout.partition("</references>")
    assert xml.startswith("<references") and 'id="ref_002"' in xml
    # One citation format everywhere (issue #20): the prompt asks for [ref_001], as ask does.
    assert "references above" in prompt and "cite it as [ref_001]." in prompt
    assert "#ref:" not in prompt and "href" not in prompt


def test_json_is_an_alias_of_format_json_and_conflicts_are_refused(docs: str) -> None:
    a = json.loads(runner.invoke(app, ["search", "refunds", "--kb", docs, "--json"]).stdout)
    b = runner.invoke(app, ["search", "refunds", "--kb", docs, "--format", "json"]).stdout
    assert a["items"] == json.loads(b)["items"] and "legs" in a
    res = runner.invoke(app, ["search", "x", "--json", "--format", "ndjson"])
    assert res.exit_code == 2 and "--json means --format json" in res.output
    res = runner.invoke(app, ["search", "x", "--format", "yaml"])
    assert res.exit_code == 2 and "text, json, ndjson, references, prompt" in res.output


def test_pipe_formats_say_on_stderr_when_nothing_answered() -> None:
    res = runner.invoke(app, ["search", "refunds", "--db", "default", "--format", "ndjson"])
    assert res.stdout == ""
    assert "status: " in res.stderr and "request req_" in res.stderr


# -- the legs' own options ----------------------------------------------------------------


def test_kb_filters_are_repeatable_key_values(tmp_path: Path) -> None:
    from unifind import KnowledgeBase, load_settings

    with KnowledgeBase.open(load_settings()) as kb:
        kb.create("notes", embedder=None)
        for doc, meta in (("a", {"lang": "en", "year": 2024}), ("b", {"lang": "de", "year": 2023}),
                          ("c", {"lang": "fr", "year": "2024"})):  # fmt: skip
            kb.ingest_text("notes", f"refund policy {doc}", document_id=doc, metadata=meta)

    def ids(*args: str) -> list[str]:
        res = runner.invoke(app, ["search", "refund policy", "--kb", "notes", *args, "--json"])
        assert res.exit_code == 0, res.output
        return sorted(i["document_id"] for i in json.loads(res.stdout)["items"])

    assert ids("--filter", "lang=en") == ["a"]
    assert ids("--filter", "lang=en", "--filter", "lang=de") == ["a", "b"]  # any-of
    assert ids("--filter", "year=2024") == ["a"]  # a number, as JSON reads it
    assert ids("--filter", 'year="2024"') == ["c"]  # quoted: the string
    res = runner.invoke(app, ["search", "x", "--filter", "lang"])
    assert res.exit_code == 2 and "KEY=VALUE" in res.output


def test_web_options_name_the_web_leg(monkeypatch: pytest.MonkeyPatch) -> None:
    hit = {"title": "docs.rs page", "url": "https://docs.rs/tokio", "content": "Tokio docs"}
    with FakeWebServer() as server:
        server.route("POST", "/search", Respond(json={"results": [hit]}))
        monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
        monkeypatch.setenv("UNIFIND_TAVILY_BASE_URL", server.url)
        res = runner.invoke(
            app,
            ["search", "tokio", "--provider", "tavily", "--sites", "docs.rs,tokio.rs",
             "--time-range", "week", "--json"],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        out = json.loads(res.stdout)
        assert [leg["type"] for leg in out["legs"]] == ["web"]  # no KB: a web option named it
        assert out["items"][0]["url"] == "https://docs.rs/tokio"
        sent = server.requests[0].json()
        assert sent["include_domains"] == ["docs.rs", "tokio.rs"] and sent["time_range"] == "week"
    res = runner.invoke(app, ["search", "x", "--provider", "nope"])
    assert res.exit_code == 2 and "nope" in res.output


def test_db_options_are_those_of_db_search(tmp_path: Path) -> None:
    shop = tmp_path / "shop.db"
    assert runner.invoke(app, ["db", "demo", "--path", str(shop)]).exit_code == 0
    models = str(shop.with_suffix(".models.yaml"))
    res = runner.invoke(
        app,
        ["search", "cheapest 3 laptops", "--db", f"sqlite:///{shop}", "--models", models,
         "--model", "products", "--json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert [leg["type"] for leg in out["legs"]] == ["db"] and out["status"] == "ok"
    assert len(out["items"]) == 3 and out["legs"][0]["dsl"]["limit"] == 3
    res = runner.invoke(app, ["search", "x", "--db", "products"])
    assert res.exit_code == 2 and "use --model products" in res.output
    res = runner.invoke(app, ["search", "x", "--models", str(tmp_path / "none.yaml")])
    assert res.exit_code == 2 and "no such file" in res.output


def test_the_principal_is_no_search_flag_and_config_says_where_it_comes_from() -> None:
    res = runner.invoke(app, ["search", "x", "--tenant", "acme"])
    assert res.exit_code == 2 and "No such option" in res.output
    help_text = " ".join(
        re.sub(r"[│╭╮╰╯─]", " ", runner.invoke(app, ["search", "--help"]).output).split()
    )
    assert "principal" in help_text and "never by a flag" in help_text


def test_search_reads_the_config_file_it_is_given(tmp_path: Path, docs: str) -> None:
    config = tmp_path / "other.yaml"
    config.write_text("records: false\n")
    res = runner.invoke(app, ["search", "refunds", "--kb", docs, "--config", str(config)])
    assert res.exit_code == 0, res.output
    config.write_text("kbb: 1\n")
    res = runner.invoke(app, ["search", "refunds", "--kb", docs, "--config", str(config)])
    assert res.exit_code == 1 and "other.yaml: kbb: unknown key (did you mean 'kb'?)" in res.output
