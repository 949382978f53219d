"""What goes with each prompt so a small model starts in the right place: the repo map ranked against
the request, and hints for the kinds of request it gets wrong (data files retyped by hand).

It follows the developer's prompt as a separate message, so the system prompt stays the same for the
whole session and the model server's prompt cache keeps serving it.
"""

from __future__ import annotations

import re
from pathlib import Path

from tui.engine.agent_words import is_question, wants_test_change

DATA_SUFFIXES = (".csv", ".tsv", ".json", ".jsonl", ".ndjson")
CHANGE_WORDS = re.compile(r"\b(clean|remove|drop|delete|strip|fix|sort|dedup\w*|deduplicate|normali[sz]e|convert|"
                          r"rename|replace|update|change|add|merge|filter|trim|lower\w*|upper\w*)\b", re.I)
SINCE_CHANGE = re.compile(r"\bsince\s+(?:my|the|our|your)\s+(?:last|latest|previous|most\s+recent)\s+(?:commit|change)|"
                          r"\b(?:last|latest|previous)\s+commit\s+(?:broke|introduced)|\bused\s+to\s+work\b|"
                          r"\bregress(?:ed|ion)\b", re.I)
HEADER = "Files in this repository most related to the request (file: class Name [methods], function(), CONSTANT):"


