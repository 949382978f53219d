"""How the app's state follows the engine: one handler per event class, bound to it by ``@handles``.

``DevagentApp.on_engine_event`` looks the event's class up (``handler_for``: never its type string, and
never a name Textual might also use for its own ``_on_*`` handlers); handlers own every state change
(workers never touch widgets).
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from tui.app.widgets.agent_pane import AgentPane
from tui.app.widgets.output_pane import OutputPane
from tui.app.widgets.status_bar import StatusBar
from tui.app.widgets.tool_call_line import literal_warnings, one_line
from tui.protocol import events as ev

Handler = Callable[[Any, Any], None]
HANDLERS: dict[type[ev.Event], Handler] = {}  # event class -> the app's handler for it
F = TypeVar("F", bound=Handler)


def handles(kind: type[ev.Event]) -> Callable[[F], F]:
    """Bind the decorated app method to one event class (one handler per class)."""
    def bind(method: F) -> F:
        if kind in HANDLERS:
            raise TypeError(f"{kind.__name__} already has a handler: {HANDLERS[kind].__qualname__}")
        HANDLERS[kind] = method
        return method
    return bind


def handler_for(kind: type[ev.Event]) -> Handler | None:
    """The handler of ``kind``, else of the nearest event class it derives from (None: the app ignores it)."""
    return next((HANDLERS[k] for k in kind.__mro__ if k in HANDLERS), None)


class EngineEventsMixin:
    """Mixed into DevagentApp; uses its ``main`` screen, banner, pending approvals and refreshers."""

    main: Any
    pending: dict[str, Any]
    server_state: str
    retry_seconds: float
    _server_banner: str

    @handles(ev.SessionStarted)
    def handle_session_started(self, event: ev.SessionStarted) -> None:
        bar = self.main.query_one(StatusBar)
        bar.model = event.model
        if event.sandbox:
            bar.sandbox = event.sandbox

    @handles(ev.TextDelta)
    def handle_text_delta(self, event: ev.TextDelta) -> None:
        self.main.query_one(AgentPane).add_tokens(event.text)

    @handles(ev.TextDone)
    def handle_text_done(self, event: ev.TextDone) -> None:
        agent = self.main.query_one(AgentPane)
        agent.finish_reply(event.text, event.shown)
        hidden = literal_warnings(event.text)
        if hidden:
            agent.add_notice("⚠ the reply contains hidden characters (shown as escapes): " + "; ".join(hidden),
                             "warning")

    @handles(ev.ToolCallStarted)
    def handle_tool_call_started(self, event: ev.ToolCallStarted) -> None:
        self.main.query_one(AgentPane).add_tool_call(event.call_id, event.name, event.arguments)

    @handles(ev.ToolCallFinished)
    def handle_tool_call_finished(self, event: ev.ToolCallFinished) -> None:
        line = self.main.query_one(AgentPane).tool_call(event.call_id)
        if line is not None:
            if line.state not in ("rejected",):
                line.state = "done" if event.ok else "failed"
            line.result = event.summary
        self.refresh_repo()

    @handles(ev.ProposalCreated)
    def handle_proposal_created(self, event: ev.ProposalCreated) -> None:
        proposal = event.proposal
        agent = self.main.query_one(AgentPane)
        line = agent.tool_call(proposal.call_id or f"user-{proposal.id}")
        if line is None:
            line = agent.add_tool_call(proposal.call_id or proposal.id, proposal.tool or proposal.kind,
                                       {"command": proposal.command or proposal.summary})
        line.proposal_id = proposal.id
        line.state = "waiting"

    @handles(ev.DecisionMade)
    def handle_decision_made(self, event: ev.DecisionMade) -> None:
        line = self.main.query_one(AgentPane).tool_call_for_proposal(event.id)
        if line is not None:
            line.state = "approved" if event.decision in ("approve", "edit") else "rejected"
            if event.reason:
                line.result = f"{event.decision} ({event.by}): {event.reason}"
        if event.id in self.pending:
            self._drop_pending(event.id)

    @handles(ev.CommandStarted)
    def handle_command_started(self, event: ev.CommandStarted) -> None:
        output = self.main.query_one(OutputPane)
        output.start(event.id, event.command, event.sandbox)
        self.main.add_class("-has-output")
        self._update_keys()

    @handles(ev.CommandOutput)
    def handle_command_output(self, event: ev.CommandOutput) -> None:
        self.main.query_one(OutputPane).write(event.text)

    @handles(ev.CommandFinished)
    def handle_command_finished(self, event: ev.CommandFinished) -> None:
        self.main.query_one(OutputPane).finish(event.exit_code, event.duration, event.killed, event.dropped_bytes)
        self._update_keys()
        self.refresh_repo()

    @handles(ev.Checkpointed)
    def handle_checkpointed(self, event: ev.Checkpointed) -> None:
        missing = f"; not covered: {', '.join(event.not_covered)}" if event.not_covered else ""
        self.main.query_one(AgentPane).add_notice(f"checkpoint {event.ref} ({event.label}); `devagent undo` restores it"
                                                  f"{missing}")

    @handles(ev.ErrorEvent)
    def handle_error(self, event: ev.ErrorEvent) -> None:
        text = event.message + (f"  {event.hint}" if event.hint else "")
        self.main.query_one(AgentPane).add_notice(text, "error")
        if not event.retryable and not (event.source == "model" and self._server_banner):
            self._set_banner(error=text)

    @handles(ev.Retrying)
    def handle_retrying(self, event: ev.Retrying) -> None:
        self.main.query_one(AgentPane).add_notice(
            f"retrying (attempt {event.attempt}) in {event.delay:.0f}s: {event.reason}", "warning")

    @handles(ev.ServerStatus)
    def handle_server_status(self, event: ev.ServerStatus) -> None:
        self.server_state = event.state
        bar = self.main.query_one(StatusBar)
        bar.server = event.state
        if event.model:
            bar.model = event.model
        if event.state == "connected":
            self._set_banner(server="")
        else:
            where = f" at {event.host}" if event.host else ""
            detail = one_line(event.detail, 300) if event.detail else ""
            self._set_banner(server=(
                f"Model server {event.state}{where}: {detail} Retrying every {self.retry_seconds:g}s (ctrl+r: now). "
                "Start it with `ollama serve` or set OLLAMA_HOST. Diffs and `!cmd` still work."))

    @handles(ev.ContextUsage)
    def handle_context_usage(self, event: ev.ContextUsage) -> None:
        agents = event.parts.get("instructions") if event.parts else 0
        self.main.query_one(StatusBar).context = f"ctx {event.used}/{event.limit}" + (
            f" (AGENTS.md {agents})" if agents else "")

    @handles(ev.Notice)
    def handle_notice(self, event: ev.Notice) -> None:
        self.main.query_one(AgentPane).add_notice(event.message, event.level, event.key)

    @handles(ev.TurnDone)
    def handle_turn_done(self, event: ev.TurnDone) -> None:
        agent = self.main.query_one(AgentPane)
        agent.end_reply()
        if event.reason not in ("complete", "cancelled") and event.reason:  # Esc already said "cancelled"
            agent.add_notice(f"turn {event.reason}", "warning" if event.reason == "cancelled" else "info")
        self._update_keys()
        self.refresh_repo()
