"""The core must run without a terminal UI: importing all of tui.core never imports textual."""

from __future__ import annotations

import subprocess
import sys

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