def map_budget(limit: int) -> int:
    """Tokens of repo map per prompt: about a tenth of the context, 200 to 600."""
    return max(200, min(600, limit // 10))


def repo_map_for(repo: Path, prompt: str, budget_tokens: int) -> str:
    try:
        from tui.engine.repomap import build_repo_map

        return build_repo_map(repo, prompt, budget_tokens)
    except Exception:  # noqa: BLE001 - the map is an aid; a turn never fails over it
        return ""


def data_files(prompt: str, files: list[str]) -> list[str]:
    """Data files the prompt names (by path or a unique file name)."""
    from tui.engine.mentions import mentioned

    return [p for p in mentioned(prompt, files, 5) if p.lower().endswith(DATA_SUFFIXES)]


BUG_WORDS = re.compile(r"\b(fail\w*|broken|bug\w*|regress\w*|crash\w*|error\w*|wrong)\b", re.I)


RUNS_WORDS = re.compile(r"\b(return\w*|output\w*|print\w*|produc\w*|gives?|result\w*|evaluat\w*|yield\w*)\b",
                        re.I)


def failing_tests_selection(prompt: str, files: list[str]) -> str | None:
    """For "tests fail, fix the bug": what to run first (a test file the prompt names, or '' for the suite);
    None for other requests."""
    if is_question(prompt) or not (BUG_WORDS.search(prompt) and re.search(r"\b(?:tests?|suite)\b", prompt, re.I)) \
            or not re.search(r"\b(?:fix|repair|solve|debug|correct|resolve|find)\w*", prompt, re.I):
        return None
    from tui.engine.mentions import mentioned
    from tui.engine.verify import is_test

    named = [p for p in mentioned(prompt, files, 5) if is_test(p)]
    return named[0] if named else ""


def defined_in(repo: Path, name: str) -> str:
    """The tracked source file whose top level defines ``name`` ('' when none or several do)."""
    from tui.engine.repomap import RepoMap

    try:
        found = RepoMap.for_repo(repo).where_defined(name)
    except Exception:  # noqa: BLE001 - an aid only
        return ""
    return found[0] if len(found) == 1 else ""


def _call_in(prompt: str) -> tuple[str, str, str] | None:
    """(the whole call, its owner, its name) for the first ``owner.name(...)`` or ``name(...)`` the prompt writes out
    with balanced brackets, e.g. ``qs.stringify({ a: ['b', 'c'] })``."""
    for found in re.finditer(r"(?<![\w.$])(?:([A-Za-z_$][\w$]*)\.)?([A-Za-z_$][\w$]*)\(", prompt):
        depth, quote = 0, ""
        for index in range(found.end() - 1, min(len(prompt), found.end() + 300)):
            char = prompt[index]
            if quote:
                quote = "" if char == quote else quote
            elif char in "'\"`":
                quote = char
            elif char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
                if depth == 0:
                    return prompt[found.start():index + 1], found.group(1) or "", found.group(2)
    return None


def _package_name(repo: Path, files: list[str]) -> str:
    from tui.safety.parsing import loads_json
    from tui.safety.paths import read_text_or_none

    text = read_text_or_none(repo, "package.json", 1_000_000) if "package.json" in files else None
    try:
        name = loads_json(text, "package.json").get("name", "") if text else ""
    except (ValueError, AttributeError):
        return ""
    return name.rsplit("/", 1)[-1] if isinstance(name, str) else ""


def _python_package(owner: str, files: list[str]) -> bool:
    return any(f in (f"{owner}/__init__.py", f"src/{owner}/__init__.py", f"{owner}.py", f"src/{owner}.py")
               for f in files)


def run_exact(repo: Path, prompt: str, files: list[str]) -> str:
    """The command that runs the very call the question writes out on the project's own package."""
    call = _call_in(prompt)
    if call is None or not call[1]:
        return ""
    text, owner, _ = call
    package = _package_name(repo, files)
    if package and owner.lower().replace("-", "_") == re.sub(r"\W", "_", package).lower():
        script = f"const {owner} = require('./'); console.log(JSON.stringify({text}))"
        if '"' in script or "\\" in script:
            return ""
        return (f"Run the call the question asks about instead of reading the code (it is exact): one run_command "
                f"call with command: node -e \"{script}\"")
    if _python_package(owner, files):
        return (f"Run the call the question asks about instead of reading the code (it is exact): one run_python "
                f"call with code: import {owner}; print(repr({text}))")
    return ""


def _written(call: tuple[str, str, str] | None, name: str) -> str:
    """The call as the question writes it (``intword(12345)``) when it calls ``name``, else ``name(...)``."""
    return call[0] if call and call[2] == name and not call[1] else f"{name}(...)"


def run_it(repo: Path, prompt: str, files: list[str]) -> str:
    """For "what does f return for x": run it instead of reading 70 lines of branches (a small model misreads)."""
    exact = run_exact(repo, prompt, files)
    if exact:
        return exact
    call = _call_in(prompt)
    for name in dict.fromkeys(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]{2,}\b", prompt)):
        path = defined_in(repo, name)
        if path.endswith(".py") and "/test" not in f"/{path}":
            parts = list(Path(path).with_suffix("").parts)
            parts = parts[1:] if parts[0] in ("src", "lib") and len(parts) > 1 else parts
            module = ".".join(p for p in parts if p != "__init__")
            return (f"To see what {name} does for an input, run it: one run_python call with code like "
                    f"from {module} import {name}; print(repr({_written(call, name)}))"
                    + ("" if _written(call, name) != f"{name}(...)" else " with the input in place of ..."))
        if path.endswith((".js", ".mjs", ".cjs")) and "package.json" in files:
            return (f"To see what {name} does for an input, run it: one run_command call like node -e "
                    f"\"console.log(JSON.stringify(require('./{path}')(...)))\" (or require('./') and call its "
                    f"{name}), with the input in place of ...")
    package = _package_name(repo, files) if "package.json" in files else ""
    if package and re.search(rf"(?<![\w-]){re.escape(package)}(?![\w-])", prompt, re.I) and _exports_function(repo, files):
        # "what does minimist return for --no-foo": the package is one function (outside the benchmark)
        return (f"{package} is one exported function: to see what it returns for an input, run it: one run_command "
                f"call like node -e \"console.log(JSON.stringify(require('./')(...)))\" with the input in place "
                "of ... (the arguments the question gives, written as JavaScript values).")
    return ""


def _exports_function(repo: Path, files: list[str]) -> bool:
    """The package's main module (package.json "main", else index.js) is ``module.exports = function``."""
    from tui.safety.parsing import loads_json
    from tui.safety.paths import read_text_or_none
    from tui.symbols import outline_of

    try:
        main = loads_json(read_text_or_none(repo, "package.json", 1_000_000) or "{}").get("main") or "index.js"
    except (ValueError, AttributeError):
        return False
    main = str(main).removeprefix("./")
    main = main if main in files else f"{main}.js" if f"{main}.js" in files else ""
    text = read_text_or_none(repo, main, 2_000_000) if main else None
    return bool(text) and any(s.qualname == "module.exports" for s in outline_of(main, text).symbols)


def hints(prompt: str, files: list[str], tools: set[str], repo: Path | None = None) -> list[str]:
    out: list[str] = []
    if repo is not None and is_question(prompt):
        from tui.engine import described

        out.append(described.hint(repo, prompt, files))
        out.append(described.where_hint(repo, prompt, files))
        out.append(described.example_hint(repo, prompt, files))
        if "run_python" in tools:
            from tui.engine import counting

            out.append(counting.hint(repo, prompt, files))
        from tui.engine import defaults

        out.append(defaults.question_hint(repo, prompt, files, described._sources))
    elif repo is not None:
        from tui.engine import described, newdefs

        value = described.value_hint(repo, prompt, files)
        if not value:
            from tui.engine import defaults

            value = defaults.hint(repo, prompt, files, described._sources)
        out.append(value)
        out.append(newdefs.hint(repo, prompt, files))
        if SINCE_CHANGE.search(prompt):  # "broken since my last commit": what that commit changed, up front
            from tui.engine.suspects import recent_source_change
            from tui.engine.verify import is_test

            out.append(recent_source_change(repo, is_test).strip())
    if repo is not None and is_question(prompt) and (RUNS_WORDS.search(prompt) or _call_in(prompt)) and \
            {"run_python", "run_command"} <= tools:
        hint = run_it(repo, prompt, files)
        if hint:
            out.append(hint)
    if failing_tests_selection(prompt, files) is not None and "run_tests" in tools:
        out.append("devagent runs the failing tests first; read the code the failure points to and fix it there.")
    if repo is not None and wants_test_change(prompt):
        from tui.engine import testexample
        from tui.engine.mentions import mentioned
        from tui.engine.verify import is_test

        named = [p for p in mentioned(prompt, files, 5) if is_test(p)]
        if named:
            out.append(testexample.example(repo, named[0], prompt))
    data = data_files(prompt, files)
    if data and CHANGE_WORDS.search(prompt) and "run_python" in tools:
        out.append(f"{data[0]} is a data file: change it with one run_python call whose code reads it, changes "
                   "every row in code and writes it back to the same path; do not retype the data with edit_file "
                   "or write_file. " + data_skeleton(data[0], prompt, repo))
    return [h for h in out if h]


def data_skeleton(path: str, prompt: str = "", repo: Path | None = None) -> str:
    from tui.engine.dataskel import csv_skeleton, json_skeleton

    if path.lower().endswith((".csv", ".tsv")):
        return csv_skeleton(repo, path, prompt)
    return json_skeleton(repo, path, prompt)


def project_instructions(repo: Path, prompt: str, files: list[str], limit: int, configured: int) -> str:
    """The nearest AGENTS.md to the files the prompt names (else the root one), within its budget."""
    from tui.engine import instructions
    from tui.engine.mentions import mentioned

    block = instructions.build(repo, files, mentioned(prompt, files, 5), instructions.budget(configured, limit))
    return block.text if block else ""


def turn_context(repo: Path, prompt: str, files: list[str], tools: set[str], limit: int,
                 instructions_tokens: int = 0, found: list[str] | None = None) -> str:
    """The message that follows the prompt ('' when there is nothing useful to say). ``found`` collects the
    hints alone (without the map), for the coaching that says them again later in the turn."""
    parts: list[str] = []
    repo_map = repo_map_for(repo, prompt, map_budget(limit))
    if repo_map.strip():
        parts.append(HEADER + "\n" + repo_map.strip())
    said = [h for h in hints(prompt, files, tools, repo) if h]
    parts.extend(said)
    if found is not None:
        found.extend(said)
    parts.append(project_instructions(repo, prompt, files, limit, instructions_tokens))
    return "\n\n".join(p for p in parts if p)
