"""For "add a method/class/function": where the new definition goes, the edit_symbol call that puts it there,
and the existing code to write it like.

Seen with a 1.5B model on real libraries it had never read: asked for ``LRUCache.peek``, it wrote
``self.cache[key]`` (LRUCache keeps its data in the base class's private mapping, which it never saw),
then ``self.__data``; asked for a ``LIFOCache`` class, it rewrote the package's 860-line ``__init__.py``
with write_file until the reply looped, then made a new module nobody imports; asked for a function plus
its export, it outlined the same two files three times. Each lacked the same three things: the call that
adds a definition, the code of the class it goes into (or of the sibling it resembles), and where the
package's exports are. Everything here is read from the repository; nothing runs.
"""

from __future__ import annotations

import re
from pathlib import Path

from tui.engine.agent_words import is_question

ADDS = re.compile(r"\b(?:add|create|implement|write|define|introduce)\b", re.I)
_NEW_CLASS = re.compile(r"\b(?:class\s+`?([A-Z][\w]*)|`?([A-Z][\w]*)`?\s+class)\b")
_NEW_CALLABLE = re.compile(r"\b(?:function|method)\s+`?([A-Za-z_]\w*)|`?([A-Za-z_]\w*)`?(?:\([^)]*\))?\s+"
                           r"(?:function|method)\b|\b([a-z_]\w*)\([^)]*\)")
_INTO = re.compile(r"\b(?:to|in|into|on|for)\s+(?:the\s+)?`?([A-Z]\w*)`?")
EXPORTS = re.compile(r"\b(?:export|__all__)", re.I)
MAX_SHOWN_LINES, MAX_CHARS = 45, 2_200
_SKIP = {"add", "the", "test", "tests", "function", "method", "class", "print", "assert", "len", "str", "int", "new",
         "this", "that", "one", "another", "helper", "small", "public", "private", "static", "simple", "its"}


def _outlines(repo: Path, files: list[str]):
    from tui.engine.described import _sources
    from tui.symbols import outline_of

    for path, text in _sources(repo, [f for f in files if f.endswith(".py")]):  # Python only: no JS read for nothing
        yield path, text, outline_of(path, text).symbols


def _code(text: str, sym, limit: int = MAX_SHOWN_LINES) -> str:
    lines = text.splitlines()[sym.start - 1:sym.end]
    shown = [line for line in lines if line.strip()]
    if len(shown) > limit:
        shown = shown[:limit] + [f"{sym.indent}    ... ({len(lines) - limit} more lines)"]
    out = "\n".join(shown)
    return out[:MAX_CHARS]


def _wanted(prompt: str) -> tuple[list[str], list[str], list[str]]:
    """(new class names, new function/method names, existing-class candidates) the request names."""
    classes = [a or b for a, b in _NEW_CLASS.findall(prompt)]
    callables = [next(g for g in groups if g) for groups in _NEW_CALLABLE.findall(prompt)]
    into = _INTO.findall(prompt)
    def keep(name: str) -> bool:
        return len(name) >= 3 and name.lower() not in _SKIP

    return ([c for c in dict.fromkeys(classes) if keep(c)],
            [c for c in dict.fromkeys(callables) if keep(c) and c not in classes],
            list(dict.fromkeys(into)))


def _sibling(name: str, classes: dict[str, tuple[str, str, object]]) -> str:
    """The existing class whose name shares the longest ending (then beginning) with ``name`` (>= 4 letters)."""
    def shared(other: str) -> int:
        end = 0
        while end < min(len(name), len(other)) and name[-1 - end] == other[-1 - end]:
            end += 1
        start = 0
        while start < min(len(name), len(other)) and name[start] == other[start]:
            start += 1
        return max(end, start)

    best = max((c for c in classes if c != name), key=lambda c: (shared(c), -len(c)), default="")
    return best if best and shared(best) >= 4 else ""


