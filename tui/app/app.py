"""The Textual front end: the app-wide part (the session's start, themes, the global keys, the screens).

The main screen (tui/app/screens/main.py) composes the panes and owns the handlers of the engine's events;
the approval queue owns the pending decisions, the diff panel the diff shown. The engine runs as async
workers on the app's loop; its events arrive through the emit callback as EngineEvent messages and the
approver posts ApprovalRequested: the app is their mailbox (safe from threads) and hands each to the main
screen. Workers never touch widgets. Nothing heavy is imported before the first frame: the Session (and
with it ollama, git, unidiff) is opened in a worker, and the flows, modal screens, git helpers and approver
are imported when first used. The garbage collector is paused from the start of the run to the first frame
(startup allocates many long-lived objects; a full collection then only delays the first paint).
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterable

from textual.app import App, SystemCommand
from textual.screen import Screen

from tui.app import messages as msg
from tui.app.keymap import Action, bindings, palette_actions
from tui.app.screens.main import MainScreen
from tui.app.hold import HoldUntilReady
from tui.config import Config
from tui.protocol.errors import DevagentError

if TYPE_CHECKING:
    from tui.app.approver import TuiApprover
    from tui.app.widgets.prompt_input import PromptInput
    from tui.app.flows.download import DownloadOffer

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
    """tui.app.flows (undo, tests, commit, /scaffold, the download), imported on the first key that needs it."""
    from tui.app import flows

    return flows


def breakpoint_classes(width: int, height: int) -> set[str]:
    """The classes Textual's Screen gives itself for ``DevagentApp``'s breakpoints at this size."""
    chosen: set[str] = set()
    for size, breakpoints in ((width, DevagentApp.HORIZONTAL_BREAKPOINTS), (height, DevagentApp.VERTICAL_BREAKPOINTS)):
        chosen.update([name for at, name in sorted(breakpoints, reverse=True) if size >= at][:1])
    return chosen


class DevagentApp(HoldUntilReady, App[int]):
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
        self.retry_seconds = RETRY_SECONDS
        self.quitting = False
        self.theme_names: list[str] = []
        self.theme_problems: list[str] = []
        self._download: DownloadOffer | None = None  # the first-run model download, offered once
        self._gc_paused = False
        self._themes_pending = False
        self._load_themes(theme or self.config.ui.theme)

    def get_default_screen(self) -> Screen:
        # Textual reads App.size next: before the driver knows its size, that pins it to the console's guess
        # (80x25 headless, where the driver says 80x24) and the first frame is painted twice. Ask the driver.
        driver = self._driver
        if driver is not None and driver._size is None and hasattr(driver, "_get_terminal_size"):
            driver._size = driver._get_terminal_size()
        width, height = self.size
        return MainScreen(self.repo, self.config, clock=self.clock, git_refresh=self.git_refresh,
                          retry_seconds=self.retry_seconds, id="_default",
                          classes=" ".join(sorted(breakpoint_classes(width, height))))

    @property
    def main(self) -> MainScreen:
        """The main screen, whatever modal is on top (App.query would search the top screen)."""
        screen = self.screen_stack[0] if self.screen_stack else self.screen
        assert isinstance(screen, MainScreen)
        return screen

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

    async def on_mount(self) -> None:
        await self.main.composed()  # before the app hands it any message
        for problem in self.theme_problems:
            self.notify(problem, severity="warning", timeout=8)

    def first_frame_done(self) -> None:
        """The main screen is whole: what it was sent meanwhile (tui/app/hold.py), then what waits for it."""
        self.release()
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
        main = self.main
        if self.git_refresh:
            main.diff.refresh_repo()
            self.set_interval(15, main.diff.refresh_repo, name="repo-refresh")
        if self.session_factory is not None:
            self.run_worker(self._open_session(), name="open-session", group="session", exit_on_error=False)
        elif self.initial_prompt:
            _flows().turn.submit(main, self.initial_prompt)
        main.output.ensure_log()  # the empty log had no part in the first frame
        self._load_other_themes()
        from tui.app.widgets.reply_block import warm_in_background  # last: starting a thread waits for it to run
        warm_in_background()

    # the engine ------------------------------------------------------------
    def emit(self, event: Any) -> None:
        """The engine's emit callback; safe from the loop and from threads."""
        self._post_from_engine(msg.EngineEvent(event))

    def _post_from_engine(self, message: Any) -> None:
        if self._thread_id == threading.get_ident():
            self.post_message(message)
        else:
            self.call_from_thread(self.post_message, message)

    def on_engine_event(self, message: msg.EngineEvent) -> None:
        """Each engine event, in order, to the main screen's handler of its class."""
        if not self.held(message) and not self.quitting and self.screen_stack:
            self.main.on_engine_event(message)

    def on_approval_requested(self, message: msg.ApprovalRequested) -> None:
        if self.held(message):
            return
        if self.quitting or not self.screen_stack:
            message.future.cancel()
        else:
            self.main.on_approval_requested(message)

    def on_approval_withdrawn(self, message: msg.ApprovalWithdrawn) -> None:
        if not self.held(message) and not self.quitting and self.screen_stack:
            self.main.on_approval_withdrawn(message)

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
            self.main.banner.say(error=f"{message.error}  {message.hint}".strip())
            return
        self.session = message.session
        self.main.show_session(self.session)
        self.run_worker(self._connect_loop, name="connect", group="connect", exclusive=True, exit_on_error=False)
        if self.initial_prompt:
            prompt, self.initial_prompt = self.initial_prompt, None
            _flows().turn.submit(self.main, prompt)

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
                self.call_later(self.download_offer.maybe_offer, err)  # UI work, off the connect worker
            except Exception as err:  # keep retrying; say what happened
                detail = f"{type(err).__name__}: {err}"
            host = getattr(getattr(self.session, "backend", None), "host", "")
            await asyncio.sleep(self.retry_seconds)
            self.emit(ServerStatus("reconnecting", host, detail=detail))

    def action_reconnect(self) -> None:
        if self.session is not None:
            self.run_worker(self._connect_loop, name="connect", group="connect", exclusive=True,
                            exit_on_error=False)

    @property
    def download_offer(self) -> DownloadOffer:
        """The first-run model download (tui/app/flows/download.py): offered once per run."""
        if self._download is None:
            self._download = _flows().download.DownloadOffer(self.main, self.action_reconnect)
        return self._download

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        """The prompt's commands (/scaffold, /test), else a turn (or `!cmd`) on the main screen."""
        if not _flows().slash.handle(self.main, message.text):
            _flows().turn.submit(self.main, message.text)

    # global keys: each runs on the screen or the panel it acts on (flows in tui/app/flows) ---------
    def action_undo(self) -> None:
        _flows().undo.start_undo(self.main)

    def action_test_suite(self) -> None:
        _flows().tests.start_tests(self.main)

    def action_run_new_test(self) -> None:
        _flows().slash.run_offered_test(self.main)

    def action_fix_tests(self) -> None:
        _flows().tests.start_fix(self.main)

    def action_commit(self) -> None:
        _flows().commit.start_commit(self.main)

    def action_show_worktree_diff(self) -> None:
        self.main.diff.toggle_tree()

    def action_stage_hunks(self) -> None:
        self.main.diff.stage_accepted()

    def action_jump_diff(self) -> None:
        self.main.jump_diff()

    def action_toggle_details(self) -> None:
        if not self.main.agent.toggle_details():
            self.notify("No details yet: devagent has said nothing to the model in this session.", timeout=3)

    # cancel, kill, quit ----------------------------------------------------
    def action_cancel(self) -> None:
        """Esc: cancel the model reply and any running command at once."""
        self.main.cancel()

    def action_kill_command(self) -> None:
        """ctrl+k: kill the running command (the session's sandbox kills its process tree)."""
        if not self.main.output.running:
            self.notify("No command is running.", timeout=2)
            return
        kill = getattr(self.session, "kill_command", None)
        sandbox = getattr(self.session, "sandbox", None)
        if callable(kill):
            kill()
        elif sandbox is not None and hasattr(sandbox, "kill_all"):
            sandbox.kill_all()
        else:
            for worker in self.main.busy():
                worker.cancel()
        self.notify("killing the running command", timeout=2)

    async def action_quit(self) -> None:
        if self.quitting:
            return
        self.quitting = True
        self.main.close()
        for worker in list(self.workers):
            worker.cancel()
        self.main.queue.cancel_all()
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

    def action_copy_selection(self) -> None:
        _flows().copy.copy_selection(self.main)

    def action_copy_answer(self) -> None:
        _flows().copy.copy_answer(self.main)

    def action_copy_code(self) -> None:
        _flows().copy.copy_code(self.main)

    def action_focus_pane(self, pane: str) -> None:
        self.main.query_one(f"#{pane}").focus()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for action in palette_actions():
            yield SystemCommand(action.palette, action.palette_help(), partial(self._run_palette_action, action))

    async def _run_palette_action(self, action: Action) -> None:
        """Run a palette entry's action on its owner, as its key would."""
        owner = {"queue": lambda: self.main.queue, "diff": lambda: self.main.query_one("#diff")}
        await self.run_action(action.action, owner[action.owner]() if action.owner in owner else self)

    def action_prefill_scaffold(self) -> None:
        _flows().prefill_scaffold(self.main)

    def action_prefill_refactor(self) -> None:
        _flows().prefill_refactor(self.main)

    def action_download_model(self) -> None:
        self.download_offer.offer()
