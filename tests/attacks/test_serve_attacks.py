"""`devagent serve` in a hostile repository: its app child never imports the repository's Python, and a
request that does not carry the token (or comes from another origin) starts nothing.

The server starts the app (`python -P -m tui`, in the repo) when the first page attaches; a planted `tui/`,
`textual/` or `sitecustomize.py` must not run. A sandboxed command approved with network can reach
127.0.0.1, so the port is no secret: the token is the key. Defended: tests/app/test_serve_browser.py checks
the guard from a browser; these check the host side from an attacker's seat.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from tests.attacks.harness import SECRET, Attack
from tests.attacks.test_host_python import plant
from tests.conftest import make_repo
from tests.ollama_server import ScriptedOllama

aiohttp = pytest.importorskip("aiohttp")
pytest.importorskip("textual_serve")


def serve(repo: Path, url: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    env = {**os.environ, "OLLAMA_HOST": url, "TEXTUAL_ANIMATIONS": "none", "DEVAGENT_API_KEY": SECRET}
    proc = subprocess.Popen([str(Path(sys.executable).with_name("devagent")), "serve", "--port", "0"], cwd=repo,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert first.startswith("devagent serve: open http://127.0.0.1:"), first
    try:
        yield first.split("open ", 1)[1].strip(), proc
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


async def attach(ws_url: str, origin: str | None, seconds: float) -> int:
    headers = {"Origin": origin} if origin else {}
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(ws_url, headers=headers) as ws:
                end = time.monotonic() + seconds
                while time.monotonic() < end:  # let the app start and paint
                    try:
                        await asyncio.wait_for(ws.receive(), max(0.1, end - time.monotonic()))
                    except asyncio.TimeoutError:
                        break
                return 101
        except aiohttp.WSServerHandshakeError as err:
            return err.status


def test_the_served_app_never_imports_the_repositorys_python(tmp_path: Path,
                                                              ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    attack = Attack(repo)
    plant(repo, attack.markers, "tui", "textual", "sitecustomize.py", "usercustomize.py", "aiohttp")
    for url, proc in serve(repo, ollama_server.url):
        base = url.split("/s/")[0]
        assert asyncio.run(attach(url.replace("http", "ws") + "ws?width=80&height=24", base, 8)) == 101
        kids = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
        assert kids, "the app never started"  # it did start, in the repo, and still imported nothing from it
    attack.check()


def test_without_the_token_nothing_starts(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    attack = Attack(repo)
    plant(repo, attack.markers, "tui")
    for url, proc in serve(repo, ollama_server.url):
        base = url.split("/s/")[0]
        token = url.split("/s/")[1].strip("/")
        wrong = [f"{base}/s/{token[:-1]}/ws", f"{base}/s/{token}x/ws", f"{base}/s//ws", f"{base}/s/%2e%2e/ws",
                 f"{base}/s/{token.upper()}/ws" if token.upper() != token else f"{base}/s/{token.lower()}x/ws"]
        for ws in wrong:
            assert asyncio.run(attach(ws.replace("http", "ws"), base, 0.2)) == 403, ws
        assert asyncio.run(attach(url.replace("http", "ws") + "ws", "http://127.0.0.1:1", 0.2)) == 403
        assert asyncio.run(attach(url.replace("http", "ws") + "ws", "null", 0.2)) == 403
        time.sleep(1)
        kids = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
        assert kids == [], "a refused request started the app"
    attack.check()
