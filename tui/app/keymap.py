"""Every action and key of the TUI, in one table: the bindings, the command palette, the help screen, the
status bar's key hints and the key tables of README.md and docs/tui.md are all built from ``ACTIONS``.

An action belongs to an owner, which binds its key and runs it: the app (``app``), the approval queue
(``queue``), the diff view (``diff``); an action with no owner is a key a widget handles itself (the
prompt's enter, Textual's tab) and is only listed. scripts/keys_table.py writes the Markdown tables;
tests/app/test_keymap.py checks that every place agrees with the table.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

Hint = tuple[str, str]  # (the key as the status bar shows it, what it does)

JUMP_KEY = "ctrl+o"  # focus the diff; pressed in the diff, back where the focus was


@dataclass(frozen=True)
class Action:
    """One row of the table: a key, where it works, what it does, and who binds and runs it."""

    where: str  # where the key works, as the help screen groups it: anywhere | prompt | approvals | diff | panes
    shown: str  # the key as the help screen and the tables show it ("n / p"); "" for a palette-only action
    what: str  # one line: the help screen, and the palette's help text
    detail: str = ""  # the README's longer text (default: what)
    owner: str = ""  # app | queue | diff: who binds the key and runs the action; "" = a widget's own key
    action: str = ""  # the Textual action the binding and the palette run on the owner
    keys: str = ""  # the Textual key names of the binding (default: shown)
    label: str = ""  # the binding's description
    show: bool = True  # the binding is shown in Textual's key panel
    priority: bool = False  # the binding works while a widget that wants the key has the focus
    palette: str = ""  # the command palette's title; "" keeps the action out of the palette
    hint: Hint | None = None  # the status bar's hint for it
    hint_in: tuple[str, ...] = ()  # the panes (KEY_HINTS owners) whose hints list it; "app" = the app's keys
    palette_text: str = ""  # the palette's help text when ``what`` does not read well there

    @property
    def described(self) -> str:
        return self.detail or self.what

    def palette_help(self) -> str:
        text = self.palette_text or self.what
        return f"{text} ({self.shown})" if self.shown else text


A = Action
ACTIONS: tuple[Action, ...] = (
    # Keys the panes handle themselves, only hinted in the status bar.
    A("", "", "scroll", hint=("↑/↓", "scroll"), hint_in=("agent", "output")),
    A("", "", "choose a file", hint=("↑/↓", "file"), hint_in=("files",)),
    A("", "", "show its diff", hint=("⏎", "show it"), hint_in=("files",)),
    A("anywhere", "F1 / ?", "this help (? outside the prompt, or in it while it is empty)",
      "help: every binding (`?` works outside the prompt, and in it while it is empty)", "app", "help", "f1",
      "Help", priority=True, palette="Help: every key", hint=("?", "help"), hint_in=("app",),
      palette_text="show every key binding"),
    A("anywhere", "ctrl+p", "command palette (every action)", "command palette (every action is there)",
      hint=("^p", "palette"), hint_in=("app",)),
    A("anywhere", "tab / shift+tab", "cycle panes"),
    A("anywhere", "escape", "cancel the model reply or the running command",
      "cancel the model reply or the running command, at once", "app", "cancel", "escape", "Cancel",
      palette="Cancel"),
    A("anywhere", "ctrl+k", "kill the running command", "", "app", "kill_command", "ctrl+k", "Kill command",
      priority=True, palette="Kill command", hint=("^k", "kill"), hint_in=("output",)),
    A("anywhere", "ctrl+t", "next theme", "", "app", "next_theme", "ctrl+t", "Theme", priority=True,
      palette="Next theme"),
    A("anywhere", "ctrl+c", "copy the selected text (drag over it with the mouse)",
      "copy the selected text (drag over it with the mouse; in the prompt, its own selection)", "app",
      "copy_selection", palette="Copy the selected text"),
    A("anywhere", "F2", "copy the last answer, exactly as the model wrote it", "", "app", "copy_answer", "f2",
      "Copy answer", priority=True, palette="Copy the last answer"),
    A("anywhere", "F3", "copy the last answer's last code block; again: the one before",
      "copy the last answer's last code block; pressed again, the one before it", "app", "copy_code", "f3",
      "Copy code", priority=True, palette="Copy a code block"),
    A("anywhere", "ctrl+d", "show the working-tree diff; again: the staged diff",
      "show the working-tree diff; pressed again, the staged diff", "app", "show_worktree_diff", "ctrl+d",
      "Working tree / staged", priority=True, palette="Working-tree diff"),
    A("anywhere", "ctrl+o", "focus the diff; pressed in the diff, back to the pane you came from",
      "jump to the diff (from the queue, the prompt, any pane); pressed in the diff or its file list, back to "
      "the pane you came from", "app", "jump_diff", JUMP_KEY, "Diff / back", priority=True, palette="Diff and back",
      hint=("^o", "diff"), hint_in=("app",)),
    A("anywhere", "ctrl+l", "show / hide the latest request's details",
      "show / hide devagent's details of the latest request (what it told the model, retries, the replies as "
      "written, checkpoint refs; a click on a details line does the same)", "app", "toggle_details", "ctrl+l",
      "Details", priority=True, palette="Show / hide devagent's details",
      palette_text="what devagent told the model, retries, raw replies, checkpoint refs"),
    A("anywhere", "ctrl+r", "reconnect to the model server now", "", "app", "reconnect", "ctrl+r", "Reconnect",
      priority=True, palette="Reconnect"),
    A("anywhere", "ctrl+q", "quit (q too, outside the prompt)",
      "quit (also `q` outside the prompt); no process is left behind", "app", "quit", "ctrl+q", "Quit",
      priority=True, hint=("^q", "quit"), hint_in=("app",)),
    A("prompt", "enter", "send the prompt (`!cmd` runs your own command)",
      "send; a prompt starting with `!` runs your own command (same approval and sandbox)",
      hint=("⏎", "send"), hint_in=("prompt",)),
    A("prompt", "ctrl+j / shift+enter", "new line", hint=("^j", "new line"), hint_in=("prompt",)),
    A("prompt", "up / down", "prompt history (on the first / last line)", hint=("↑/↓", "history"),
      hint_in=("prompt",)),
    A("approvals", "a", "approve the highlighted proposal (edits: only the accepted hunks)",
      "approve the highlighted proposal (for edits: only the hunks accepted in the diff)", "queue",
      "act('approve')", "a", "Approve", palette="Approve", hint=("a", "approve"), hint_in=("approvals",)),
    A("approvals", "r", "reject, with an optional reason sent to the model",
      "reject; asks for an optional reason, which goes back to the model", "queue", "act('reject')", "r", "Reject",
      palette="Reject", hint=("r", "reject"), hint_in=("approvals",)),
    A("approvals", "e", "edit the command or commit message, then approve",
      "edit the command or commit message, then approve (`ctrl+s` saves, `escape` cancels)", "queue",
      "act('edit')", "e", "Edit", palette="Edit and approve", hint=("e", "edit"), hint_in=("approvals",)),
    A("approvals", "A", "approve every pending low-risk proposal",
      "approve every pending low-risk proposal (policy would allow it, or it only reads)", "queue",
      "act('approve_low')", "A", "Approve low-risk", palette="Approve all low-risk", hint=("A", "low-risk"),
      hint_in=("approvals",)),
    A("approvals", "enter", "open the full proposal", "open the full proposal (then `a` / `r` / `e` / `escape`)",
      "queue", "act('open')", "enter", "Open", show=False, palette="Open proposal", hint=("⏎", "open"),
      hint_in=("approvals",)),
    A("approvals", "up / down", "move between proposals", "move between proposals (the diff follows)"),
    A("diff", "space", "accept / reject the hunk under the cursor", "", "diff", "toggle_hunk", "space",
      "Accept/reject hunk", palette="Diff: accept / reject the current hunk", hint=("space", "toggle"),
      hint_in=("diff",)),
    A("diff", "n / p", "next / previous hunk", "", "diff", "next_hunk", "n,right_square_bracket", "Next hunk",
      palette="Diff: next hunk", hint=("n/p", "hunk"), hint_in=("diff",)),
    A("", "", "previous hunk", "", "diff", "prev_hunk", "p,left_square_bracket", "Prev hunk",
      palette="Diff: previous hunk"),
    A("diff", "} / {", "next / previous file", "", "diff", "next_file", "right_curly_bracket,J", "Next file",
      palette="Diff: next file", hint=("{/}", "file"), hint_in=("diff",)),
    A("", "", "previous file", "", "diff", "prev_file", "left_curly_bracket,K", "Prev file",
      palette="Diff: previous file"),
    A("diff", "s", "unified / side-by-side", "unified / side by side", "diff", "toggle_side_by_side", "s",
      "Side by side", palette="Diff: unified / side by side", hint=("s", "split"), hint_in=("diff",)),
    A("", "", "scroll down", "", "diff", "scroll_down", "j", "Down", show=False),
    A("", "", "scroll up", "", "diff", "scroll_up", "k", "Up", show=False),
    A("diff", "S", "stage the accepted hunks (in the staged view: unstage them)",
      "stage the accepted hunks of the working-tree diff (in the staged view: unstage them)", "app",
      "stage_hunks", "S", "Stage hunks", palette="Stage accepted hunks", hint=("S", "stage"), hint_in=("diff",)),
    A("panes", "u", "undo: show the diff restoring the latest checkpoint applies, then restore",
      "undo: shows the diff that restoring the newest checkpoint differing from the working tree will apply, "
      "and which of those changes are already committed (and in which commit); `a` restores, `escape` cancels; "
      "`u` again undoes the undo. Ignored files are not covered (one undo would replace is saved first); the index "
      "and commits are never touched", "app", "undo", "u", "Undo", palette="Undo", hint=("u", "undo"),
      hint_in=("agent",)),
    A("panes", "t", "run the tests (approved like any command); then the results list",
      "run the tests: asks which suite when there are several (or all); the run is a proposal in the queue like "
      "any command; output streams into the output pane; then a results list (counts, each failure with "
      "file:line; `enter` opens the file at that line, or its diff when it has uncommitted changes)", "app",
      "test_suite", "t", "Tests", palette="Tests: run and list results", hint=("t", "tests"), hint_in=("agent",)),
    A("panes", "T", "run the test the last /scaffold created", "run the test the last `/scaffold` created", "app",
      "run_new_test", "T", "Run new test",
      show=False, palette="Tests: run the new test"),
    A("panes", "F", "fix loop: tests, a fix from the model, tests again (escape stops)",
      "the fix loop: tests, a fix proposed by the model (you approve), tests again; the output pane's title shows "
      "`fix attempt N/limit`; `escape` stops it", "app", "fix_tests", "F", "Fix loop", palette="Tests: fix loop"),
    A("panes", "c", "commit the staged changes with a generated, editable message",
      "commit: the staged diff and a message written from the staged diff only (the model when connected, else a "
      "plain message from the file list); edit it; `ctrl+g` regenerates, `ctrl+s` commits (hooks run, their "
      "output shown; a refused commit keeps your message), `escape` cancels. \"skip hooks (--no-verify)\" is off "
      "unless you tick it. Refused while git is busy (index.lock, merge, rebase...)", "app", "commit", "c",
      "Commit", palette="Commit staged changes", hint=("c", "commit"), hint_in=("agent",)),
    A("prompt", "/scaffold KIND NAME", "propose new files the repo's way (--dir D); /test [SELECTION] runs tests",
      "propose new files the repo's way (`--dir D`: where; a proposal in the queue and the diff view); after "
      "approval a notification offers `T` to run the new test; `/test [SELECTION]` is like `t`, for a file, "
      "test id or `-k` expression", "app", "prefill_scaffold", palette="Scaffold…"),
    A("prompt", "/refactor OP ...", "rename / move / signature / extract / repair, exactly (an engine, tested)",
      "an exact change by a refactoring engine, checked on a copy (parse, pyflakes, the tests before and after): "
      "`rename OLD NEW [--in PATH]`, `move NAME --to MODULE`, `signature NAME --add P=V` or `--default P=V`, "
      "`extract PATH START END NAME`, `repair FILE`; a proposal in the queue and the diff view, then the optional "
      "prose-and-strings part as a second one", "app", "prefill_refactor", palette="Refactor…"),
    A("", "", "get the local model for the embedded backend, then load it", "", "app", "download_model",
      palette="Download the default model"),
    # Bindings the help lists under another key's row.
    A("", "", "quit", "", "app", "quit", "q", "Quit", show=False),
    A("", "", "help", "", "app", "help", "question_mark", "Help", show=False),
    *(A("", "", f"move the focus to the {pane} pane", "", "app", f"focus_pane('{pane}')", palette=f"Focus {pane}")
      for pane in ("prompt", "agent", "queue", "diff", "output")),
)


def listed() -> list[Action]:
    """The rows of the help screen and of the Markdown tables, in order."""
    return [a for a in ACTIONS if a.where and a.shown]


def bindings(owner: str) -> list[Binding]:
    """The BINDINGS of ``owner`` (app, queue or diff)."""
    return [Binding(a.keys, a.action, a.label, show=a.show, priority=a.priority)
            for a in ACTIONS if a.owner == owner and a.keys]


def palette_actions() -> list[Action]:
    return [a for a in ACTIONS if a.palette]


def hints(pane: str) -> tuple[Hint, ...]:
    """The status bar's hints for ``pane`` (a widget's KEY_HINTS), or the app's keys for ``"app"``."""
    return tuple(a.hint for a in ACTIONS if a.hint is not None and pane in a.hint_in)


def _hint_of(keys: str) -> Hint:
    return next(a.hint for a in ACTIONS if a.keys == keys and a.hint is not None)


# The app's keys in the status bar, the jump key and help first (the bar keeps those two when it is short).
APP_KEYS: tuple[Hint, ...] = (_hint_of(JUMP_KEY), *(h for h in hints("app") if h != _hint_of(JUMP_KEY)))
BACK_KEYS: tuple[Hint, ...] = (("^o", "back"), *APP_KEYS[1:])  # the app keys while the diff has the focus


def markdown_table() -> str:
    """The key table of README.md and docs/tui.md."""
    rows = ["| where | key | what |", "|---|---|---|"]
    for a in listed():
        keys = " / ".join(f"`{k.strip()}`" for k in a.shown.split(" / "))
        rows.append(f"| {a.where} | {keys} | {a.described} |")
    return "\n".join(rows) + "\n"
