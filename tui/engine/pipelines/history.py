"""Questions about the history, answered from git: the log of what the question names (a file, or a definition
through ``git log -L``), else the recent log, with each commit's files; the model reads that and picks the
commits its answer rests on (a choice from the hashes shown), and the answer quotes them.
"""

from __future__ import annotations

import asyncio

from tui.engine.pipelines.facts import Facts
from tui.engine.pipelines.job import Job, NotHandled
from tui.protocol.events import TurnDone

PROMPT = """A developer asks about their repository's history:
<question>
{question}
</question>

{log}

Answer from this history in one to three sentences. Say which commit(s) (by hash) the answer rests on.
Reply as JSON: {{"answer": "...", "commits": ["<hash>", ...]}}"""

FORMAT = "--format=%h %ad %an: %s"


def _git(repo: object, *args: str) -> str:
    from tui.git.facade import GitRepo

    out = GitRepo(repo, timeout=20).run_git(*args)  # type: ignore[arg-type]
    return out.stdout.decode("utf-8", "replace") if out.returncode == 0 else ""


def gather_log(repo: object, facts: Facts) -> str:
    parts: list[str] = []
    named = [n for n in facts.symbols if n.strong]
    for n in named[:1]:
        d = n.definitions[0]
        lines = _git(repo, "log", "-n", "8", "--date=short", FORMAT, "--no-patch", "-L",
                     f"{d.symbol.start},{d.symbol.end}:{d.path}")
        if lines.strip():
            parts.append(f"Commits that changed {d.qualname} ({d.path}):\n{lines.strip()}")
    for rel in facts.files[:2]:
        lines = _git(repo, "log", "-n", "10", "--date=short", FORMAT, "--", rel)
        if lines.strip():
            parts.append(f"Commits that changed {rel}:\n{lines.strip()}")
    recent = _git(repo, "log", "-n", "12", "--date=short", FORMAT, "--stat=100,60", "--stat-count=6")
    parts.append(f"The latest commits, with the files each changed:\n{recent.strip()[:3000]}")
    return "\n\n".join(parts)


async def run(job: Job, facts: Facts) -> TurnDone:
    log = await job.step("git_log", {}, lambda: asyncio.to_thread(gather_log, job.repo, facts),
                         lambda text: f"{text.count(chr(10)) + 1} lines")
    if not log.strip():
        raise NotHandled("the repository has no history to read")
    hashes = sorted({line.split(" ", 1)[0] for line in log.splitlines()
                     if len(line) > 8 and all(c in "0123456789abcdef" for c in line.split(" ", 1)[0])})
    if not hashes:
        raise NotHandled("no commits found")
    schema = {"type": "object", "properties": {"answer": {"type": "string"},
                                               "commits": {"type": "array", "items": {"type": "string", "enum": hashes},
                                                           "maxItems": 3}},
              "required": ["answer", "commits"]}
    asked = await job.ask.json(PROMPT.format(question=facts.request.strip()[:1500], log=log[:5000]), schema,
                               max_tokens=250, label="the answer")
    value = asked.first if isinstance(asked.first, dict) else {}
    answer = str(value.get("answer") or "").strip()
    if not answer:
        raise NotHandled("no answer from the history")
    chosen = [h for h in value.get("commits") or [] if h in hashes]
    lines = {line.split(" ", 1)[0]: line for line in log.splitlines() if line.split(" ", 1)[0] in hashes}
    cited = "\n".join(f"- {lines[h]}" for h in chosen if h in lines)
    return job.answer(answer + (f"\n\n{cited}" if cited else ""))
