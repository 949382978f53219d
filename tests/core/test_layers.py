"""The package's layers hold: no import cycle, no import against the order in scripts/import_graph.py,
every module in a layer, and no module over the size limit but the few listed with their reason."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _graph_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts" / "import_graph.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def ig() -> ModuleType:
    return _graph_script()


@pytest.fixture(scope="module")
def graph(ig: ModuleType) -> object:
    return ig.build(ROOT / "tui")


def test_no_import_cycles(ig: ModuleType, graph: object) -> None:
    assert ig.cycles(graph) == []


def test_no_import_against_the_layer_order(ig: ModuleType, graph: object) -> None:
    assert ig.against_layers(graph, ig.LAYERS) == []


def test_every_module_has_a_layer(ig: ModuleType, graph: object) -> None:
    assert ig.unplaced(graph, ig.LAYERS) == []


def test_no_module_over_the_limit(ig: ModuleType, graph: object) -> None:
    assert ig.too_long(graph) == []
    # The allow-list only names modules that exist and still need it.
    assert sorted(m for m in ig.LONG_MODULES if graph.sizes.get(m, 0) <= ig.MAX_LINES) == []


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / "tui" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "tui"


def test_the_checks_find_cycles_and_upward_imports(ig: ModuleType, tmp_path: Path) -> None:
    """Lazy and type-only imports count, relative imports are resolved."""
    tui = _tree(tmp_path, {
        "__init__.py": "",
        "protocol/__init__.py": "",
        "protocol/events.py": "def f():\n    from tui.engine import loop\n",  # upward, inside a function
        "engine/__init__.py": "",
        "engine/loop.py": "from tui.protocol import events\nfrom .helper import x\n",
        "engine/helper.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tui.engine.loop import y\nx = 1\n",
        "stray.py": "",
    })
    graph = ig.build(tui)
    layers = [["tui.protocol"], ["tui.engine"]]
    assert ig.cycles(graph) == [["tui.engine.helper", "tui.engine.loop", "tui.protocol.events"]]
    assert ig.against_layers(graph, layers) == ["tui.protocol.events -> tui.engine.loop"]
    assert ig.unplaced(graph, layers) == ["tui.stray"]


def test_peers_in_one_layer_may_not_import_each_other(ig: ModuleType, tmp_path: Path) -> None:
    tui = _tree(tmp_path, {"__init__.py": "", "headless.py": "import tui.acp.server\n", "acp/__init__.py": "",
                           "acp/server.py": ""})
    assert ig.against_layers(ig.build(tui), [["tui.headless", "tui.acp"]]) == ["tui.headless -> tui.acp.server"]


def test_the_engine_is_in_parts_a_newcomer_can_see() -> None:
    """tui/engine: subpackages by concept (session, loop, pipelines, work, rules, context), at most 10 modules
    at its top level, no function over 60 lines (issue 29)."""
    import ast

    engine = Path(__file__).resolve().parents[2] / "tui" / "engine"
    assert len(list(engine.glob("*.py"))) <= 10
    long = []
    for path in engine.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 60:
                long.append(f"{path.relative_to(engine)}:{node.name}")
    assert long == []
