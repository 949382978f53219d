"""An edit_symbol call that replaces a definition the request does not name, in a file that defines one the
request does name, is sent back once with the named one's code.

Seen on pluggy (a probe outside the benchmark): asked "get_name returns the wrong thing ... Fix it.", the
1.5B model replaced PluginValidationError, the first class of _manager.py (dropping its ``Exception`` base),
and the turn ended "get_name now returns None". A new definition (an added method) is never sent back, nor a
second try: the model may know better, once told.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from tui.engine.turnmsg import short
from tui.llm.base import ToolCall
from tui.protocol.events import Detail


def named_in(prompt: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_$][\w$]{2,}", prompt))


async def wrong_target(agent, call: ToolCall, turn: Any) -> bool:
    """True when the call was sent back (the named definition's code shown to the model)."""
    from tui.engine.agent_words import is_question
    from tui.engine.verify import _read
    from tui.symbols import find, outline_of, walk

    path, symbol = str(call.arguments.get("path", "")), str(call.arguments.get("symbol", ""))
    if turn.target_told or call.name != "edit_symbol" or not path or not symbol or is_question(agent.prompt):
        return False
    words = named_in(agent.prompt)
    if any(part in words for part in re.split(r"[.:]+", symbol)) or symbol.rsplit(".", 1)[-1] in turn.written:
        return False  # the request names it (or its class), or this turn wrote it
    text = _read(agent.ctx.repo, path)
    symbols = outline_of(path, text).symbols
    if not find(symbols, symbol):
        return False  # a new definition
    named = [s for s in walk(symbols) if s.name in words and s.kind in ("function", "method", "class")]
    if not named:
        return False
    meant = named[0]
    turn.target_told = True
    agent.emit(Detail(f"the model would replace {symbol}, which the request does not name; showing it "
                      f"{meant.qualname}, which it does"))
    await agent._handle(ToolCall("outline", {"path": path, "symbol": meant.qualname}, uuid.uuid4().hex[:8], "auto"))
    agent._append({"role": "user", "_tool": True, "content": (
        f"The developer asked: {short(agent.prompt)} That names {meant.qualname} ({path} line {meant.line}; its "
        f"code is above), not {symbol}. Change {meant.qualname}: one edit_symbol call with symbol "
        f"{meant.qualname!r} and its whole corrected code (or edit_file for a few lines).")})
    return True
