"""The main screen: the conversation and prompt, the diff panel, the approval queue, the output and the status
bar, and the handlers of the engine's events.

The screen owns what the engine's events change: each event class has one handler here (``@handles``,
tui/app/engine_events.py), reached through ``on_engine_event``; the approver's requests go to the approval
queue, which owns the pending decisions; the diff panel owns which diff is shown. The app (tui/app/app.py)
keeps what is app-wide: the session's start, themes, the global keys, the other screens.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker

from tui.app import messages as msg
from tui.app.engine_events import handler_for, handles
from tui.app.keyhints import Hint, KeyHints, pane_hints
from tui.app.keymap import APP_KEYS, BACK_KEYS
from tui.app.screens import first_frame
from tui.app.screens.compositor import RowCompositor
from tui.app.widgets.agent_pane import AgentPane
from tui.app.widgets.approval_queue import ApprovalQueue
from tui.app.widgets.banner import Banner
from tui.app.widgets.diff_area import DiffArea
from tui.app.widgets.diff_frame import DiffFrame
from tui.app.widgets.output_pane import OutputPane
from tui.app.widgets.status_bar import StatusBar
from tui.app.widgets.tool_call_line import literal_warnings
from tui.app.widgets.wait_line import WaitLine
from tui.config import Config
from tui.protocol.words import plural

if TYPE_CHECKING:
    from tui.app.widgets.tool_call_line import ToolCallLine
    from tui.protocol import events as ev

FIX_STOPPED = {"passed": "the tests pass", "limit": "attempt limit reached", "repeated": "the same failures came back",
               "declined": "no fix was applied", "cancelled": "cancelled",
               "not_run": "the tests could not run (see the results)"}  # why the fix loop stopped


class MainScreen(Screen):
    """The default screen. It is born with its layout classes (Textual adds them on the first resize,
    which would restyle every widget once more) and focuses the prompt as it composes.

    ``session`` is set by the app once it opened; ``server_state`` follows ServerStatus events
    (connecting | connected | down | reconnecting); ``closing`` is set when the app quits."""

    AUTO_FOCUS = "#prompt"
    _resumed = False
    complete = False  # the real prompt, diff view and queue are in (right after the first frame)

    def __init__(self, repo: Path, config: Config, *, clock: Callable[[], float] = time.monotonic,
                 git_refresh: bool = True, retry_seconds: float = 3.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._compositor = RowCompositor()  # a partial paint renders only the rows it paints (compositor.py)
        self.repo = repo
        self.config = config
        self.clock = clock
        self.git_refresh = git_refresh
        self.retry_seconds = retry_seconds
        self.session: Any | None = None
        self.server_state = "connecting"
        self.closing = False
        self._focus_before_diff: Widget | None = None  # where ctrl+o came from, for the way back
        self.last_answer = ""  # the model's last message as it wrote it (flows/copy.py: F2, F3)

    def compose(self) -> ComposeResult:
        yield Banner(id="banner")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield AgentPane(id="agent")
                yield WaitLine(self.clock, lambda: "esc cancels" if self.busy() else "", id="wait")
                yield first_frame.PromptStandin()  # the real prompt right after the first frame
            with Vertical(id="side"):
                with DiffArea(self.repo, git_refresh=self.git_refresh, id="diff-area"):
                    with DiffFrame(id="diff-frame", classes="-proposal"):  # born in the view's first mode
                        yield first_frame.standin_diff()  # the DiffView right after the first frame
                yield ApprovalQueue(id="queue", classes="-empty")  # born empty: no restyle when it mounts
                yield OutputPane(self.config.ui.output_lines, clock=self.clock, id="output")
        yield StatusBar(id="status")

    def on_mount(self) -> None:
        frame = self.query_one("#diff-frame")
        frame.border_title, frame.border_subtitle = "Diff", "no changes"  # as the empty DiffView labels it
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self.bar.repo_name = self.repo.name
        self.update_keys()

    async def composed(self) -> None:
        """Until the panes are mounted: Textual composes the default screen in a task of its own, and the app's
        messages (engine events, approval requests) must not reach the handlers before."""
        await self._mounted_event.wait()

    def _on_resize(self, event: events.Resize) -> None:
        """A resize to a size the app no longer has is dropped before Screen's handler lays the screen out for
        it (the app sends the screen a resize for its latest size after each change). Headless, the first one
        is the console's 80x25 guess while the driver says 80x24: a whole extra layout and paint at startup."""
        if event.size != self.app.size:
            event.prevent_default()

    async def _on_screen_resume(self, event: events.ScreenResume) -> None:
        """Runs before Screen's own handler (Textual calls each class's handler in MRO order: no super call).
        The first one lays out and paints the first frame itself, then puts the real panes in (first_frame.py)
        before the screen takes any other message."""
        if self._resumed:
            return
        self._resumed = True
        event.refresh_styles = False  # the first resume follows the mount that just styled every widget
        event.prevent_default()
        Screen._on_screen_resume(self, event)  # the first frame
        await first_frame.complete(self)
        self.complete = True
        self.update_keys()
        self.app.first_frame_done()

    def _theme_changed(self, theme: Any) -> None:
        self.queue.refresh_styles()
        self.bar.refresh()

    # the parts (each the one widget of its class on this screen) -----------
    agent = property(lambda self: self.query_one(AgentPane))
    prompt = property(lambda self: self.query_one("#prompt", first_frame.prompt_class()))
    diff = property(lambda self: self.query_one(DiffArea))
    queue = property(lambda self: self.query_one(ApprovalQueue))
    output = property(lambda self: self.query_one(OutputPane))
    bar = property(lambda self: self.query_one(StatusBar))
    wait = property(lambda self: self.query_one(WaitLine))
    banner = property(lambda self: self.query_one(Banner))

    def show_session(self, session: Any) -> None:
        """The session opened: the screen's turns use it; its sandbox and model in the status bar."""
        self.session = session
        self.bar.show_session(session)

    @property
    def alive(self) -> bool:
        """Not quitting, and not being torn down (Textual prunes the panes before the screen leaves the stack):
        late events, requests and refreshes have nowhere to go otherwise."""
        return not self.closing and self.is_attached and not self._pruning

    def close(self) -> None:
        """The app quits: say so; late events, requests and refreshes are dropped from now on."""
        self.closing = True
        self.diff.closed = True
        self.bar.keys = "quitting: stopping commands and the model client…"

    # the engine's work (a prompt's turn: tui/app/flows/turn.py) ---------------
    def busy(self) -> list[Worker[Any]]:
        """The turn and command workers still running."""
        return [w for w in self.app.workers if w.group in ("turn", "command") and not w.is_finished]

    def cancel(self) -> None:
        """Esc: cancel the model reply and any running command at once."""
        busy = self.busy()
        for worker in busy:
            worker.cancel()
        if busy:
            self.agent.add_notice("cancelled", "warning")
            self.output.cancelled()
            self.wait.work_ended()
        else:
            self.prompt.focus()
        self.update_keys()

    # focus and keys ----------------------------------------------------------
    def jump_diff(self) -> None:
        """ctrl+o: focus the diff; pressed in the diff or its file list, back where the focus was."""
        if self.app.screen is not self:
            return  # a modal is open: its own keys only
        focused = self.focused
        if focused is None or not self.diff.contains(focused):
            self._focus_before_diff = focused
            self.query_one("#diff").focus()
            return
        back = self._focus_before_diff
        if back is None or back not in self.focus_chain:
            back = self.prompt  # the pane it came from is gone or hidden now
        back.focus()

    def update_keys(self) -> None:
        """The status bar's keys: what matters now, then the focused pane's own keys, then the app's."""
        if not self.alive or self.app.screen_stack[:1] != [self]:
            return  # a focus event while the app is torn down (its screens already gone)
        now: list[Hint] = []
        if self.busy():
            now.append(("esc", "cancel"))
        if self.output.running:
            now.append(("^k", "kill"))
        focused = self.focused or (None if self.complete else self.query_one("#prompt"))  # its stand-in's keys
        waiting: tuple[Hint, ...] = ()
        queue = self.queue
        if queue.pending and not queue.has_focus:
            waiting = ((f"{len(queue.pending)} pending", "(tab: the queue)"),)
        in_diff = focused is not None and self.diff.contains(focused)
        self.bar.hints = KeyHints(tuple(now), pane_hints(focused), BACK_KEYS if in_diff else APP_KEYS, waiting)

    def on_descendant_focus(self) -> None:
        self.update_keys()

    # approvals ---------------------------------------------------------------
    def on_approval_requested(self, message: msg.ApprovalRequested) -> None:
        if not self.alive:
            message.future.cancel()
            return
        proposal, queue = message.proposal, self.queue
        queue.request(proposal, message.future)
        self.add_class("-has-queue")
        if not self.prompt.text.strip() and not self.app.screen.is_modal:
            queue.focus()
        if queue.current is proposal:
            self.diff.show_proposal(proposal)
        self.update_keys()

    def on_approval_withdrawn(self, message: msg.ApprovalWithdrawn) -> None:
        if not self.alive:
            return
        self.queue.drop(message.proposal_id)
        line = self.agent.tool_call_for_proposal(message.proposal_id)
        if line is not None and line.state == "waiting":
            line.state = "rejected"
            line.result = "withdrawn (cancelled)"

    def on_approval_queue_dropped(self, message: ApprovalQueue.Dropped) -> None:
        """A proposal left the queue: its tool-call line, the queue's place and the diff follow."""
        if not self.alive:
            return
        line = self.agent.tool_call_for_proposal(message.proposal_id) if message.decision is not None else None
        if line is not None:
            line.state = "approved" if message.decision.approved else "rejected"
        queue = self.queue
        if not queue.pending:
            self.remove_class("-has-queue")
            if queue.has_focus:
                self.prompt.focus()
        if self.diff.diff_for == message.proposal_id:
            self.diff.show_proposal(queue.current)
        self.update_keys()

    def on_approval_queue_act(self, message: ApprovalQueue.Act) -> None:
        from tui.app.approvals import act

        act(self.queue, self.diff, message.action, message.proposal)

    def on_approval_queue_focused(self, message: ApprovalQueue.Focused) -> None:
        self.diff.show_proposal(message.proposal)

    def on_repo_refreshed(self, message: msg.RepoRefreshed) -> None:
        """The diff panel re-read the tree (it keeps the diffs); the status bar's counts."""
        state = message.state
        for bar in self.query(StatusBar) if self.alive else ():
            bar.branch, bar.dirty, bar.staged = state.branch, state.dirty, state.staged

    # engine events -------------------------------------------------------------
    def on_engine_event(self, message: msg.EngineEvent) -> None:
        if not self.alive:
            return  # the session is closing (or the app is torn down): its last events have nowhere to go
        from tui.protocol.events import Progress  # loaded by now: the event is one of its classes

        event = message.event
        handler = handler_for(type(event))
        if handler is not None:
            handler(self, event)
        if not isinstance(event, Progress):
            self.wait.feed(event)  # what ends a wait: the reply, the command, the turn (tui/protocol/waits.py)

    @handles("SessionStarted")
    def handle_session_started(self, event: ev.SessionStarted) -> None:
        self.bar.model = event.model
        if event.sandbox:
            self.bar.sandbox = event.sandbox

    @handles("TextDelta")
    def handle_text_delta(self, event: ev.TextDelta) -> None:
        self.agent.add_tokens(event.text)

    @handles("TextDone")
    def handle_text_done(self, event: ev.TextDone) -> None:
        agent = self.agent
        agent.finish_reply(event.text, event.shown)
        if (event.shown or "").strip():
            self.last_answer = event.shown or ""
        hidden = literal_warnings(event.text)
        if hidden:
            agent.add_notice("⚠ the reply contains hidden characters (shown as escapes): " + "; ".join(hidden),
                             "warning")

    @handles("ToolCallStarted")
    def handle_tool_call_started(self, event: ev.ToolCallStarted) -> None:
        self.agent.add_tool_call(event.call_id, event.name, event.arguments)

    @handles("ToolCallFinished")
    def handle_tool_call_finished(self, event: ev.ToolCallFinished) -> None:
        line = self.agent.tool_call(event.call_id)
        if line is not None:
            if line.state not in ("rejected",):
                line.state = "done" if event.ok else "failed"
            line.result = event.summary
        self.diff.refresh_repo()

    @handles("ProposalCreated")
    def handle_proposal_created(self, event: ev.ProposalCreated) -> None:
        proposal, agent = event.proposal, self.agent
        line: ToolCallLine | None = agent.tool_call(proposal.call_id or f"user-{proposal.id}")
        if line is None:
            line = agent.add_tool_call(proposal.call_id or proposal.id, proposal.tool or proposal.kind,
                                       {"command": proposal.command or proposal.summary})
        line.proposal_id = proposal.id
        line.state = "waiting"

    @handles("DecisionMade")
    def handle_decision_made(self, event: ev.DecisionMade) -> None:
        line = self.agent.tool_call_for_proposal(event.id)
        if line is not None:
            line.state = "approved" if event.decision in ("approve", "edit") else "rejected"
            if event.reason:
                line.result = f"{event.decision} ({event.by}): {event.reason}"
        self.queue.drop(event.id)

    @handles("CommandStarted")
    def handle_command_started(self, event: ev.CommandStarted) -> None:
        self.output.start(event.id, event.command, event.sandbox)
        self.add_class("-has-output")
        self.update_keys()

    @handles("CommandOutput")
    def handle_command_output(self, event: ev.CommandOutput) -> None:
        self.output.write(event.text)

    @handles("CommandFinished")
    def handle_command_finished(self, event: ev.CommandFinished) -> None:
        self.output.finish(event.exit_code, event.duration, event.killed, event.dropped_bytes)
        self.update_keys()
        self.diff.refresh_repo()

    @handles("Checkpointed")
    def handle_checkpointed(self, event: ev.Checkpointed) -> None:
        """The ref is a detail (`u` and `devagent undo` find it); what the checkpoint cannot restore is said."""
        self.agent.add_detail(f"checkpoint {event.ref} ({event.label}); `devagent undo` restores it", "checkpoint")
        if event.not_covered:
            self.agent.add_notice(f"the checkpoint before this change does not cover: {', '.join(event.not_covered)}",
                                  "warning")

    @handles("Detail")
    def handle_detail(self, event: ev.Detail) -> None:
        """devagent's own notes go to the request's details line; a connection message is also the banner's
        while the model is not connected (the status bar says the rest once it is)."""
        self.agent.add_detail(event.text, event.kind)
        if event.kind == "connection" and self.server_state != "connected":
            self.banner.say(server=event.text)

    @handles("ErrorEvent")
    def handle_error(self, event: ev.ErrorEvent) -> None:
        text = event.message + (f"  {event.hint}" if event.hint else "")
        self.agent.add_notice(text, "error")
        if not event.retryable and not (event.source == "model" and self.banner.server):
            self.banner.say(error=text)

    @handles("Retrying")
    def handle_retrying(self, event: ev.Retrying) -> None:
        self.agent.add_detail(f"retrying (attempt {event.attempt}) in {event.delay:.0f}s: {event.reason}", "retry")

    @handles("ServerStatus")
    def handle_server_status(self, event: ev.ServerStatus) -> None:
        self.server_state = event.state
        bar = self.bar
        bar.server = event.state
        if event.model:
            bar.model = event.model
        self.banner.server_state(event.state, event.host, event.detail, self.retry_seconds)

    @handles("Progress")
    def handle_progress(self, event: ev.Progress) -> None:
        """A wait began or moved: the line above the prompt (stage, elapsed seconds, the cancel key)."""
        self.wait.feed(event)

    @handles("ContextUsage")
    def handle_context_usage(self, event: ev.ContextUsage) -> None:
        agents = event.parts.get("instructions") if event.parts else 0
        self.bar.context = f"ctx {event.used}/{event.limit}" + (f" (AGENTS.md {agents})" if agents else "")

    @handles("Notice")
    def handle_notice(self, event: ev.Notice) -> None:
        self.agent.add_notice(event.message, event.level, event.key)

    @handles("FixAttempt")
    def handle_fix_attempt(self, event: ev.FixAttempt) -> None:
        """The fix loop's counter in the output pane's title, and a line in the conversation."""
        output, agent = self.output, self.agent
        if event.state == "fixing":
            output.border_title = f"Output · fix attempt {event.attempt}/{event.limit} · esc stops"
            agent.add_notice(f"fix attempt {event.attempt} of {event.limit}: {plural(event.failing, 'failing test')}")
            return
        output.border_title = "Output"
        why = FIX_STOPPED.get(event.reason, event.reason)
        agent.add_notice(f"fix loop stopped after {plural(event.attempt, 'attempt')}: {why}",
                         "info" if event.reason == "passed" else "warning")

    @handles("TurnDone")
    def handle_turn_done(self, event: ev.TurnDone) -> None:
        agent = self.agent
        agent.end_reply()
        if event.reason not in ("complete", "cancelled") and event.reason:  # Esc already said "cancelled"
            agent.add_notice(f"turn {event.reason}", "warning" if event.reason == "cancelled" else "info")
        self.update_keys()
        self.diff.refresh_repo()
