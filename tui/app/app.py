"""The Textual front end: wiring only (layout, bindings, themes, the agent worker, event handlers).

The engine runs as async workers on the app's loop. Its events arrive through the emit
callback as EngineEvent messages; the approver posts ApprovalRequested. Handlers here
own every state change; workers never touch widgets. Nothing heavy is imported before
the first frame: the Session (and with it ollama, git, unidiff) is opened in a worker, and
the flows, modal screens, git helpers and approver are imported when first used. The
garbage collector is paused from the start of the run to the first frame (startup allocates many
long-lived objects; a full collection then only delays the first paint).
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterable

from textual import events
from textual.app import ComposeResult, SystemCommand
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import Worker

from tui.app import messages as msg
from tui.app.approvals import ApprovalsMixin
from tui.app.diff_pane import DiffPaneMixin
from tui.app.engine_events import EngineEventsMixin, handler_for, handles
from tui.app.host import Host
from tui.app.keyhints import Hint, KeyHints, pane_hints
from tui.app.keymap import APP_KEYS, BACK_KEYS, Action, bindings, palette_actions
from tui.app.widgets.agent_pane import AgentPane
from tui.app.widgets.approval_queue import ApprovalQueue
from tui.app.widgets.diff_frame import DiffFrame
from tui.app.widgets.output_pane import OutputPane
from tui.app.widgets.prompt_input import PromptInput
from tui.app.widgets.reply_block import warm_in_background
from tui.app.widgets.status_bar import StatusBar
from tui.config import Config
from tui.protocol import events as ev
from tui.protocol.errors import DevagentError

if TYPE_CHECKING:
    from tui.app.approver import TuiApprover
    from tui.protocol.proposals import Decision, Proposal

SessionFactory = Callable[["DevagentApp"], Awaitable[Any]]
RETRY_SECONDS = 3.0
NARROW = 120

VARIABLE_DEFAULTS = {
    "risk-low": "#4caf50",
    "risk-medium": "#e0a030",
    "risk-high": "#e05050",
    "diff-added": "#2e7d32 40%",
    "diff-removed": "#c62828 40%",
}


def _flows() -> Any:
    """tui.app.flows (undo, tests, commit, /scaffold), imported on the first key that needs it."""
    from tui.app import flows

    return flows


def _diff_view_class() -> type[Widget] | None:
    try:
        from tui.app.widgets.diff_view import DiffView
    except ImportError:
        return None
    return DiffView


def breakpoint_classes(width: int, height: int) -> set[str]:
    """The classes Textual's Screen gives itself for ``DevagentApp``'s breakpoints at this size."""
    chosen: set[str] = set()
    for size, breakpoints in ((width, DevagentApp.HORIZONTAL_BREAKPOINTS), (height, DevagentApp.VERTICAL_BREAKPOINTS)):
        chosen.update([name for at, name in sorted(breakpoints, reverse=True) if size >= at][:1])
    return chosen


class MainScreen(Screen):
    """The default screen. It is born with its layout classes (Textual adds them on the first resize,
    which would restyle every widget once more) and focuses the prompt as it composes."""

    AUTO_FOCUS = "#prompt"
    _resumed = False

    def _on_resize(self, event: events.Resize) -> None:
        """A resize to a size the app no longer has is dropped before Screen's handler lays the screen out for
        it (the app sends the screen a resize for its latest size after each change). Headless, the first one
        is the console's 80x25 guess while the driver says 80x24: a whole extra layout and paint at startup."""
        if event.size != self.app.size:
            event.prevent_default()

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        """Runs before Screen's own handler (Textual calls each class's handler in MRO order: no super call)."""
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False  # the first resume follows the mount that just styled every widget


