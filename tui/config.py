"""Settings: defaults < user config < repo config (< command-line flags, applied by cli.py).

User config: ``$DEVAGENT_CONFIG`` or ``$XDG_CONFIG_HOME/devagent/config.toml``
(default ``~/.config/devagent/config.toml``). Repo config: ``.devagent.toml`` at
the repo root, else ``[tool.devagent]`` in ``pyproject.toml``. The repo is hostile
input: what it may set, and how (only tighter), is one table in tui/safety/config_rules.py. Policy
rules are kept per layer (``user_rules`` / ``repo_rules``) because a repo must never be able to
loosen what the user's config denies (tui/policy/rules.py enforces that). Every key is documented in
the README's Configuration section.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.safety.config_rules import PASS_DEFAULT, check_value, repo_env_problem, repo_view
from tui.safety.parsing import TooDeep, loads_toml
from tui.protocol.errors import ConfigError


@dataclass
class ModelConfig:
    """[model]: which backend and model, sampling, deadlines, and how a turn uses the model."""
    backend: str = "ollama"  # ollama | openai | embedded
    host: str = ""  # "" = $OLLAMA_HOST or http://127.0.0.1:11434
    name: str = ""  # "" = first suitable model the server lists
    model_file: str = ""  # GGUF for the embedded backend
    threads: int = 0  # 0 = all cores (embedded)
    context: int = 0  # 0 = what the model reports (capped by max_context)
    max_context: int = 8192
    temperature: float = 0.2
    seed: int | None = None
    connect_timeout: float = 5.0
    chunk_timeout: float = 60.0
    total_timeout: float = 600.0
    retries: int = 2
    max_steps: int = 12  # model round trips per turn
    turn_seconds: float = 240.0  # one request's time budget: pipelines skip what cannot fit (0 = none)
    read_mentioned: int = 3  # files named in a prompt that are read for the model up front (0 = off)
    samples: int = 3  # candidates sampled for a change that checks can judge (embedded: parallel slots); 1 = one
    pipelines: str = "auto"  # requests of a known kind go through their pipeline: auto | off (the general loop only)


def half_memory_mb() -> int:
    """Half of this machine's memory, in MiB: the default bound of one command's memory."""
    try:
        return max(256, os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (2 * 1024 * 1024))
    except (ValueError, OSError):
        return 4096


@dataclass
class LimitsConfig:
    """[limits]: what one command may take (time, output, memory, processes) and what the model is sent."""
    command_timeout: float = 120.0  # wall clock, seconds
    idle_timeout: float = 60.0  # no output for this long ends the command
    grace: float = 2.0  # SIGTERM -> SIGKILL
    output_cap: int = 200_000  # bytes of command output kept (head + tail)
    tool_output_tokens: int = 1000  # tool output sent to the model, per call
    file_tokens: int = 1500  # read_file content sent to the model
    instructions_tokens: int = 300  # the repo's AGENTS.md sent with each request (0 = off; at most a quarter of the context)
    cpu_seconds: int = 600
    file_size_mb: int = 1024
    max_processes: int = 1024  # processes (with a pids cgroup: tasks, threads included) one command may have
    memory_mb: int = field(default_factory=half_memory_mb)  # memory one command may use (default: half of RAM)
    read_seconds: float = 30.0  # time the read-only tools (search, read_file...) may take in one turn


@dataclass
class SandboxConfig:
    """[sandbox]: the sandbox mode and what it passes through, hides or lets commands write."""
    mode: str = "auto"  # auto | bwrap | none
    env: list[str] = field(default_factory=list)  # extra variables passed through
    mask: list[str] = field(default_factory=list)  # extra paths hidden from commands
    writable: list[str] = field(default_factory=list)  # extra writable paths (user config only)


@dataclass
class CheckpointConfig:
    """[checkpoints]: how many are kept."""
    keep: int = 50  # checkpoints kept across sessions (the current session's are never pruned)


@dataclass
class TestsConfig:
    """[tests]: the test command (detected when empty) and the fix loop's attempts."""
    command: str = ""  # override detection, e.g. "pytest -q"
    fix_attempts: int = 3


def _pass_default() -> list[str]:
    return list(PASS_DEFAULT)


@dataclass
class ProjectConfig:
    """The project's own environment for commands (docs/tests-and-scaffold.md, "Which Python")."""

    python: str = ""  # interpreter or env dir for tests and run_python; "" = detect. A repo: a path inside it
    env: dict[str, str] = field(default_factory=dict)  # literal values; a repo only for REPO_SETTABLE names
    pass_env: list[str] = field(default_factory=_pass_default)  # names passed from devagent's env (user config)


@dataclass
class UIConfig:
    """[ui]: the theme, where user themes live, the output pane's length."""
    theme: str = "devagent-dark"
    theme_dir: str = ""  # "" = $XDG_CONFIG_HOME/devagent/themes
    output_lines: int = 5000


@dataclass
class ReviewConfig:
    """[review]: the pre-commit review's model budget and file size limit."""
    model_budget: float = 30.0  # seconds for the model part of a review
    max_file_kb: int = 500
    blocking: list[str] = field(default_factory=lambda: ["error"])


