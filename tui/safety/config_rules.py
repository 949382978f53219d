"""Which settings a repository's own config may set, and how: a repo may only tighten.

The repo (`.devagent.toml`, `[tool.devagent]`) is hostile input. ``REPO_RULES`` is the one table
of every key a repo may set; a key missing from it (one added later and not classified yet) cannot
be set by a repo at all: an error naming it, never a silent fallback. ``check_value`` is the value
check every layer goes through (an unknown sandbox mode or backend is an error everywhere).
docs/sandbox.md prints this table.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from tui.protocol.errors import ConfigError

# How a repo may set a key:
#   free     any valid value (it changes nothing about safety)
#   lower    a number no higher than the user's / default value
#   higher   a number no lower than the user's / default value
#   stricter an enum value at least as strict as the user's (sandbox.mode: none < auto < bwrap)
#   add      list entries added to the user's, never removed
#   asked    may be set, but never auto-approved: always asked for and shown literally
#   allow    repo allow rules: auto-approve only what the built-in read-only defaults would
#   never    user config (or flags) only
REPO_RULES: dict[str, tuple[str, str]] = {
    "model.backend": ("never", "it decides where your code and prompts are sent"),
    "model.host": ("never", "it decides where your code, prompts and API key are sent"),
    "model.name": ("never", "a model name can name a remote (cloud) model"),
    "model.model_file": ("never", "devagent would load the repo's file into llama.cpp on your machine"),
    "model.threads": ("lower", "CPU use of the embedded model (0 = all cores)"),
    "model.context": ("lower", "memory of the model (0 = what the model reports)"),
    "model.max_context": ("lower", "memory of the model"),
    "model.temperature": ("free", "sampling only"),
    "model.seed": ("free", "sampling only"),
    "model.connect_timeout": ("lower", "a longer wait could hang devagent"),
    "model.chunk_timeout": ("lower", "a longer wait could hang devagent"),
    "model.total_timeout": ("lower", "a longer wait could hang devagent"),
    "model.retries": ("lower", "more retries mean longer waits"),
    "model.max_steps": ("lower", "bounds the model's attempts"),
    "model.read_mentioned": ("lower", "files read for the model without asking"),
    "model.turn_seconds": ("lower", "bounds how long one request may take"),
    "model.samples": ("lower", "bounds the candidates sampled for one question"),
    "model.pipelines": ("free", "which way the work is done, not what it may do"),
    "limits.command_timeout": ("lower", "a longer limit lets a command hang"),
    "limits.idle_timeout": ("lower", "a longer limit lets a command hang"),
    "limits.grace": ("lower", "a longer grace keeps a stopped command alive"),
    "limits.output_cap": ("lower", "devagent keeps this much output in memory"),
    "limits.tool_output_tokens": ("lower", "output sent to the model"),
    "limits.file_tokens": ("lower", "file content sent to the model"),
    "limits.cpu_seconds": ("lower", "CPU a command may use"),
    "limits.file_size_mb": ("lower", "the largest file a command may write"),
    "limits.max_processes": ("lower", "processes a command may have at once"),
    "limits.memory_mb": ("lower", "memory a command may use"),
    "limits.read_seconds": ("lower", "time the model's read-only tools may take on your machine per turn"),
    "limits.instructions_tokens": ("lower", "repository text (AGENTS.md) sent to the model"),
    "sandbox.mode": ("stricter", "a repo may require bubblewrap, never turn the sandbox off"),
    "sandbox.env": ("never", "it would pass devagent's own environment (API keys) into commands"),
    "sandbox.mask": ("add", "hides more from commands"),
    "sandbox.writable": ("never", "it would let commands write outside the repo"),
    "checkpoints.keep": ("higher", "fewer would prune your undo history"),
    "tests.command": ("asked", "the repo's own test command runs only when you approve it"),
    "tests.fix_attempts": ("lower", "bounds the fix loop"),
    "ui.theme": ("free", "a name among the loaded themes"),
    "ui.theme_dir": ("never", "devagent would read files from a directory the repo picks"),
    "ui.output_lines": ("lower", "memory of the output pane"),
    "review.model_budget": ("lower", "a longer budget slows every commit"),
    "review.max_file_kb": ("lower", "larger staged files are flagged"),
    "review.blocking": ("add", "a repo may block on more severities, never on fewer"),
    "policy.allow": ("allow", "auto-approves only what the built-in read-only defaults would"),
    "policy.ask": ("add", "more questions"),
    "policy.deny": ("add", "more denials"),
    "project.python": ("free", "only a path inside the repo; it runs inside the sandbox"),
    "project.env": ("free", "literal values for a few non-secret names, checked; yours win on a clash"),
    "project.pass_env": ("never", "it would pass devagent's own environment (API keys) into commands"),
    "unlock": ("never", "lifts built-in hard denies"),
}
ZERO_IS_UNBOUNDED = frozenset({"model.threads", "model.context"})
STRICTNESS = {"none": 0, "auto": 1, "bwrap": 2}

CHOICES: dict[str, tuple[str, ...]] = {
    "model.backend": ("ollama", "openai", "embedded"),
    "model.pipelines": ("auto", "off"),
    "sandbox.mode": ("auto", "bwrap", "none"),
}
_ITEM_CHOICES: dict[str, tuple[str, ...]] = {"review.blocking": ("error", "warning", "info")}
_POSITIVE = frozenset({
    "model.max_context", "model.connect_timeout", "model.chunk_timeout", "model.total_timeout",
    "limits.command_timeout", "limits.idle_timeout", "limits.output_cap", "limits.tool_output_tokens",
    "limits.file_tokens", "limits.cpu_seconds", "limits.file_size_mb", "limits.max_processes", "limits.memory_mb",
    "limits.read_seconds",
    "review.model_budget", "review.max_file_kb", "ui.output_lines", "model.samples",
})
_NON_NEGATIVE = frozenset({
    "model.threads", "model.context", "model.retries", "model.max_steps",
    "model.read_mentioned", "model.temperature", "model.turn_seconds", "limits.instructions_tokens", "limits.grace", "checkpoints.keep", "tests.fix_attempts",
})


def check_value(key: str, value: Any, origin: str) -> None:
    """The value check for every layer: known enum values, sane numbers."""
    if key in CHOICES and value not in CHOICES[key]:
        raise ConfigError(f"{origin}: {key} = {value!r} is not one of {', '.join(CHOICES[key])}",
                          "An unknown value is an error, never a fallback.")
    if key in _ITEM_CHOICES and isinstance(value, list):
        bad = [v for v in value if v not in _ITEM_CHOICES[key]]
        if bad:
            raise ConfigError(f"{origin}: {key} has unknown entries {bad!r}",
                              f"Use any of: {', '.join(_ITEM_CHOICES[key])}.")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if math.isnan(value) or math.isinf(value):
            raise ConfigError(f"{origin}: {key} must be a finite number, got {value!r}")
        if key in _POSITIVE and value <= 0:
            raise ConfigError(f"{origin}: {key} must be greater than 0, got {value!r}")
        if key in _NON_NEGATIVE and value < 0:
            raise ConfigError(f"{origin}: {key} must not be negative, got {value!r}")


def _refuse(origin: str, key: str, why: str, hint: str = "") -> ConfigError:
    return ConfigError(f"{origin}: a repository's config cannot set {key} ({why})",
                       hint or f"Set {key} in your user config if you want it; a repo may only tighten settings.")


def _number_allowed(key: str, how: str, current: Any, value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return True  # the type check names the problem
    if key in ZERO_IS_UNBOUNDED:
        current = math.inf if current == 0 else current
        value = math.inf if value == 0 else value
    return value <= current if how == "lower" else value >= current


def repo_view(current: dict[str, Any], data: dict[str, Any], origin: str) -> tuple[dict[str, Any], list[str]]:
    """The repo layer as it may be applied on top of ``current`` (key -> the user's/default value).

    Returns (the section tables to apply, the keys the repo set). Raises ConfigError for the first
    key the repo may not set, or may not set to that value.
    """
    out: dict[str, Any] = {}
    keys: list[str] = []
    for section, table in data.items():
        if section == "unlock":
            raise _refuse(origin, "unlock", REPO_RULES["unlock"][1])
        if not isinstance(table, dict):
            out[section] = table  # the layer loader names the problem ("must be a table")
            continue
        for name, value in table.items():
            key = f"{section}.{name}"
            how, why = REPO_RULES.get(key, ("never", "devagent does not know this key as safe for a repo to set"))
            if key not in current and section != "policy":
                out.setdefault(section, {})[name] = value  # unknown key: the layer loader names it
                continue
            now = current.get(key)
            if how == "never":
                raise _refuse(origin, key, why)
            if how in ("lower", "higher") and not _number_allowed(key, how, now, value):
                word = "lower" if how == "lower" else "raise"
                raise _refuse(origin, f"{key} = {value!r}", f"a repo may only {word} it; yours is {now!r}: {why}",
                              f"Change {key} in your user config if you trust this repository.")
            if how == "stricter" and isinstance(value, str) and STRICTNESS.get(value, 99) < STRICTNESS.get(now, 0):
                raise _refuse(origin, f"{key} = {value!r}", f"yours is {now!r}: {why}")
            if how == "add" and isinstance(value, list) and isinstance(now, list) and \
                    all(isinstance(v, str) for v in value):  # anything else: the type check names it
                value = list(dict.fromkeys([*now, *value]))
            keys.append(key)
            if section != "policy":
                out.setdefault(section, {})[name] = value
    return out, keys


# The project's variables (tui/projenv/variables.py puts them into a command's environment). devagent's
# environment holds API keys, so only names the developer lists pass through (these by default); a repo may
# give literal values, and only for REPO_SETTABLE names (BASH_ENV or LD_PRELOAD would change what an
# approved command does).
PASS_DEFAULT: tuple[str, ...] = (
    "PYTHONPATH", "PYTHONHASHSEED", "PYTHONUTF8", "PYTHONIOENCODING", "PYTHONWARNINGS", "DJANGO_SETTINGS_MODULE",
    "NODE_PATH", "NODE_ENV",
)
REPO_SETTABLE: frozenset[str] = frozenset({
    "PYTHONPATH", "PYTHONHASHSEED", "PYTHONUTF8", "PYTHONIOENCODING", "DJANGO_SETTINGS_MODULE", "NODE_PATH",
    "NODE_ENV", "TZ",
})
PATH_LISTS: frozenset[str] = frozenset({"PYTHONPATH", "NODE_PATH"})


def repo_env_problem(env: object) -> str:
    """Why a repo's ``project.env`` is refused ('' when it is fine): allowed names, literal relative paths."""
    if not isinstance(env, dict):
        return "project.env must be a table of NAME = \"value\""
    for name, value in env.items():
        if name not in REPO_SETTABLE:
            return f"project.env.{name} cannot be set by a repository (allowed: {', '.join(sorted(REPO_SETTABLE))})"
        if not isinstance(value, str) or "\x00" in value:
            return f"project.env.{name} must be a string"
        if name in PATH_LISTS:
            for entry in value.split(os.pathsep):
                if entry.startswith(("/", "~")) or ".." in Path(entry).parts:
                    return f"project.env.{name}: {entry!r} must be a path inside the repository (relative, no '..')"
    return ""
