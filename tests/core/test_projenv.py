"""Which Python is the project's: real venvs and files on disk, nothing run on the host to find out.

The tool-managed locations (poetry, hatch, pipenv, pdm) were checked once against the real tools
(poetry 2.5.1, hatch 1.18.2, pipenv 2026.10.3, pdm 2.29.4 created an env; find_python found each); the
tools are not installed for the suite, so these tests build the same layouts with real venvs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.conftest import make_repo
from tests.core.env_fixtures import bare_venv, make_venv, project_venv  # noqa: F401
from tui.config import Config
from tui.projenv import find_python
from tui.projenv.managers import poetry_env_name

PATH = "/usr/local/bin:/usr/bin:/bin"


def environ(**values: str) -> dict[str, str]:
    """A pipx-like environment (nothing activated) plus ``values``; XDG dirs stay the test's own."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_VERSION")}
    env["PATH"] = PATH
    env.update(values)
    return env


def test_an_activated_env_beats_the_repo_venv_and_devagents_own_does_not(tmp_path: Path, bare_venv: Path) -> None:
    repo = make_repo(tmp_path / "r")
    make_venv(repo / ".venv")
    chosen = find_python(repo, environ=environ(VIRTUAL_ENV=str(bare_venv), PATH=f"{bare_venv}/bin:{PATH}"))
    assert chosen.python == str(bare_venv / "bin" / "python3") and chosen.source == "VIRTUAL_ENV"
    assert chosen.line(repo) == f"python: {bare_venv}/bin/python3 (activated VIRTUAL_ENV)"
    own = find_python(repo, environ=environ(VIRTUAL_ENV=sys.prefix, PATH=f"{sys.prefix}/bin:{PATH}"))
    assert own.source == ".venv" and own.line(repo) == "python: .venv/bin/python3 (the repo's .venv)"
    alone = find_python(make_repo(tmp_path / "plain"), environ=environ(VIRTUAL_ENV=sys.prefix,
                                                                         PATH=f"{sys.prefix}/bin:{PATH}"))
    assert alone.own and alone.python.startswith(sys.prefix) and "devagent's own environment" in alone.line(repo)


def test_sub_project_venv_for_its_suite_and_the_root_venv_elsewhere(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "mono", {"api/pyproject.toml": "[project]\nname='api'\n", "README.md": "x\n"})
    make_venv(repo / "api" / ".venv")
    make_venv(repo / "venv")
    assert find_python(repo, cwd=repo / "api", environ=environ()).python == str(repo / "api/.venv/bin/python3")
    assert find_python(repo, environ=environ()).python == str(repo / "venv/bin/python3")
    assert find_python(repo, cwd=repo / "api" / "deep", environ=environ()).why == "the repo's api/.venv"


def test_a_broken_repo_venv_is_passed_over_and_said(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / ".venv" / "bin").mkdir(parents=True)
    (repo / ".venv" / "bin" / "python3").symlink_to(tmp_path / "gone" / "python3")
    chosen = find_python(repo, environ=environ())
    assert chosen.source == "PATH" and any(".venv has no working bin/python" in n for n in chosen.notes)


def test_python3_on_path_and_a_pyenv_shim_resolved_to_its_version(tmp_path: Path, bare_venv: Path) -> None:
    repo = make_repo(tmp_path / "r", {".python-version": "3.99.1\n", "README.md": "x\n"})
    root = tmp_path / "pyenv"
    (root / "shims").mkdir(parents=True)
    (root / "shims" / "python3").write_text("#!/bin/sh\nexec pyenv exec python3 \"$@\"\n")
    (root / "shims" / "python3").chmod(0o755)
    version = make_venv(root / "versions" / "3.99.1")  # a real interpreter where pyenv keeps version 3.99.1
    chosen = find_python(repo, environ=environ(PYENV_ROOT=str(root), PATH=f"{root}/shims:{PATH}"))
    assert chosen.python == str(version / "bin" / "python3") and chosen.why == "python3 on PATH via pyenv"
    (repo / ".python-version").write_text(os.path.relpath(bare_venv, root / "versions") + "\n")  # never a path
    assert find_python(repo, environ=environ(PYENV_ROOT=str(root), PATH=f"{root}/shims:{PATH}")).python == \
        str(root / "shims" / "python3")


def test_poetry_env_found_by_its_name_and_path_hash(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "poet", {"pyproject.toml": '[tool.poetry]\nname = "My_Proj"\nversion = "0.1"\n'})
    cache = tmp_path / "poetry-cache"
    name = poetry_env_name("my-proj", repo)
    assert name.startswith("my-proj-") and len(name) == len("my-proj-") + 8
    make_venv(cache / "virtualenvs" / f"{name}-py3.11")
    chosen = find_python(repo, environ=environ(POETRY_CACHE_DIR=str(cache)))
    assert chosen.source == "poetry" and chosen.python.startswith(str(cache / "virtualenvs" / name))
    other = make_repo(tmp_path / "other", {"pyproject.toml": '[tool.poetry]\nname = "My_Proj"\nversion = "0.1"\n'})
    assert find_python(other, environ=environ(POETRY_CACHE_DIR=str(cache))).source == "PATH", "another checkout"


