"""Every key a repo may set, each tested the way the table says: never, only lower/higher/stricter, add, asked.

The user's config file sets a known value for each key first, so "lower" and "add" are checked
against the user's value, not only the default; unknown values fail in every layer.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import pytest

from tui.protocol.proposals import Proposal
from tui.config import Config, current_values, load_config
from tui.safety.config_rules import REPO_RULES, ZERO_IS_UNBOUNDED, repo_view
from tui.protocol.errors import ConfigError
from tui.policy.rules import Policy
from tui.sandbox.runner import detect

DEFAULTS = current_values(Config())


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _write(path: Path, key: str, value: Any) -> None:
    if "." in key:
        section, name = key.split(".", 1)
        path.write_text(f"[{section}]\n{name} = {_toml(value)}\n")
    else:
        path.write_text(f"{key} = {_toml(value)}\n")


def _load(tmp_path: Path, key: str, repo_value: Any, user_value: Any = None) -> Config:
    user = tmp_path / "user.toml"
    if user_value is not None:
        _write(user, key, user_value)
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    _write(repo / ".devagent.toml", key, repo_value)
    return load_config(repo, user)


def _get(cfg: Config, key: str) -> Any:
    return current_values(cfg)[key] if not key.startswith("policy.") else cfg.repo_rules[key.split(".")[1]]


def _sample(key: str) -> Any:
    """A valid value for ``key`` that differs from its default."""
    default = DEFAULTS.get(key)
    special = {"model.backend": "openai", "model.host": "http://10.0.0.1:11434", "model.name": "m",
               "model.model_file": "m.gguf", "model.pipelines": "off",
               "model.seed": 7, "sandbox.env": ["DEVAGENT_API_KEY"], "sandbox.writable": ["/etc"],
               "sandbox.mask": ["secrets"], "ui.theme_dir": "themes", "ui.theme": "devagent-light",
               "tests.command": "pytest -q", "review.blocking": ["warning"], "unlock": ["sudo"],
               "policy.allow": ["make *"], "policy.ask": ["git push *"], "policy.deny": ["rm -r *"],
               "sandbox.mode": "bwrap", "project.pass_env": ["DEVAGENT_API_KEY"],
               "project.python": ".venv/bin/python", "project.env": {"PYTHONPATH": "src"}}
    if key in special:
        return special[key]
    if isinstance(default, float):
        return default / 2 if default else 0.5
    assert isinstance(default, int), key
    return 3 if key in ZERO_IS_UNBOUNDED else max(1, default // 2)


@pytest.mark.parametrize("key", sorted(k for k, (how, _) in REPO_RULES.items() if how == "never"))
def test_never_from_a_repo(tmp_path: Path, key: str) -> None:
    with pytest.raises(ConfigError, match=f"cannot set {key}"):
        _load(tmp_path, key, _sample(key))
    if key != "unlock":  # the same value is fine from the user's own config
        user = tmp_path / "only-user.toml"
        _write(user, key, _sample(key))
        assert current_values(load_config(None, user))[key] == _sample(key)


@pytest.mark.parametrize("key", sorted(k for k, (how, _) in REPO_RULES.items() if how == "lower"))
def test_lower_only(tmp_path: Path, key: str) -> None:
    lower = _sample(key)
    assert _get(_load(tmp_path, key, lower), key) == lower
    user_value = lower  # the user's own, lower value is the bound from now on
    higher = (lower * 2 + 1) if not isinstance(lower, float) else lower * 2
    with pytest.raises(ConfigError, match=f"may only lower it; yours is {user_value!r}"):
        _load(tmp_path, key, higher, user_value=user_value)
    if key in ZERO_IS_UNBOUNDED:  # 0 means "no bound": raising to it is raising
        with pytest.raises(ConfigError, match="may only lower"):
            _load(tmp_path, key, 0, user_value=user_value)


def test_higher_only(tmp_path: Path) -> None:
    assert _load(tmp_path, "checkpoints.keep", 80).checkpoints.keep == 80
    with pytest.raises(ConfigError, match="may only raise it; yours is 50"):
        _load(tmp_path, "checkpoints.keep", 1)


@pytest.mark.parametrize("user_mode, repo_mode, ok", [
    ("auto", "bwrap", True), ("auto", "auto", True), ("auto", "none", False), ("bwrap", "auto", False),
    ("none", "auto", True), ("auto", "off", False), ("auto", "None", False),
])
def test_sandbox_mode_only_stricter(tmp_path: Path, user_mode: str, repo_mode: str, ok: bool) -> None:
    if ok:
        assert _load(tmp_path, "sandbox.mode", repo_mode, user_value=user_mode).sandbox.mode == repo_mode
    else:
        with pytest.raises(ConfigError, match="sandbox.mode"):
            _load(tmp_path, "sandbox.mode", repo_mode, user_value=user_mode)


@pytest.mark.parametrize("key, user_value, repo_value", [
    ("sandbox.mask", ["~/private"], ["secrets"]),
    ("review.blocking", ["error"], ["warning"]),
    ("review.blocking", ["error"], []),
])
def test_lists_only_grow(tmp_path: Path, key: str, user_value: list[str], repo_value: list[str]) -> None:
    assert _get(_load(tmp_path, key, repo_value, user_value=user_value), key) == [*user_value, *repo_value]


def test_repo_policy_adds_denies_and_asks_and_allows_nothing_new(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".devagent.toml").write_text('[policy]\ndeny = ["git push *"]\nask = ["ls *"]\n'
                                         'allow = ["make *", "touch *", "cat *", "bash *"]\n')
    user = tmp_path / "user.toml"
    user.write_text('[policy]\ndeny = ["rm -r *"]\n')
    policy = Policy(load_config(repo, user), True, repo)

    def verdict(command: str) -> str:
        proposal = Proposal(id="p", kind="command", summary=command, command=command)
        policy.evaluate(proposal)
        return proposal.policy

    assert [verdict(c) for c in ("git push", "rm -r x", "ls", "make", "touch a", "bash -c id", "cat README")] \
        == ["deny", "deny", "ask", "ask", "ask", "ask", "allow"]


def test_repo_test_command_is_used_but_never_auto_approved(tmp_path: Path) -> None:
    cfg = _load(tmp_path, "tests.command", "bash")
    assert cfg.tests.command == "bash" and "tests.command" in cfg.repo_set
    proposal = Proposal(id="p", kind="command", summary="x", command="bash -c 'id'")
    Policy(cfg, True, tmp_path / "repo").evaluate(proposal)
    assert proposal.policy == "ask"
    user = tmp_path / "u.toml"
    user.write_text('[tests]\ncommand = "pytest -q"\n')
    mine = Policy(load_config(None, user), True, tmp_path / "repo")
    proposal = Proposal(id="q", kind="command", summary="x", command="pytest -q tests")
    mine.evaluate(proposal)
    assert proposal.policy == "allow" and "test command" in proposal.rule


@pytest.mark.parametrize("key", sorted(k for k, (how, _) in REPO_RULES.items() if how == "free"))
def test_free_keys(tmp_path: Path, key: str) -> None:
    assert _get(_load(tmp_path, key, _sample(key)), key) == _sample(key)


def test_every_setting_is_classified_or_refused(tmp_path: Path) -> None:
    for key in DEFAULTS:
        if key not in REPO_RULES:  # a key added without a rule: a repo cannot set it
            with pytest.raises(ConfigError, match="does not know this key"):
                repo_view({**DEFAULTS}, {key.split(".")[0]: {key.split(".")[1]: DEFAULTS[key]}}, "x.toml")
    unclassified = {"section.new_key": 1}
    with pytest.raises(ConfigError, match="cannot set section.new_key"):
        repo_view(unclassified, {"section": {"new_key": 1}}, "x.toml")
    stale = [k for k in REPO_RULES if k not in DEFAULTS and k != "unlock"]
    assert stale == [], "REPO_RULES names keys Config does not have"
    assert all(f.name in ("user_rules", "repo_rules", "unlock", "repo_set", "sources") or
               dataclasses.is_dataclass(f.default_factory()) for f in dataclasses.fields(Config))  # type: ignore[misc]


@pytest.mark.parametrize("text, message", [
    ('[sandbox]\nmode = "off"\n', "sandbox.mode = 'off' is not one of"),
    ('[model]\nbackend = "llamafile"\n', "model.backend = 'llamafile' is not one of"),
    ('[model]\npipelines = "maybe"\n', "model.pipelines"),
    ('[limits]\ncommand_timeout = -1.0\n', "must be greater than 0"),
    ('[limits]\noutput_cap = 0\n', "must be greater than 0"),
    ('[review]\nblocking = ["fatal"]\n', "unknown entries"),
    ('[policy]\nunlock = ["sudo"]\n', "unknown key policy.unlock"),
    ('unlock = "sudo"\n', "unlock must be a list"),
    ('[model]\ntemperature = nan\n', "finite"),
])
def test_unknown_values_are_errors_in_the_user_config_too(tmp_path: Path, text: str, message: str) -> None:
    user = tmp_path / "user.toml"
    user.write_text(text)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace("'", "'")):
        load_config(None, user)


def test_unknown_mode_built_in_code_is_an_error_not_sandbox_off() -> None:
    cfg = Config()
    cfg.sandbox.mode = "off"
    with pytest.raises(ConfigError, match="sandbox.mode"):
        detect(cfg)


def test_unknown_unlock_name_is_an_error(tmp_path: Path) -> None:
    cfg = Config()
    cfg.unlock = ["sudoo"]
    with pytest.raises(ConfigError, match="sudoo"):
        Policy(cfg, True, tmp_path)


def test_sandbox_mode_bwrap_refuses_to_run_without_bubblewrap(tmp_path: Path) -> None:
    from tui.protocol.errors import SandboxError
    from tui.sandbox.runner import Sandbox, SandboxInfo

    cfg = Config()
    cfg.sandbox.mode = "bwrap"
    broken = SandboxInfo("none", False, "SANDBOX OFF: bwrap failed a trivial command")
    with pytest.raises(SandboxError, match="requires bubblewrap"):
        Sandbox(tmp_path, cfg, broken).build("true")
    cfg.sandbox.mode = "auto"
    assert Sandbox(tmp_path, cfg, broken).build("true")[0] == ["/bin/sh", "-c", "true"]  # auto: runs, and asks


def test_doctor_names_the_refused_key_and_what_the_repo_sets(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.conftest import make_repo

    repo = make_repo(tmp_path / "r", {".devagent.toml": '[model]\nhost = "http://10.1.2.3:1"\n'})
    out = subprocess.run([sys.executable, "-m", "tui", "doctor", "--host", "http://127.0.0.1:9"], cwd=repo,
                         capture_output=True, text=True, timeout=60)
    assert "FAIL  config" in out.stdout and "cannot set model.host" in out.stdout and "Traceback" not in out.stderr
    (repo / ".devagent.toml").write_text('[limits]\ncommand_timeout = 30.0\n[tests]\ncommand = "pytest -q"\n')
    out = subprocess.run([sys.executable, "-m", "tui", "doctor", "--host", "http://127.0.0.1:9"], cwd=repo,
                         capture_output=True, text=True, timeout=60)
    assert "the repo sets limits.command_timeout, tests.command" in out.stdout


def test_devagent_test_runs_a_repo_test_command_only_when_approved(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.conftest import make_repo

    repo = make_repo(tmp_path / "r", {".devagent.toml": "[tests]\ncommand = \"sh -c 'echo ran > ran.txt'\"\n"})

    def devagent(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "tui", "test", *args], cwd=repo, capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL, env={**os.environ, "OLLAMA_HOST": "http://127.0.0.1:9"})

    for args in ((), ("--fix",)):
        out = devagent(*args)
        assert out.returncode != 0 and not (repo / "ran.txt").exists(), (args, out.stdout, out.stderr)
        assert "sh -c 'echo ran > ran.txt'" in out.stdout + out.stderr and "Traceback" not in out.stderr
    out = devagent("--yes")
    assert (repo / "ran.txt").read_text() == "ran\n", out.stdout + out.stderr


def test_docs_print_the_table_as_it_is() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "sandbox.md").read_text()
    rows = [line for line in doc.splitlines() if line.startswith("| `") and line.count("|") == 4]
    documented = {line.split("`")[1]: line.split("|")[2].strip() for line in rows}
    assert {k: how for k, (how, _) in REPO_RULES.items()} == {k: v for k, v in documented.items() if k in REPO_RULES}
    assert set(REPO_RULES) <= set(documented)
