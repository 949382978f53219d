"""What goes with each prompt: the request-ranked map after the prompt, a system prompt that never changes."""

from __future__ import annotations

from pathlib import Path

from tests.core import fixtures_repos as fx
from tests.core.agent_helpers import ScriptedApprover, fast_config, run_prompt
from tests.ollama_server import Reply, ScriptedOllama
from tui.engine.session import Session

FILES = {
    "README.md": "# shop\n",
    "shop/__init__.py": "",
    "shop/cart.py": "class Cart:\n    def __init__(self):\n        self.items = {}\n\n    def add(self, sku, n=1):\n"
                    "        self.items[sku] = self.items.get(sku, 0) + n\n\n    def __len__(self):\n"
                    "        return sum(self.items.values())\n",
    "shop/money.py": "def format_price(cents):\n    return f'{cents / 100:.2f}'\n",
    "data/prices.csv": "sku,price\n a ,1\n\nb,2\n",
    **{f"shop/extra_{i}.py": f"def extra_{i}():\n    return {i}\n" for i in range(12)},
}


async def test_the_map_follows_the_prompt_and_the_system_prompt_stays_the_same(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    look = Reply('{"name": "search", "arguments": {"pattern": "__len__"}}')  # a question is answered after a look
    ollama_server.push(look, Reply("Cart counts items with __len__."), look, Reply("It formats cents."))
    events: list = []
    # 6k tokens: at 4k the second turn starts above 80% of the budget with today's tools (the refactor tool added
    # ~150 tokens), the older turn is cut (tests/core/test_context*.py test that) and this test is about the map
    config = fast_config(repo, context=6144)
    session = await Session.open(repo, config, approver=ScriptedApprover(), emit=events.append,
                                 host=ollama_server.url)
    try:
        await session.run_turn("How does Cart count its items?")
        await session.run_turn("What does format_price return?")
    finally:
        await session.close()
    first, second = ollama_server.requests[0]["messages"], ollama_server.requests[2]["messages"]
    assert first[0] == second[0] and first[0]["role"] == "system"
    assert "shop/cart.py" not in first[0]["content"]  # no request-dependent text in the system prompt
    prompt_at = next(i for i, m in enumerate(first) if m["content"] == "How does Cart count its items?")
    grounding = first[prompt_at + 1]["content"]
    assert grounding.splitlines()[1].startswith("shop/cart.py: class Cart [")
    assert "__len__" in grounding.splitlines()[1]
    later = next(m["content"] for m in second[prompt_at + 2:] if m["content"].startswith("Files in this"))
    assert later.splitlines()[1].startswith("shop/money.py: format_price()")


async def test_failing_snippet_code_is_quoted_back_by_line(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    from tests.core.agent_helpers import ScriptedApprover
    from tui.protocol.proposals import Decision

    repo = fx.build(tmp_path / "repo", FILES)
    code = "import csv\nrows = list(csv.reader(open('data/prices.csv')))\nrows = [r.strip() for r in rows]\n"
    ollama_server.push(Reply(tool_calls=[{"name": "run_python", "arguments": {"code": code}}]), Reply("Failed."))
    await run_prompt(repo, ollama_server.url, "strip data/prices.csv", ScriptedApprover([Decision("approve")]))
    result = ollama_server.requests[1]["messages"][-1]["content"]
    assert "Your code failed at its line 3: rows = [r.strip() for r in rows]" in result
    assert "AttributeError: 'list' object has no attribute 'strip'" in result


async def test_a_named_source_file_too_big_to_read_is_outlined_up_front(tmp_path: Path,
                                                                         ollama_server: ScriptedOllama) -> None:
    big = "".join(f"def f{i}(x):\n    \"\"\"{'word ' * 20}\"\"\"\n    return x + {i}\n\n\n" for i in range(200))
    repo = fx.build(tmp_path / "repo", {**FILES, "shop/big.py": big})
    ollama_server.push(Reply("200."))
    events, _, _ = await run_prompt(repo, ollama_server.url, "How many functions does shop/big.py define?")
    auto = [e for e in events if e.type == "tool_call" and e.source == "auto"]
    assert [(e.name, e.arguments) for e in auto] == [("outline", {"path": "shop/big.py"})]
    assert "200 functions" in "\n".join(m.get("content") or "" for m in ollama_server.requests[0]["messages"])


def _hinted_command(text: str, lead: str) -> str:
    return text.split(lead, 1)[1].split("\n", 1)[0]


def test_a_name_the_snippet_made_up_is_blamed_on_the_snippet_not_the_files(tmp_path: Path) -> None:
    """Real tracebacks from a real interpreter: a NameError raised by the snippet itself is the snippet's;
    one raised inside a repository module is not (the files may well need the change)."""
    import subprocess
    import sys

    from tui.tools.run_command import failing_line

    (tmp_path / "mod.py").write_text("def count(pm):\n    return len(registry)\n")
    made_up = "import mod\npm = object()\npm2 = Plugin_1()\n"
    inside = "import mod\nprint(mod.count(None))\n"
    for code, blamed in ((made_up, True), (inside, False)):
        run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
        said = failing_line(code, run.stderr)
        assert said.startswith("Your code failed at its line ")
        assert ("not in the repository's files" in said) is blamed, said
    assert "it uses Plugin_1 without defining or importing it" in failing_line(made_up, subprocess.run(
        [sys.executable, "-c", made_up], cwd=tmp_path, capture_output=True, text=True).stderr)
