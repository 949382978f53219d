#!/usr/bin/env python3
"""The import graph of tui/: cycles, imports against the layer order, and the largest modules.

Every ``import tui...`` / ``from tui... import`` counts, at module level or inside a function, and under
``if TYPE_CHECKING:`` too: a lazy or type-only import is still a dependency a reader has to follow.

    python scripts/import_graph.py [--json FILE] [--root DIR] [--layers FILE.json]

``--layers`` takes a JSON list of lists of package prefixes (bottom first), to measure another tree
(an older layout) with its own order. Exits 0 whatever it finds; tests/core/test_layers.py is the gate.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

# Bottom first. A module may import modules of its own package and of any lower layer, nothing else:
# packages that share a layer are peers and never import each other. docs/architecture.md explains each.
LAYERS: list[list[str]] = [
    ["tui.protocol"],                # errors, events, proposals and decisions
    ["tui.safety"],                  # paths in the repo, literal text, shell parsing, risk, repo-config rules
    ["tui.config"],                  # settings
    ["tui.projenv"],                 # the project's Python and environment
    ["tui.symbols"],                 # definitions in Python and JavaScript source
    ["tui.llm"],                     # model backends, tool-call parsing, model files
    ["tui.git"],                     # every host-side git call
    ["tui.sandbox"],                 # bubblewrap
    ["tui.policy"],                  # allow / ask / deny
    ["tui.testing"],                 # test suites: detect, run, parse
    ["tui.scaffold", "tui.refactor"],  # project templates; refactoring engines (rename, move, signature, repair)
    ["tui.tools"],                   # the model's tools
    ["tui.engine"],                  # session, agent loop, context, prompt, grounding, verify
    ["tui.headless", "tui.acp"],     # front ends without a terminal UI
    ["tui.app"],                     # the Textual front end
    ["tui.serve"],                   # the app in a browser
    ["tui.commands"],                # one module per subcommand
    ["tui.cli"],                     # argument parsing; picks a front end
    ["tui.__main__"],                # python -m tui
]
ROOT_PACKAGE = "tui"  # tui/__init__.py: the version, imported by anyone
MAX_LINES = 420  # "a few hundred lines, none over ~400"
# Longer modules, each with the reason it is still one piece (tests/core/test_layers.py keeps this list honest).
LONG_MODULES: dict[str, str] = {}


@dataclass
class Graph:
    sizes: dict[str, int] = field(default_factory=dict)
    edges: dict[str, set[str]] = field(default_factory=dict)


def module_names(root: Path) -> dict[str, Path]:
    """Dotted name -> file, for every .py under root (root is the tui/ directory)."""
    names: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _resolve(name: str, known: dict[str, Path]) -> str:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name


def _imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {_resolve(a.name, known) for a in node.names if a.name.split(".")[0] == ROOT_PACKAGE}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join(package + ([base] if base else []))
            if base.split(".")[0] != ROOT_PACKAGE:
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in known else _resolve(base, known))
    found.discard(module)
    found.discard("")
    return found


def build(root: Path) -> Graph:
    known = module_names(root)
    graph = Graph()
    for name, path in known.items():
        graph.sizes[name] = len(path.read_text(encoding="utf-8").splitlines())
        graph.edges[name] = _imports(name, path, known)
    return graph


def cycles(graph: Graph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph.edges):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def package_of(module: str, layers: list[list[str]]) -> tuple[int, str] | None:
    """(layer index, package prefix) of a module; None for the root package and unplaced modules."""
    best: tuple[int, str] | None = None
    for level, packages in enumerate(layers):
        for package in packages:
            if (module == package or module.startswith(package + ".")) and (best is None or len(package) > len(best[1])):
                best = (level, package)
    return best


def against_layers(graph: Graph, layers: list[list[str]]) -> list[str]:
    """Imports that go up the order or sideways between peers, as 'importer -> imported'."""
    bad = []
    for src, targets in sorted(graph.edges.items()):
        here = package_of(src, layers)
        for dst in sorted(targets):
            there = package_of(dst, layers)
            if dst == ROOT_PACKAGE or here is None or there is None or here[1] == there[1]:
                continue
            if there[0] >= here[0]:
                bad.append(f"{src} -> {dst}")
    return bad


def unplaced(graph: Graph, layers: list[list[str]]) -> list[str]:
    return sorted(m for m in graph.sizes if m != ROOT_PACKAGE and package_of(m, layers) is None)


def too_long(graph: Graph, limit: int = MAX_LINES) -> list[str]:
    return sorted(m for m, n in graph.sizes.items() if n > limit and m not in LONG_MODULES)


def report(graph: Graph, layers: list[list[str]], top: int = 10) -> dict[str, object]:
    found = cycles(graph)
    upward = against_layers(graph, layers)
    largest = sorted(graph.sizes.items(), key=lambda kv: -kv[1])[:top]
    return {"modules": len(graph.sizes), "imports": sum(len(v) for v in graph.edges.values()),
            "cycles": found, "cycle_count": len(found), "against_layers": upward, "against_count": len(upward),
            "unplaced": unplaced(graph, layers), "largest": largest,
            "over_limit": sorted(m for m, n in graph.sizes.items() if n > MAX_LINES)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1] / "tui")
    parser.add_argument("--layers", type=Path, help="a JSON list of lists of package prefixes, bottom first")
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    layers = json.loads(args.layers.read_text()) if args.layers else LAYERS
    result = report(build(args.root), layers)
    print(f"{result['modules']} modules, {result['imports']} imports")
    print(f"cycles: {result['cycle_count']}")
    for component in result["cycles"]:  # type: ignore[union-attr]
        print("  " + " <-> ".join(component))
    print(f"against the layer order: {result['against_count']}")
    for arrow in result["against_layers"]:  # type: ignore[union-attr]
        print("  " + arrow)
    if result["unplaced"]:
        print("in no layer: " + ", ".join(result["unplaced"]))  # type: ignore[arg-type]
    print(f"largest modules (limit {MAX_LINES} lines):")
    for name, lines in result["largest"]:  # type: ignore[misc]
        print(f"  {lines:5d}  {name}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