def test_hatch_pipenv_pdm_and_conda_locations(tmp_path: Path) -> None:
    import base64
    import hashlib

    data = tmp_path / "data"
    hatch = make_repo(tmp_path / "h", {"pyproject.toml": '[project]\nname = "Hatch_Demo"\n[tool.hatch.envs.default]\n'})
    checksum = base64.urlsafe_b64encode(hashlib.sha256(str(hatch).encode()).digest()).decode()[:8]
    make_venv(data / "hatch" / "env" / "virtual" / "hatch-demo" / checksum / "hatch-demo")
    assert find_python(hatch, environ=environ(XDG_DATA_HOME=str(data))).source == "hatch"

    pipenv = make_repo(tmp_path / "pip env", {"Pipfile": "[packages]\n"})
    digest = base64.urlsafe_b64encode(hashlib.sha256(str(pipenv / "Pipfile").encode()).digest()[:6]).decode()[:8]
    make_venv(data / "virtualenvs" / f"pip_env-{digest}")
    assert find_python(pipenv, environ=environ(XDG_DATA_HOME=str(data))).why == f"pipenv's environment pip_env-{digest}"

    pdm_env = make_venv(tmp_path / "pdm-venvs" / "p-1")
    pdm = make_repo(tmp_path / "p", {"pyproject.toml": "[tool.pdm]\n", ".pdm-python": f"{pdm_env}/bin/python\n"})
    chosen = find_python(pdm, environ=environ())
    assert chosen.source == "pdm" and chosen.prefix == str(pdm_env) and not chosen.trusted

    envs = tmp_path / "conda-envs"
    (envs / "sci" / "conda-meta").mkdir(parents=True)
    (envs / "sci" / "bin").mkdir()
    (envs / "sci" / "bin" / "python3").symlink_to(os.path.realpath(sys.executable))
    conda = make_repo(tmp_path / "c", {"environment.yml": "name: sci\ndependencies: [python]\n"})
    chosen = find_python(conda, environ=environ(CONDA_ENVS_PATH=str(envs)))
    assert chosen.source == "conda" and chosen.prefix == str(envs / "sci")


def test_hostile_names_never_become_paths(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    make_venv(tmp_path / "escape-py3.11")
    repo = make_repo(tmp_path / "r", {"pyproject.toml": '[tool.poetry]\nname = "../../../escape"\n',
                                      "environment.yml": "name: ../../escape\n"})
    chosen = find_python(repo, environ=environ(POETRY_CACHE_DIR=str(cache), CONDA_ENVS_PATH=str(tmp_path)))
    assert chosen.source == "PATH"


def test_pytest_is_seen_in_the_files(bare_venv: Path, project_venv: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    assert find_python(repo, environ=environ(VIRTUAL_ENV=str(bare_venv))).has_pytest is False
    assert find_python(repo, environ=environ(VIRTUAL_ENV=str(project_venv))).has_pytest is True


def test_configured_interpreter_and_nothing_found(tmp_path: Path, bare_venv: Path) -> None:
    repo = make_repo(tmp_path / "r")
    config = Config()
    config.project.python = str(bare_venv)  # an env directory works as well as its python
    assert find_python(repo, config, environ=environ()).python == str(bare_venv / "bin" / "python3")
    config.project.python = str(tmp_path / "nope")
    wrong = find_python(repo, config, environ=environ())
    assert not wrong.found and "is not an executable" in wrong.why
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    none = find_python(repo, environ=environ(PATH=str(empty), HOME=str(tmp_path)))
    assert not none.found and none.line(repo).startswith("python: none found (no VIRTUAL_ENV")


@pytest.mark.parametrize("setting", ["/usr/bin/python3", "~/venv/bin/python", "../outside/bin/python"])
def test_a_repo_may_only_name_an_interpreter_inside_itself(tmp_path: Path, setting: str) -> None:
    from tui.config import load_config
    from tui.protocol.errors import ConfigError

    repo = make_repo(tmp_path / "r", {".devagent.toml": f'[project]\npython = "{setting}"\n'})
    with pytest.raises(ConfigError, match="must be a path inside the repository"):
        load_config(repo)
    (repo / ".devagent.toml").write_text('[project]\npython = ".venv-dev/bin/python"\n')
    assert load_config(repo).project.python == ".venv-dev/bin/python"


def test_a_hostile_repo_venv_is_only_looked_at(tmp_path: Path) -> None:
    """pyvenv.cfg files that point at each other, a FIFO where pyvenv.cfg should be: found, never run or hung on."""
    repo = make_repo(tmp_path / "r")
    make_venv(repo / ".venv")
    other = make_venv(tmp_path / "other")
    (repo / ".venv" / "pyvenv.cfg").write_text(f"home = {other}/bin\ninclude-system-site-packages = true\n")
    (other / "pyvenv.cfg").write_text(f"home = {repo}/.venv/bin\ninclude-system-site-packages = true\n")
    marker = tmp_path / "ran"
    (repo / ".venv" / "bin" / "python3").unlink()
    (repo / ".venv" / "bin" / "python3").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (repo / ".venv" / "bin" / "python3").chmod(0o755)
    chosen = find_python(repo, environ=environ())
    assert chosen.source == ".venv" and chosen.has_pytest is False and not marker.exists()
    (other / "pyvenv.cfg").unlink()
    os.mkfifo(other / "pyvenv.cfg")
    assert find_python(repo, environ=environ()).source == ".venv"