@dataclass
class Config:
    """Every setting, by section (each a dataclass above); ``load_config`` layers the files."""
    model: ModelConfig = field(default_factory=ModelConfig)
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    checkpoints: CheckpointConfig = field(default_factory=CheckpointConfig)
    tests: TestsConfig = field(default_factory=TestsConfig)
    project: ProjectConfig = field(default_factory=ProjectConfig)
    ui: UIConfig = field(default_factory=UIConfig)
    review: ReviewConfig = field(default_factory=ReviewConfig)
    user_rules: dict[str, list[str]] = field(default_factory=dict)  # [policy] allow/ask/deny from user config
    repo_rules: dict[str, list[str]] = field(default_factory=dict)  # [policy] from the repo
    unlock: list[str] = field(default_factory=list)  # hard-deny entries lifted (user config only)
    repo_set: list[str] = field(default_factory=list)  # "section.key" the repo's config set (config_rules)
    sources: list[str] = field(default_factory=list)  # files read, for `devagent doctor`


# Keys of the agent loop that the pipelines and the constrained general loop replaced (session 12): a config that
# still sets one loads, and the key does nothing.
RETIRED = frozenset({"model.max_tool_retries", "model.native_tools", "model.check_done", "model.verify",
                     "model.constrain", "model.reheat"})


def user_config_path() -> Path:
    if os.environ.get("DEVAGENT_CONFIG"):
        return Path(os.environ["DEVAGENT_CONFIG"])
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "devagent" / "config.toml"


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "devagent"


class NestedConfig(ConfigError):
    """A config file nested deeper than devagent parses (tui/safety/parsing.py): refused, whichever file it is."""


def _toml(text: str, path: Path | str) -> dict[str, Any]:
    import tomllib  # loaded with the first config file: the app's first frame does without it

    try:
        return loads_toml(text, str(path))
    except TooDeep as exc:
        raise NestedConfig(exc.message, "Fix the file or move it aside: devagent reads no config nested this "
                           "deeply (a repository's config could only have tightened its rules).") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})", "Fix the file or move it aside.") from None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        return _toml(data.decode("utf-8"), path)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})", "Fix the file or move it aside.") from None


REPO_CONFIG_LIMIT = 1 << 20  # bytes: a repo config larger than this is refused, never read whole


def _read_repo_toml(repo: Path, name: str) -> dict[str, Any] | None:
    """A repo's own TOML file, read like any repo file (tui/safety/paths.py): never through a symlink out of the
    work tree or into .git, never a FIFO or device, at most REPO_CONFIG_LIMIT bytes. None when it is not there."""
    from tui.safety.paths import PathRefused, read_bounded

    try:
        data, size = read_bounded(repo, name, REPO_CONFIG_LIMIT)
    except FileNotFoundError:
        return None
    except (OSError, PathRefused) as exc:
        raise ConfigError(f"{repo / name}: not read ({exc})", "A repository's config must be a regular file inside it.") \
            from None
    if size > REPO_CONFIG_LIMIT:
        raise ConfigError(f"{repo / name}: {size} bytes; a repository's config may have at most {REPO_CONFIG_LIMIT}")
    try:
        return _toml(data.decode("utf-8"), repo / name)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{repo / name}: not valid TOML ({exc})", "Fix the file or move it aside.") from None


def _repo_layer(repo: Path | None) -> tuple[dict[str, Any], str | None]:
    if repo is None:
        return {}, None
    own = _read_repo_toml(repo, ".devagent.toml")
    if own is not None:
        return own, str(repo / ".devagent.toml")
    pyproject = repo / "pyproject.toml"
    if os.path.lexists(pyproject):
        try:
            data = _read_repo_toml(repo, "pyproject.toml") or {}
        except NestedConfig:
            raise  # it may hold [tool.devagent]: fail closed rather than run without the rules it sets
        except ConfigError:
            return {}, None  # a broken (or refused) pyproject is the project's business, not ours
        tool = data.get("tool")
        section = tool.get("devagent") if isinstance(tool, dict) else None  # `tool = 1` is not a table
        if isinstance(section, dict):
            return section, f"{pyproject} [tool.devagent]"
    return {}, None


def _apply(cfg: Config, data: dict[str, Any], origin: str) -> None:
    for key, value in data.items():
        if key in ("policy", "unlock"):
            continue
        section = getattr(cfg, key, None)
        if section is None or not dataclasses.is_dataclass(section):
            raise ConfigError(f"{origin}: unknown section [{key}]", _known_sections())
        if not isinstance(value, dict):
            raise ConfigError(f"{origin}: [{key}] must be a table")
        names = {f.name: f for f in dataclasses.fields(section)}
        for name, item in value.items():
            if f"{key}.{name}" in RETIRED:
                continue  # a key of the old agent loop: older configs still load
            if name not in names:
                raise ConfigError(
                    f"{origin}: unknown key {key}.{name}", f"Known keys in [{key}]: {', '.join(sorted(names))}"
                )
            current = getattr(section, name)
            if current is None and str(names[name].type).startswith("int") and not _compatible(0, item):
                raise ConfigError(f"{origin}: {key}.{name} should be int, got {item!r}")
            if current is not None and not _compatible(current, item):
                raise ConfigError(f"{origin}: {key}.{name} should be {type(current).__name__}, got {item!r}")
            check_value(f"{key}.{name}", item, origin)
            setattr(section, name, item)


