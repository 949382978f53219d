"""The core must run without a terminal UI: importing all of tui.core never imports textual."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = r"""
import importlib, pkgutil, sys
import tui.core
failed = []
for mod in pkgutil.walk_packages(tui.core.__path__, "tui.core."):
    try:
        importlib.import_module(mod.name)
    except ImportError as exc:
        failed.append(f"{mod.name}: {exc}")
print("TEXTUAL" if any(m == "textual" or m.startswith("textual.") for m in sys.modules) else "CLEAN")
print("\n".join(failed))
"""


def test_core_never_imports_textual() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    first, _, failures = out.stdout.partition("\n")
    assert first == "CLEAN", "a tui.core module imported textual"
    assert not failures.strip(), f"core modules failed to import:\n{failures}"


def test_cli_help_does_not_load_the_model_client_or_git() -> None:
    code = ("import sys; from tui.cli import main\n"
            "import contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['--help'])\n"
            "print(sorted(m for m in ('ollama', 'git', 'unidiff', 'textual') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


FIRST_FRAME = r"""
import sys
from pathlib import Path
from tui.app.launch import open_session
from tui.config import load_config
from tui.app.app import DevagentApp

class Probe(DevagentApp):
    def _after_first_frame(self):
        print(" ".join(sorted(sys.modules)))
        self.exit()

repo = Path(sys.argv[1])
Probe(repo, load_config(repo), session_factory=open_session,
      session_options={"host": "http://127.0.0.1:9"}).run(headless=True)
"""

# Loaded after the first frame (the session worker, the first key that needs them), never before it.
AFTER_FIRST_FRAME = ("ollama", "git", "unidiff", "httpx", "sqlite3", "tui.core.session", "tui.core.store",
                     "tui.app.flows", "tui.app.worktree", "tui.app.approver", "tui.app.screens.help",
                     "tui.app.screens.proposal", "tui.app.screens.edit_command", "tui.app.screens.commit")


def test_tui_first_frame_does_not_wait_for_heavy_modules(repo: Path, tmp_path: Path) -> None:
    env = {**os.environ, "TEXTUAL_ANIMATIONS": "none", "DEVAGENT_CONFIG": str(tmp_path / "none.toml"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("OLLAMA_HOST", None)
    out = subprocess.run([sys.executable, "-c", FIRST_FRAME, str(repo)], capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    loaded = set(out.stdout.split())
    assert "tui.app.app" in loaded, out.stdout[-500:]
    assert sorted(loaded.intersection(AFTER_FIRST_FRAME)) == []
