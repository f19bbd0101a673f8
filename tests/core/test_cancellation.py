"""A cancelled leg really stops: the loser of a race closes its HTTP connection."""

from __future__ import annotations

import asyncio

from unifind import Reason, Searcher, SearchRequest, Status, load_settings
from unifind.testing.legs import FakeLeg, fake_items


async def test_race_loser_closes_its_socket() -> None:
    accepted, closed = asyncio.Event(), asyncio.Event()

    async def never_answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.set()
        await reader.readuntil(b"\r\n\r\n")  # the request arrives...
        while await reader.read(1024):  # ...and we never answer, until the client hangs up
            pass
        closed.set()
        writer.close()

    server = await asyncio.start_server(never_answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    settings = load_settings(
        records=False,
        web={"search_provider": "searxng", "searxng": {"base_url": f"http://127.0.0.1:{port}"}},
    )
    kb = FakeLeg("kb", 0.3, fake_items("kb", 1))
    s = Searcher(settings, legs={"kb": kb})
    # Build the web leg before the race: its first use imports the HTTP stack and the
    # provider, which on a loaded machine took longer than the kb leg's 0.3 s.
    s.leg("web")
    async with server:
        res = await s.race(
            [SearchRequest(type="web", query="q"), SearchRequest(type="kb", query="q")]
        )
        assert accepted.is_set(), "the web leg never connected: the test proves nothing"
        web = res.results[0].reports[0]
        assert (web.status, web.reason) == (Status.SKIPPED, Reason.CANCELLED)
        await asyncio.wait_for(closed.wait(), 2.0)  # the socket closed: the request stopped
