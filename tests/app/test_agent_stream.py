"""Streaming into the agent pane: nothing lost at speed, the end followed, a scrolled-up reader left alone."""

from __future__ import annotations

import re
from pathlib import Path

from textual.pilot import Pilot

from tests.app.snapshot_apps.factory import build_app, feed, wait_for
from tui.app.widgets.agent_pane import AgentPane, Reply
from tui.protocol import events as ev

SIZE = (100, 30)


def tokens(paragraphs: int) -> list[str]:
    """A model-like reply split into small tokens: prose, a list and code blocks."""
    out: list[str] = []
    for n in range(paragraphs):
        out += [w + " " for w in f"Paragraph {n} explains what the change does and why it is safe .".split()]
        out += ["\n\n", "- item ", f"{n}\n", "- next\n\n", "```python\n", f"x{n} = ", f"{n}\n", "```\n\n"]
    return out


def screen_text(app: object) -> str:
    """Every character currently painted (what the user sees), line by line."""
    strips = app.screen._compositor.render_strips()  # type: ignore[attr-defined]
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def reply_text(reply: Reply) -> str:
    return "\n".join("".join(segment.text for segment in strip) for strip in reply.lines)


async def stream(pilot: Pilot[None], *parts: str) -> AgentPane:
    """Send ``parts`` as engine text events and wait until every one of them is painted."""
    app = pilot.app
    pane = app.query_one(AgentPane)
    total = pane.tokens_received + len(parts)
    feed(app, *(ev.TextDelta(part) for part in parts))  # type: ignore[arg-type]
    await wait_for(pilot, lambda: pane.tokens_received == total and not pane.streaming, what="stream painted")
    return pane


async def test_fast_stream_shows_the_whole_reply(repo: Path) -> None:
    parts = tokens(30) + ["The end marker", " is here."]
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        pane = await stream(pilot, *parts)
        replies = list(app.query(Reply))
        assert len(replies) == 1
        assert replies[0].source == "".join(parts)
        assert pane.flushes < len(parts)  # batched
        rendered = reply_text(replies[0])
        assert "Paragraph 0 explains" in rendered and "x29 = 29" in rendered and "```" not in rendered
        painted = screen_text(app)
        assert "The end marker is here." in painted  # followed to the end and painted
        replies[0].refresh()  # a full repaint from scratch shows exactly what the incremental paints left
        await pilot.pause(0.1)
        assert screen_text(app) == painted


async def test_a_long_code_block_streams_to_the_end(repo: Path) -> None:
    lines = [f"def f{n}(a):\n    return a * {n}\n" for n in range(60)]
    words = [piece for line in lines for piece in re.findall(r"\s*\S+|\s+", line)]
    parts = ["Code:\n\n", "```python\n", *words, "```\n", "Done."]
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await stream(pilot, *parts)
        reply = app.query_one(Reply)
        assert reply.source == "".join(parts)
        rendered = reply_text(reply)
        assert "return a * 59" in rendered and rendered.rstrip().endswith("Done.")
        assert "Done." in screen_text(app)


async def test_a_growing_line_is_repainted(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await stream(pilot, "Growing")
        await stream(pilot, "Line", "Keeps", "Its", "Height")  # same height: lines repainted without a layout
        assert "GrowingLineKeepsItsHeight" in screen_text(app)


async def test_a_line_that_changes_as_the_reply_grows_is_repainted(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await stream(pilot, "First")
        await stream(pilot, "Words continue\n\nand a second paragraph")  # one flush: line 1 changes, lines added
        painted = screen_text(app)
        assert "FirstWords continue" in painted and "and a second paragraph" in painted


async def test_scrolled_up_reader_stays_put(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        pane = await stream(pilot, *tokens(12))
        assert pane.max_scroll_y > 0 and pane.scroll_y == pane.max_scroll_y  # following the end
        pane.scroll_to(y=3, animate=False, immediate=True)  # the user scrolls up to read (releases the anchor)
        await pilot.pause()
        before = pane.scroll_y
        await stream(pilot, *tokens(12))
        assert pane.scroll_y == before < pane.max_scroll_y
        pane.scroll_end(animate=False, immediate=True)  # back at the end: following again
        await pilot.pause()
        await stream(pilot, "Tail paragraph after the reader came back.\n\nAnd more text")
        assert pane.scroll_y == pane.max_scroll_y
        assert "And more text" in screen_text(app)


async def test_a_fast_reply_grows_in_steps_and_settles_to_its_text(repo: Path) -> None:
    """Each growth lays the screen out and repaints the whole conversation: a fast stream grows the reply
    several lines at a time (blank rows waiting for the text), and the finished reply is as tall as its text."""
    from tui.app.widgets.reply_block import GROW

    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        heights = set()
        for n in range(40):
            await stream(pilot, f"line {n} of a fast reply\n")
            reply = app.query_one(Reply)
            text_lines = len(reply.lines)
            assert 0 <= reply.size.height - text_lines < GROW  # room for the text, never more than a step
            heights.add(reply.size.height)
        assert len(heights) <= 40 // 4  # grew in steps, not once per line
        feed(app, ev.TextDone("".join(f"line {n} of a fast reply\n" for n in range(40))), ev.TurnDone("complete"))
        await wait_for(pilot, lambda: reply.size.height == len(reply.lines) == 40, what="settled to its text")
