"""Configuration layers: user file, repo file or [tool.devagent]; clear errors naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_repo
from tui.config import load_config
from tui.protocol.errors import ConfigError


def test_repo_file_overrides_user_file(tmp_path: Path) -> None:
    user = tmp_path / "user.toml"
    user.write_text('[model]\nname = "user-model"\ntemperature = 0.5\n[policy]\ndeny = ["rm -r *"]\n')
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".devagent.toml").write_text('[model]\ntemperature = 0.1\n[policy]\nallow = ["pytest *"]\n')
    cfg = load_config(repo, user)
    assert cfg.model.name == "user-model" and cfg.model.temperature == 0.1
    assert cfg.user_rules["deny"] == ["rm -r *"] and cfg.repo_rules["allow"] == ["pytest *"]
    assert cfg.sources == [str(user), str(repo / ".devagent.toml")]


def test_pyproject_tool_section_is_read(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.devagent.tests]\ncommand = "pytest -q"\n')
    assert load_config(tmp_path, tmp_path / "none.toml").tests.command == "pytest -q"


@pytest.mark.parametrize("text, message", [
    ('[model]\nnmae = "x"\n', "unknown key model.nmae"),
    ('[modle]\nname = "x"\n', "unknown section [modle]"),
    ('[limits]\ncommand_timeout = "soon"\n', "limits.command_timeout should be float"),
    ("[model\n", "not valid TOML"),
])
def test_mistakes_are_reported_with_the_file(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / ".devagent.toml").write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path, tmp_path / "none.toml")
    assert message in str(err.value) and ".devagent.toml" in str(err.value)


@pytest.mark.parametrize("text", ['[sandbox]\nmode = "none"\n', '[sandbox]\nwritable = ["/etc"]\n',
                                  'unlock = ["sudo"]\n'])
def test_a_repo_cannot_weaken_the_sandbox(tmp_path: Path, text: str) -> None:
    (tmp_path / ".devagent.toml").write_text(text)
    with pytest.raises(ConfigError, match="cannot set"):
        load_config(tmp_path, tmp_path / "none.toml")


def test_keys_of_the_old_agent_loop_still_load_and_do_nothing(tmp_path: Path) -> None:
    from tui.config import load_config

    repo = make_repo(tmp_path / "r")
    user = tmp_path / "user.toml"
    user.write_text('[model]\ncheck_done = "off"\nreheat = 2\nconstrain = "always"\nsamples = 2\n')
    config = load_config(repo, user_path=user)
    assert config.model.samples == 2 and not hasattr(config.model, "reheat")
