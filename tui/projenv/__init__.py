"""The project's own environment: its interpreter, its variables, and what the sandbox must show of it.

See docs/tests-and-scaffold.md ("Which Python") for the order in which interpreters are tried.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from tui.projenv.binds import hidden_roots, own_environment
from tui.projenv.interpreter import find_python
from tui.projenv.pyinfo import Interpreter
from tui.projenv.variables import PASS_DEFAULT, REPO_SETTABLE, command_env, repo_env_problem

if TYPE_CHECKING:
    from tui.config import Config

__all__ = ["Interpreter", "PASS_DEFAULT", "REPO_SETTABLE", "ProjectEnv", "find_python", "for_command",
           "hidden_roots", "own_environment", "repo_env_problem"]


@dataclass(frozen=True)
class ProjectEnv:
    interpreter: Interpreter
    env: dict[str, str]  # added to (and overriding) the sandbox's allowed environment


def for_command(repo: Path, config: "Config", cwd: Path | None = None,
                environ: Mapping[str, str] | None = None) -> ProjectEnv:
    """The interpreter for commands run in ``cwd`` and the variables they get."""
    interp = find_python(repo, config, cwd, environ)
    project = config.project
    return ProjectEnv(interp, command_env(repo, list(project.pass_env), dict(project.env), interp, environ))