def hint(repo: Path, prompt: str, files: list[str]) -> str:
    """The hint for a request that adds a definition ('' when it adds none, or the names are unknown)."""
    if is_question(prompt) or not ADDS.search(prompt):
        return ""
    new_classes, new_callables, into = _wanted(prompt)
    if not new_classes and not new_callables:
        return ""
    from tui.engine.mentions import mentioned

    named_files = [p for p in mentioned(prompt, files, 5) if p.endswith(".py")]
    from tui.symbols import walk

    classes: dict[str, tuple[str, str, object]] = {}
    defined: set[str] = set()
    for path, text, symbols in _outlines(repo, files):
        for sym in symbols:
            if sym.kind == "class":
                classes.setdefault(sym.name, (path, text, sym))
        defined.update(sym.name for sym in walk(symbols))
    parts: list[str] = []
    target_class = next((c for c in into if c in classes), "")
    for name in new_classes:
        if name in classes:
            continue  # it exists: a change to it, not an addition
        sibling = _sibling(name, classes)
        path = next((p for p in named_files if not _is_test(p)), "") or (classes[sibling][0] if sibling else "")
        if not path:
            continue
        parts.append(f"{name} does not exist yet. Add it with ONE call: edit_symbol(path=\"{path}\", symbol="
                     f"\"{name}\", code= the whole new class, written out) (it adds a new definition at the end of "
                     "the file; do not rewrite the file with write_file, and do not make a new module).")
        if sibling:
            spath, stext, ssym = classes[sibling]
            parts.append(f"The existing class most like it is {sibling} ({spath} lines {ssym.start}-{ssym.end}); "
                         f"write {name} the same way, then change the lines that must differ{_said(prompt, name)} "
                         f"(a copy of {sibling} under a new name is not enough):\n{_code(stext, ssym)}")
        break
    for name in new_callables:
        if name in new_classes or (name in defined and not target_class):
            continue
        if target_class:
            path, text, sym = classes[target_class]
            if any(child.name == name for child in sym.children):
                continue
            parts.append(f"Add the method with ONE call: edit_symbol(path=\"{path}\", symbol=\"{target_class}.{name}\", "
                         f"code= the whole new method: 'def {name}({_params(prompt, name, True)}):' and every line of its "
                         f"body written out). Use only what {target_class} already has; "
                         f"its code ({path} lines {sym.start}-{sym.end}):\n{_code(text, sym)}")
            parts.extend(_private_data(classes, target_class))
        else:
            path = next((p for p in named_files if not _is_test(p)), "")
            if not path:
                continue
            parts.append(f"{name} does not exist yet. Add it with ONE call: edit_symbol(path=\"{path}\", symbol="
                         f"\"{name}\", code= the whole new function: 'def {name}({_params(prompt, name)}):' and every line of "
                         f"its body written out) (it goes at the end of {path}; do not "
                         "rewrite the file with write_file).")
        break
    if parts and EXPORTS.search(prompt):
        parts.append(_exports(repo, files, (new_classes + new_callables)[0], named_files))
    return "\n".join(p for p in parts if p)


def _params(prompt: str, name: str, method: bool = False) -> str:
    """The parameters the request writes for ``name`` ("peek(key, default=None)"), else a word for them."""
    found = re.search(rf"\b{re.escape(name)}\(([^)]*)\)", prompt)
    params = found.group(1).strip() if found else "<parameters>"
    return f"self, {params}" if method and params else ("self" if method else params)


def _said(prompt: str, name: str) -> str:
    """What the request says the new definition does, when it says it in parentheses after the name."""
    found = re.search(rf"\b{re.escape(name)}\b[^(]{{0,20}}\(([^)]{{8,200}})\)", prompt)
    return f" for what the request says ({found.group(1).strip()})" if found else " for what the request says"


def _is_test(path: str) -> bool:
    from tui.engine.repomap import TEST_PATH

    return bool(TEST_PATH.search(path))


def _private_data(classes: dict[str, tuple[str, str, object]], name: str) -> list[str]:
    """Where a subclass's data really is when a base class keeps it in a private (name-mangled) attribute."""
    out: list[str] = []
    seen = {name}
    queue = [name]
    while queue:
        current = queue.pop()
        path, text, sym = classes[current]
        header = text.splitlines()[sym.line - 1] if sym.line else ""
        bases = re.findall(r"[A-Za-z_]\w*", header.split("(", 1)[1].split(")", 1)[0]) if "(" in header else []
        for base in bases:
            if base in classes and base not in seen:
                seen.add(base)
                queue.append(base)
                _, btext, bsym = classes[base]
                body = "\n".join(btext.splitlines()[bsym.start - 1:bsym.end])
                for attr in dict.fromkeys(re.findall(r"self\.__([A-Za-z]\w*)\b(?!__)", body)):
                    out.append(f"{base} keeps self.__{attr} private: inside {name} that attribute is "
                               f"self._{base}__{attr} (self.__{attr} would fail), or go through {base}'s own "
                               f"methods, e.g. {base}.__getitem__(self, key).")
    return out[:2]


def _exports(repo: Path, files: list[str], name: str, named: list[str]) -> str:
    """The package __init__.py lines a new name must join: its __all__ and the import from the module."""
    from tui.engine.described import _sources

    modules = {Path(p).stem for p in named}
    for path, text in _sources(repo, [f for f in files if f.endswith("__init__.py")]):
        lines = text.splitlines()
        where = [i for i, line in enumerate(lines) if line.startswith("__all__")]
        if not where:
            continue
        shown = []
        imports = re.compile(r"\s*from\s+[\w.]*\b(?:" + "|".join(map(re.escape, modules)) + r")\s+import\b")
        for i, line in enumerate(lines):
            if modules and imports.match(line):
                stop = next((j for j in range(i, min(len(lines), i + 4)) if ")" in lines[j] or "(" not in line),
                            min(len(lines) - 1, i + 3))
                shown.append(f"line {i + 1}: " + " ".join(x.strip() for x in lines[i:stop + 1])
                             + (" ..." if stop - i >= 3 and ")" not in lines[stop] else ""))
        start = where[0]
        end = next((j for j in range(start, min(len(lines), start + 60)) if lines[j].rstrip().endswith((")", "]"))),
                   start)
        block = "\n".join(lines[start:end + 1] if end - start < 6 else lines[start:start + 2] + ["    ..."]
                          + lines[end - 1:end + 1])
        return (f"Exports live in {path}: add {name!r} to its __all__ (lines {start + 1}-{end + 1}:\n{block})" + ("; and to the import there: " + "; ".join(shown[:2]) if shown else "")
                + f". That is a separate edit_file call on {path}.")
    return ""
