"""Names, templates and the files each scaffold kind produces, following the repo's conventions."""

from __future__ import annotations

import keyword
import os
import re
import string
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from tui.protocol.errors import PathRefused, ToolError
from tui.safety.paths import read_bounded
from tui.scaffold.detect import Conventions, Project

KINDS = ("component", "page", "route", "module", "widget", "package")
OVERRIDE_DIR = ".devagent/templates"
TEMPLATE_LIMIT = 256_000
KINDS_BY_PROJECT = {
    "python": "Python projects: module, widget.", "textual": "Textual apps: widget, module.",
    "go": "Go modules: package.", "nextjs": "Next.js: component, page, route, module.",
    "react": "React: component, module.", "node": "Node packages: module (components need react in package.json).",
}
KINDS_HINT = "Kinds by project: component/page/route (Next.js), module, widget (Textual), package (Go)."
PASCAL = re.compile(r"^[A-Z][A-Za-z0-9]*$")
SNAKE = re.compile(r"^[a-z_][a-z0-9_]*$")
CAMEL = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
SEGMENT = re.compile(r"^(?:[a-z0-9][a-z0-9-]*|\[{1,2}(?:\.\.\.)?[A-Za-z_][A-Za-z0-9_]*\]{1,2})$")
GO_PKG = re.compile(r"^[a-z][a-z0-9]*$")


@dataclass
class Scaffold:
    kind: str
    name: str
    files: dict[str, str]  # repo-relative path -> content (all new)
    test_file: str = ""  # the new test, to offer running it
    notes: list[str] = field(default_factory=list)  # what conventions were followed


def words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", name))
    return [w.lower() for w in re.split(r"[\s_\-]+", spaced) if w]


def styled(name: str, style: str) -> str:
    parts = words(name)
    if style == "kebab":
        return "-".join(parts)
    if style == "snake":
        return "_".join(parts)
    if style == "camel":
        return parts[0] + "".join(p.capitalize() for p in parts[1:])
    return "".join(p.capitalize() for p in parts)


def validate(kind: str, name: str) -> None:
    """Refuse names that would not be valid identifiers, or that smuggle in a path."""
    if kind not in KINDS:
        raise ToolError(f"unknown scaffold kind {kind!r}", "Kinds: " + ", ".join(KINDS))
    if not name or any(c in name for c in "/\\\0") or name.startswith(".") or ".." in name:
        raise ToolError(f"invalid name {name!r}: a name, not a path", "Use --dir to choose where the files go.")
    rules = {
        "component": (PASCAL, f"a PascalCase identifier such as {styled(name, 'pascal') or 'Button'}"),
        "widget": (PASCAL, f"a PascalCase class name such as {styled(name, 'pascal') or 'StatusBar'}"),
        "page": (SEGMENT, "a lowercase route segment such as settings or [slug]"),
        "route": (SEGMENT, "a lowercase route segment such as users or [id]"),
        "package": (GO_PKG, "a short lowercase Go package name such as shapes"),
    }
    if kind in rules:
        pattern, hint = rules[kind]
        if not pattern.match(name):
            raise ToolError(f"invalid {kind} name {name!r}", f"Use {hint}.")
    elif kind == "module" and not CAMEL.match(name):
        raise ToolError(f"invalid module name {name!r}", "Use an identifier such as text_utils or parseDate.")
    if keyword.iskeyword(name):
        raise ToolError(f"{name!r} is a Python keyword", "Pick another name.")


def template(repo: Path, kind: str, file: str) -> string.Template:
    """The repo's override in .devagent/templates/KIND/FILE wins over the shipped template.

    An override is repo content: read like any repo file (no symlink out of the repo or into .git, regular
    files only, bounded), and a refused one is an error, not a silent fallback.
    """
    rel = f"{OVERRIDE_DIR}/{kind}/{file}"
    try:
        data, size = read_bounded(repo, rel, TEMPLATE_LIMIT)
    except FileNotFoundError:
        data, size = None, 0
    except PathRefused as err:
        raise ToolError(f"template override {err.message.removeprefix('refused path ')}",
                        "Make it a plain file inside the repository, or remove it to use the shipped template.") from None
    if data is not None:
        if size > TEMPLATE_LIMIT:
            raise ToolError(f"template override {rel} is larger than {TEMPLATE_LIMIT} bytes")
        return string.Template(data.decode("utf-8", "replace"))
    # Shipped templates live outside the engine packages: some are Textual code, which the engine never holds.
    shipped = resources.files("tui").joinpath("templates", "scaffold", kind, file)
    return string.Template(shipped.read_text(encoding="utf-8"))


def fill(repo: Path, kind: str, file: str, values: dict[str, str]) -> str:
    try:
        text = template(repo, kind, file).substitute(values)
    except KeyError as exc:
        raise ToolError(f"template {kind}/{file} uses an unknown placeholder {exc}",
                        "Known placeholders: " + ", ".join(sorted(values)) + " (write $$ for a literal $).") from None
    except ValueError as exc:
        raise ToolError(f"template {kind}/{file} is malformed: {exc}", "Write $$ for a literal $.") from None
    if not file.endswith(".py.tmpl"):  # empty placeholders leave blank runs; Python keeps its two blank lines
        text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip("\n") + "\n"


