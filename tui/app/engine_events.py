"""How the app's state follows the engine: one ``_on_<event type>`` handler per event kind.

``DevagentApp.on_engine_event`` dispatches here; handlers own every state change (workers never
touch widgets). Split out of app.py so the app module stays wiring.
"""

from __future__ import annotations

from typing import Any

from tui.app.widgets.agent_pane import AgentPane
from tui.app.widgets.output_pane import OutputPane
from tui.app.widgets.status_bar import StatusBar
from tui.app.widgets.tool_call_line import literal_warnings, one_line


class EngineEventsMixin:
    """Mixed into DevagentApp; uses its ``main`` screen, banner, pending approvals and refreshers."""

    main: Any
    pending: dict[str, Any]
    server_state: str
    retry_seconds: float
    _server_banner: str

    def _on_session(self, event: Any) -> None:
        bar = self.main.query_one(StatusBar)
        bar.model = event.model
        if event.sandbox:
            bar.sandbox = event.sandbox

    def _on_text(self, event: Any) -> None:
        self.main.query_one(AgentPane).add_tokens(event.text)

    def _on_text_done(self, event: Any) -> None:
        agent = self.main.query_one(AgentPane)
        agent.finish_reply(event.text, event.shown)
        hidden = literal_warnings(event.text)
        if hidden:
            agent.add_notice("⚠ the reply contains hidden characters (shown as escapes): " + "; ".join(hidden),
                             "warning")

    def _on_tool_call(self, event: Any) -> None:
        self.main.query_one(AgentPane).add_tool_call(event.call_id, event.name, event.arguments)

    def _on_tool_result(self, event: Any) -> None:
        line = self.main.query_one(AgentPane).tool_call(event.call_id)
        if line is not None:
            if line.state not in ("rejected",):
                line.state = "done" if event.ok else "failed"
            line.result = event.summary
        self.refresh_repo()

    def _on_proposal(self, event: Any) -> None:
        proposal = event.proposal
        agent = self.main.query_one(AgentPane)
        line = agent.tool_call(proposal.call_id or f"user-{proposal.id}")
        if line is None:
            line = agent.add_tool_call(proposal.call_id or proposal.id, proposal.tool or proposal.kind,
                                       {"command": proposal.command or proposal.summary})
        line.proposal_id = proposal.id
        line.state = "waiting"

    def _on_decision(self, event: Any) -> None:
        line = self.main.query_one(AgentPane).tool_call_for_proposal(event.id)
        if line is not None:
            line.state = "approved" if event.decision in ("approve", "edit") else "rejected"
            if event.reason:
                line.result = f"{event.decision} ({event.by}): {event.reason}"
        if event.id in self.pending:
            self._drop_pending(event.id)

    def _on_command_started(self, event: Any) -> None:
        output = self.main.query_one(OutputPane)
        output.start(event.id, event.command, event.sandbox)
        self.main.add_class("-has-output")
        self._update_keys()

    def _on_command_output(self, event: Any) -> None:
        self.main.query_one(OutputPane).write(event.text)

    def _on_command_finished(self, event: Any) -> None:
        self.main.query_one(OutputPane).finish(event.exit_code, event.duration, event.killed, event.dropped_bytes)
        self._update_keys()
        self.refresh_repo()

    def _on_checkpoint(self, event: Any) -> None:
        missing = f"; not covered: {', '.join(event.not_covered)}" if event.not_covered else ""
        self.main.query_one(AgentPane).add_notice(f"checkpoint {event.ref} ({event.label}); `devagent undo` restores it"
                                                  f"{missing}")

    def _on_error(self, event: Any) -> None:
        text = event.message + (f"  {event.hint}" if event.hint else "")
        self.main.query_one(AgentPane).add_notice(text, "error")
        if not event.retryable and not (event.source == "model" and self._server_banner):
            self._set_banner(error=text)

    def _on_retry(self, event: Any) -> None:
        self.main.query_one(AgentPane).add_notice(
            f"retrying (attempt {event.attempt}) in {event.delay:.0f}s: {event.reason}", "warning")

    def _on_server(self, event: Any) -> None:
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

    def _on_context(self, event: Any) -> None:
        agents = event.parts.get("instructions") if event.parts else 0
        self.main.query_one(StatusBar).context = f"ctx {event.used}/{event.limit}" + (
            f" (AGENTS.md {agents})" if agents else "")

    def _on_notice(self, event: Any) -> None:
        self.main.query_one(AgentPane).add_notice(event.message, event.level, event.key)

    def _on_turn_done(self, event: Any) -> None:
        agent = self.main.query_one(AgentPane)
        agent.end_reply()
        if event.reason not in ("complete", "cancelled") and event.reason:  # Esc already said "cancelled"
            agent.add_notice(f"turn {event.reason}", "warning" if event.reason == "cancelled" else "info")
        self._update_keys()
        self.refresh_repo()
