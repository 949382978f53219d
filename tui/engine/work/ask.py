"""Narrow questions to the model: a short prompt with only the code that matters, one JSON schema the reply
is decoded under, and as many candidates as asked for.

The pipelines never let the model run free: each question is one request, its reply is valid JSON by
construction (Ollama's ``format``, llama.cpp's ``json_schema``), and nothing it says is trusted until a
program has checked it. Several candidates come from one request where the server samples them together
(llama.cpp's parallel slots read the prompt once); otherwise from requests in a row, whose prompt the
server's cache already holds.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from tui.protocol.errors import ContextOverflow, ModelError
from tui.protocol.events import Detail, Emit, ErrorEvent, Progress, Retrying
from tui.safety.parsing import loads_json
from tui.tools.support.common import CHARS_PER_TOKEN

SYSTEM = ("You are a precise assistant for a software developer. You answer exactly the question asked, "
          "in the JSON form asked for, using only the code and facts shown. Code you write is complete and "
          "runs as written.")
SAMPLE_HEAT = 0.7  # temperature for several candidates: varied enough to differ, cool enough to stay sensible
PROGRESS_EVERY = 0.5  # seconds between Progress events while a reply streams


@dataclass
class Reply:
    """One candidate: the parsed JSON (None when it did not parse: cut at the token limit) and its text."""

    value: Any
    text: str


@dataclass
class Asked:
    replies: list[Reply] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def values(self) -> list[Any]:
        return [r.value for r in self.replies if r.value is not None]

    @property
    def first(self) -> Any:
        return next(iter(self.values), None)


def tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN + 1


class Ask:
    """Asks one backend narrow questions for one session (``emit`` shows the wait; retries as configured)."""

    def __init__(self, backend: Any, emit: Emit, *, temperature: float = 0.2, retries: int = 2,
                 seed: int | None = None, budget: Any = None) -> None:
        self.backend, self.emit = backend, emit
        self.budget = budget  # the turn's time budget (budget.py): no further sample once it has no room for one
        self.temperature, self.retries, self.seed = temperature, retries, seed
        self.requests = 0  # model requests made (for the turn's details and the benchmark)

    async def json(self, user: str, schema: dict[str, Any], *, n: int = 1, system: str = SYSTEM,
                   max_tokens: int = 600, label: str = "", temperature: float | None = None) -> Asked:
        """``n`` candidates for ``user`` under ``schema``. The first is the coolest when ``n`` > 1 and the server
        samples one reply per request; with parallel slots all are sampled at SAMPLE_HEAT."""
        started = time.monotonic()
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        asked = Asked()
        if self.budget is not None and self.budget.bounded and self.budget.left() <= 0:
            self.budget.skip(f"the model was not asked for {label or 'an answer'}")
            return asked  # no candidates: every caller copes with none, and a request now would end past the time
        parallel = max(1, int(getattr(self.backend, "parallel", 1) or 1))
        heat = temperature if temperature is not None else (self.temperature if n == 1 else SAMPLE_HEAT)
        while len(asked.replies) < n:
            if asked.replies and self.budget is not None and not self.budget.fits("sample"):
                self.budget.skip(f"{n - len(asked.replies)} more candidate(s) were not asked for")
                break
            want = min(parallel, n - len(asked.replies))
            first = not asked.replies
            t = heat if (want > 1 or not first or n == 1) else self.temperature
            began = time.monotonic()
            texts = await self._request(messages, schema, want, t, max_tokens, label,
                                        seed=None if self.seed is None else self.seed + len(asked.replies))
            if self.budget is not None:
                self.budget.measure("sample", time.monotonic() - began)
            asked.replies += [Reply(_parse(text), text) for text in texts]
        asked.seconds = time.monotonic() - started
        return asked

    async def _request(self, messages: list[dict[str, Any]], schema: dict[str, Any], n: int, temperature: float,
                       max_tokens: int, label: str, seed: int | None) -> list[str]:
        options: dict[str, Any] = {"temperature": temperature, "num_predict": max_tokens}
        if n > 1:
            options["n"] = n
        if seed is not None:
            options["seed"] = seed
        prompt = sum(tokens(m["content"]) for m in messages)
        for attempt in range(self.retries + 1):
            parts: dict[int, list[str]] = {}
            self.requests += 1
            started = last = time.monotonic()
            self.emit(Progress("reading", label or "the question", total=prompt))
            try:
                stream = self.backend.stream_chat(messages, None, format=schema, options=options)
                async for chunk in stream:
                    if chunk.text:
                        parts.setdefault(chunk.index, []).append(chunk.text)
                    if self.budget is not None and self.budget.bounded and self.budget.left() <= 0:
                        close = getattr(stream, "aclose", None)
                        if close is not None:
                            await close()
                        self.budget.skip("the model's reply was cut short")
                        self.emit(Detail("the model's reply ran past the turn's time budget; it was cut there",
                                         "retry"))
                        break
                    now = time.monotonic()
                    if now - last >= PROGRESS_EVERY:
                        last = now
                        written = sum(len(p) for p in parts.values())
                        self.emit(Progress("writing", label or "the answer", done=tokens("x" * written),
                                           elapsed=now - started))
            except ContextOverflow:
                raise
            except ModelError as err:
                self.emit(ErrorEvent(err.message, err.hint, err.retryable, source="model"))
                if not err.retryable or attempt == self.retries:
                    raise
                delay = 0.5 * (2 ** attempt)
                self.emit(Retrying(attempt=attempt + 1, delay=delay, reason=err.message))
                await asyncio.sleep(delay)
                continue
            return ["".join(parts.get(i, [])) for i in range(max(n, len(parts)))][:max(n, 1)]
        raise AssertionError("unreachable")


def _parse(text: str) -> Any:
    text = text.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        return loads_json(text, "the model's answer")
    except ValueError:
        pass
    from tui.llm.requote import quote_escapes

    try:  # written under the embedded grammar: a \' in a string (lark_json), read as the code meant it
        return loads_json(quote_escapes(text), "the model's answer")
    except ValueError:
        return None
