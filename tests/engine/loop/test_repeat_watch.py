"""RepeatWatch: the cut of a reply that a small model writes in a loop, fed as a stream of small chunks."""

from __future__ import annotations

from tui.engine.loop.repeatwatch import RepeatWatch


def _cut_at(text: str, chunk: int = 7) -> int | None:
    """Where (in characters) a streamed ``text`` is cut; None when it is read to the end."""
    watch = RepeatWatch()
    for start in range(0, len(text), chunk):
        if watch.looping(text[start:start + chunk]):
            return start + chunk
    return None


def test_a_counting_loop_inside_a_json_string_is_cut() -> None:
    # Seen with the 1.5B model asked for percentage(): two lines a cycle, only the numbers change.
    body = "".join(f"\\n    if value < {10 ** k}.0:\\n        return '{{:.{k}%}}'.format(value)" for k in range(2, 60))
    reply = '{"name": "edit_symbol", "arguments": {"code": "def percentage(value):' + body + '"}}'
    cut = _cut_at(reply)
    assert cut is not None and cut < len(reply) // 2


def test_an_exact_repeat_is_cut_sooner_than_a_counting_one() -> None:
    same = "    self.assertEqual(f(1), 1)\n" * 40
    counting = "".join(f"    self.assertEqual(f({i}), {i})\n" for i in range(40))
    assert _cut_at(same) < _cut_at(counting)


def test_a_table_of_numbers_and_ordinary_code_are_read_whole() -> None:
    table = "CASES = [\n" + "".join(f"    ({i}, {i * i}),\n" for i in range(10)) + "]\n"
    code = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(5))  # blank lines do not count
    assert _cut_at(table) is None and _cut_at(code) is None
