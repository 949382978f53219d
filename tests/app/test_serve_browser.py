"""`devagent serve` in headless Chromium (the Debian package, driven by Playwright): a prompt typed in the
page, a proposal approved with a key, the change on disk; a reload keeps the session; requests without
the token or from another Origin are refused."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from tests.ollama_server import Reply, ScriptedOllama

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--headless", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


def _status(url: str, headers: dict[str, str] | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=10) as reply:
            return reply.status
    except urllib.error.HTTPError as err:
        return err.code


@pytest.fixture
def served(repo: Path, ollama_server: ScriptedOllama) -> Iterator[tuple[str, subprocess.Popen]]:
    pytest.importorskip("textual_serve", reason="`devagent serve` needs the serve extra (in the test extra too)")
    env = dict(os.environ, OLLAMA_HOST=ollama_server.url, TEXTUAL_ANIMATIONS="none")
    proc = subprocess.Popen([sys.executable, "-m", "tui", "serve", "--port", "0"], cwd=repo, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert first.startswith("devagent serve: open http://127.0.0.1:"), first + (proc.stderr.read() if proc.stderr
                                                                              else "")
    url = first.split("open ", 1)[1].strip()
    try:
        yield url, proc
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_requests_without_the_token_or_from_another_origin_are_refused(served: tuple[str, subprocess.Popen]) -> None:
    url, _proc = served
    base = url.split("/s/")[0]
    assert _status(url) == 200
    assert _status(base + "/") == 403
    assert _status(base + "/s/not-the-token/") == 403
    assert _status(base + "/s/not-the-token/static/js/textual.js") == 403
    assert _status(url, {"Origin": "http://evil.example"}) == 403
    assert _status(url, {"Sec-Fetch-Site": "cross-site"}) == 403
    assert _status(url, {"Host": "evil.example:80"}) == 403  # DNS rebinding
    import aiohttp

    async def websocket(origin: str | None) -> int:
        headers = {"Origin": origin} if origin else {}
        async with aiohttp.ClientSession() as session:
            try:
                async with session.ws_connect(url.replace("http", "ws") + "ws?width=80&height=24", headers=headers):
                    return 101
            except aiohttp.WSServerHandshakeError as err:
                return err.status

    assert asyncio.run(websocket("http://evil.example")) == 403
    assert asyncio.run(websocket(None)) == 403
    assert asyncio.run(websocket(base)) == 101


def test_ctrl_c_says_serve_stopped_not_that_the_app_exited(served: tuple[str, subprocess.Popen]) -> None:
    """Stopping `serve` stops the app it runs: that is "stopped"; "the app has exited" is for the app quitting."""
    import aiohttp

    url, proc = served
    base = url.split("/s/")[0]

    async def attach() -> None:  # a page attaches: the app starts and paints
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(url.replace("http", "ws") + "ws?width=80&height=24",
                                          headers={"Origin": base}) as ws:
                await asyncio.wait_for(ws.receive(), 30)

    asyncio.run(attach())
    proc.send_signal(signal.SIGINT)
    assert proc.wait(30) == 0
    assert proc.stderr is not None
    assert proc.stderr.read().strip().splitlines()[-1] == "devagent serve: stopped"


async def _wait(check: object, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.2)


async def test_a_prompt_typed_in_the_browser_is_approved_and_lands_on_disk(
        repo: Path, ollama_server: ScriptedOllama, served: tuple[str, subprocess.Popen]) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium is not installed ({CHROMIUM}); `apt-get install chromium` runs this test")
    playwright = pytest.importorskip("playwright.async_api", reason="playwright is in the test extra")
    url, _proc = served
    ollama_server.push(
        Reply(tool_calls=[{"name": "write_file", "arguments": {"path": "hello.txt", "content": "hello, browser\n"}}]),
        Reply("Created hello.txt."), Reply("Yes, hello.txt says hello."))
    async with playwright.async_playwright() as pw:
        browser = await pw.chromium.launch_persistent_context(
            tempfile.mkdtemp(prefix="devagent-chromium-"), executable_path=CHROMIUM, headless=True, args=FLAGS,
            viewport={"width": 1280, "height": 800})
        try:
            page = browser.pages[0] if browser.pages else await browser.new_page()
            await page.goto(url)
            await _wait(lambda: any(p.startswith("POST /api/show") for p in ollama_server.paths))
            await page.wait_for_timeout(1500)
            await page.focus(".xterm-helper-textarea")
            await page.keyboard.type("create hello.txt")
            await page.keyboard.press("Enter")
            await _wait(lambda: len(ollama_server.requests) >= 1)
            await page.wait_for_timeout(1500)  # the proposal reaches the queue, which takes focus
            assert not (repo / "hello.txt").exists()  # nothing before the approval
            shot = os.environ.get("DEVAGENT_SERVE_SCREENSHOT") or str(repo.parent / "serve.png")
            await page.screenshot(path=shot)  # the proposal waiting in the queue (docs/serve.png)
            await page.keyboard.press("a")
            await _wait(lambda: (repo / "hello.txt").exists(), 30)
            assert (repo / "hello.txt").read_text() == "hello, browser\n"
            await _wait(lambda: len(ollama_server.requests) >= 2)

            await page.reload()  # the page comes back to the same running app and session
            await page.wait_for_timeout(2000)
            await page.focus(".xterm-helper-textarea")
            await page.keyboard.type("does it say hello?")
            await page.keyboard.press("Enter")
            await _wait(lambda: len(ollama_server.requests) >= 3)
            assert "create hello.txt" in json.dumps(ollama_server.requests[2]["messages"])

            second = await browser.new_page()  # a second tab attaches to the same app
            frames: list[object] = []
            second.on("websocket", lambda ws: ws.on("framereceived", lambda frame: frames.append(frame)))
            await second.goto(url)
            await _wait(lambda: len(frames) > 2, 20)
        finally:
            await browser.close()
    assert len(ollama_server.requests) == 3  # one agent: the second tab started no new session or model turn
