"""Context budgeting for small models: old tool output goes first, the prompt always stays."""

from __future__ import annotations

from tui.engine.context import fitter as context


def _conv(tool_chars: int, n: int) -> list[dict]:
    msgs = [{"role": "system", "content": "sys " * 50}]
    for i in range(n):
        msgs.append({"role": "user", "content": f"question {i}"})
        msgs.append({"role": "user", "content": "x" * tool_chars, "_tool": True})
        msgs.append({"role": "assistant", "content": f"answer {i}"})
    msgs.append({"role": "user", "content": "the latest question"})
    return msgs


def test_fits_by_removing_old_tool_output_first() -> None:
    msgs = _conv(4000, 4)
    out, used, trimmed = context.fit(msgs, limit=2048, reserve=512)
    assert used <= 2048 - 512
    assert trimmed >= 1
    assert out[0]["role"] == "system" and out[-1]["content"] == "the latest question"
    assert sum(1 for m in out if m.get("_tool")) < 4  # old tool output went, whole
    assert all(m in msgs for m in out)  # nothing already sent was edited
    assert [m["content"] for m in out if m["content"].startswith("question")] == [f"question {i}" for i in range(4)]
    assert sum(1 for m in out if m["content"].startswith("answer")) == 4, "requests and answers survive"


def test_drops_old_turns_when_trimming_is_not_enough() -> None:
    msgs = _conv(10, 200)
    out, used, _ = context.fit(msgs, limit=1024, reserve=256)
    assert used <= 1024 - 256
    assert out[-1]["content"] == "the latest question"
    assert out[0]["role"] == "system"


def test_private_keys_never_reach_the_wire() -> None:
    assert context.wire([{"role": "user", "content": "x", "_tool": True}]) == [{"role": "user", "content": "x"}]


def test_oversized_call_arguments_in_the_current_turn_are_shortened() -> None:
    msgs = [{"role": "system", "content": "sys"}, {"role": "user", "content": "write it"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": "write_file", "arguments": {"path": "a", "content": "x" * 400_000}}}]},
            {"role": "tool", "content": "y" * 300_000, "_tool": True}]
    out, used, trimmed = context.fit(msgs, limit=4096, reserve=1024)
    assert used <= 4096 and trimmed == 2
    assert out[2]["tool_calls"][0]["function"]["name"] == "write_file"
