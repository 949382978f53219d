"""Round three, class 5: read-only tools run without approval, so their work must be bounded per turn.

`search` runs `git grep -E` on the host. glibc's regex engine backtracks on backreferences and expands counted
repetitions when it compiles a pattern: a 60-character line made a backreference pattern run for minutes, and
`a{1,32767}` or nested counts never finished compiling (git grep -P refused them at once, measured). Each
attack has the scripted model send such patterns, written in different ways, in one turn of `devagent run`;
the last one sends patterns that are fine in themselves but slow on a large file, again and again, under a
small per-turn budget in the developer's config. Defended: the turn ends within a bound that does not grow
with the number of calls, and the model is told why a pattern was refused or the budget ran out.
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.attacks.harness import Attack, call, devagent
from tests.attacks.policy_kit import hostile_repo, of_type
from tests.ollama_server import Reply, ScriptedOllama

LINES = "".join("a" * 60 + "\n" for _ in range(20))


def turn(repo: Path, patterns: list[str], *, limit: float, env: dict[str, str] | None = None) -> tuple[float, list[dict]]:
    """One turn whose model searches each pattern; (seconds the run took, the search results)."""
    user = repo.parent / "steps.toml"
    text = (env or {}).pop("config", "") if env else ""
    user.write_text(f"[model]\nmax_steps = {len(patterns) + 4}\npipelines = \"off\"\n{text}")
    attack = Attack(repo)
    started = time.monotonic()
    with ScriptedOllama() as server:
        server.push(*[Reply(tool_calls=[call("search", pattern=p)]) for p in patterns], Reply("done"))
        run = devagent(repo, "run", "--json", "find it", url=server.url, timeout=limit,
                       env={"DEVAGENT_CONFIG": str(user), **(env or {})})
    took = time.monotonic() - started
    attack.check(run, allow_rc=(0,))
    return took, [e for e in of_type(run, "tool_result") if e.get("name") == "search"]


def refused_fast(tmp_path: Path, patterns: list[str]) -> None:
    repo = hostile_repo(tmp_path / "r", {"data.txt": LINES})
    took, results = turn(repo, patterns, limit=45)
    assert took < 20, took
    assert len(results) == len(patterns)
    for result in results:
        assert not result["ok"] and "pattern" in result["output"], result


def test_backreferences(tmp_path: Path) -> None:
    refused_fast(tmp_path, [r"(.*)(.*)(.*)(.*)(.*)\1\2\3\4\5x", r"(a*)(a*)(a*)\3\2\1b", r"((a|aa)+)\1\1\1c"])


def test_a_huge_counted_repetition(tmp_path: Path) -> None:
    refused_fast(tmp_path, [r"(a{1,32767})", r"a{30000}b", r"[ab]{1,20000}$"])


def test_nested_counted_repetitions(tmp_path: Path) -> None:
    refused_fast(tmp_path, [r"((a{1,100}){1,100}){1,100}", r"(.{0,1000}){0,1000}x", r"x{1,1000}{1,1000}"])


def test_slow_searches_share_one_budget_per_turn(tmp_path: Path) -> None:
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta"]
    big = "".join(" ".join(words[(i * 7 + k) % 8] for k in range(12)) + "\n" for i in range(200_000))
    repo = hostile_repo(tmp_path / "r", {})
    (repo / "big.txt").write_text(big)  # untracked: search looks at it too
    patterns = [r"([a-z]+ ){11}[a-z]+x", r"([a-z]+ ){10}[a-z]+y", r"([a-z]+ ){11}[a-z]+z", r"([a-z]+ ){9}[a-z]+q"]
    took, results = turn(repo, patterns, limit=90, env={"config": "[limits]\nread_seconds = 1\n"})
    assert took < 12, took
    assert any("budget" in r["output"] for r in results), results
