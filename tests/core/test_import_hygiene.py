"""The engine must run without a terminal UI: importing every module of tui but the Textual front end never imports textual."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# Everything but the Textual front end (tui.app) and the browser server that serves it (tui.serve).
TEXTUAL_FRONT_ENDS = ("tui.app", "tui.serve")

SCRIPT = r"""
import importlib, pkgutil, sys
import tui
skip = set(sys.argv[1:])
failed = []
def walk(path, prefix):  # not pkgutil.walk_packages: it would import the skipped packages to look inside them
    for info in pkgutil.iter_modules(path, prefix):
        if info.name not in skip:
            yield info.name
            if info.ispkg:
                yield from walk([f"{path[0]}/{info.name.rpartition('.')[2]}"], info.name + ".")
for name in ["tui", *walk(tui.__path__, "tui.")]:
    try:
        importlib.import_module(name)
    except ImportError as exc:
        failed.append(f"{name}: {exc}")
print("TEXTUAL" if any(m == "textual" or m.startswith("textual.") for m in sys.modules) else "CLEAN")
print("\n".join(failed))
"""


def test_engine_never_imports_textual() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT, *TEXTUAL_FRONT_ENDS], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    first, _, failures = out.stdout.partition("\n")
    assert first == "CLEAN", "a module outside tui.app and tui.serve imported textual"
    assert not failures.strip(), f"modules failed to import:\n{failures}"


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
AFTER_FIRST_FRAME = ("ollama", "git", "unidiff", "httpx", "sqlite3", "tui.engine.session", "tui.engine.session.store",
                     "tui.app.flows", "tui.app.worktree", "tui.app.approver", "tui.app.screens.help",
                     "tui.app.screens.proposal", "tui.app.screens.edit_command", "tui.app.screens.commit")


def _loaded_by(probe: str, repo: Path, tmp_path: Path) -> set[str]:
    """The modules loaded when ``probe`` (an app built the way the benchmark builds it) printed sys.modules."""
    env = {**os.environ, "TEXTUAL_ANIMATIONS": "none", "DEVAGENT_CONFIG": str(tmp_path / "none.toml"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("OLLAMA_HOST", None)
    out = subprocess.run([sys.executable, "-c", probe, str(repo)], capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    loaded = set(out.stdout.split())
    assert "tui.app.screens.main" in loaded, out.stdout[-500:]
    return loaded


def test_tui_first_frame_does_not_wait_for_heavy_modules(repo: Path, tmp_path: Path) -> None:
    assert sorted(_loaded_by(FIRST_FRAME, repo, tmp_path).intersection(AFTER_FIRST_FRAME)) == []


FIRST_PAINT = r"""
import sys
from pathlib import Path
from tui.app.launch import open_session
from tui.config import load_config
from tui.app.app import DevagentApp

class Probe(DevagentApp):
    def _display(self, screen, update):
        super()._display(screen, update)
        if update is not None and not self._batch_count and not getattr(self, "probed", False):
            self.probed = True  # the first frame handed to the terminal
            print(" ".join(sorted(sys.modules)))
            self.exit()

repo = Path(sys.argv[1])
Probe(repo, load_config(repo), session_factory=open_session,
      session_options={"host": "http://127.0.0.1:9"}).run(headless=True)
"""

# What the first painted frame does without (tui/app/screens/first_frame.py, docs/tui-startup.md): the prompt's
# TextArea and the diff view come right after it, the engine's event classes with the first event.
AFTER_FIRST_PAINT = ("textual.widgets._text_area", "textual.document", "tui.app.widgets.diff_view",
                     "tui.app.widgets.prompt_input", "tui.app.widgets.reply_block", "tui.protocol.events", "json")


def test_tui_first_paint_leaves_the_prompt_and_the_diff_view_for_right_after(repo: Path, tmp_path: Path) -> None:
    assert sorted(_loaded_by(FIRST_PAINT, repo, tmp_path).intersection(AFTER_FIRST_PAINT + AFTER_FIRST_FRAME)) == []
