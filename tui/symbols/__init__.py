"""Definitions in a source file (classes, functions, methods, constants) with their line ranges.

The outline tool lists them so a small model can count and locate without reading a whole file;
edit_symbol replaces or adds one by name; edit_file names the enclosing one for each occurrence
of an ambiguous text. Python goes through ``ast``, JS/TS through a scanner that knows strings,
comments, templates and regex literals, other languages through line patterns (start lines only).
"""

from __future__ import annotations

from pathlib import PurePosixPath

from tui.symbols.model import Outline, Symbol, enclosing, find, normalize, walk

PYTHON = {".py", ".pyi", ".pyw"}
JS = {".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"}
PATTERN = {".go", ".rs", ".java", ".kt", ".kts", ".scala", ".swift", ".cs", ".c", ".h", ".cc", ".cpp", ".cxx",
           ".hpp", ".hh", ".m", ".rb", ".php", ".lua", ".sh", ".bash", ".zsh", ".dart", ".ex", ".exs", ".jl"}

__all__ = ["Outline", "Symbol", "enclosing", "find", "language_of", "normalize", "outline_of", "walk"]


def language_of(path: str) -> str:
    suffix = PurePosixPath(path).suffix.lower()
    return "python" if suffix in PYTHON else "js" if suffix in JS else "pattern" if suffix in PATTERN else "none"


def outline_of(path: str, text: str) -> Outline:
    """The definitions of ``text`` (the content of ``path``); a Python file that does not parse falls back to patterns."""
    from tui.symbols.patsyms import pattern_symbols

    language = language_of(path)
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if language == "python":
        from tui.symbols.pysyms import python_symbols

        symbols, error = python_symbols(text)
        if error:
            return Outline(path, "pattern", lines, pattern_symbols(text), f"it does not parse ({error})")
        return Outline(path, language, lines, symbols)
    if language == "js":
        from tui.symbols.jssyms import js_symbols

        symbols, error = js_symbols(text)
        return Outline(path, language, lines, symbols, error)
    if language == "pattern":
        return Outline(path, language, lines, pattern_symbols(text))
    return Outline(path, language, lines, [])
