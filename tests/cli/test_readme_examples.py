"""Every ```bash, ```sh and ```python example of README.md and docs/*.md runs as written.

A new user's path (issue #18): a fresh clone, ``bash scripts/demo.sh`` (the README's first
command: a .venv and a home), then the examples in the order the pages give them, from the
repository root, in one home. The walker copies the pages and the sample files into a
temporary folder (with a link to this .venv), gives the commands a fresh ``UNIFIND_HOME``,
``XDG_CONFIG_HOME`` and ``HOME``, and runs each command line by itself: exit 0 unless the
page says otherwise (``EXPECTED_RC``), never a Python traceback, and a command that reaches
the web (blocked here: no DNS) must say so with an honest status instead of an empty answer.

What cannot run as written is exercised the way a user would: ``unifind serve`` runs in the
background (on a free port, which the curl lines then use), ``unifind mcp`` gets an MCP
``initialize`` on stdin. ``NOT_RUN`` lists, with the reason, the few commands that are not
run at all; a test keeps that list short and free of stale entries.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from unifind.testing.servers import free_port

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(bash|sh|python)\n(.*?)^```", re.M | re.S)
#: What the copy of the clone holds besides the pages: the sample files the examples read.
COPIED = ("README.md", "docs", "examples", "scripts", "pyproject.toml")

#: Commands not run at all (prefix -> why). Keep it short: run what can be run.
NOT_RUN = {
    "bash scripts/demo.sh": "installs into .venv with pip; its last step, `unifind demo`, "
    "runs here first in the fresh home, as the README's later commands assume",
    "bash scripts/test.sh": "the whole test suite, this walker included",
    "pip install": "installs packages; this environment has every extra installed",
    "python bench/": "benchmarks of minutes to hours on ../shared/datasets; "
    "tests/bench/test_datasets_missing.py runs them where the data is missing",
}

#: Exit codes the pages document for a command run offline (prefix -> (code, where it says)).
EXPECTED_RC = {
    "unifind fetch ": (1, "README: 'exit 1 when it can't, saying why'"),
    "unifind providers --check": (1, "README: 'exit 1 on failure'; offline every provider fails"),
    # README: ask exits 1 when nothing was answered; offline the page and the web both fail.
    'unifind ask "what changed?" --url': (1, "README: '1 when nothing was answered'"),
    'unifind ask "where is my order?"': (1, "README: '1 when nothing was answered'"),
}

#: What a few commands must print, not just exit 0 with (prefix -> text in the output): the
#: tour's searches find the sample handbook, and the shell kept the DB query's $1000.
EXPECTED_OUT = {
    'unifind search "how do refunds work" --kb docs': "Refunds and returns",
    'unifind search "退款流程" --kb docs': '"title": "退款流程"',
    "unifind kb docs docs": "warranty.pdf",
    "unifind db search 'cheapest 5 laptops under $1000": '"query": "cheapest 5 laptops under $1000',
}

#: A command that reaches the web must say it could not: one of these in its output.
HONEST = ("unavailable", "degraded", "unreachable", "Could not fetch")
#: README, the result contract: a search no source could answer (`unavailable`) exits 1.
UNAVAILABLE_RC = 1
#: The server's documented port in the pages; the curl lines get the walker's free port.
DOC_PORT = "localhost:8765"
#: `NAME=$(command)`: the shell keeps NAME for the lines after it (the README's $KEY).
ASSIGN = re.compile(r"^([A-Za-z_]\w*)=\$\((.*)\)\s*(#.*)?$", re.S)
#: tests/conftest.py blocks the network in this process only; every Python process the
#: examples start imports this first (site's sitecustomize hook), so they are offline too,
#: on a machine with a network as well. Loopback stays open: the server, the curl lines.
GUARD = """
import socket

_connect = socket.socket.connect


def _guarded(self, address):
    host = str(address[0] if isinstance(address, tuple) else address)
    if self.family in (socket.AF_INET, socket.AF_INET6) and not host.startswith(
        ("127.", "::1", "localhost")
    ):
        raise OSError(f"network blocked in the README walker: connect to {host!r}")
    return _connect(self, address)


socket.socket.connect = _guarded
"""


@dataclass(frozen=True)
class Example:
    page: str
    line: int
    lang: str
    text: str


def examples() -> list[Example]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(Example(page.relative_to(ROOT).as_posix(), line, m[1], m[2]))
    return found


def commands(block: str) -> list[str]:
    """The block's command lines, a trailing backslash joining the next line."""
    out: list[str] = []
    pending = ""
    for raw in block.splitlines():
        line = pending + raw
        if line.rstrip().endswith("\\"):
            pending = line.rstrip()[:-1] + " "
            continue
        pending = ""
        if line.strip() and not line.lstrip().startswith("#"):
            out.append(line.strip())
    return out


