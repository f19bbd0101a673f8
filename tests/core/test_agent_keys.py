"""An LLM agent's key HTTP can't carry (the README's ``…`` placeholder) is ``no_key`` naming
where it came from, never a UnicodeEncodeError out of httpx (issue #18)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from unifind.errors import SourceError
from unifind.llm import chat, stream_chat
from unifind.rerankers.agent import api_key
from unifind.testing.openai_server import OpenAIServer
from unifind.types import Reason

HI = [{"role": "user", "content": "hi"}]


@pytest.fixture
def srv() -> Iterator[OpenAIServer]:
    with OpenAIServer(api_key="sk-test") as server:
        yield server


async def test_chat_and_stream_refuse_a_placeholder_key_before_sending(srv: OpenAIServer) -> None:
    srv.script_chat("hello")
    with pytest.raises(SourceError, match=r"the API key contains non-ASCII .*U\+2026") as err:
        await chat(HI, model="m", base_url=srv.base_url, api_key="…")
    assert err.value.reason is Reason.NO_KEY
    with pytest.raises(SourceError, match=r"control character \(U\+000A") as err:
        async for _ in stream_chat(HI, model="m", base_url=srv.base_url, api_key="sk-test\n"):
            pass
    assert err.value.reason is Reason.NO_KEY and srv.requests == []
    assert await chat(HI, model="m", base_url=srv.base_url, api_key="sk-test") == "hello"


def test_an_agent_profile_key_is_named_by_its_setting_or_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(SourceError, match=r"agents\.shop\.api_key contains non-ASCII"):
        api_key({"api_key": "…"}, "shop")
    monkeypatch.setenv("SHOP_KEY", "…")
    with pytest.raises(SourceError, match=r"agent 'shop': SHOP_KEY contains non-ASCII") as err:
        api_key({"api_key_env": "SHOP_KEY"}, "shop")
    assert err.value.reason is Reason.NO_KEY
    monkeypatch.setenv("SHOP_KEY", "sk-real")
    assert api_key({"api_key_env": "SHOP_KEY"}, "shop") == "sk-real"
