"""Small, bounded, never-blocking reads of project files (a repo is hostile: FIFOs, devices, huge files)."""

from __future__ import annotations

import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any

from tui.safety.parsing import loads_toml

MAX_BYTES = 256 * 1024
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")  # a project/env name that is safe inside a path


def head(path: Path | str, limit: int = MAX_BYTES) -> str:
    """Up to ``limit`` bytes of a regular file (symlinks followed only to regular files); '' otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError):
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        return os.read(fd, limit).decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        os.close(fd)


def toml(path: Path) -> dict[str, Any]:
    """A TOML file as a dict; {} when missing, unreadable or invalid (the project's business, not ours).
    TooDeep (a clear message, tui/safety/parsing.py) when it is nested too deeply to parse safely."""
    text = head(path)
    if not text:
        return {}
    try:
        return loads_toml(text, str(path))
    except tomllib.TOMLDecodeError:
        return {}


def table(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    """``data[k1][k2]...`` when every step is a table, else {}."""
    for key in keys:
        value = data.get(key) if isinstance(data, dict) else None
        if not isinstance(value, dict):
            return {}
        data = value
    return data


def key_values(path: Path) -> dict[str, str]:
    """``key = value`` lines (pyvenv.cfg)."""
    out: dict[str, str] = {}
    for line in head(path, 16 * 1024).splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key.strip().lower()] = value.strip()
    return out


def safe_name(value: object) -> str:
    """``value`` when it is a plain name (no path separators, no ``..``), else ''."""
    return value if isinstance(value, str) and NAME.match(value) and ".." not in value else ""


def is_exe(path: Path | str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)
