"""Counts in the summaries people read agree with their number: "changed 1 file", "listed 1 file" (seen: "changed
1 files" after a command, "0 file(s) changed" in listings)."""

from __future__ import annotations

from pathlib import Path

from tui.config import load_config
from tui.engine.session import Session
from tui.protocol.proposals import ApproveAll


async def test_command_and_listing_summaries_say_one_file_and_two_files(repo: Path) -> None:
    session = await Session.open(repo, load_config(repo), approver=ApproveAll(), emit=lambda event: None,
                                 host="http://127.0.0.1:9")
    try:
        one = await session.run_user_command("echo hi > one.txt")
        two = await session.run_user_command("echo a > two.txt; echo b > three.txt")
        (repo / "docs").mkdir()
        (repo / "docs" / "only.md").write_text("# only\n")
        listed = await session.run_tool("list_files", {"path": "docs"})
    finally:
        await session.close()
    assert one.summary.endswith("changed 1 file"), one.summary
    assert two.summary.endswith("changed 2 files"), two.summary
    assert listed.summary == "listed 1 file under docs", listed.summary
