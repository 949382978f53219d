"""The ACP Approver: every proposal the policy asks about becomes ``session/request_permission``.

Commands ask once (allow once / allow similar for this session / reject once / reject similar); edits ask
once per hunk, with the file before and after exactly that hunk, and apply only the allowed hunks after
the last answer. A client that cancels or disconnects stops the turn with nothing applied.
"""

from __future__ import annotations

import logging
from typing import Any, Awaitable, Callable

from acp.schema import (ContentToolCallContent, FileEditToolCallContent, PermissionOption, TextContentBlock,
                        ToolCallLocation, ToolCallUpdate)

from tui.acp.hunks import HunkView, hunk_views
from tui.protocol.proposals import Decision, Proposal
from tui.safety.mdtext import code_span, escape_markdown

log = logging.getLogger("devagent.acp")

MAX_REASON = 500
COMMAND_OPTIONS = [
    PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
    PermissionOption(option_id="allow_always", name="Allow similar commands for this session", kind="allow_always"),
    PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
    PermissionOption(option_id="reject_always", name="Reject similar commands for this session",
                     kind="reject_always"),
]
ONCE_OPTIONS = [COMMAND_OPTIONS[0], COMMAND_OPTIONS[2]]  # nothing structural to remember (a Python snippet)
HUNK_OPTIONS = [
    PermissionOption(option_id="allow_once", name="Apply this hunk", kind="allow_once"),
    PermissionOption(option_id="allow_always", name="Apply this and the remaining hunks", kind="allow_always"),
    PermissionOption(option_id="reject_once", name="Skip this hunk", kind="reject_once"),
    PermissionOption(option_id="reject_always", name="Skip this and the remaining hunks", kind="reject_always"),
]
Ask = Callable[[str, ToolCallUpdate, list[PermissionOption]], Awaitable[Any]]


def text_content(text: str) -> ContentToolCallContent:
    return ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=text))


def fenced(text: str, lang: str = "") -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{lang}\n{text.rstrip(chr(10))}\n{fence}"


def hunk_content(view: HunkView) -> ContentToolCallContent | FileEditToolCallContent:
    if view.new_text is None:
        return text_content(fenced(view.description, "diff"))
    return FileEditToolCallContent(type="diff", path=view.path, old_text=view.old_text, new_text=view.new_text)


def reason_of(response: Any) -> str:
    """The client's reason for a rejection, from ``_meta.reason`` of the response or its outcome (an extension)."""
    for meta in (getattr(response, "field_meta", None), getattr(response.outcome, "field_meta", None)):
        if isinstance(meta, dict) and isinstance(meta.get("reason"), str):
            return meta["reason"].strip()[:MAX_REASON]
    return ""


class Stop(Exception):
    """The client cancelled the request or went away: the turn stops, nothing is applied."""


class AcpApprover:
    """Approver protocol over an ACP connection. ``before_ask`` flushes pending updates first."""

    def __init__(self, ask: Ask, before_ask: Callable[[], Awaitable[None]], tool_id: Callable[[str], str]) -> None:
        self.ask, self.before_ask, self.tool_id = ask, before_ask, tool_id
        self.repo: Any = None  # set by the front end once the session is open

    async def _choose(self, update: ToolCallUpdate, options: list[PermissionOption]) -> tuple[str, str]:
        """(option id, reason); Stop when the client cancels or disconnects."""
        await self.before_ask()
        try:
            response = await self.ask(update.tool_call_id, update, options)
        except ConnectionError as exc:
            log.warning("the client went away during a permission request: %s", exc)
            raise Stop("the client disconnected") from None
        except Exception as exc:  # noqa: BLE001 - a client error answer: refusing is the safe reading
            log.warning("permission request failed: %s", exc)
            return "reject_once", f"the client could not answer the permission request ({exc})"
        if response.outcome.outcome != "selected":
            raise Stop("cancelled by the client")
        chosen = response.outcome.option_id
        if chosen not in {o.option_id for o in options}:
            return "reject_once", f"the client chose an unknown option {chosen[:40]!r}"
        return chosen, reason_of(response)

    async def decide(self, proposal: Proposal) -> Decision:
        try:
            if proposal.diff and proposal.kind in ("edit", "scaffold"):
                return await self._decide_hunks(proposal)
            return await self._decide_once(proposal)
        except Stop as stop:
            return Decision("stop", reason=str(stop), by="client")

    async def _decide_once(self, proposal: Proposal) -> Decision:
        options = COMMAND_OPTIONS if proposal.kind == "command" else ONCE_OPTIONS
        shown = proposal.code if proposal.kind == "python" else (proposal.command or proposal.summary)
        lines = [fenced(shown or "", "python" if proposal.kind == "python" else "sh"),
                 escape_markdown(f"risk: {proposal.risk} · rule: {proposal.rule} · sandbox: {proposal.sandbox}")]
        lines += [escape_markdown(f"⚠ {w}") for w in proposal.warnings]
        update = ToolCallUpdate(tool_call_id=self.tool_id(proposal.call_id), title=code_span(proposal.summary),
                                kind="execute", status="pending", content=[text_content("\n\n".join(lines))])
        chosen, reason = await self._choose(update, options)
        if chosen.startswith("allow"):
            return Decision("approve", remember=chosen == "allow_always", by="client")
        return Decision("reject", reason=reason, remember=chosen == "reject_always", by="client")

    async def _decide_hunks(self, proposal: Proposal) -> Decision:
        views = hunk_views(self.repo, proposal.diff or "")
        accepted: list[int] = []
        reasons: list[str] = []
        rest: str | None = None  # "allow" / "reject": the answer for every remaining hunk
        for n, view in enumerate(views):
            if rest is None:
                title = escape_markdown(f"{proposal.summary}: hunk {n + 1} of {len(views)}")  # clients render Markdown
                update = ToolCallUpdate(tool_call_id=self.tool_id(proposal.call_id), title=title, kind="edit",
                                        status="pending", content=[hunk_content(view)],
                                        locations=[ToolCallLocation(path=view.path)])
                chosen, reason = await self._choose(update, HUNK_OPTIONS)
                if chosen.endswith("always"):
                    rest = chosen.split("_")[0]
                allowed = chosen.startswith("allow")
                if reason and not allowed:
                    reasons.append(reason)
            else:
                allowed = rest == "allow"
            if allowed:
                accepted.append(view.index)
        reason = "; ".join(dict.fromkeys(reasons))
        if not accepted:
            return Decision("reject", reason=reason, by="client")
        return Decision("approve", hunks=tuple(accepted), reason=reason, by="client")