def _rel_import(from_file: str, to_file: str) -> str:
    rel = os.path.relpath(to_file, os.path.dirname(from_file) or ".")
    rel = re.sub(r"\.[cm]?[jt]sx?$", "", rel)
    return rel if rel.startswith(".") else "./" + rel


def _test_path(conv: Conventions, source: str, stem: str, ext: str) -> str:
    folder = os.path.dirname(source)
    if conv.test_style == "__tests__":
        return f"{folder}/__tests__/{stem}{conv.test_suffix}.{ext}"
    if conv.test_style == "tests_dir":
        return f"{conv.test_dir}/{stem}{conv.test_suffix}.{ext}"
    return f"{folder}/{stem}{conv.test_suffix}.{ext}"


def _component(repo: Path, project: Project, name: str, base: str | None) -> Scaffold:
    conv = project.conventions
    stem = styled(name, conv.naming)
    folder = base or conv.component_dir
    if conv.folder_per_component:
        folder = f"{folder}/{name}"
    ext = conv.ext
    source = f"{folder}/{stem}.{ext}"
    default = conv.export == "default"
    values = {"name": name, "tag": "div", "imports": "", "style_decl": "", "class_attr": "",
              "export_kw": "export default " if default else "export ",
              "import_clause": name if default else f"{{ {name} }}"}
    files: dict[str, str] = {}
    notes = [f"{conv.naming} file names", f"{conv.export} export"]
    if conv.styling == "css-modules":
        css = f"{folder}/{stem}.module.css"
        files[css] = fill(repo, "component", "styles.module.css.tmpl", values)
        values.update(imports=f"import styles from './{stem}.module.css';\n", class_attr=" className={styles.root}")
    elif conv.styling == "tailwind":
        values["class_attr"] = ' className="flex items-center gap-2"'
    elif conv.styling == "styled-components":
        values.update(imports="import styled from 'styled-components';\n", tag="Root",
                      style_decl="\nconst Root = styled.div`\n  display: block;\n`;\n")
    notes.append(f"styling: {conv.styling}")
    files[source] = fill(repo, "component", f"component.{ext}.tmpl", values)
    test = _test_path(conv, source, stem, ext)
    framework = conv.test_framework or "jest"
    test_imports = "import { describe, it, expect } from 'vitest';\n" if framework == "vitest" else ""
    files[test] = fill(repo, "component", "test.tmpl" if conv.testing_library else "test-server.tmpl",
                       {**values, "test_imports": test_imports, "import_path": _rel_import(test, source)})
    notes.append(f"{framework} test in {conv.test_style} style")
    if conv.stories:
        story = f"{folder}/{stem}.stories.{ext}"
        files[story] = fill(repo, "component", "story.tmpl", {**values, "story_import": _rel_import(story, source)})
        notes.append("with a story")
    return Scaffold("component", name, files, test, notes)


def _page(repo: Path, project: Project, kind: str, name: str, base: str | None) -> Scaffold:
    if project.kind not in ("nextjs", "react"):
        raise ToolError(f"a {kind} needs a Next.js project; this looks like a {project.kind} project")
    conv = project.conventions
    src = "src/" if project.src_layout else ""
    app_dir = base or conv.app_dir or f"{src}app"
    title = " ".join(w.capitalize() for w in words(name.strip("[].")))
    pascal = styled(name.strip("[]."), "pascal")
    if kind == "route":
        api = app_dir if base else f"{app_dir if conv.router != 'pages' else src + 'app'}/api"
        path = f"{api}/{name}/route.ts"
        return Scaffold("route", name, {path: fill(repo, "route", "route.ts.tmpl", {"route": name})}, "",
                        ["App Router route handler"])
    path = f"{app_dir}/{name}.tsx" if conv.router == "pages" else f"{app_dir}/{name}/page.tsx"
    return Scaffold("page", name, {path: fill(repo, "page", "page.tsx.tmpl", {"name": pascal, "title": title})}, "",
                    [f"{conv.router or 'app'} router"])


def _python_module(repo: Path, project: Project, name: str, base: str | None, widget: bool,
                   file: str | None = None) -> Scaffold:
    root = project.root
    conv = project.conventions
    snake = styled(name, "snake") if widget else name
    package_dir = base or project.package_dir or "."
    if widget and not base and (root / package_dir / "widgets" / "__init__.py").exists():
        package_dir = f"{package_dir}/widgets"
    if file:  # the file the developer named, as named
        package_dir, _, snake = file[:-3].rpartition("/")
        package_dir = package_dir or "."
    source = f"{package_dir}/{snake}.py".removeprefix("./")
    module_path = source[:-3]
    if project.src_layout and module_path.startswith("src/"):
        module_path = module_path[4:]
    import_path = module_path.replace("/", ".")
    test_name = f"{snake}_test.py" if conv.test_suffix == "_test" else f"test_{snake}.py"
    test = f"{conv.test_dir}/{test_name}" if conv.test_style == "tests_dir" else f"{package_dir}/{test_name}"
    values = {"name": name, "snake": snake, "import_path": import_path,
              "title": " ".join(words(name)).capitalize()}
    kind = "widget" if widget else "module"
    files = {source: fill(root, kind, "widget.py.tmpl" if widget else "module.py.tmpl", values),
             test: fill(root, kind, "test_widget.py.tmpl" if widget else "test_module.py.tmpl", values)}
    return Scaffold(kind, name, files, test, [f"module {import_path}", f"pytest test at {test}"])


