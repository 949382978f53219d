#!/usr/bin/env python3
"""The first answer and the prompt cache, with the real model (embedded llama.cpp, Qwen2.5-Coder 1.5B, 2 threads).

1. First token: a session starts (the model loads, the warm-up runs in the background), the prompt is sent
   20 s after the start, and the time from sending it to the first streamed token is measured. Baseline,
   in the same run: the same with the warm-up turned off.
2. Prompt cache: one multi-step turn (read two files, then edit one) at a 4,096-token context; llama.cpp
   reports per request how many prompt tokens came from its cache (``timings.cache_n``) and how many it
   processed (``prompt_n``); the share served from cache over the turn is the figure.

Targets (issue 13): first token within 5 s; at least 85% of the turn's prompt tokens served from cache.
Runs against whatever ``tui`` is importable (PYTHONPATH=an older checkout measures "before").

    python scripts/bench_firstrun.py [--model-file PATH] [--delay 20] [--json FILE] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import isolate_env, scenario, skipped, small_repo, table, write_json  # noqa: E402

COUNTERS = [
    ("words", "whitespace-separated", "part"), ("digits", "tokens made of digits", "part.isdigit()"),
    ("capitals", "tokens starting upper-case", "part[:1].isupper()"),
    ("long_words", "seven letters or more", "len(part) >= 7"), ("short_words", "three or fewer", "len(part) <= 3"),
    ("questions", "tokens ending in ?", "part.endswith('?')"), ("urls", "tokens with ://", "'://' in part"),
    ("hashtags", "tokens starting with #", "part.startswith('#')"),
    ("mentions", "tokens starting with @", "part.startswith('@')"),
    ("emails", "tokens with @ and a dot", "'@' in part and '.' in part"),
    ("numbers", "tokens that parse as numbers", "part.replace('.', '', 1).isdigit()"),
    ("snake_case", "tokens with an underscore", "'_' in part"), ("dashed", "tokens with a dash", "'-' in part"),
    ("dotted", "tokens with a dot", "'.' in part"), ("upper", "all upper-case", "part.isupper()"),
    ("lower", "all lower-case", "part.islower()"), ("titles", "title-case tokens", "part.istitle()"),
]  # util.py is long enough (~1,500 tokens) that the turn overflows the 4,096-token context
FILES = {
    "README.md": "# textkit\n\nSmall text helpers: slugs, titles and word counts.\n",
    "text.py": ('"""Text helpers."""\n\nimport re\n\n\ndef slugify(title: str) -> str:\n'
                '    """Lower-case words joined by dashes."""\n    words = re.findall(r"[a-z0-9]+", title.lower())\n'
                '    return "-".join(words)\n\n\ndef title_case(text: str) -> str:\n'
                '    return " ".join(w.capitalize() for w in text.split())\n'),
    "util.py": '"""Counting helpers."""\n' + "".join(
        f'\n\ndef count_{name}{tail}(text: str) -> int:\n    """How many {name} the text has ({what})."""\n'
        f'    return sum(1 for part in text{".strip()" if tail else ""}.split() if {test})\n'
        for tail in ("", "_stripped") for name, what, test in COUNTERS),
    "test_text.py": ("from text import slugify\n\n\ndef test_slugify():\n"
                     "    assert slugify('Hello World') == 'hello-world'\n"),
}
FIRST_PROMPT = "What does this project do? Answer in one sentence."
TURN_PROMPT = ("Read text.py and util.py, then add a function shout(text) to util.py that returns "
               "text.upper() + '!'.")


class AutoApprove:
    async def decide(self, proposal: Any) -> Any:
        from tui.protocol.proposals import Decision

        return Decision("approve", by="bench")


async def _session(repo: Path, model_file: Path, warm: bool) -> tuple[Any, list[Any]]:
    from tui.config import load_config
    from tui.engine.session import Session

    config = load_config(repo)
    config.model.threads, config.model.context, config.model.max_context = 2, 4096, 4096
    config.model.seed, config.model.temperature = 42, 0.0
    config.model.total_timeout, config.model.chunk_timeout = 900.0, 300.0
    events: list[Any] = []
    session = await Session.open(repo, config, approver=AutoApprove(), emit=events.append,
                                 model_file=str(model_file))
    if not warm:
        session._start_warmup = lambda: None  # the baseline: this session never warms the cache
    return session, events


def _record_timings(session: Any, log: list[dict[str, Any]]) -> None:
    """Keep llama.cpp's timings of every request the agent makes (the backend keeps only the last)."""
    backend = session.backend
    original = backend.stream_chat

    async def recorded(*args: Any, **kwargs: Any) -> Any:
        async for chunk in original(*args, **kwargs):
            yield chunk
        log.append(dict(getattr(backend, "last_timings", {}) or {}))

    backend.stream_chat = recorded


