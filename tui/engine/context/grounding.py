"""What goes with each prompt of the general loop: the repo map ranked against the request and the project's
instructions (AGENTS.md). It follows the developer's prompt as a separate message, so the system prompt stays the
same for the whole session and the model server's prompt cache keeps serving it.
"""

from __future__ import annotations

from pathlib import Path

HEADER = "Files in this repository most related to the request (file: class Name [methods], function(), CONSTANT):"


def map_budget(limit: int) -> int:
    """Tokens of repo map per prompt: about a tenth of the context, 200 to 600."""
    return max(200, min(600, limit // 10))


def repo_map_for(repo: Path, prompt: str, budget_tokens: int) -> str:
    try:
        from tui.engine.context.repomap import build_repo_map

        return build_repo_map(repo, prompt, budget_tokens)
    except Exception:  # noqa: BLE001 - the map is an aid; a turn never fails over it
        return ""


def project_instructions(repo: Path, prompt: str, files: list[str], limit: int, configured: int) -> str:
    """The nearest AGENTS.md to the files the prompt names (else the root one), within its budget."""
    from tui.engine.context import instructions
    from tui.engine.context.mentions import mentioned

    block = instructions.build(repo, files, mentioned(prompt, files, 5), instructions.budget(configured, limit))
    return block.text if block else ""
