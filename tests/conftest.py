"""Suite-wide fixtures: an isolated UNIFIND_HOME and no real network."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("OMP_NUM_THREADS", "1")
# Milvus Lite's in-process gRPC server logs keepalive chatter to stderr when the test
# process exits, after pytest's summary; it is noise, not a result.
os.environ.setdefault("GRPC_VERBOSITY", "NONE")

_LOOPBACK = ("127.", "::1", "localhost", "0.0.0.0")
_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address: object) -> object:
    host = address[0] if isinstance(address, tuple) else str(address)
    if self.family in (socket.AF_INET, socket.AF_INET6) and not str(host).startswith(_LOOPBACK):
        raise OSError(f"network blocked in tests: connect to {host!r} (use -m network for live)")
    return _real_connect(self, address)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def _no_network(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("network") is None:
        monkeypatch.setattr(socket.socket, "connect", _guarded_connect)


@pytest.fixture(autouse=True)
def unifind_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own empty UNIFIND_HOME, and no config file is found for it."""
    home = tmp_path / "unifind-home"
    monkeypatch.setenv("UNIFIND_HOME", str(home))
    monkeypatch.delenv("UNIFIND_CONFIG", raising=False)
    # Config discovery reads ./unifind.yaml and $XDG_CONFIG_HOME/unifind/config.yaml: a
    # developer's own must not leak in. An empty folder of its own, not tmp_path, where
    # tests write config files they mean to pass explicitly.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    (cwd := tmp_path / "cwd").mkdir()
    monkeypatch.chdir(cwd)
    yield home
