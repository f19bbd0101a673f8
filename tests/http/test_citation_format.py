"""``citation_format`` from a request is a template of {id}/{index}, never a format string
(issue #18: "{id:>1000000000}" allocated gigabytes, "{x}" was a 500 with a traceback)."""

from __future__ import annotations

import tracemalloc
from typing import Any

import httpx
import pytest

HOSTILE = [
    "{id:>1000000000}",
    "{x}",
    "{",
    "{0}",
    "}",
    "{index.__class__.__base__.__subclasses__}",
    "{id!r}",
    "{index[0]}",
    "{{id}}",
    "[no field]",
    "[{id}]" + "x" * 60,
    "[{id}]\n",
]


def _refused(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 400, r.text
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "field", "valid"}
    e: dict[str, Any] = body["error"]
    assert (e["code"], e["field"]) == ("invalid_input", "citation_format")
    assert "{id}" in e["message"] and "{index}" in e["message"]  # says what is valid
    assert "Traceback" not in e["message"] and "subclasses" not in e["message"]
    return e


@pytest.mark.parametrize("template", HOSTILE)
async def test_a_hostile_template_is_400_naming_the_field(
    client: httpx.AsyncClient, template: str
) -> None:
    body = {"query": "refund", "references": True, "citation_format": template}
    tracemalloc.start()
    try:
        r = await client.post("/v1/search", json=body)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    _refused(r)
    assert peak < 50_000_000  # the padded "{id:>1000000000}" alone was a gigabyte


async def test_refused_before_the_stream_starts_and_without_references(
    client: httpx.AsyncClient,
) -> None:
    body = {"query": "refund", "citation_format": "{id:>1000000000}"}
    _refused(await client.post("/v1/search", json=body))  # references off: still checked
    stream = {"Accept": "text/event-stream"}
    _refused(await client.post("/v1/search", json=body, headers=stream))


@pytest.mark.parametrize(
    ("template", "example"),
    [
        ("[{id}]", "[ref_001]"),
        ("#ref:{id}", '<a href="#ref:ref_001">[1]</a>'),
        ("[^{index}]", "[^1]"),
        ("({id}, {index})", "(ref_001, 1)"),
    ],
)
async def test_valid_templates_still_work(
    client: httpx.AsyncClient, template: str, example: str
) -> None:
    body = {"query": "refund", "references": True, "citation_format": template}
    r = await client.post("/v1/search", json=body)
    assert r.status_code == 200, r.text
    refs = r.json()["references"]
    assert f"cite it as {example}." in refs["prompt"]
    assert 'id="ref_001"' in refs["xml"]


async def test_the_default_prompt_cites_as_ask_does(client: httpx.AsyncClient) -> None:
    """One citation format everywhere (issue #20): without citation_format the prompt asks
    for [ref_001], the form the ask answer, the MCP tools and the citation check use."""
    r = await client.post("/v1/search", json={"query": "refund", "references": True})
    assert r.status_code == 200, r.text
    prompt = r.json()["references"]["prompt"]
    assert "cite it as [ref_001]." in prompt and "href" not in prompt
