"""Files the developer names in a prompt ("Change DEFAULT_TIMEOUT in config.py").

The agent reads them before the model's first step, as if the model had called
read_file itself: a small model then starts from the real text (an edit copies the
exact lines) and a question about a file is answered from it, one model step sooner.
"""

from __future__ import annotations

import re
from typing import Callable
_PATHLIKE = re.compile(r"(?<![\w/.-])([\w./-]*\w\.\w{1,8})(?![\w/-])")


def mentioned(prompt: str, files: list[str], limit: int = 3) -> list[str]:
    """Repo files named in ``prompt`` by path, or by a file name only one file has; in order, at most ``limit``."""
    by_name: dict[str, list[str]] = {}
    for path in files:
        by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    known = set(files)
    found: list[str] = []
    for token in _PATHLIKE.findall(prompt):
        token = token.removeprefix("./").rstrip(".")
        path = token if token in known else (by_name.get(token, [""])[0] if len(by_name.get(token, [])) == 1 else "")
        if path and path not in found:
            found.append(path)
    return found[:limit]


_SOURCE_SUFFIX = re.compile(r"\.(?:py|pyi|js|mjs|cjs|ts|tsx|jsx|go|rs|rb|java|json|toml|ya?ml|md|txt|csv)$")


def new_paths(prompt: str, files: list[str], limit: int = 3) -> list[str]:
    """Paths with a directory the prompt names that do not exist yet ("add tests in tests/test_lifo.py")."""
    known = set(files)
    found: list[str] = []
    for token in _PATHLIKE.findall(prompt):
        token = token.removeprefix("./").rstrip(".")
        if "/" in token and not token.startswith(("/", "..")) and token not in known and _SOURCE_SUFFIX.search(token) \
                and token not in found and ".." not in token.split("/"):
            found.append(token)
    return found[:limit]


_EXPORT = re.compile(r"\bexport(?:s|ed|ing)?\b|\b__all__\b|\bre-?export", re.IGNORECASE)
_JS = (".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx")


def export_file(prompt: str, files: list[str], touched: set[str] | list[str],
                read: "Callable[[str], str] | None" = None) -> str:
    """Where a request to "export it" lands: the package's ``__init__.py`` (the package the prompt names, else
    the nearest one above a changed module) or a JS package's index file, when it requires or imports the
    changed module (``read`` gives a file's text; qs' lib/index.js never loads lib/utils.js, whose own
    ``module.exports`` is where "export it with the other utils" lands). '' when the request exports nothing."""
    if not _EXPORT.search(prompt):
        return ""
    tracked = set(files)
    words = {w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_.-]*", prompt)}
    inits = [f for f in files if f.endswith("/__init__.py") or f == "__init__.py"]
    named = [f for f in inits if f.rsplit("/", 2)[-2].lower() in words] if inits else []
    for path in sorted(touched):
        if path.endswith(".py") and not path.endswith("__init__.py"):
            parts = path.split("/")[:-1]
            above = ["/".join(parts[:i] + ["__init__.py"]) for i in range(len(parts), 0, -1)]
            candidates = [f for f in named if any(f == a for a in above)] or [a for a in above if a in tracked]
            if candidates:
                return candidates[0]
        elif path.endswith(_JS) and "/index." not in f"/{path}":
            folder = path.rsplit("/", 1)[0] if "/" in path else ""
            stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            for name in ("index.js", "index.ts", "index.mjs"):
                candidate = f"{folder}/{name}" if folder else name
                if candidate in tracked and candidate != path and (read is None or re.search(
                        rf"""['"]\./{re.escape(stem)}(?:\.[cm]?[jt]s)?['"]""", read(candidate) or "")):
                    return candidate
    return named[0] if len(named) == 1 else ""


def test_home(prompt: str, files: list[str], touched: set[str] | list[str]) -> str:
    """Where "... and add a test for it" lands when the turn changed code but no test file: the test file named
    after a changed module (tests/test_encoding.py for src/pkg/encoding.py, test/utils.js for lib/utils.js).
    '' when the request asks for no test, a test file was changed, or none is named so (itsdangerous probe,
    outside the benchmark: the function and its export were made, the test never was, and the answer said it was)."""
    from tui.engine.agent_words import wants_test_change
    from tui.engine.verify import is_test

    if not wants_test_change(prompt) or any(is_test(p) for p in touched):
        return ""
    for changed in sorted(p for p in touched if not is_test(p)):
        stem = changed.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        if stem in ("__init__", "index"):
            continue
        homes = [f for f in files if is_test(f) and re.sub(r"^test_|(?:_test|\.test|\.spec)$", "",
                                                              f.rsplit("/", 1)[-1].rsplit(".", 1)[0]) == stem]
        if homes:
            return sorted(homes, key=len)[0]
    return ""
