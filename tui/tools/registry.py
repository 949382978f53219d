"""The tools the model sees, by name. Optional tools (tests, scaffold, git writes) join when their modules exist."""

from __future__ import annotations

import importlib

from tui.tools.base import ToolSpec

CORE_MODULES = ["read_file", "list_files", "search", "outline", "git_read", "write_file", "edit_file", "edit_symbol",
                "run_command"]
OPTIONAL_MODULES = ["run_tests", "scaffold", "git_write", "refactor"]


def _specs_of(module_name: str) -> list[ToolSpec]:
    module = importlib.import_module(f"tui.tools.{module_name}")
    if hasattr(module, "SPECS"):
        return list(module.SPECS)
    return [module.SPEC]


def load_tools(include_optional: bool = True) -> dict[str, ToolSpec]:
    tools: dict[str, ToolSpec] = {}
    for name in CORE_MODULES:
        for spec in _specs_of(name):
            tools[spec.name] = spec
    if include_optional:
        for name in OPTIONAL_MODULES:
            try:
                specs = _specs_of(name)
            except ImportError:
                continue
            for spec in specs:
                tools.setdefault(spec.name, spec)
    return tools