def _js_module(repo: Path, project: Project, name: str, base: str | None, file: str | None = None) -> Scaffold:
    conv = project.conventions
    folder = base or (conv.module_dir if project.kind == "node" else ("src/lib" if project.src_layout else "lib"))
    stem = styled(name, conv.naming) if conv.naming in ("kebab", "snake") else name
    ext = conv.module_ext
    if file:  # the file the developer named, as named (its folder, its spelling, its extension)
        folder, _, leaf = file.rpartition("/")
        stem, _, ext = leaf.rpartition(".")
        folder = folder or "."
    source = f"{folder}/{stem}.{ext}".removeprefix("./")
    test = _test_path(conv, source, stem, ext)
    esm = (conv.esm or ext in ("ts", "mjs")) and ext != "cjs"
    imp = _rel_import(test, source) + ("" if ext == "ts" else "." + ext)
    framework = conv.test_framework or "node"
    values = {"name": name, "title": " ".join(words(name)).capitalize(),
              "export_kw": "export " if esm else "", "cjs_export": "" if esm else f"module.exports = {{ {name} }};"}
    if framework == "node":
        test_imports = ("import test from 'node:test';\nimport assert from 'node:assert';" if esm else
                        "const test = require('node:test');\nconst assert = require('node:assert');")
        assert_line = f"assert.strictEqual({name}('x'), 'x');"
    else:
        test_imports = "import { describe, test, expect } from 'vitest';" if framework == "vitest" else ""
        assert_line = f"expect({name}('x')).toBe('x');"
    import_stmt = f"import {{ {name} }} from '{imp}';" if esm else f"const {{ {name} }} = require('{imp}');"
    open_, close = (f"describe('{name}', () => {{\n", "});") if framework != "node" else ("", "")
    test_text = fill(project.root, "module", "test.js.tmpl", {
        **values, "test_imports": test_imports, "import_stmt": import_stmt, "assert_line": assert_line,
        "describe_open": open_, "describe_close": close})
    files = {source: fill(project.root, "module", f"module.{'ts' if ext == 'ts' else 'js'}.tmpl", values),
             test: test_text}
    return Scaffold("module", name, files, test, [f"{'ESM' if esm else 'CommonJS'} module", f"{framework} test"])


def _go_package(repo: Path, project: Project, name: str, base: str | None) -> Scaffold:
    folder = f"{base}/{name}" if base else name
    values = {"name": name, "title": f"is the {name} package"}
    files = {f"{folder}/{name}.go": fill(repo, "package", "package.go.tmpl", values),
             f"{folder}/{name}_test.go": fill(repo, "package", "package_test.go.tmpl", values)}
    return Scaffold("package", name, files, f"./{folder}", ["Go package with its test"])


def render(repo: Path, project: Project, kind: str, name: str, directory: str | None = None,
           file: str | None = None) -> Scaffold:
    """The files for ``kind``/``name`` in this project, following its conventions. Nothing is written. ``file``:
    a module's own path when the developer named it (lib/path-utils.ts), used as it is; its test follows the
    project's conventions."""
    validate(kind, name)
    if file is not None:
        file = file.strip().strip("/")
        if kind != "module" or not re.fullmatch(r"[\w.@-]+(?:/[\w.@-]+)*\.(?:py|[cm]?js|ts)", file) or ".." in file:
            raise ToolError(f"invalid module file {file!r}", "A path inside the repo ending in .py, .js or .ts.")
        if file.endswith(".py") != (project.kind in ("python", "textual")):
            raise ToolError(f"{file}: not a module of this {project.kind} project",
                            KINDS_BY_PROJECT.get(project.kind, KINDS_HINT))
    base = directory.strip("/") if directory else None
    pk = project.kind
    if kind == "component" and pk in ("nextjs", "react"):
        return _component(repo, project, name, base)
    if kind in ("page", "route"):
        return _page(repo, project, kind, name, base)
    if kind == "module" and pk in ("python", "textual"):
        return _python_module(repo, project, name, base, widget=False, file=file)
    if kind == "widget" and pk in ("python", "textual"):
        return _python_module(repo, project, name, base, widget=True)
    if kind == "module" and pk in ("nextjs", "react", "node"):
        return _js_module(repo, project, name, base, file)
    if kind == "package" and pk == "go":
        return _go_package(repo, project, name, base)
    raise ToolError(f"no {kind} template for a {pk} project", KINDS_BY_PROJECT.get(pk, KINDS_HINT))
