"""Keyboard behaviour of the app fed with engine events (no model server needed)."""

from __future__ import annotations

from pathlib import Path

from tests.app.snapshot_apps.factory import EDIT_DIFF, ask, build_app, feed, sample_proposals, wait_for
from tui.app.screens.help import KEYS
from tui.app.widgets.agent_pane import Reply as ReplyBlock
from tui.app.widgets.approval_queue import ApprovalQueue
from tui.app.widgets.output_pane import OutputPane
from tui.app.widgets.prompt_input import PromptInput
from tui.app.widgets.tool_call_line import ToolCallLine
from tui.protocol import events as ev
from tui.protocol.proposals import Proposal


async def test_prompt_history_and_multiline(repo: Path) -> None:
    app = build_app(repo)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press(*"first")
        await pilot.press("ctrl+j")
        await pilot.press(*"line two")
        await pilot.press("enter")
        await pilot.press(*"second", "enter")
        shown = [str(item.render()) for item in app.query(".prompt")]
        assert shown == ["› first\nline two", "› second"]
        assert prompt.text == ""
        await pilot.press("up")
        assert prompt.text == "second"
        await pilot.press("up")
        assert prompt.text == "first\nline two"
        await pilot.press("down", "down")
        assert prompt.text == ""


async def test_model_text_is_never_markup(repo: Path) -> None:
    app = build_app(repo)
    async with app.run_test(size=(120, 40)) as pilot:
        feed(app, ev.TextDelta("use [bold]this[/bold] "), ev.TextDelta("and [red]that[/]"))
        await wait_for(pilot, lambda: "[red]that[/]" in "".join(b.source for b in app.query(ReplyBlock)))
        feed(app, ev.ToolCallStarted("c1", "run_command", {"command": "echo [bold]x[/bold]\x1b[2J"}))
        await pilot.pause()
        line = app.query_one(ToolCallLine)
        shown = str(line.render())
        assert "[bold]x[/bold]" in shown and "\\x1b" in shown


async def test_queue_keys(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(160, 48)) as pilot:
        p1, p2, p4, p3 = sample_proposals()
        futures = {p.id: ask(app, p) for p in (p1, p2, p4, p3)}
        queue = app.query_one(ApprovalQueue)
        await wait_for(pilot, lambda: len(queue.proposals) == 4)
        assert [p.id for p in queue.proposals] == ["p1", "p2", "p4", "p3"]  # oldest first
        assert queue.has_focus
        # A approves only the low-risk one (read-only command)
        await pilot.press("A")
        assert futures["p1"].result().action == "approve"
        assert not any(futures[k].done() for k in ("p2", "p3", "p4"))
        # r then escape: nothing decided
        await pilot.press("down", "r")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ReasonScreen")
        await pilot.press("escape")
        assert not futures["p4"].done()
        # enter opens the full proposal; a there approves it
        await pilot.press("up", "enter")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ProposalScreen")
        await pilot.press("a")
        decision = futures["p2"].result()
        assert decision.action == "approve" and decision.hunks == (0,)  # the diff view's accepted hunks
        # e on the commit edits the message
        queue.highlighted = [p.id for p in queue.proposals].index("p3")
        await pilot.press("e")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "EditCommandScreen")
        await pilot.press("end", *" now", "ctrl+s")
        assert futures["p3"].result().action == "edit"
        assert futures["p3"].result().message.startswith("Add math import")
        # e on the command, then r with a reason
        await pilot.press("e")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "EditCommandScreen")
        await pilot.press("escape", "r")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ReasonScreen")
        await pilot.press(*"not now", "enter")
        assert futures["p4"].result().reason == "not now"
        assert not queue.proposals and app.query_one(PromptInput).has_focus


async def test_edit_command_then_approve(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(160, 48)) as pilot:
        future = ask(app, Proposal(id="x1", kind="command", summary="ls", command="ls"))
        await wait_for(pilot, lambda: app.query_one(ApprovalQueue).proposals)
        await pilot.press("e")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "EditCommandScreen")
        await pilot.press("end", *" -la", "ctrl+s")
        assert future.result().action == "edit" and future.result().command == "ls -la"


async def test_controls_and_bidi_flagged(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(160, 48)) as pilot:
        ask(app, Proposal(id="b1", kind="command", summary="echo safe\u202e", command="echo safe\u202egnp.exe\x07"))
        queue = app.query_one(ApprovalQueue)
        await wait_for(pilot, lambda: queue.proposals)
        shown = str(queue.get_option_at_index(0).prompt)
        assert "\\u202e" in shown and "⚠" in shown and "\u202e" not in shown