def skipped(cmd: str) -> str | None:
    return next((why for prefix, why in NOT_RUN.items() if cmd.startswith(prefix)), None)


def expected_out(cmd: str) -> str | None:
    return next((text for prefix, text in EXPECTED_OUT.items() if cmd.startswith(prefix)), None)


def reaches_web(cmd: str) -> bool:
    words = shlex.split(cmd, comments=True)
    return "web" in words[:3] or "--web" in words or "fetch" in words[:2] or "--url" in words


class Walker:
    """One user's shell: the copy of the clone, the environment, variables set so far."""

    def __init__(self, tmp: Path) -> None:
        self.cwd = tmp / "clone"
        self.cwd.mkdir()
        for name in COPIED:
            src = ROOT / name
            copy = shutil.copytree if src.is_dir() else shutil.copy2
            copy(src, self.cwd / name)
        (self.cwd / ".venv").symlink_to(sys.prefix)  # demo.sh's .venv: this one
        self.home = tmp / "unifind-home"
        self.port = free_port()
        bindir = str(Path(sys.executable).parent)
        (guard := tmp / "offline").mkdir()
        (guard / "sitecustomize.py").write_text(GUARD, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith("UNIFIND_")}
        env.update(
            PYTHONPATH=os.pathsep.join(filter(None, [str(guard), env.get("PYTHONPATH")])),
            PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}",
            HOME=str(tmp / "user"),
            XDG_CONFIG_HOME=str(tmp / "xdg-config"),
            UNIFIND_HOME=str(self.home),
            UNIFIND_SERVER_PORT=str(self.port),
            OMP_NUM_THREADS="1",
            COLUMNS="120",
        )
        self.env = env
        self.failures: list[str] = []
        self.server: subprocess.Popen[bytes] | None = None

    def fail(self, where: str, cmd: str, why: str, proc: subprocess.CompletedProcess[str]) -> None:
        tail = (proc.stdout[-800:] + "\n--- stderr ---\n" + proc.stderr[-1500:]).strip()
        self.failures.append(f"{where}: {cmd}\n  {why}\n{tail}\n")

    def sh(self, cmd: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-c", cmd], cwd=self.cwd, env=self.env,
                              capture_output=True, text=True, timeout=timeout)  # fmt: skip

    def check(self, where: str, cmd: str, proc: subprocess.CompletedProcess[str]) -> None:
        want, _ = next((v for p, v in EXPECTED_RC.items() if cmd.startswith(p)), (0, ""))
        out = proc.stdout + proc.stderr
        if reaches_web(cmd) and re.search(r"\bunavailable\b", out) and "search" in cmd:
            want = UNAVAILABLE_RC  # offline, a web-only search: no source could answer
        if proc.returncode != want:
            self.fail(where, cmd, f"exit {proc.returncode}, expected {want}", proc)
        elif "Traceback (most recent call last)" in out:
            self.fail(where, cmd, "printed a Python traceback", proc)
        elif reaches_web(cmd) and not any(word in out for word in HONEST):
            self.fail(where, cmd, f"reached the web offline without saying so {HONEST}", proc)
        elif (text := expected_out(cmd)) is not None and text not in out:
            self.fail(where, cmd, f"does not print {text!r}", proc)

    def run_command(self, where: str, cmd: str) -> None:
        if skipped(cmd):
            return
        if cmd.startswith("unifind serve"):
            return self.start_server(where, cmd)
        if cmd.startswith("unifind mcp"):
            return self.initialize_mcp(where, cmd)
        cmd = cmd.replace(DOC_PORT, f"localhost:{self.port}")
        if m := ASSIGN.match(cmd):
            proc = self.sh(f'{m[1]}=$({m[2]}) && printf %s "${m[1]}"')
            self.env[m[1]] = proc.stdout
            return self.check(where, cmd, proc)
        proc = self.sh(cmd)
        self.check(where, cmd, proc)
        if cmd.startswith("curl"):
            self.check_http(where, cmd, proc)

    def check_http(self, where: str, cmd: str, proc: subprocess.CompletedProcess[str]) -> None:
        """curl exits 0 on any HTTP status: the answer itself must be a search."""
        if '"error"' in proc.stdout[:200] or "event: error" in proc.stdout:
            self.fail(where, cmd, "the server answered an error", proc)
        elif "event-stream" in cmd and "event: done" not in proc.stdout:
            self.fail(where, cmd, "the stream did not end with a done event", proc)
        elif "event-stream" not in cmd and "ref_001" not in proc.stdout:
            self.fail(where, cmd, "no cited result", proc)

    def start_server(self, where: str, cmd: str) -> None:
        """`unifind serve` keeps running: in the background, until /health answers."""
        log = self.cwd.parent / "serve.log"
        with log.open("wb") as out:  # a file, not a pipe: a chatty server never blocks on it
            self.server = subprocess.Popen(["bash", "-c", f"exec {cmd}"], cwd=self.cwd,
                                           env=self.env, stdout=out, stderr=out)  # fmt: skip
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and self.server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2):
                    return
            except OSError:
                time.sleep(0.5)
        err = log.read_text(errors="replace")[-1500:]
        self.failures.append(f"{where}: {cmd}\n  did not answer /health: {err}\n")

    def initialize_mcp(self, where: str, cmd: str) -> None:
        """`unifind mcp` speaks on stdio: an MCP client's first message, then stdin closes."""
        init = {
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "readme-walker", "version": "0"}},
        }  # fmt: skip
        stdin = json.dumps(init) + "\n"
        proc = subprocess.run(["bash", "-c", cmd], cwd=self.cwd, env=self.env, timeout=120,
                              input=stdin, capture_output=True, text=True)  # fmt: skip
        self.check(where, cmd, proc)
        first = proc.stdout.splitlines()[:1]
        if not first or "serverInfo" not in first[0]:
            self.fail(where, cmd, "no initialize result on stdout", proc)
        elif f"home {self.home}" not in proc.stderr:
            self.fail(where, cmd, "stderr does not name the home", proc)

    def run_python(self, where: str, code: str, n: int) -> None:
        script = self.cwd.parent / f"example_{n}.py"
        script.write_text(code, encoding="utf-8")
        proc = subprocess.run([sys.executable, str(script)], cwd=self.cwd, env=self.env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        self.check(where, f"python ({where})", proc)

    def close(self) -> None:
        """Stop the server; what it logged while serving the curl lines has no traceback."""
        if self.server is None:
            return
        self.server.terminate()
        try:
            self.server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()
        self.server = None
        log = (self.cwd.parent / "serve.log").read_text(errors="replace")
        if "Traceback (most recent call last)" in log:
            self.failures.append(f"unifind serve logged a traceback:\n{log[-3000:]}\n")


@pytest.fixture
def walker(tmp_path: Path) -> Iterator[Walker]:
    w = Walker(tmp_path)
    try:
        yield w
    finally:
        w.close()


def page_config(page: str) -> str | None:
    """docs/config.md's examples name "the file above" as ./unifind.yaml: its first YAML."""
    if page != "docs/config.md":
        return None
    m = re.search(r"^```yaml\n(.*?)^```", (ROOT / page).read_text(encoding="utf-8"), re.M | re.S)
    return m[1] if m else None


@pytest.mark.slow
def test_every_example_runs_as_written(walker: Walker) -> None:
    walker.check("scripts/demo.sh", "unifind demo", walker.sh("unifind demo"))
    page = ""
    for n, ex in enumerate(examples()):
        if ex.page != page:
            page = ex.page
            (walker.cwd / "unifind.yaml").unlink(missing_ok=True)
            if (config := page_config(page)) is not None:
                (walker.cwd / "unifind.yaml").write_text(config, encoding="utf-8")
        where = f"{ex.page}:{ex.line}"
        if ex.lang == "python":
            walker.run_python(where, ex.text, n)
            continue
        for cmd in commands(ex.text):
            walker.run_command(where, cmd)
    walker.close()
    assert not walker.failures, "\n".join(walker.failures)


def test_what_is_not_run_is_short_and_each_entry_is_still_needed() -> None:
    cmds = [c for ex in examples() if ex.lang != "python" for c in commands(ex.text)]
    assert len(NOT_RUN) <= 4
    for prefix in NOT_RUN:
        assert any(c.startswith(prefix) for c in cmds), f"stale NOT_RUN entry: {prefix}"
    for prefix in [*EXPECTED_RC, *EXPECTED_OUT]:
        assert any(c.startswith(prefix) for c in cmds), f"stale entry: {prefix}"


def test_the_walker_finds_the_pages_examples() -> None:
    found = examples()
    assert {"README.md", "docs/mcp.md", "docs/config.md"} <= {e.page for e in found}
    tour = commands(next(e.text for e in found if "unifind kb create docs" in e.text))
    assert "unifind kb create docs" in tour[1]
    curl = [c for e in found for c in commands(e.text) if c.startswith("curl ")]
    assert curl and all("\\" not in c and "-d '{" in c for c in curl)  # continuations joined