async def first_token(repo: Path, model_file: Path, delay: float, warm: bool) -> dict[str, Any]:
    started = time.monotonic()
    session, events = await _session(repo, model_file, warm)
    try:
        await session.connect()
        loaded = time.monotonic() - started
        await asyncio.sleep(max(0.0, delay - (time.monotonic() - started)))
        before = len(events)
        sent = time.monotonic()
        turn = asyncio.ensure_future(session.run_turn(FIRST_PROMPT, verify=False))
        while not any(type(e).__name__ == "TextDelta" for e in events[before:]) and not turn.done():
            await asyncio.sleep(0.02)
        first = time.monotonic() - sent
        await turn
        return {"first_token": first, "load": loaded, "warmup": dict(getattr(session, "warmup", {}) or {})}
    finally:
        await session.close()


async def cache_share(repo: Path, model_file: Path, delay: float) -> dict[str, Any]:
    session, events = await _session(repo, model_file, True)
    log: list[dict[str, Any]] = []
    try:
        await session.connect()
        await asyncio.sleep(delay)
        _record_timings(session, log)
        started = time.monotonic()
        done = await session.run_turn(TURN_PROMPT, verify=False)
        seconds = time.monotonic() - started
    finally:
        await session.close()
    cached = sum(int(t.get("cache_n") or 0) for t in log)
    processed = sum(int(t.get("prompt_n") or 0) for t in log)
    return {"requests": len(log), "cache_n": cached, "prompt_n": processed, "seconds": seconds,
            "share": cached / (cached + processed) if cached + processed else None, "reason": done.reason,
            "reprocessed": reprocessed(log),
            "per_request": [(t.get("cache_n"), t.get("prompt_n"), t.get("predicted_n")) for t in log]}


def reprocessed(log: list[dict[str, Any]]) -> int:
    """Tokens the server had in its cache after one request but processed again in the next (0 is ideal):
    a request can reuse at most what the previous one read and wrote; what it does not reuse was re-read."""
    total = 0
    for before, after in zip(log, log[1:]):
        reusable = sum(int(before.get(k) or 0) for k in ("cache_n", "prompt_n", "predicted_n"))
        total += max(0, min(reusable, int(after.get("cache_n") or 0) + int(after.get("prompt_n") or 0))
                     - int(after.get("cache_n") or 0))
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-file", type=Path)
    parser.add_argument("--delay", type=float, default=20.0, help="seconds from start to sending the prompt")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--quick", action="store_true", help="skip (the real model is not part of --quick)")
    args = parser.parse_args()
    title1, title2 = "First token, prompt sent 20 s after start", "Prompt tokens served from cache (turn)"
    if args.quick:
        rows = [skipped("firstrun", title1, "real-model scenarios are not part of --quick")]
    else:
        rows = run(args)
    print(table(rows))
    if args.json:
        write_json(args.json, rows)
    return 0


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    from tui.llm.modelcache import model_dir

    model = args.model_file or Path(os.environ.get("DEVAGENT_TEST_MODEL_DIR") or model_dir()) / \
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    if not model.is_file():
        return [skipped("firstrun", "First answer (real model)", f"{model} is missing: devagent models pull "
                        "qwen2.5-coder-1.5b")]
    with tempfile.TemporaryDirectory(prefix="devagent-bench-firstrun-") as tmp:
        base = Path(tmp)
        isolate_env(base)
        cold = asyncio.run(first_token(small_repo(base / "cold", FILES), model, args.delay, warm=False))
        warm = asyncio.run(first_token(small_repo(base / "warm", FILES), model, args.delay, warm=True))
        turn = asyncio.run(cache_share(small_repo(base / "turn", FILES), model, args.delay))
    print(f"cold {cold}\nwarm {warm}\nturn {turn}", file=sys.stderr)
    return [
        scenario("firstrun", f"First token, prompt sent {args.delay:.0f} s after start", [warm["first_token"]],
                 [cold["first_token"]], baseline_name="the same with no warm-up", target="<= 5 s",
                 target_ok=lambda r: r["devagent"]["median"] <= 5.0,
                 notes=f"model load {warm['load']:.1f} s; warm-up {warm['warmup']}", extra={"cold": cold, "warm": warm}),
        scenario("firstrun-cache", "Prompt tokens served from cache (turn)",
                 [turn["share"]] if turn["share"] is not None else None, None, unit="share", target=">= 0.85",
                 target_ok=lambda r: r["devagent"]["median"] >= 0.85,
                 notes=f"{turn['requests']} requests, cache_n {turn['cache_n']}, prompt_n {turn['prompt_n']}, "
                       f"{turn['seconds']:.0f} s, {turn['reason']}; per request (cache_n, prompt_n, predicted_n) "
                       f"{turn['per_request']}", extra=turn),
        scenario("firstrun-reread", "Cached tokens read again (turn)", [float(turn["reprocessed"])], None,
                 unit="tokens", target="0 (a stable prefix)", target_ok=lambda r: r["devagent"]["median"] == 0,
                 notes="what a request could have reused from the previous one but processed again"),
    ]


if __name__ == "__main__":
    sys.exit(main())