async def test_invisible_characters_are_escaped_flagged_and_never_bulk_approved(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(160, 48)) as pilot:
        hidden = "cat README.md\u3164 app.py\U000e0061"
        future = ask(app, Proposal(id="h1", kind="command", summary=hidden, command=hidden, risk="read-only"))
        queue = app.query_one(ApprovalQueue)
        await wait_for(pilot, lambda: queue.proposals)
        shown = str(queue.get_option_at_index(0).prompt)
        assert "\\u3164" in shown and "\\U000e0061" in shown and "⚠" in shown and "\u3164" not in shown
        await pilot.press("A")
        await pilot.pause()
        assert not future.done() and queue.proposals  # `A` skips it: hidden characters need your eyes
        feed(app, ev.TextDelta("fine" + "\U000e0072\U000e006d"), ev.TextDone("fine\U000e0072\U000e006d"))
        await wait_for(pilot, lambda: "\\U000e0072" in "".join(b.source for b in app.query(ReplyBlock)))
        notices = " ".join(str(n.render()) for n in app.query(".notice"))
        assert "hidden characters" in notices and "U+E0072" in notices


async def test_withdrawn_and_decided_elsewhere(repo: Path) -> None:
    from tui.app.messages import ApprovalWithdrawn

    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(160, 48)) as pilot:
        feed(app, ev.ToolCallStarted("c9", "run_command", {"command": "make"}))
        proposal = Proposal(id="w1", kind="command", summary="make", command="make", call_id="c9")
        feed(app, ev.ProposalCreated(proposal))
        ask(app, proposal)
        await wait_for(pilot, lambda: app.query_one(ApprovalQueue).proposals)
        assert app.query_one(ToolCallLine).state == "waiting"
        app.post_message(ApprovalWithdrawn("w1"))
        await wait_for(pilot, lambda: not app.query_one(ApprovalQueue).proposals)
        assert app.query_one(ToolCallLine).state == "rejected"


async def test_output_is_bounded_and_batched(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    app.config.ui.output_lines = 100
    async with app.run_test(size=(160, 48)) as pilot:
        feed(app, ev.CommandStarted("k1", "seq 1 1000", "bwrap"))
        for start in range(0, 1000, 50):
            feed(app, ev.CommandOutput("k1", "".join(f"out {i}\n" for i in range(start, start + 50))))
        feed(app, ev.CommandFinished("k1", 0, 1.5))
        output = app.query_one(OutputPane)
        await wait_for(pilot, lambda: not output.running)
        await pilot.pause(0.1)
        lines = output.log_widget.lines
        assert len(lines) <= 100
        assert "out 999" in lines and "exit 0" in lines[-1]


async def test_help_palette_theme_and_layout(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.screen.has_class("-narrow")
        app.query_one(ApprovalQueue).focus()
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen")
        await pilot.press("escape")
        await wait_for(pilot, lambda: type(app.screen).__name__ != "HelpScreen")
        before = app.theme
        await pilot.press("ctrl+t")
        assert app.theme != before and app.theme in app.theme_names
        titles = [command.title for command in app.get_system_commands(app.screen)]
        for title in ("Approve", "Reject", "Edit and approve", "Approve all low-risk", "Cancel", "Kill command",
                      "Next theme", "Help: every key", "Working-tree diff", "Reconnect", "Open proposal",
                      "Stage accepted hunks", "Tests: run and list results", "Diff: next hunk", "Diff: unified / side by side"):
            assert title in titles
        assert len(KEYS) >= 20
        await pilot.resize_terminal(160, 48)
        await pilot.pause()
        assert not app.screen.has_class("-narrow")


async def test_worktree_diff_shown_when_nothing_proposed(repo: Path) -> None:
    (repo / "app.py").write_text("def add(a, b):\n    return a + b + 0\n")
    app = build_app(repo)
    async with app.run_test(size=(160, 48)) as pilot:
        from tui.app.widgets.status_bar import StatusBar

        bar = app.query_one(StatusBar)
        # the refresh reaches the diff panel first and the status bar as it bubbles on: wait for both
        await wait_for(pilot, lambda: "a + b + 0" in app.main.diff.worktree_diff and bar.branch, what="git diff")
        assert bar.branch == "main" and bar.dirty == 1
        view = app.query_one("#diff")
        assert getattr(view, "hunk_count", 1) == 1
        ask(app, Proposal(id="d1", kind="edit", summary="edit", diff=EDIT_DIFF, files=["app.py"]))
        await wait_for(pilot, lambda: app.main.diff.diff_for == "d1")


def test_a_reply_freezes_only_lines_that_can_no_longer_change() -> None:
    from tui.app.widgets.reply_render import finished_lines

    text = "para one\nline two\n\n```python\nx = 1\n\ny = 2\n```\ntail"
    assert text[:finished_lines(text, 0)] == "para one\nline two\n\n```python\nx = 1\n\ny = 2\n```\n"
    assert text[:finished_lines(text[:30], 0)] == "para one\nline two\n\n"  # the open fence waits for its end
    assert finished_lines("open ```\n", 0) == 9  # a fence only opens a line of its own
    assert finished_lines("```\nunclosed\n\nstill code\n", 0) == 0
    assert finished_lines("a partial line", 0) == 0


async def test_file_list_follows_a_multi_file_diff(repo: Path) -> None:
    (repo / "app.py").write_text("def add(a, b):\n    return a + b + 0\n")
    (repo / "README.md").write_text("# demo\n\nmore\n")
    app = build_app(repo)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: "a + b + 0" in app.main.diff.worktree_diff, what="git diff")
        files = app.query_one("#files")
        await wait_for(pilot, lambda: files.display and files.option_count == 2, what="file list")
        files.focus()
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.query_one("#diff").current_file == 1, what="jump to file")


