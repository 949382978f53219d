"""context.Fitter keeps the conversation prefix byte-identical across requests, so the server's cache serves it.

Property: across a multi-step turn, each request's messages start with the previous request's messages,
except where the budget forced a cut; and a cut removes whole messages after the system prompt, the
request and its grounding (the current turn's older steps), never edits one already sent, so the
server's cache reuse serves the messages after the gap. The newest result names what was removed.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tui.engine.context import fitter as context

LIMIT, RESERVE = 4096, 1024
BUDGET = LIMIT - RESERVE


def _result(i: int, size: int) -> dict[str, Any]:
    return {"role": "user", "_tool": True, "content": f"Result of read_file(path=f{i}.py):\n" + "x" * size}


def _call(i: int) -> dict[str, Any]:
    return {"role": "assistant", "content": f'{{"name": "read_file", "arguments": {{"path": "f{i}.py"}}}}'}


def _common(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _turn(messages: list[dict[str, Any]], prompt: str, grounding: int) -> int:
    messages.append({"role": "user", "content": prompt})
    messages.append({"role": "user", "_tool": True, "_grounding": True, "content": "map " + "m" * grounding})
    return len(messages) - 1


@settings(max_examples=60, deadline=None)
@example(system=4152, grounding=1328, results=[10, 6479])  # the note must survive the newest result's own cut
@given(system=st.integers(500, 4500), grounding=st.integers(0, 2400),
       results=st.lists(st.integers(10, 7000), min_size=1, max_size=9))
def test_each_request_extends_the_last_or_cuts_only_at_the_end(system: int, grounding: int,
                                                                results: list[int]) -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "s" * system}]
    ground = _turn(messages, "add a function", grounding)
    fitter = context.Fitter()
    previous, _, _ = fitter.fit(messages, LIMIT, RESERVE)
    for step, size in enumerate(results):
        messages += [_call(step), _result(step, size)]
        sent, used, cuts = fitter.fit(messages, LIMIT, RESERVE)
        assert sent[0] == messages[0] and sent[ground - 1] == messages[ground - 1]  # system prompt and request
        assert sent[ground] == messages[ground]  # the grounding is never cut
        assert sent[-2] == messages[-2]  # the latest call stays as the model wrote it
        if cuts == 0:
            assert sent[: len(previous)] == previous  # the whole previous request is the prefix
        else:
            first = _common(previous, sent)
            assert first > ground  # the cut is after the request and its grounding
            kept = [m for m in sent[first:] if m in previous[first:]]
            it = iter(previous[first:])
            assert all(any(m == p for p in it) for m in kept)  # what stays is in order: only deletions
            removed = [m for m in previous[first:] if m not in sent]
            assert all(m.get("_tool") or m["role"] == "assistant" for m in removed)  # steps, not the request
            gone = [m["content"].split("(path=", 1)[1].split(")", 1)[0] for m in removed if m.get("_tool")]
            if gone and sent[-1] not in previous:
                assert context.REMOVED in sent[-1]["content"] and all(g in sent[-1]["content"] for g in gone)
        protected = context.estimate_tokens(sent[: ground + 1]) + context.message_tokens(sent[-2]) + 400
        if protected + (len(sent) - ground) * 20 <= BUDGET:
            assert used <= BUDGET
        previous = sent


@settings(max_examples=40, deadline=None)
@given(history=st.lists(st.integers(200, 3000), min_size=2, max_size=8),
       turns=st.lists(st.lists(st.integers(10, 600), min_size=1, max_size=4), min_size=2, max_size=4))
def test_older_turns_are_cut_once_per_turn_not_at_every_step(history: list[int], turns: list[list[int]]) -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "s" * 3000}]
    for i, size in enumerate(history):
        _turn(messages, f"old request {i}", 0)
        messages += [_call(100 + i), _result(100 + i, size * 4), {"role": "assistant", "content": f"answer {i}"}]
    fitter = context.Fitter()
    for t, results in enumerate(turns):
        ground = _turn(messages, f"request {t}", 400)
        history_cuts = 0
        kept_history: list[dict[str, Any]] | None = None
        for step, size in enumerate([None, *results]):
            if size is not None:
                messages += [_call(step), _result(step, size * 4)]
            sent, used, _ = fitter.fit(messages, LIMIT, RESERVE)
            start = next(i for i, m in enumerate(sent) if m.get("content") == f"request {t}")
            if kept_history is not None and sent[:start] != kept_history:
                history_cuts += 1
            kept_history = sent[:start]
            assert sent[start + 1] == messages[ground] and used <= BUDGET
        assert history_cuts <= 1  # the older turns are cut once in a turn (with room to spare), not at every step
        messages.append({"role": "assistant", "content": f"done {t}"})


def test_a_dropped_history_starts_with_a_request() -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "sys"}]
    for i in range(30):
        _turn(messages, f"old {i}", 0)
        messages += [_call(i), _result(i, 2000), {"role": "assistant", "content": f"answer {i}"}]
    _turn(messages, "now", 100)
    sent, used, cuts = context.Fitter().fit(messages, LIMIT, RESERVE)
    assert used <= BUDGET * context.LOW + 50 and cuts > 0
    assert sent[1]["role"] == "user" and not sent[1].get("_tool")  # never an orphaned result or answer first


def test_the_same_conversation_is_sent_byte_identical() -> None:
    """Nothing re-renders an earlier message: sending twice gives equal requests."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "sys " * 300}]
    _turn(messages, "hello", 300)
    messages += [_call(0), _result(0, 14000)]
    fitter = context.Fitter()
    once = fitter.fit(messages, LIMIT, RESERVE)[0]
    assert any(context.TRIMMED in m["content"] for m in once)  # the latest result itself, shortened
    assert fitter.fit(messages, LIMIT, RESERVE)[0] == once


def test_a_cut_inside_the_turn_makes_room_for_the_next_steps() -> None:
    """Twelve steps of ~300-token results: once the window is full, a cut takes out enough older steps that
    the next step is sent as the previous request plus its own messages (the cached prefix), not cut again."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "s" * 4000}]
    _turn(messages, "add a function", 1200)
    fitter = context.Fitter()
    fitter.fit(messages, LIMIT, RESERVE)
    cut_steps = []
    for step in range(12):
        messages += [_call(step), _result(step, 1200)]
        _, used, cuts = fitter.fit(messages, LIMIT, RESERVE)
        assert used <= BUDGET
        if cuts:
            cut_steps.append(step)
    assert cut_steps, "the turn outgrew the window"
    assert all(b - a >= 2 for a, b in zip(cut_steps, cut_steps[1:])), f"cut at consecutive steps: {cut_steps}"
