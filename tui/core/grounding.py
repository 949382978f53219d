"""What goes with each prompt so a small model starts in the right place: the repo map ranked against
the request, and hints for the kinds of request it gets wrong (data files retyped by hand).

It follows the developer's prompt as a separate message, so the system prompt stays the same for the
whole session and the model server's prompt cache keeps serving it.
"""

from __future__ import annotations

import re
from pathlib import Path

DATA_SUFFIXES = (".csv", ".tsv", ".json", ".jsonl", ".ndjson")
CHANGE_WORDS = re.compile(r"\b(clean|remove|drop|delete|strip|fix|sort|dedup\w*|deduplicate|normali[sz]e|convert|"
                          r"rename|replace|update|change|add|merge|filter|trim|lower\w*|upper\w*)\b", re.I)
HEADER = "Files in this repository most related to the request (file: class Name [methods], function(), CONSTANT):"


def map_budget(limit: int) -> int:
    """Tokens of repo map per prompt: about a tenth of the context, 200 to 600."""
    return max(200, min(600, limit // 10))


def repo_map_for(repo: Path, prompt: str, budget_tokens: int) -> str:
    try:
        from tui.core.repomap import build_repo_map

        return build_repo_map(repo, prompt, budget_tokens)
    except Exception:  # noqa: BLE001 - the map is an aid; a turn never fails over it
        return ""


def data_files(prompt: str, files: list[str]) -> list[str]:
    """Data files the prompt names (by path or a unique file name)."""
    from tui.core.mentions import mentioned

    return [p for p in mentioned(prompt, files, 5) if p.lower().endswith(DATA_SUFFIXES)]


def hints(prompt: str, files: list[str], tools: set[str]) -> list[str]:
    out: list[str] = []
    data = data_files(prompt, files)
    if data and CHANGE_WORDS.search(prompt) and "run_python" in tools:
        out.append(f"{data[0]} is a data file: change it with one run_python call whose code reads it, changes "
                   "every row in code and writes it back to the same path; do not retype the data with edit_file "
                   "or write_file. " + _skeleton(data[0]))
    return out


def _skeleton(path: str) -> str:
    if path.lower().endswith((".csv", ".tsv")):
        delimiter = ", delimiter='\\t'" if path.lower().endswith(".tsv") else ""
        return ("Start from this code (each row is a list of strings; rows[0] is the header; keep the order of "
                "the rows unless asked to sort):\n"
                f"import csv\nwith open({path!r}, newline='') as f:\n    rows = list(csv.reader(f{delimiter}))\n"
                "# ... change rows here ...\n"
                f"with open({path!r}, 'w', newline='') as f:\n    csv.writer(f{delimiter}).writerows(rows)")
    return ("Start from this code:\nimport json\n"
            f"with open({path!r}) as f:\n    data = json.load(f)\n# ... change data here ...\n"
            f"with open({path!r}, 'w') as f:\n    json.dump(data, f, indent=2)\n    f.write('\\n')")


def project_instructions(repo: Path, prompt: str, files: list[str], limit: int, configured: int) -> str:
    """The nearest AGENTS.md to the files the prompt names (else the root one), within its budget."""
    from tui.core import instructions
    from tui.core.mentions import mentioned

    block = instructions.build(repo, files, mentioned(prompt, files, 5), instructions.budget(configured, limit))
    return block.text if block else ""


def turn_context(repo: Path, prompt: str, files: list[str], tools: set[str], limit: int,
                 instructions_tokens: int = 0) -> str:
    """The message that follows the prompt ('' when there is nothing useful to say)."""
    parts: list[str] = []
    repo_map = repo_map_for(repo, prompt, map_budget(limit))
    if repo_map.strip():
        parts.append(HEADER + "\n" + repo_map.strip())
    parts.extend(hints(prompt, files, tools))
    parts.append(project_instructions(repo, prompt, files, limit, instructions_tokens))
    return "\n\n".join(p for p in parts if p)
