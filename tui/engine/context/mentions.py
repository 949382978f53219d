"""Files the developer names in a prompt ("Change DEFAULT_TIMEOUT in config.py").

The agent reads them before the model's first step, as if the model had called
read_file itself: a small model then starts from the real text (an edit copies the
exact lines) and a question about a file is answered from it, one model step sooner.
"""

from __future__ import annotations

import re
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
