"""`unifind kb ingest NAME URL…` and `unifind kb crawl NAME URL` as a user runs them,
against a loopback site (robots.txt, a sitemap, a redirect, a PDF, a missing page)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from unifind.cli import app
from unifind.testing.web_server import FakeWebServer, Respond

from ._documents import make_pdf

runner = CliRunner()
HTML = "text/html; charset=utf-8"


def page(title: str, body: str, links: list[str]) -> Respond:
    anchors = "".join(f'<a href="{href}">{href}</a> ' for href in links)
    markup = (f"<html><head><title>{title}</title></head><body><h1>{title}</h1>"
              f"<p>{body}</p><nav>{anchors}</nav></body></html>")  # fmt: skip
    return Respond(body=markup, content_type=HTML)


@pytest.fixture
def site() -> Iterator[FakeWebServer]:
    with FakeWebServer() as s:
        u = s.url
        s.route("GET", "/robots.txt", Respond(body=f"User-agent: *\nDisallow: /private/\n"
                                                   f"Sitemap: {u}/sitemap.xml\n"))  # fmt: skip
        s.route("GET", "/sitemap.xml", Respond(
            body=f"<urlset><url><loc>{u}/doc.pdf</loc></url></urlset>",
            content_type="application/xml"))  # fmt: skip
        s.route("GET", "/", page("Home", "Welcome home.", ["/a", "/old", "/private/x", "/gone"]))
        s.route("GET", "/a", page("Page A", "Alpha page text.", ["/"]))
        s.route("GET", "/b", page("Page B", "Bravo page text.", []))
        s.route("GET", "/old", Respond(301, headers={"Location": "/b"}))
        s.route("GET", "/gone", Respond(404, body="no such page"))
        s.route("GET", "/doc.pdf", Respond(body=make_pdf(["Quarterly report PDF"], "Report"),
                                           content_type="application/pdf"))  # fmt: skip
        yield s


@pytest.fixture(autouse=True)
def _setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "unifind.yaml"
    config.write_text("web: {rate_limit: false}\n")
    monkeypatch.setenv("UNIFIND_CONFIG", str(config))
    monkeypatch.setenv("UNIFIND_EMBEDDER", "hash")
    assert run("kb", "create", "site", "--no-embedder")[0] == 0


def run(*args: str) -> tuple[int, str]:
    res = runner.invoke(app, list(args))
    return res.exit_code, res.output


def test_kb_ingest_mixes_urls_and_paths(site: FakeWebServer, tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nA local file beside the web pages.\n")
    code, out = run("kb", "ingest", "site", str(note), f"{site.url}/doc.pdf", f"{site.url}/a",
                    f"{site.url}/gone", "--allow-private", "--json")  # fmt: skip
    assert code == 1, out  # /gone failed; the rest went in
    report = json.loads(out)
    by = {o["path"].removeprefix(site.url): o for o in report["outcomes"]}
    assert by[str(note.resolve())]["status"] == "added"
    assert by["/doc.pdf"]["status"] == "added" and by["/a"]["status"] == "added"
    assert by["/gone"]["status"] == "failed" and "fetch failed" in by["/gone"]["error"]
    assert (report["added"], report["failed"]) == (3, 1)

    code, out = run("kb", "docs", "site", "--json")
    titles = {d["document_id"].removeprefix(site.url): d["title"] for d in json.loads(out)}
    assert titles["/doc.pdf"] == "Report" and titles["/a"] == "Page A"

    code, out = run("kb", "ingest", "site", f"{site.url}/a", "--allow-private")
    assert code == 0 and "unchanged" in out  # same text: kept as it is


def test_kb_ingest_of_a_loopback_url_is_refused_without_allow_private(
    site: FakeWebServer,
) -> None:
    code, out = run("kb", "ingest", "site", f"{site.url}/a", "--json")
    assert code == 1
    [outcome] = json.loads(out)["outcomes"]
    assert outcome["status"] == "failed" and "fetch failed" in outcome["error"]
    assert site.count("GET", "/a") == 0  # refused before any request


def test_kb_ingest_refuses_other_schemes() -> None:
    code, out = run("kb", "ingest", "site", "ftp://example.com/file.txt")
    assert code == 2 and "only http(s) URLs" in out


def test_kb_crawl_reports_every_page_and_recrawls_changes(site: FakeWebServer) -> None:
    code, out = run("kb", "crawl", "site", f"{site.url}/", "--max-pages", "10",
                    "--allow-private", "--json")  # fmt: skip
    assert code == 1, out  # /gone is a failed page
    report = json.loads(out)
    by = {o["name"].removeprefix(site.url): o["status"] for o in report["outcomes"]}
    assert by["/"] == by["/a"] == by["/b"] == by["/doc.pdf"] == "added"
    assert by["/private/x"] == "skipped" and by["/gone"] == "failed"
    assert not any(r.path.startswith("/private") for r in site.requests)

    site.route("GET", "/a", page("Page A", "Alpha page, now changed.", ["/"]))
    site.route("GET", "/gone", page("Back", "It is back.", []))
    code, out = run("kb", "crawl", "site", f"{site.url}/", "--allow-private")
    assert code == 0, out
    rows = [line.split() for line in out.splitlines()]
    lines = {r[1].removeprefix(site.url): r[0] for r in rows if r[1:] and r[1].startswith("http")}
    assert lines["/a"] == "replaced" and lines["/"] == "unchanged"
    assert lines["/gone"] == "added" and lines["/private/x"] == "skipped"


def test_kb_crawl_max_pages_is_a_note_not_a_failure(site: FakeWebServer) -> None:
    code, out = run("kb", "crawl", "site", f"{site.url}/", "--max-pages", "1", "--allow-private")
    assert code == 0, out
    assert "stopped at --max-pages 1" in out


def test_kb_crawl_refuses_bad_input() -> None:
    code, out = run("kb", "crawl", "site", "file:///etc/passwd")
    assert code == 2 and "http(s) URL" in out
    code, out = run("kb", "crawl", "nope", "http://127.0.0.1:9/")
    assert code == 2 and "nope" in out
