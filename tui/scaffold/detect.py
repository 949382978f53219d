"""Project kind and conventions, learned from the files already in the repo (before anything is written)."""

from __future__ import annotations

import json
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tui.safety.parsing import loads_json, loads_toml
from tui.safety.paths import read_regular
from tui.testing.detect import PROJECT_FILE_LIMIT, SKIP_DIRS, list_files

JS_EXT = (".tsx", ".jsx", ".ts", ".js", ".mjs", ".cjs")
TEST_RE = re.compile(r"\.(test|spec)\.[cm]?[jt]sx?$")
STORY_RE = re.compile(r"\.stories\.[cm]?[jt]sx?$")
# Next.js route files must default-export: they say nothing about the repo's own export style.
NEXT_SPECIAL = {"page", "layout", "route", "loading", "error", "not-found", "template", "default", "_app", "_document"}


@dataclass
class Conventions:
    """How this repo writes things. Defaults are the common choice when the repo has no example."""

    naming: str = "pascal"  # pascal | kebab | snake | camel  (component file names)
    component_dir: str = "components"
    folder_per_component: bool = False  # Header/Header.tsx
    test_style: str = "colocated"  # colocated | __tests__ | tests_dir
    test_suffix: str = ".test"  # .test | .spec
    test_framework: str = ""  # jest | vitest | node | pytest | go | cargo
    styling: str = "none"  # css-modules | tailwind | styled-components | none
    export: str = "named"  # default | named
    stories: bool = False
    testing_library: bool = False  # @testing-library/react in use (else tests render to a string)
    ext: str = "tsx"  # component extension: tsx | jsx
    module_ext: str = "js"  # plain modules: ts | js
    esm: bool = False
    module_dir: str = "src"
    test_dir: str = "test"  # node: where tests live when not colocated
    router: str = ""  # app | pages (Next.js)
    app_dir: str = ""  # "app", "src/app", "pages", "src/pages"
    evidence: list[str] = field(default_factory=list)


@dataclass
class Project:
    kind: str  # nextjs | react | node | python | textual | go | rust | unknown
    root: Path
    language: str = ""  # ts | js | py | go | rs
    src_layout: bool = False
    package: str = ""  # python import package / go module path / rust crate
    package_dir: str = ""  # repo-relative directory of the python package
    conventions: Conventions = field(default_factory=Conventions)


def _read(path: Path) -> str:
    """A project file's text; "" when missing, a symlink, not a regular file (a FIFO would block) or unreadable."""
    try:
        return read_regular(path, PROJECT_FILE_LIMIT, follow=False).decode("utf-8", "replace")
    except OSError:
        return ""


def classify_name(stem: str) -> str:
    if "-" in stem:
        return "kebab"
    if "_" in stem:
        return "snake"
    if stem[:1].isupper():
        return "pascal"
    if any(c.isupper() for c in stem):
        return "camel"
    return ""  # one lowercase word: says nothing


def _majority(counter: Counter[str], default: str) -> str:
    counter.pop("", None)
    return counter.most_common(1)[0][0] if counter else default


def _package_json(root: Path) -> dict:
    try:  # nested too deeply: TooDeep (a ToolError) says so, and nothing is scaffolded from a guess
        data = loads_json(_read(root / "package.json") or "{}", str(root / "package.json"))
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def _deps(pkg: dict) -> set[str]:
    names: set[str] = set()
    for key in ("dependencies", "devDependencies", "peerDependencies"):
        section = pkg.get(key)
        if isinstance(section, dict):
            names.update(section)
    return names


