"""How a check or a question's snippet loads the code it is about: Python imports; JavaScript by how its file
exports (default or named, CommonJS or ES module) and the package's entry; TypeScript from the built entry when the
work tree has one, else from its source through the project's compiler (tui/engine/work/tsrun.py).
"""

from __future__ import annotations

import re
from typing import Any

from tui.engine.pipelines import evidence
from tui.engine.work.index import Definition, RepoIndex
from tui.safety.parsing import loads_json

# repr and print, which a model used to Python writes in JavaScript too: util.inspect and console.log
JS_PRELUDE = ("const __devagentUtil = require('util'); globalThis.repr ??= (v) => __devagentUtil.inspect(v, { depth: null }); "
              "globalThis.print ??= (...a) => console.log(...a);\n",
              "import __devagentUtil from 'node:util'; globalThis.repr ??= (v) => __devagentUtil.inspect(v, { depth: null "
              "}); globalThis.print ??= (...a) => console.log(...a);\n")
def package_json(index: RepoIndex) -> dict[str, Any]:
    """The root package.json as a dict ({} when there is none or it does not load)."""
    try:
        data = loads_json(index.text("package.json", 1_000_000) or "{}", "package.json")
    except ValueError:
        data = {}
    return data if isinstance(data, dict) else {}


def package_entry(index: RepoIndex) -> tuple[str, bool]:
    """(the JS package's entry as a path from the root, whether it is an ES module package) from package.json."""
    data = package_json(index)
    main = str(data.get("main") or data.get("module") or "index.js").removeprefix("./")
    return main, data.get("type") == "module"


def snippet_imports(index: RepoIndex, ev: evidence.Evidence) -> tuple[str, str]:
    """(language, the import lines that make the named code usable) for the first named definitions. TypeScript
    is run through the package's built entry (what its users import) when the work tree has it, else from its
    source through the project's compiler (tsrun.py); an ES module package is imported."""
    lines: list[str] = []
    language = "python"
    for d in ev.definitions:
        if d.path.endswith((".js", ".cjs", ".mjs", ".ts", ".tsx", ".mts", ".cts")):
            main, esm = package_entry(index)
            language = "module" if esm else "javascript"
            source = f"./{d.path}"
            if d.path.endswith((".ts", ".tsx", ".mts", ".cts")):
                source = f"./{main}" if index.exists(main) else "./" + d.path.rsplit(".", 1)[0]
                language, esm = (language, esm) if index.exists(main) else ("typescript", False)
            top = d.symbol.qualname.split(".")[0]
            what = "mod is what the file exports" if d.symbol.name == "module.exports" else \
                f"{top} is mod.{top} (or mod.default) when exported"
            line = (f"const mod = await import('{source}');" if esm else f"const mod = require('{source}');") + \
                f"  // {what}"
            named = f"const {top} = mod.{top} ?? mod.default;"
            for line in [line] + ([named] if d.symbol.name != "module.exports" and re.fullmatch(r"[A-Za-z_$][\w$]*", top)
                                  else []):
                if line not in lines:
                    lines.append(line)
            continue
        if not d.path.endswith(".py"):
            continue
        top = d.symbol.qualname.split(".")[0]
        line = f"from {index.module_of(d.path)} import {top}"
        if line not in lines:
            lines.append(line)
    if not lines:
        return language, ""
    lang_word = "Import" if language == "python" else "Load"
    return language, f"{lang_word} the code like this:\n" + "\n".join(lines)


def imports_for(index: RepoIndex, defs: list[Definition]) -> str:
    lines = []
    for d in defs:
        top = d.symbol.qualname.split(".")[0]
        line = f"from {index.module_of(d.path)} import {top}" if d.path.endswith(".py") else \
            (js_load(index, d.path, top) or ("", ""))[1]
        if line and line not in lines:
            lines.append(line)
    return ("Import what it uses like this: " + "; ".join(lines)) if lines else ""


def _package_name(index: RepoIndex) -> str:
    """The JS package's name as an identifier (qs, semver; @scope/left-pad → left_pad), 'pkg' without one."""
    name = str(package_json(index).get("name") or "")
    name = re.sub(r"\W+", "_", name.rsplit("/", 1)[-1]).strip("_")
    return ("_" + name if name[:1].isdigit() else name) or "pkg"


def js_load(index: RepoIndex, rel: str, top: str) -> tuple[str, str] | None:
    """(how a check of ``top`` in the JS or TS file ``rel`` runs: javascript, module or typescript, the line that
    loads it by its export: default or named, CommonJS or ES module), by reading the file; None for other
    languages."""

    from tui.engine.work.tsrun import is_typescript

    text = index.text(rel) or ""
    if is_typescript(rel):  # run through the project's compiler (tsrun.py), imported the ES-module way
        default = re.search(rf"^export\s+default\s+(?:abstract\s+)?(?:async\s+)?(?:function\*?\s+|class\s+)?"
                            rf"{re.escape(top)}\b|^export\s+default\s+{re.escape(top)}\s*;?\s*$", text, re.M)
        path = "./" + rel.rsplit(".", 1)[0]
        return "typescript", (f"import {top} from '{path}';" if default else f"import {{ {top} }} from '{path}';")
    if not rel.endswith((".js", ".cjs", ".mjs")):
        return None
    esm = rel.endswith(".mjs") or (not rel.endswith(".cjs") and (package_entry(index)[1] or bool(
        re.search(r"^\s*export\s", text, re.M))))
    name = re.escape(top)
    main, _ = package_entry(index)
    package = _package_name(index)
    if esm:
        default = re.search(rf"^export\s+default\s+(?:async\s+)?(?:function\*?\s+|class\s+)?{name}\b", text, re.M)
        if not default and not re.search(rf"^\s*export\s[^\n]*\b{name}\b", text, re.M) and index.exists(main):
            return "module", f"import * as {package} from './{main}';  // {top} is not exported: use what the package offers"
        return "module", (f"import {top} from './{rel}';" if default else f"import {{ {top} }} from './{rel}';")
    from tui.symbols.jssyms import commonjs_exports

    default = re.search(rf"^\s*module\.exports\s*=\s*{name}\s*;?\s*$", text, re.M)
    if not default and top not in commonjs_exports(text) and index.exists(main) and main != rel:
        return "javascript", f"const {package} = require('./{main}');  // {top} is not exported: use what the package offers"
    return "javascript", (f"const {top} = require('./{rel}');" if default else f"const {{ {top} }} = require('./{rel}');")
