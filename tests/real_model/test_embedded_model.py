"""The embedded backend with the real 1.5B model: it answers, and it leaves no process behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tui.config import Config
from tui.llm.base import Deadlines
from tui.llm.embedded import EmbeddedBackend, LoadProgress

pytestmark = pytest.mark.real_model

DEADLINES = Deadlines(connect=10.0, chunk=120.0, total=300.0)


def gone(pid: int, wait: float = 20.0) -> bool:
    """True once ``pid`` no longer exists (a zombie of ours is reaped by Popen; others count as gone too)."""
    end = time.monotonic() + wait
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().split(")")[-1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.1)
    return False


def config() -> Config:
    cfg = Config()
    cfg.model.temperature = 0.0
    cfg.model.seed = 42
    cfg.model.context = 2048
    return cfg


async def test_answers_from_the_prompt_and_stops_cleanly(real_model_path: Path) -> None:
    progress: list[LoadProgress] = []
    backend = EmbeddedBackend(real_model_path, config(), DEADLINES, on_progress=progress.append)
    try:
        info = await backend.connect()
        assert info.name == real_model_path.name and info.context_length == 2048
        assert progress[0].stage == "starting" and progress[-1].stage == "ready"
        pid = backend.server.proc.pid  # type: ignore[union-attr]
        messages = [
            {"role": "system", "content": "You answer in one short sentence."},
            {"role": "user", "content": "Our deploy server is called MARLINSPIKE-7. What is the deploy server called?"},
        ]
        text, done = "", None
        async for chunk in backend.stream_chat(messages, options={"num_predict": 40}):
            text += chunk.text
            done = chunk if chunk.done else done
        assert "MARLINSPIKE-7" in text.upper()
        assert done is not None and done.completion_tokens
    finally:
        await backend.close()
    assert gone(pid), "the model process must be gone after close()"
    assert progress[-1].stage == "stopped"


def test_model_process_dies_with_devagent(real_model_path: Path, tmp_path: Path) -> None:
    """SIGKILL the process that owns the server: the model child must not outlive it."""
    script = tmp_path / "owner.py"
    script.write_text(
        "import asyncio, sys\n"
        "from tui.llm.embedded import EmbeddedServer\n"
        "async def main():\n"
        f"    s = EmbeddedServer({str(real_model_path)!r}, threads=1, context=512)\n"
        "    await s.start()\n"
        "    print(s.proc.pid, flush=True)\n"
        "    await asyncio.sleep(600)\n"
        "asyncio.run(main())\n"
    )
    root = Path(__file__).resolve().parents[2]
    owner = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=root,
                             env={**os.environ, "PYTHONPATH": str(root)})
    try:
        line = owner.stdout.readline()  # type: ignore[union-attr]
        assert line.strip().isdigit(), "the owner never reported a ready model"
        child = int(line)
        assert not gone(child, wait=0.5)
        owner.send_signal(signal.SIGKILL)
        owner.wait(timeout=30)
        assert gone(child), "the model process outlived its owner"
    finally:
        if owner.poll() is None:
            owner.kill()


def _code(name: str, lines: int) -> str:
    return "\n".join(f"def {name}_{i}(x):\n    return x * {i} + {len(name)}" for i in range(lines))


async def test_a_step_the_fitter_removes_is_not_a_reason_to_read_the_rest_again(real_model_path: Path) -> None:
    """When the context is full, the Fitter removes an older step whole and the server (llama.cpp with cache
    reuse) shifts the cached messages after the gap into place: only the new step is read."""
    from tui.engine import context

    backend = EmbeddedBackend(real_model_path, config(), DEADLINES)
    fitter = context.Fitter()
    messages: list[dict] = [
        {"role": "system", "content": "You are a coding assistant. Answer with one JSON tool call."},
        {"role": "user", "content": "Which function returns x * 7 + 5?"},
    ]
    for step, name in enumerate(("alpha", "gamma")):
        messages += [{"role": "assistant", "content": f'{{"name": "read_file", "arguments": {{"path": "{name}.py"}}}}'},
                     {"role": "user", "_tool": True, "content": f"Result of read_file(path={name}.py):\n" + _code(name, 40)}]
    limit, reserve = 1000, 100
    try:
        await backend.connect()
        first, _, cuts = fitter.fit(messages, limit, reserve)
        assert cuts == 0
        await backend.warm(context.wire(first))
        messages += [{"role": "assistant", "content": '{"name": "read_file", "arguments": {"path": "omega.py"}}'},
                     {"role": "user", "_tool": True, "content": "Result of read_file(path=omega.py):\n" + _code("omega", 2)}]
        second, _, cuts = fitter.fit(messages, limit, reserve)
        assert cuts > 0 and not any("alpha_3" in m["content"] for m in second)  # the oldest step went, whole
        assert any("gamma_3" in m["content"] for m in second) and context.REMOVED in second[-1]["content"]
        timings = await backend.warm(context.wire(second))
    finally:
        await backend.close()
    gamma_tokens = context.message_tokens(messages[4]) + context.message_tokens(messages[5])  # after the gap
    # Without cache reuse every token after the gap (the whole gamma step, ~300) is read again.
    assert int(timings["prompt_n"]) < gamma_tokens // 2, timings
    assert int(timings["cache_n"]) > gamma_tokens, timings


async def test_js_code_that_escapes_its_quotes_arrives_whole(real_model_path: Path) -> None:
    """The real model writes ``'the string \\'a\\''`` inside the JSON string; under the server's plain JSON
    grammar the code was cut there ("... for the string "). Under devagent's grammar it arrives whole and reads
    back as the JS it meant."""
    from tui.engine.work.ask import _parse

    prompt = (Path(__file__).parent / "prompts" / "js_test_with_quotes.txt").read_text()
    schema = {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}
    backend = EmbeddedBackend(real_model_path, config(), DEADLINES)
    try:
        await backend.connect()
        text = ""
        async for chunk in backend.stream_chat([{"role": "user", "content": prompt}], format=schema,
                                               options={"num_predict": 300}):
            text += chunk.text
    finally:
        await backend.close()
    code = (_parse(text) or {}).get("code", "")
    assert code.rstrip().endswith("});") and "isRegExp" in code, text
    ran = subprocess.run(["node", "--check", "-"], input=code, capture_output=True, text=True, timeout=30)
    assert ran.returncode == 0, (code, ran.stderr)
