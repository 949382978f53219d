#!/usr/bin/env python3
"""Regenerate docs/screenshot.svg: the real app at 160x48 in a fixed scene (no model, no network).

The scene: a prompt, a streamed reply, one finished read and four proposals waiting (a command,
an edit, a destructive command, a commit), the edit highlighted in the queue with its diff shown,
and a finished command in the output pane. Engine events are fed as messages (the snapshot tests'
factory), so the picture is the same every run.

    python scripts/screenshot.py [--out docs/screenshot.svg] [--png FILE.png]

``--png`` also renders it to PNG with a monospace font (cairosvg; the SVG names Fira Code, which
fontconfig may replace with a proportional font and run the columns together). Look at the PNG.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.app.snapshot_apps.factory import (STREAM_TEXT, ask, build_app, feed, no_blink,  # noqa: E402
                                            sample_proposals, wait_for)
from tests.conftest import make_repo  # noqa: E402
from tui.app.widgets.agent_pane import AgentPane  # noqa: E402
from tui.app.widgets.status_bar import StatusBar  # noqa: E402
from tui.protocol import events as ev  # noqa: E402

SIZE = (160, 48)


async def scene(pilot) -> None:  # type: ignore[no-untyped-def]
    app = pilot.app
    feed(app, ev.SessionStarted("s1", "myproject", "qwen2.5-coder:1.5b", "ollama", "bwrap"),
         ev.ServerStatus("connected", "http://127.0.0.1:11434", "qwen2.5-coder:1.5b"))
    app.query_one(AgentPane).add_prompt("add a test for add() and run the suite")
    reply = "".join(STREAM_TEXT[:3])
    feed(app, *(ev.TextDelta(chunk) for chunk in STREAM_TEXT[:3]), ev.TextDone(reply))
    feed(app, ev.ToolCallStarted("c0", "read_file", {"path": "app.py"}),
         ev.ToolCallFinished("c0", "read_file", True, "app.py: 2 lines"))
    feed(app, ev.CommandStarted("p0", "git log --oneline -3", "bwrap"),
         ev.CommandOutput("p0", "1a2b3c4 initial commit\n"), ev.CommandFinished("p0", 0, 0.0))
    for proposal in sample_proposals():
        if proposal.call_id:  # the commit is the developer's (no model call): its line comes with the proposal
            feed(app, ev.ToolCallStarted(proposal.call_id, "write_file" if proposal.diff else "run_command",
                                         {"command": proposal.command or proposal.summary}))
        feed(app, ev.ProposalCreated(proposal))
        ask(app, proposal)
    await wait_for(pilot, lambda: len(app.main.queue.pending) == 4, what="the proposals")
    await wait_for(pilot, lambda: app.query_one(StatusBar).branch == "main", what="git status")
    app.query_one("#queue").focus()
    await pilot.press("down")  # the edit: its diff is shown
    await wait_for(pilot, lambda: not app.query_one(AgentPane).streaming, what="the reply painted")
    no_blink(app)
    await pilot.pause(0.3)


async def export(out: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="devagent-shot-") as tmp:
        repo = make_repo(Path(tmp) / "myproject")
        app = build_app(repo)
        async with app.run_test(size=SIZE) as pilot:
            await scene(pilot)
            out.write_text(app.export_screenshot(title="devagent"), encoding="utf-8")


def to_png(svg: Path, png: Path) -> None:
    import cairosvg

    text = svg.read_text(encoding="utf-8").replace("font-family: Fira Code, monospace", "font-family: DejaVu Sans Mono")
    cairosvg.svg2png(bytestring=text.encode(), write_to=str(png), output_width=1800)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshot.svg")
    parser.add_argument("--png", type=Path, help="also write a PNG rendered with a monospace font")
    args = parser.parse_args()
    for key in ("DEVAGENT_CONFIG", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):  # no user config or themes in the picture
        os.environ[key] = str(Path(tempfile.gettempdir()) / "devagent-shot-none" / key.lower())
    asyncio.run(export(args.out))
    if args.png:
        to_png(args.out, args.png)
    print(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
