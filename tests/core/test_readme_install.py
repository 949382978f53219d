"""The README's first command works on a stock Debian/Ubuntu python3, which refuses `pip install` outside a virtual
environment ("externally-managed-environment"), and CI installs the way the README says.

The install is run for real with the system's own python3 when it is an externally managed one (Debian's, here);
dependencies are left out (`--no-deps`: the full install is what CI does, and takes minutes), so what is checked is
the route: the venv, pip in it, the `devagent` it installs."""

from __future__ import annotations

import glob
import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = "/usr/bin/python3"


def quickstart() -> list[str]:
    """The command lines of the README's Quickstart block, comments left out."""
    block = re.search(r"## Quickstart\n\n```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert block, "the README has a Quickstart block"
    return [line for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]


def test_ci_installs_the_way_the_readme_says() -> None:
    first, second = quickstart()
    steps = [part.strip() for line in (first, second) for part in line.split("&&")]
    assert steps[:3] == ["python3 -m venv .venv", ". .venv/bin/activate", "pip install -e '.[embedded]'"]
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    for step in ("python3 -m venv .venv", ". .venv/bin/activate"):
        assert step in ci, step
    test_install = next(s for s in steps if ".[test]" in s)
    assert test_install.replace("pip install", "pip install -q") in ci
    assert any(line.startswith("scripts/fetch-test-model 1.5b") for line in ci)
    assert "python -m pytest -q -p no:cacheprovider" in ci


@pytest.mark.skipif(not glob.glob("/usr/lib/python3*/EXTERNALLY-MANAGED") or not Path(SYSTEM_PYTHON).exists(),
                    reason="no externally managed system python3 here (Debian/Ubuntu's) to try the README on")
def test_the_first_command_works_with_an_externally_managed_python3(tmp_path: Path) -> None:
    refused = subprocess.run([SYSTEM_PYTHON, "-m", "pip", "install", "--dry-run", "-e", str(ROOT)],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "externally-managed-environment" in refused.stderr + refused.stdout
    first = quickstart()[0]
    venv_step, activate, install, run = [part.strip() for part in first.split("&&")]
    venv = tmp_path / ".venv"
    made = subprocess.run([SYSTEM_PYTHON, *shlex.split(venv_step)[1:-1], str(venv)], capture_output=True, text=True,
                          timeout=120)
    if made.returncode != 0 and "ensurepip" in made.stdout + made.stderr:
        pytest.skip("python3-venv is not installed (the README says to apt-get install it): " + made.stdout[-200:])
    assert made.returncode == 0, made.stderr
    assert activate == ". .venv/bin/activate" and run == "devagent"
    words = shlex.split(install)
    assert words[:3] == ["pip", "install", "-e"] and words[3] == ".[embedded]"
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-deps", "-e", f"{ROOT}[embedded]"],
                         capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr[-2000:]
    version = subprocess.run([str(venv / "bin" / "devagent"), "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("devagent "), version.stderr