class DevagentApp(EngineEventsMixin, ApprovalsMixin, DiffPaneMixin, Host):
    """devagent's full-screen app. Build it with ``DevagentApp(repo, config, ...)``; tests pass
    ``session_factory=None`` and feed events with ``post_message(EngineEvent(...))``."""

    CSS_PATH = str(Path(__file__).with_name("app.tcss"))
    TITLE = "devagent"
    ENABLE_COMMAND_PALETTE = True
    # Layout classes on the screen (app.tcss): stack the panes on narrow terminals, shrink on short ones.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]

    BINDINGS = bindings("app")  # tui/app/keymap.py: every key and action, in one table

    def __init__(
        self,
        repo: Path,
        config: Config | None = None,
        *,
        prompt: str | None = None,
        session_factory: SessionFactory | None = None,
        session_options: dict[str, Any] | None = None,
        theme: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        git_refresh: bool = True,
    ) -> None:
        super().__init__()
        self.repo = Path(repo)
        self.config = config or Config()
        self.initial_prompt = prompt
        self.session_factory = session_factory
        self.session_options = dict(session_options or {})
        self.clock = clock
        self.git_refresh = git_refresh
        self.session: Any | None = None
        self.pending: dict[str, tuple[Proposal, asyncio.Future[Decision]]] = {}
        self.diff_for: str = ""  # proposal id shown in the diff view; "" = working tree
        self.worktree_diff: str = ""  # git diff (unstaged)
        self.staged_diff: str = ""  # git diff --cached
        self.tree_mode = "unstaged"  # which of the two the diff view shows when nothing is proposed
        self.server_state = "connecting"
        self.retry_seconds = RETRY_SECONDS
        self.download_offered = False  # the first-run model download is offered once (flows/download.py)
        self.quitting = False
        self.theme_names: list[str] = []
        self.theme_problems: list[str] = []
        self._error_banner = ""
        self._server_banner = ""
        self._gc_paused = False
        self._themes_pending = False
        self._load_themes(theme or self.config.ui.theme)

    def get_default_screen(self) -> Screen:
        # Not App.size: before the driver knows its size, that pins it to the console's (80x25 headless),
        # and the screen is laid out and painted twice more when the real size arrives.
        width, height = self.console.size
        return MainScreen(id="_default", classes=" ".join(sorted(breakpoint_classes(width, height))))

    @property
    def main(self) -> Screen:
        """The main screen, whatever modal is on top (App.query would search the top screen)."""
        return self.screen_stack[0] if self.screen_stack else self.screen

    # themes ----------------------------------------------------------------
    def get_theme_variable_defaults(self) -> dict[str, str]:
        try:
            from tui.app.themes import THEME_VARIABLE_DEFAULTS
        except ImportError:
            return dict(VARIABLE_DEFAULTS)
        return {**VARIABLE_DEFAULTS, **THEME_VARIABLE_DEFAULTS}

    def _load_themes(self, wanted: str | None, *, all_now: bool = False) -> None:
        """Register the wanted theme (the rest after the first frame, when nothing else can answer to its
        name), or the shipped and user themes; problems are notified once after mount."""
        try:
            from tui.app import themes
        except ImportError:
            self.theme = "textual-dark"
            return
        user_dir = themes.user_theme_dir(self.config.ui.theme_dir or None)
        first = None if all_now else themes.first_theme(wanted, user_dir)
        if first is not None:
            self.register_theme(first)
            self.theme_names, self.theme = [first.name], first.name
            self._themes_pending = True
            return
        self._themes_pending = False
        loaded, problems = themes.load_themes(user_dir)
        self.theme_problems = list(problems)
        for theme in loaded:
            self.register_theme(theme)
        self.theme_names = [theme.name for theme in loaded]
        chosen, problem = themes.resolve_theme_name(wanted, self.available_themes)
        if problem:
            self.theme_problems.append(problem)
        if chosen != self.theme:
            self.theme = chosen

    def _load_other_themes(self) -> None:
        """After the first frame: every theme, for ctrl+t and the palette (the current one stays)."""
        if self._themes_pending:
            self.theme_problems = []
            self._load_themes(self.theme, all_now=True)
            for problem in self.theme_problems:
                self.notify(problem, severity="warning", timeout=8)

    def refresh_css(self, animate: bool = True) -> None:
        """Choosing the theme in __init__ queues a full re-parse of the stylesheet; before any screen is
        styled, new variables are enough (the first mount parses once, not twice)."""
        if not self.screen_stack and getattr(self.stylesheet, "_require_parse", False):
            self.stylesheet.set_variables(self.get_css_variables())
            return
        super().refresh_css(animate)

    def action_next_theme(self) -> None:
        names = self.theme_names or sorted(self.available_themes)
        index = names.index(self.theme) + 1 if self.theme in names else 0
        self.theme = names[index % len(names)]
        self.notify(f"theme: {self.theme}", timeout=2)

    def _theme_changed(self, theme: Any) -> None:
        self.main.query_one(ApprovalQueue).refresh_styles()
        self.main.query_one(StatusBar).refresh()

    # layout ----------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static("", id="banner", markup=False)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield AgentPane(id="agent")
                yield PromptInput(id="prompt")
            with Vertical(id="side"):
                with Horizontal(id="diff-area"):  # the file list joins when a diff has several files
                    diff_cls = _diff_view_class()
                    with DiffFrame(id="diff-frame", classes="-proposal"):  # born in the view's first mode
                        if diff_cls is not None:
                            yield diff_cls(id="diff")
                        else:
                            yield Static("working-tree diff", id="diff", markup=False)
                yield ApprovalQueue(id="queue", classes="-empty")  # born empty: no restyle when it mounts
                yield OutputPane(self.config.ui.output_lines, clock=self.clock, id="output")
        yield StatusBar(id="status")

    def on_mount(self) -> None:
        self.main.query_one("#diff-frame").border_title = "Diff"
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        bar = self.main.query_one(StatusBar)
        bar.repo_name = self.repo.name
        self.main.query_one(PromptInput).focus()
        self._update_keys()
        for problem in self.theme_problems:
            self.notify(problem, severity="warning", timeout=8)
        self.call_after_refresh(self._after_first_frame)

    def on_load(self) -> None:
        """The app is starting to run: pause the collector until the first frame (see the module docstring)."""
        if gc.isenabled():
            gc.disable()
            self._gc_paused = True

    def _resume_gc(self) -> None:
        if self._gc_paused:
            self._gc_paused = False
            gc.enable()

    def on_unmount(self) -> None:
        self._resume_gc()  # an app that exits before it painted must not leave the collector off

    def _after_first_frame(self) -> None:
        self._resume_gc()
        if self.git_refresh:
            self.refresh_repo()
            self.set_interval(15, self.refresh_repo, name="repo-refresh")
        if self.session_factory is not None:
            self.run_worker(self._open_session(), name="open-session", group="session", exit_on_error=False)
        elif self.initial_prompt:
            self._submit(self.initial_prompt)
        self.main.query_one(OutputPane).ensure_log()  # the empty log had no part in the first frame
        self._load_other_themes()
        warm_in_background()  # last: starting a thread waits for it to run, which can take a while on a busy box

    # banner ----------------------------------------------------------------
    def _set_banner(self, *, server: str | None = None, error: str | None = None) -> None:
        if server is not None:
            self._server_banner = server
        if error is not None:
            self._error_banner = error
        banner = self.main.query_one("#banner", Static)
        text = "\n".join(t for t in (self._server_banner, self._error_banner) if t)
        banner.update(text)
        banner.set_class(bool(text), "-shown")

    # the engine ------------------------------------------------------------
    def emit(self, event: Any) -> None:
        """The engine's emit callback; safe from the loop and from threads."""
        self._post_from_engine(msg.EngineEvent(event))

    def _post_from_engine(self, message: Any) -> None:
        if self._thread_id == threading.get_ident():
            self.post_message(message)
        else:
            self.call_from_thread(self.post_message, message)

    def make_approver(self) -> TuiApprover:
        from tui.app.approver import TuiApprover

        return TuiApprover(self._post_from_engine)

    async def _open_session(self) -> None:
        assert self.session_factory is not None
        try:
            session = await self.session_factory(self)
        except DevagentError as err:
            self.post_message(msg.SessionReady(None, err.message, err.hint))
            return
        except ImportError as err:
            self.post_message(msg.SessionReady(None, f"the engine is not available: {err}"))
            return
        except Exception as err:  # a broken state dir or store must be reported, not swallowed by the worker
            self.post_message(msg.SessionReady(None, f"could not open the session: {type(err).__name__}: {err}",
                                               "Run `devagent doctor` for details."))
            return
        self.post_message(msg.SessionReady(session))

    def on_session_ready(self, message: msg.SessionReady) -> None:
        if message.session is None:
            self._set_banner(error=f"{message.error}  {message.hint}".strip())
            return
        self.session = message.session
        info = getattr(self.session, "sandbox_info", None)
        bar = self.main.query_one(StatusBar)
        if info is not None:
            bar.sandbox = f"{info.kind}" + ("" if info.active else " (inactive)")
            bar.sandbox_strong = bool(info.active) and info.kind != "none"  # the session's notice says why
        bar.model = getattr(self.session, "model_name", "") or bar.model
        self.run_worker(self._connect_loop, name="connect", group="connect", exclusive=True, exit_on_error=False)
        if self.initial_prompt:
            prompt, self.initial_prompt = self.initial_prompt, None
            self._submit(prompt)

    async def _connect_loop(self) -> None:
        """Connect, and keep retrying in the background while the server is down.

        The session emits ServerStatus for each attempt; between attempts the bar says reconnecting."""
        from tui.protocol.errors import ModelError
        from tui.protocol.events import ServerStatus

        while self.session is not None:
            try:
                await self.session.connect()
                return
            except ModelError as err:
                detail = err.message
                self.call_later(_flows().download.maybe_offer, self, err)  # UI work, off the connect worker
            except Exception as err:  # keep retrying; say what happened
                detail = f"{type(err).__name__}: {err}"
            host = getattr(getattr(self.session, "backend", None), "host", "")
            await asyncio.sleep(self.retry_seconds)
            self.emit(ServerStatus("reconnecting", host, detail=detail))

    def action_reconnect(self) -> None:
        if self.session is not None:
            self.run_worker(self._connect_loop, name="connect", group="connect", exclusive=True,
                            exit_on_error=False)

    def _busy(self) -> list[Worker[Any]]:
        return [w for w in self.workers if w.group in ("turn", "command") and not w.is_finished]

    def _submit(self, text: str) -> None:
        agent = self.main.query_one(AgentPane)
        self._set_banner(error="")
        if self._busy():
            self.notify("The agent is busy: escape cancels it.", severity="warning")
            self.main.query_one(PromptInput).load_text(text)
            return
        agent.add_prompt(text)
        if self.session is None:
            agent.add_notice("The engine is still starting (or failed to start: see the banner).", "warning")
            return
        if text.startswith("!"):
            self.run_worker(self._engine_call("run_user_command", text[1:].strip()), name="command",
                            group="command", exit_on_error=False)
        else:
            if self.server_state != "connected":
                agent.add_notice("The model server is not connected; trying anyway (`!cmd` works without it).",
                                 "warning")
            self.run_worker(self._engine_call("run_turn", text), name="turn", group="turn", exit_on_error=False)
        self._update_keys()

    async def _engine_call(self, method: str, argument: str) -> None:
        from tui.protocol.events import ErrorEvent

        try:
            await getattr(self.session, method)(argument)
        except DevagentError as err:
            self.emit(ErrorEvent(err.message, err.hint, source="engine"))
        except asyncio.CancelledError:
            self.call_later(self.main.query_one(AgentPane).end_reply)
            raise
        except Exception as err:  # an engine bug must not kill the UI
            self.emit(ErrorEvent(f"{type(err).__name__}: {err}", "This is a devagent bug; please report it."))
        finally:
            self.call_later(self._update_keys)

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        if _flows().slash.handle(self, message.text):  # /scaffold, /test
            return
        self._submit(message.text)

    # git workflow and tests (logic in tui/app/flows) ------------------------
    def action_undo(self) -> None:
        _flows().undo.start_undo(self)

    def action_test_suite(self) -> None:
        _flows().tests.start_tests(self)

    def action_run_new_test(self) -> None:
        _flows().slash.run_offered_test(self)

    def action_fix_tests(self) -> None:
        _flows().tests.start_fix(self)

    def action_commit(self) -> None:
        _flows().commit.start_commit(self)

    @handles(ev.FixAttempt)
    def handle_fix_attempt(self, event: ev.FixAttempt) -> None:
        _flows().tests.on_fix_attempt(self, event)

    # engine events ---------------------------------------------------------
    def on_engine_event(self, message: msg.EngineEvent) -> None:
        if self.quitting or not self.screen_stack:
            return  # the session is closing (or the app is torn down): its last events have nowhere to go
        handler = handler_for(type(message.event))
        if handler is not None:
            handler(self, message.event)

    # cancel, kill, quit ----------------------------------------------------
    def action_cancel(self) -> None:
        """Esc: cancel the model reply and any running command at once."""
        busy = self._busy()
        for worker in busy:
            worker.cancel()
        if busy:
            self.main.query_one(AgentPane).add_notice("cancelled", "warning")
            self.main.query_one(OutputPane).cancelled()
        else:
            self.main.query_one(PromptInput).focus()
        self._update_keys()

    def action_kill_command(self) -> None:
        output = self.main.query_one(OutputPane)
        if not output.running:
            self.notify("No command is running.", timeout=2)
            return
        kill = getattr(self.session, "kill_command", None)
        sandbox = getattr(self.session, "sandbox", None)
        if callable(kill):
            kill()
        elif sandbox is not None and hasattr(sandbox, "kill_all"):
            sandbox.kill_all()
        else:
            for worker in self._busy():
                worker.cancel()
        self.notify("killing the running command", timeout=2)

    async def action_quit(self) -> None:
        if self.quitting:
            return
        self.quitting = True
        self.main.query_one(StatusBar).keys = "quitting: stopping commands and the model client…"
        for worker in list(self.workers):
            worker.cancel()
        for _, future in list(self.pending.values()):
            if not future.done():
                future.cancel()
        if self.session is not None:
            try:
                await asyncio.wait_for(self.session.close(), timeout=10)
            except (Exception, asyncio.TimeoutError):  # quitting must not fail
                pass
        self.exit(0)

    def action_help(self) -> None:
        from tui.app.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_focus_pane(self, pane: str) -> None:
        self.main.query_one(f"#{pane}").focus()

    # keys that matter now --------------------------------------------------
    def _update_keys(self) -> None:
        """The status bar's keys: what matters now, then the focused pane's own keys, then the app's."""
        if not self.is_mounted or not self.screen_stack:
            return  # a focus event while the app is torn down (its screens already gone)
        now: list[Hint] = []
        if self._busy():
            now.append(("esc", "cancel"))
        if self.main.query_one(OutputPane).running:
            now.append(("^k", "kill"))
        focused = self.main.focused
        waiting: tuple[Hint, ...] = ()
        if self.pending and not self.main.query_one(ApprovalQueue).has_focus:
            waiting = ((f"{len(self.pending)} pending", "(tab: the queue)"),)
        in_diff = focused is not None and self.in_diff_area(focused)
        self.main.query_one(StatusBar).hints = KeyHints(tuple(now), pane_hints(focused),
                                                        BACK_KEYS if in_diff else APP_KEYS, waiting)

    def on_descendant_focus(self) -> None:
        self._update_keys()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for action in palette_actions():
            yield SystemCommand(action.palette, action.palette_help(), partial(self._run_palette_action, action))

    async def _run_palette_action(self, action: Action) -> None:
        """Run a palette entry's action on its owner, as its key would."""
        owner = {"queue": lambda: self.main.query_one(ApprovalQueue), "diff": lambda: self.main.query_one("#diff")}
        await self.run_action(action.action, owner[action.owner]() if action.owner in owner else self)

    def action_prefill_scaffold(self) -> None:
        _flows().prefill_scaffold(self)

    def action_download_model(self) -> None:
        _flows().download.offer(self)
