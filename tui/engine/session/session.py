"""A Session wires the engine for one repository: store, sandbox, policy, tools, backend, agent.

Front ends (TUI, headless, editor plug-ins) drive only this class. Opening a session never
needs the model server; ``connect()`` does, and may be retried.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

from tui.git.facade import GitRepo
from tui.protocol.proposals import Approver
from tui.config import Config
from tui.protocol.errors import DevagentError, ModelError, RepoError, ServerUnreachable
from tui.protocol.events import (CommandOutput, Detail, Emit, ErrorEvent, Event, Notice, Progress, ServerStatus,
                                 SessionStarted, ToolCallFinished, ToolCallStarted, TurnDone)
from tui.llm.base import ModelInfo, ToolCall
from tui.engine.session.modelcheck import backend_choice, may_fall_back, with_route
from tui.engine.session.store import Store, default_store_path
from tui.tools.base import ToolContext, ToolResult
from tui.protocol.words import plural


def git_common_dir(repo: Path) -> Path:
    out = GitRepo(repo, timeout=10).run("rev-parse", "--path-format=absolute", "--git-common-dir")
    if out.returncode != 0:
        raise RepoError(f"{repo}: cannot find the git directory ({out.stderr.decode('utf-8', 'replace').strip()})")
    return Path(out.stdout.decode("utf-8", "surrogateescape").strip())


class Session:
    def __init__(self) -> None:  # use Session.open
        self.messages: list[dict[str, Any]] = []
        self.agent: Any = None
        self.info: ModelInfo | None = None
        self._connect_lock = asyncio.Lock()
        self._warm_task: asyncio.Task[None] | None = None
        self._warm_started = False
        self.warmup: dict[str, Any] = {}  # the last warm-up's outcome: ok, seconds, the server's figures

    @classmethod
    async def open(cls, repo: Path, config: Config, *, approver: Approver, emit: Emit, resume: str | None = None,
                   model: str | None = None, host: str | None = None, backend: str | None = None,
                   model_file: str | None = None) -> "Session":
        from tui.llm.factory import make_backend
        from tui.policy.rules import Policy
        from tui.sandbox.runner import Sandbox, detect

        self = cls()
        self.repo, self.config, self.approver, self._emit_out = repo, config, approver, emit
        self.requested_model = model or config.model.name or None
        self.store = Store(default_store_path(await asyncio.to_thread(git_common_dir, repo)))
        await asyncio.to_thread(_remember_hooks, repo)  # a commit asks before running hooks changed after this
        self.sandbox_info = await asyncio.to_thread(detect, config)
        self.sandbox = Sandbox(repo, config, self.sandbox_info)
        self.policy = Policy(config, self.sandbox_info.active, repo)
        backend, self._backend_choice = backend_choice(backend, host, model_file)
        self.backend = make_backend(config, backend=backend, host=host, model_file=model_file)
        self._watch_progress()
        resumed = False
        if resume:
            row = self.store.find_session(resume)
            if row is None:
                raise DevagentError(f"no session {resume!r} to resume in this repository",
                                    "List them with `devagent run --sessions`.")
            self.session_id = row.id
            self.messages = self.store.messages(row.id)
            self.requested_model = self.requested_model or row.model or None
            resumed = True
        else:
            self.session_id = self.store.new_session(repo, model=self.requested_model or "")
        from tui.tools.registry import load_tools

        self.tools = load_tools()
        # Staging and committing are the developer's steps (keys, `devagent commit`), not the model's:
        # small models call them unasked, and --yes would approve them.
        self.agent_tools = {k: v for k, v in self.tools.items() if k not in ("stage", "commit")}
        self.ctx = ToolContext(repo=repo, config=config, emit=self.emit, sandbox=self.sandbox,
                               session_id=self.session_id)
        self.emit(SessionStarted(session_id=self.session_id, repo=str(repo), model=self.requested_model or "",
                                 backend=getattr(self.backend, "name", "ollama"), sandbox=self.sandbox_info.kind,
                                 resumed=resumed))
        if not self.sandbox_info.active:
            self.emit(Notice(self.sandbox_info.detail, "warning", key="sandbox"))  # says why, and what it means
        if resumed:
            self._recover_interrupted()
        return self

    @property
    def model_name(self) -> str:
        return self.info.name if self.info else (self.requested_model or "")

    def emit(self, event: Event) -> None:
        """Record, then deliver. The store write comes first so a crash loses nothing shown."""
        try:
            self.store.add_event(self.session_id, event.to_dict())
        except Exception as exc:  # noqa: BLE001 - recording must never break the turn; say so instead
            self._emit_out(ErrorEvent(f"could not record an event: {exc}", source="engine"))
        self._emit_out(event)

    def _recover_interrupted(self) -> None:
        """Proposals left pending or approved-but-unfinished by a killed process are reported, not re-run."""
        lost = [p for p in self.store.proposals(self.session_id) if p["_status"] in ("pending", "approved")]
        for item in lost:
            self.store.set_proposal(item["id"], "interrupted")
        if lost:
            names = "; ".join(f"{p['kind']}: {p['summary']}" for p in lost)
            self.emit(Notice(f"the previous run stopped before finishing {plural(len(lost), 'proposal')}: {names}. "
                             "They were not re-run; check `git status` and ask again if needed.", "warning"))
            self.messages.append({"role": "user", "_tool": True, "content":
                                  f"(devagent) The previous session was interrupted. These proposals did not finish "
                                  f"and may not have been applied: {names}."})
            self.store.add_message(self.session_id, self.messages[-1])

    async def connect(self) -> ModelInfo:
        async with self._connect_lock:
            host = getattr(self.backend, "host", "")
            try:
                self.info = await self.backend.connect(self.requested_model)
            except ServerUnreachable as err:
                if not await self._fall_back_to_embedded(err):
                    with_route(err, self.config, self._backend_choice)
                    self.emit(ServerStatus("down", host, self.requested_model or "", err.message))
                    raise
            except ModelError as err:
                self.emit(ServerStatus("down", host, self.requested_model or "", err.message))
                raise
            host = getattr(self.backend, "host", "")
            self.emit(ServerStatus("connected", host, self.info.name))
            self.store.touch(self.session_id, model=self.info.name)
            self._build_agent()
            self._start_warmup()
            return self.info

    def _watch_progress(self) -> None:
        """Loading a model file takes a while: a wait while it loads (Progress), a notice when it is ready or not."""
        server = getattr(self.backend, "server", None)
        if server is not None and hasattr(server, "on_progress"):
            server.on_progress = self._loading

    def _loading(self, p: Any) -> None:
        if p.stage in ("starting", "loading"):
            self.emit(Progress("loading", detail=self.backend.server.model_file.name, elapsed=p.elapsed))
        else:
            self.emit(Notice(f"model: {p.message}", key="model-load"))

    async def _fall_back_to_embedded(self, err: ServerUnreachable) -> bool:
        """No Ollama server, but a model file is configured or cached: run it embedded, and say so."""
        if not may_fall_back(self.config, self._backend_choice):
            return False
        from tui.llm.factory import make_backend
        from tui.llm.modelcache import resolve_model_file, shown

        path = resolve_model_file(self.config.model.model_file)
        assert path is not None
        self.emit(Detail(f"{err.message} Using the embedded model {shown(path)} instead.", "connection"))
        await self.backend.close()
        self.backend = make_backend(self.config, backend="embedded", model_file=str(path))
        self._watch_progress()
        self.info = await self.backend.connect(None)
        return True

    def _start_warmup(self) -> None:
        """Warm the server's prompt cache with the conversation so far (the system prompt at first) while
        the developer types: the first answer then starts without re-reading it. In the background; a
        prompt that arrives before it started cancels it, one that arrives while it runs waits for it."""
        warm = getattr(self.backend, "warm", None)
        if warm is None or self.agent is None or (self._warm_task is not None and not self._warm_task.done()):
            return
        self._warm_started = False
        self._warm_task = asyncio.create_task(self._warm_up(warm), name="devagent-warm-up")

    async def _warm_up(self, warm: Any) -> None:
        import time

        from tui.engine import context

        self._warm_started = True
        agent = self.agent
        schemas = [t.schema() for t in agent.tools.values()] if agent.native_tools else None
        reserve = min(1024, agent.limit // 4)
        fits = context.estimate_tokens(self.messages, schemas) <= agent.limit - reserve
        messages = list(self.messages if fits else self.messages[:1])  # a prompt may be appended meanwhile
        started = time.monotonic()
        try:
            figures = await warm(context.wire(messages), schemas, num_ctx=agent.limit)
        except ModelError as err:  # harmless: the first request reads the prompt itself
            self.warmup = {"ok": False, "error": err.message, "seconds": time.monotonic() - started}
            return
        self.warmup = {"ok": True, "messages": len(messages), "seconds": time.monotonic() - started, **figures}

    async def _stop_warmup(self) -> None:
        task, self._warm_task = self._warm_task, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    def _build_agent(self) -> None:
        from tui.engine.loop.agent import Agent
        from tui.engine.context.prompt import system_prompt

        assert self.info is not None
        if not self.messages or self.messages[0].get("role") != "system":
            prompt = system_prompt(self.repo, self.agent_tools)
            self.messages.insert(0, {"role": "system", "content": prompt})
            self.store.add_message(self.session_id, self.messages[0]) if len(self.messages) == 1 else None
        self.agent = Agent(backend=self.backend, info=self.info, tools=self.agent_tools, approver=self.approver,
                           policy=self.policy, ctx=self.ctx, store=self.store, session_id=self.session_id,
                           config=self.config, emit=self.emit, messages=self.messages)

    async def run_turn(self, prompt: str, verify: bool = True) -> TurnDone:
        if self.agent is None:
            await self.connect()
        if self._warm_task is not None and not self._warm_started:
            await self._stop_warmup()  # the prompt came first: the warm-up would only delay it
        self.store.touch(self.session_id, title=prompt)
        return await self.agent.run_turn(prompt, verify)

    async def run_user_command(self, command: str) -> ToolResult:
        """The developer's own `!command`: same policy, approver and sandbox as the agent's commands."""
        return await self.run_tool("run_command", {"command": command}, source="user")

    async def run_tool(self, name: str, arguments: dict[str, Any], *, source: str = "user") -> ToolResult:
        """Run one tool for the developer (no model needed): `/scaffold`, the test key, commit, `!cmd`.

        State-changing tools go through exactly the same Policy, Approver and sandbox as the agent's calls.
        """
        from tui.tools.base import ToolResult

        spec = self.tools.get(name)
        call_id = f"{source}-{uuid.uuid4().hex[:8]}"
        self.emit(ToolCallStarted(call_id=call_id, name=name, arguments=arguments, source=source))
        if spec is None:
            result = ToolResult(False, f"no tool named {name!r}", f"unknown tool {name}")
        else:
            self.ctx.extras.setdefault("backend", self.backend if self.info else None)
            self.ctx.turn_start.clear()  # the developer's own run is checked against the tree as it is now
            result = await self._tool_agent().run_tool(spec, ToolCall(name, arguments, call_id, source), call_id)
        self.emit(ToolCallFinished(call_id, name, result.ok, result.summary, result.output, result.diff))
        return result

    def _tool_agent(self) -> Any:
        """The agent when connected; otherwise one that can decide and run tools but never calls a model."""
        if self.agent is not None:
            return self.agent
        from tui.engine.loop.agent import Agent

        return Agent(backend=self.backend, info=ModelInfo(""), tools=self.tools, approver=self.approver,
                     policy=self.policy, ctx=self.ctx, store=self.store, session_id=self.session_id,
                     config=self.config, emit=self.emit, messages=self.messages)

    async def fix_tests(self, selection: str = "", suite: str = "", limit: int | None = None) -> Any:
        """The fix loop: run the tests; while they fail, ask the agent for a fix (approved as usual), rerun.

        Stops when they pass, at ``tests.fix_attempts``, when the same failures come back unchanged, when a
        turn changes nothing, or when the task is cancelled (Esc). Every approved edit is checkpointed.
        """
        from tui.git.checkpoints import snapshot_tree
        from tui.git.repo import Repo
        from tui.testing import FixLoop, run_tests

        limit = self.config.tests.fix_attempts if limit is None else limit
        repo = Repo(self.repo)
        if not await self._approve_repo_test_command():
            from tui.testing.fixloop import FixLoopResult

            self.emit(Notice("fix loop: the repository's own test command was not approved, so nothing ran",
                             "warning"))
            return FixLoopResult("declined", 0)

        async def run() -> Any:
            test_run = await run_tests(self.repo, self.config, selection, suite, runner=self.sandbox,
                                       on_output=lambda text: self.emit(CommandOutput(id="tests", text=text)))
            self.emit(Notice(f"tests: {test_run.summary()}"))
            return test_run

        async def ask_fix(test_run: Any, attempt: int) -> bool:
            before = await asyncio.to_thread(snapshot_tree, repo)
            prompt = (f"The tests fail (fix attempt {attempt} of {limit}). Read the failing code, then propose the "
                      "smallest edit that makes them pass. Do not run the tests: devagent reruns them after your "
                      f"edit.\n\n{test_run.to_model_text(2400)}")
            done = await self.run_turn(prompt, verify=False)  # the loop reruns the tests itself
            after = await asyncio.to_thread(snapshot_tree, repo)
            return done.reason in ("complete", "limit") and after != before

        return await FixLoop(run, ask_fix, limit, self.emit).run()

    async def _approve_repo_test_command(self) -> bool:
        """A test command from the repo's config runs only once you approve it, shown literally."""
        if "tests.command" not in self.config.repo_set:
            return True
        from tui.protocol.proposals import Proposal, new_proposal_id
        from tui.protocol.events import DecisionMade, ProposalCreated

        command = self.config.tests.command
        proposal = Proposal(id=new_proposal_id(), kind="command", tool="run_tests", command=command,
                            summary=f"the repository's test command (tests.command): {command}")
        self.policy.evaluate(proposal)
        self.emit(ProposalCreated(proposal))
        decision = await self.approver.decide(proposal) if proposal.policy != "deny" else None
        if decision is not None:
            self.emit(DecisionMade(proposal.id, decision.action, decision.reason, decision.by))
        return decision is not None and decision.approved

    async def close(self) -> None:
        try:
            await self._stop_warmup()
            self.sandbox.kill_all()
        finally:
            try:
                await self.backend.close()
            except Exception:  # noqa: BLE001 - closing must not raise on the way out
                pass
            self.store.close()


def _remember_hooks(repo: Path) -> None:
    """Record the hooks the work tree controls as they are when the session starts (tui/git/hookwatch.py)."""
    from tui.git import hookwatch
    from tui.git.repo import Repo

    try:
        hookwatch.remember(Repo(repo))
    except (DevagentError, OSError):
        pass  # no record: the first commit makes one (and runs what is there, as git would)
