"""A cancelled leg really stops: the loser of a race closes its HTTP connection."""

from __future__ import annotations

import asyncio

from unifind import Reason, Searcher, SearchRequest, SearchResult, Status, load_settings
from unifind.testing.legs import FakeLeg, fake_items


class AfterEvent(FakeLeg):
    """Answers once ``event`` is set (a timed win lost the race under load in CI)."""

    def __init__(self, event: asyncio.Event) -> None:
        super().__init__("kb", 0.0, fake_items("kb", 1))
        self.event = event

    async def search(self, req: SearchRequest, **kw: object) -> SearchResult:
        await asyncio.wait_for(self.event.wait(), 30.0)
        return await super().search(req, **kw)


async def test_race_loser_closes_its_socket() -> None:
    requested, closed = asyncio.Event(), asyncio.Event()

    async def never_answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")  # the request arrives...
            requested.set()  # ...only now may the kb leg win the race
            while await reader.read(1024):  # ...and we never answer, until the client hangs up
                pass
            closed.set()
        finally:
            writer.close()  # also when cancelled: no writer left for a later test's GC

    server = await asyncio.start_server(never_answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    settings = load_settings(
        records=False,
        web={"search_provider": "searxng", "searxng": {"base_url": f"http://127.0.0.1:{port}"}},
    )
    # The kb leg wins only after the web request has arrived: a fixed 0.3 s win lost to the
    # web leg's first-use imports on a loaded CI machine (the request was never sent).
    s = Searcher(settings, legs={"kb": AfterEvent(requested)})
    async with server:
        res = await s.race(
            [SearchRequest(type="web", query="q"), SearchRequest(type="kb", query="q")]
        )
        assert requested.is_set(), "the web leg never sent its request: the test proves nothing"
        web = res.results[0].reports[0]
        assert (web.status, web.reason) == (Status.SKIPPED, Reason.CANCELLED)
        await asyncio.wait_for(closed.wait(), 2.0)  # the socket closed: the request stopped