def _compatible(current: Any, item: Any) -> bool:
    """``item`` has the setting's type: a bool is not a number (``keep = false`` was 0), list items are strings."""
    if isinstance(current, bool):
        return isinstance(item, bool)
    if isinstance(item, bool):
        return False
    if isinstance(current, float):
        return isinstance(item, (int, float))
    if isinstance(current, list):
        return isinstance(item, list) and all(isinstance(i, str) for i in item)
    return isinstance(item, type(current))


def _known_sections() -> str:
    return "Known sections: " + ", ".join(f.name for f in dataclasses.fields(Config) if f.name not in _NOT_SECTIONS) \
        + ", policy"


_NOT_SECTIONS = ("user_rules", "repo_rules", "unlock", "repo_set", "sources")


def current_values(cfg: Config) -> dict[str, Any]:
    """Every setting as "section.key" -> value (policy lists are the user's rules), for config_rules."""
    values: dict[str, Any] = {}
    for top in dataclasses.fields(Config):
        section = getattr(cfg, top.name)
        if top.name in _NOT_SECTIONS or not dataclasses.is_dataclass(section):
            continue
        for item in dataclasses.fields(section):
            values[f"{top.name}.{item.name}"] = getattr(section, item.name)
    for verdict in ("allow", "ask", "deny"):
        values[f"policy.{verdict}"] = list(cfg.user_rules.get(verdict, []))
    return values


def _rules(data: dict[str, Any], origin: str) -> dict[str, list[str]]:
    policy = data.get("policy", {})
    if not isinstance(policy, dict):
        raise ConfigError(f"{origin}: [policy] must be a table")
    unknown = sorted(set(policy) - {"allow", "ask", "deny"})
    if unknown:
        raise ConfigError(f"{origin}: unknown key policy.{unknown[0]}", "Known keys in [policy]: allow, ask, deny "
                          "(unlock is a top-level key of your user config).")
    out: dict[str, list[str]] = {}
    for verdict in ("allow", "ask", "deny"):
        items = policy.get(verdict, [])
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise ConfigError(f"{origin}: policy.{verdict} must be a list of command patterns")
        out[verdict] = items
    return out


def _check_project(project: Any, origin: str, repo: bool) -> None:
    """[project] values: strings only. From a repo: a python path inside it, literal values for allowed names
    (REPO_SETTABLE), and never pass_env (devagent's environment holds API keys)."""
    if not isinstance(project, dict):
        return  # _apply reports the wrong type
    env, names = project.get("env", {}), project.get("pass_env", [])
    if isinstance(env, dict) and not all(isinstance(v, str) for v in env.values()):
        raise ConfigError(f"{origin}: project.env values must be strings (literal; $VAR is not expanded)")
    if isinstance(names, list) and not all(isinstance(n, str) for n in names):
        raise ConfigError(f"{origin}: project.pass_env must be a list of variable names")
    if not repo:
        return
    if "pass_env" in project:
        raise ConfigError(f"{origin}: project.pass_env may only be set in your user config",
                          "A repository cannot pass devagent's environment (which holds API keys) to commands.")
    python = project.get("python", "")
    if isinstance(python, str) and python and (python.startswith(("/", "~")) or ".." in Path(python).parts):
        raise ConfigError(f"{origin}: project.python = {python!r} must be a path inside the repository",
                          "Name an interpreter outside the repo in your user config.")
    problem = repo_env_problem(env)
    if problem:
        raise ConfigError(f"{origin}: {problem}")


def load_config(repo: Path | None, user_path: Path | None = None) -> Config:
    """Read defaults, then the user's file, then the repo's. Raises ConfigError with the file named."""
    cfg = Config()
    path = user_path or user_config_path()
    if path.is_file():
        data = _read_toml(path)
        _check_project(data.get("project", {}), str(path), repo=False)
        _apply(cfg, data, str(path))
        cfg.user_rules = _rules(data, str(path))
        unlock = data.get("unlock", [])
        if not isinstance(unlock, list) or not all(isinstance(u, str) for u in unlock):
            raise ConfigError(f"{path}: unlock must be a list of hard-deny names, e.g. unlock = [\"sudo\"]")
        cfg.unlock = list(unlock)
        cfg.sources.append(str(path))
    data, origin = _repo_layer(repo)
    if origin:
        allowed, cfg.repo_set = repo_view(current_values(cfg), data, origin)  # a repo may only tighten
        _check_project(allowed.get("project", {}), origin, repo=True)
        user_env = dict(cfg.project.env)
        _apply(cfg, allowed, origin)
        cfg.project.env = {**cfg.project.env, **user_env}  # merged; on a clash the developer's value wins
        cfg.repo_rules = _rules(data, origin)
        cfg.sources.append(origin)
    return cfg
