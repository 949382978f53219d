"""Text-form calls whose code argument holds bare double quotes (a docstring, a string literal) are read."""

from __future__ import annotations

from tui.llm.parse import extract_tool_calls

NAMES = {"edit_symbol", "write_file", "run_python", "read_file"}


def test_a_docstring_left_unescaped_in_a_code_argument_is_read_as_written() -> None:
    reply = ('```json\n{\n  "name": "edit_symbol",\n  "path": "src/boxes.py",\n  "symbol": "LifoBox",\n'
             '  "code": "class LifoBox(Store):\\n    """Last in, first out."""\\n    def popitem(self):\\n'
             '        return self.data["x"]\\n"\n}\n```')
    result = extract_tool_calls(reply, NAMES)
    assert [c.name for c in result.calls] == ["edit_symbol"] and result.errors == []
    assert result.calls[0].arguments == {
        "path": "src/boxes.py", "symbol": "LifoBox",
        "code": 'class LifoBox(Store):\n    """Last in, first out."""\n    def popitem(self):\n'
                '        return self.data["x"]\n'}


def test_bare_quotes_in_one_argument_leave_the_next_arguments_intact() -> None:
    reply = ('{"name": "run_python", "arguments": {"code": "print(parse(\'<a prop="x"/>\'))", "timeout": 60}}')
    call = extract_tool_calls(reply, NAMES).calls[0]
    assert call.arguments == {"code": "print(parse('<a prop=\"x\"/>'))", "timeout": 60}
    nested = ('{"name": "write_file", "arguments": {"path": "t.py", "content": "d = {"k": 1}\\nassert d["k"] == 1\\n"}}')
    assert extract_tool_calls(nested, NAMES).calls[0].arguments["content"] == 'd = {"k": 1}\nassert d["k"] == 1\n'


def test_a_cut_off_call_is_still_reported_as_broken_not_guessed() -> None:
    reply = '{"name": "write_file", "arguments": {"path": "t.py", "content": "x = "1"\\ny = 2'
    result = extract_tool_calls(reply, NAMES)
    assert result.calls == [] and result.errors