def _js_conventions(root: Path, files: list[str], pkg: dict, conv: Conventions) -> None:
    deps = _deps(pkg)
    script = str((pkg.get("scripts") or {}).get("test", ""))
    if "vitest" in deps or "vitest" in script:
        conv.test_framework = "vitest"
    elif "jest" in deps or "jest" in script or any(f.startswith("jest.config") for f in files):
        conv.test_framework = "jest"
    elif "--test" in script:
        conv.test_framework = "node"
    conv.esm = pkg.get("type") == "module"
    code = [f for f in files if f.endswith(JS_EXT) and not f.endswith(".d.ts") and "config" not in Path(f).name]
    comps = [f for f in code if f.endswith((".tsx", ".jsx")) and not TEST_RE.search(f) and not STORY_RE.search(f)
             and Path(f).name.split(".")[0] not in NEXT_SPECIAL]
    under_components = [f for f in comps if "components/" in f]
    sample = under_components or comps
    if under_components:
        first = under_components[0]
        conv.component_dir = first[: first.index("components/") + len("components")]
    elif any(f.startswith("src/") for f in files):
        conv.component_dir = "src/components"
    names = Counter(classify_name(Path(f).name.split(".")[0]) for f in sample if Path(f).stem != "index")
    conv.naming = _majority(names, "pascal")
    conv.folder_per_component = sum(Path(f).parent.name == Path(f).name.split(".")[0] for f in under_components) * 2 > max(
        1, len(under_components))
    tests = [f for f in code if TEST_RE.search(f)]
    if tests:
        conv.test_style = "__tests__" if sum("__tests__/" in f for f in tests) * 2 >= len(tests) else "colocated"
        if conv.test_style == "colocated" and all(f.split("/")[0] in ("test", "tests") for f in tests):
            conv.test_style, conv.test_dir = "tests_dir", tests[0].split("/")[0]
        conv.test_suffix = _majority(Counter("." + TEST_RE.search(f).group(1) for f in tests), ".test")  # type: ignore[union-attr]
        conv.evidence.append(f"tests: {tests[0]}")
    conv.stories = any(STORY_RE.search(f) for f in files)
    conv.testing_library = "@testing-library/react" in deps or any(
        "@testing-library/react" in _read(root / f) for f in tests[:10])
    if any(f.endswith((".module.css", ".module.scss")) for f in files):
        conv.styling = "css-modules"
    elif "styled-components" in deps:
        conv.styling = "styled-components"
    elif "tailwindcss" in deps or any(f.startswith("tailwind.config") for f in files):
        conv.styling = "tailwind"
    exports: Counter[str] = Counter()
    for f in sample[:20]:
        text = _read(root / f)
        exports["default"] += len(re.findall(r"^export default ", text, re.M))
        exports["named"] += len(re.findall(r"^export (?:function|const|class) ", text, re.M))
    conv.export = _majority(exports, "named")
    conv.ext = "tsx" if any(f.endswith(".tsx") for f in files) or "typescript" in deps or "tsconfig.json" in files else "jsx"
    conv.module_ext = "ts" if conv.ext == "tsx" else "js"
    src_modules = [f for f in code if not TEST_RE.search(f) and "/" in f]
    if src_modules:
        conv.module_dir = Counter(str(Path(f).parent) for f in src_modules).most_common(1)[0][0]
    for d in ("src/app", "app", "src/pages", "pages"):
        if any(f.startswith(d + "/") for f in files):
            conv.app_dir, conv.router = d, d.split("/")[-1]
            break
    conv.evidence.append(f"naming {conv.naming}, exports {conv.export}, styling {conv.styling}")


def _python_project(root: Path, files: list[str], project: Project) -> None:
    conv = project.conventions
    inits = sorted((f for f in files if f.endswith("/__init__.py") and f.count("/") <= 2), key=lambda f: f.count("/"))
    for init in inits:
        parts = init.split("/")[:-1]
        if parts[0] in ("tests", "test", "docs", "scripts", "examples"):
            continue
        if parts[0] == "src" and len(parts) == 2:
            project.src_layout, project.package, project.package_dir = True, parts[1], init.rsplit("/", 1)[0]
            break
        if len(parts) == 1:
            project.package, project.package_dir = parts[0], parts[0]
            break
    tests = [f for f in files if re.search(r"(^|/)(test_[^/]*|[^/]*_test)\.py$", f)]
    conv.test_framework = "pytest"
    conv.test_style = "tests_dir" if not tests or any(f.startswith(("tests/", "test/")) for f in tests) else "colocated"
    conv.test_dir = "test" if tests and all(f.startswith("test/") for f in tests) else "tests"
    conv.test_suffix = "_test" if tests and sum(Path(f).name.endswith("_test.py") for f in tests) * 2 > len(tests) else "test_"
    conv.naming = "snake"
    pyproject = _read(root / "pyproject.toml")
    try:
        deps = " ".join(str(d) for d in loads_toml(pyproject, str(root / "pyproject.toml")).get("project", {})
                        .get("dependencies", []))
    except (tomllib.TOMLDecodeError, AttributeError, TypeError):  # not TOML, or `project` is not a table
        deps = ""
    if "textual" in deps or any("from textual" in _read(root / f) for f in files if f.endswith(".py")
                                and f.startswith(project.package_dir or "~")):
        project.kind = "textual"
    conv.module_dir = project.package_dir


def detect_project(repo: Path) -> Project:
    """The kind of project at the repo root and the conventions its files show."""
    files = [f for f in list_files(repo) if not any(p in SKIP_DIRS for p in f.split("/")[:-1])]
    names = set(files)
    project = Project("unknown", repo)
    if "package.json" in names:
        pkg = _package_json(repo)
        deps = _deps(pkg)
        project.kind = "nextjs" if "next" in deps or any(f.startswith("next.config") for f in names) else (
            "react" if "react" in deps else "node")
        _js_conventions(repo, files, pkg, project.conventions)
        project.language = "ts" if project.conventions.ext == "tsx" else "js"
        project.src_layout = any(f.startswith("src/") for f in files)
    elif "go.mod" in names:
        project.kind, project.language = "go", "go"
        match = re.search(r"^module\s+(\S+)", _read(repo / "go.mod"), re.M)
        project.package = match.group(1) if match else ""
        project.conventions.test_framework = "go"
    elif "Cargo.toml" in names:
        project.kind, project.language = "rust", "rs"
        project.conventions.test_framework = "cargo"
    elif names & {"pyproject.toml", "setup.py", "setup.cfg"} or any(f.endswith(".py") for f in files):
        project.kind, project.language = "python", "py"
        _python_project(repo, files, project)
    return project