async def test_stage_and_unstage_accepted_hunks(tmp_path: Path) -> None:
    from tests.conftest import git, make_repo

    lines = [f"line {i}\n" for i in range(1, 31)]
    repo = make_repo(tmp_path / "repo", {"data.txt": "".join(lines)})
    changed = list(lines)
    changed[1], changed[27] = "FIRST\n", "SECOND\n"
    (repo / "data.txt").write_text("".join(changed))
    app = build_app(repo)
    async with app.run_test(size=(160, 48)) as pilot:
        view = app.query_one("#diff")
        await wait_for(pilot, lambda: view.hunk_count == 2, what="working-tree diff")
        view.focus()
        await pilot.press("space", "S")  # reject the first hunk, stage the rest
        await wait_for(pilot, lambda: "SECOND" in git(repo, "diff", "--cached"), what="staged")
        assert "FIRST" not in git(repo, "diff", "--cached") and "FIRST" in git(repo, "diff")
        await pilot.press("ctrl+d")  # the staged view
        await wait_for(pilot, lambda: app.main.diff.tree_mode == "staged" and view.hunk_count == 1, what="staged view")
        await pilot.press("S")  # unstage it again
        await wait_for(pilot, lambda: git(repo, "diff", "--cached") == "", what="unstaged")
    assert (repo / "data.txt").read_text() == "".join(changed)  # the working tree is never touched


async def test_events_arrive_while_a_modal_is_open(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(160, 48)) as pilot:
        app.query_one(ApprovalQueue).focus()
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen")
        feed(app, ev.TextDelta("streamed behind the help screen"), ev.CommandStarted("k", "make", "bwrap"),
             ev.CommandOutput("k", "building\n"), ev.CommandFinished("k", 0, 0.1))
        future = ask(app, Proposal(id="m1", kind="command", summary="make", command="make"))
        await pilot.pause(0.2)
        assert type(app.screen).__name__ == "HelpScreen"  # nothing stole the screen
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.main.query_one(ApprovalQueue).proposals)
        assert "behind the help" in "".join(b.source for b in app.query(ReplyBlock))
        await pilot.press("a")
        assert future.result().action == "approve"


async def test_staging_from_the_diff_is_refused_while_git_is_busy(tmp_path: Path) -> None:
    """The TUI stages through the engine's path (Repo.stage_hunks): what the engine refuses, so does S."""
    from tests.conftest import git, make_repo

    repo = make_repo(tmp_path / "repo", {"data.txt": "one\n"})
    (repo / "data.txt").write_text("two\n")
    app = build_app(repo)
    async with app.run_test(size=(160, 48)) as pilot:
        view = app.query_one("#diff")
        await wait_for(pilot, lambda: view.hunk_count == 1, what="working-tree diff")
        (repo / ".git" / "index.lock").write_text("")  # another git is writing the index
        view.focus()
        await pilot.press("S")
        await wait_for(pilot, lambda: any("another git process is using this repository" in str(n.message)
                                          for n in app._notifications), what="the engine's refusal")
        (repo / ".git" / "index.lock").unlink()
        assert git(repo, "diff", "--cached") == ""
