"""The small-model countermeasures' detectors: what in a reply shows the model looping, echoing devagent's
own words, claiming a change, answering unseen or guessing a path (the loop in agent.py decides what to do
about each)."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import Any

from tui.protocol.events import Detail, Notice

ECHO = re.compile(r"The developer asked:|reply in plain text without JSON|Otherwise reply with one JSON tool call|"
                  r"No more tool calls\.|If that is done or you can answer now", re.I)  # devagent's own words
COUNTS = re.compile(r"\bhow many\b|\bnumber of\b", re.I)  # "how does X count" asks how, not how many
_DONE_WORDS = r"(?:added|changed|updated|renamed|modified|fixed|cleaned|removed|created|replaced|edited|written)"
CLAIMS_CHANGE = re.compile(rf"\b(?:has|have) been {_DONE_WORDS}\b|\bI(?: have|'ve)? {_DONE_WORDS}\b", re.I)
# Wider, for answers that end a turn without a chance to push back: any report of a change.
REPORTS_CHANGE = re.compile(rf"\b(?:{_DONE_WORDS[3:-1]}|stripped|deleted|dropped|appended|inserted|wrote)\b",
                            re.I)


class RepeatWatch:
    """A small model can fall into writing one line again and again until the token limit (minutes on a CPU):
    seen ``REPEATS`` times in a row, the reply is cut. Lines are split at real and JSON-escaped newlines; a
    loop inside one line (``else f'{n}th' if ... else f'{n}th' if ...``) is the same piece of 8-200
    characters (four or more different ones) written ``REPEATS`` times back to back."""

    REPEATS = 6
    PERIODS = range(8, 201)
    SHAPE_REPEATS = 12  # lines alike but for their numbers ("if value < 1000.0:" / "return '{:.1%}'...", then
    # 10000.0 / .2%, ...), one to three lines a cycle: a counting loop. A table of numbers is written that way
    # too, so it takes twice the repeats of an exact loop.
    SHAPE_PERIODS = (1, 2, 3)

    def __init__(self) -> None:
        self.tail = ""
        self.last = ""
        self.count = 0
        self.recent = ""
        self.unchecked = 0
        self.shapes: list[str] = []

    def _same_piece(self) -> bool:
        text = self.recent
        for period in self.PERIODS:
            span = period * self.REPEATS
            if span > len(text):
                return False
            unit = text[-period:]
            if len(set(unit)) >= 4 and text[-span:] == unit * self.REPEATS:
                return True
        return False

    def looping(self, text: str) -> bool:
        self.recent = (self.recent + text)[-max(self.PERIODS) * self.REPEATS:]
        self.unchecked += len(text)
        if self.unchecked >= 32:
            self.unchecked = 0
            if self._same_piece():
                return True
        self.tail += text
        pieces = re.split(r"\n|\\n", self.tail)
        self.tail = pieces.pop()  # the line still being written
        for piece in pieces:
            line = piece.strip()
            if len(line) < 4:
                continue  # blank lines, braces: repeating those is normal
            self.count = self.count + 1 if line == self.last else 1
            self.last = line
            self.shapes = [*self.shapes, re.sub(r"\d+", "0", line)][-max(self.SHAPE_PERIODS) * self.SHAPE_REPEATS:]
        return self.count >= self.REPEATS or self._counting()

    def _counting(self) -> bool:
        for period in self.SHAPE_PERIODS:
            span = period * self.SHAPE_REPEATS
            if len(self.shapes) >= span and self.shapes[-span:] == self.shapes[-period:] * self.SHAPE_REPEATS:
                return True
        return False


def echoes(text: str, messages: list[dict[str, Any]]) -> bool:
    """The reply repeats devagent's own words (a grounding hint, a reminder) instead of answering: a small
    model handed "run it: one run_python call with code like ..." may send that sentence back as its answer."""
    if ECHO.search(text):
        return True
    answer = " ".join(text.lower().split())
    if len(answer) < 40:
        return False
    for message in messages:
        if not (message.get("_grounding") or message.get("_said")):
            continue
        ours = " ".join(str(message.get("content") or "").lower().split())
        match = SequenceMatcher(None, answer, ours, autojunk=False).find_longest_match(0, len(answer), 0, len(ours))
        if match.size >= 40 and match.size * 2 >= len(answer):
            return True
    return False


NEW_FILE_TOOLS = ("write_file", "scaffold", "run_command", "run_python", "run_tests")  # a new path is meant there


async def guessed_path(repo: Any, call: Any, spec: Any) -> str:
    """A path that does not exist, where exactly one file has its name, becomes that file in ``call`` (the
    model's guess is returned, '' when nothing changed). Not for tools that create files."""
    from tui.tools.support.common import same_name_file

    path = call.arguments.get("path")
    if spec is None or call.name in NEW_FILE_TOOLS or not isinstance(path, str) or \
            "path" not in spec.parameters.get("properties", {}):
        return ""
    found = await same_name_file(repo, path.strip())
    if found:
        call.arguments["path"] = found
    return path if found else ""


def looked(turn: Any, messages: list[dict[str, Any]]) -> bool:
    """Something of the repository is in the conversation: a tool result of this turn or an earlier one."""
    return bool(turn.results) or any(
        m.get("role") == "tool" or (m.get("_tool") and str(m.get("content", "")).startswith("Result of "))
        for m in messages)


def about_the_code(repo: Any, prompt: str) -> bool:
    """The question names something of the repository: a definition, a file or directory name ("maxsize",
    "cachetools"), not small talk ("still there?")."""
    from tui.engine.repomap import RepoMap, _identifiers

    words = {w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", prompt)}
    try:
        index = RepoMap.for_repo(repo)
        index.refresh()
    except Exception:  # noqa: BLE001 - an aid only
        return False
    for path, entry in index.entries.items():
        parts = {p.lower() for p in re.split(r"[/.]", path) if len(p) > 2}
        if words & parts or words & {n.lower() for n in _identifiers(entry.symbols)}:
            return True
    return False


def look_first(prompt: str) -> str:
    """What a question answered before anything was looked at is told (the next reply is a call, by grammar)."""
    from tui.engine.turnmsg import short

    return (f"You answered without looking at this repository's code, so the answer may be wrong. The developer "
            f"asked: {short(prompt)} First look: one JSON tool call (search for a name from the question, outline "
            "or read_file the file that defines it, or run_python to try it).")


REHEATS = (0.7, 1.0)  # temperatures for a reply sent again, one a time


def reheat(turn: Any, text: str, native: list[Any], limit: int = len(REHEATS)) -> bool:
    """The reply is the one the model sent just before in this turn, and it has not been asked again for that as
    often as ``REHEATS`` allows: at temperature 0 the same context gives the same reply (held-out: the same refused
    call twelve times, the same failing run_python three times), so the next request is sampled warmer instead."""
    reply = (text.strip(), [(c.name, repr(sorted(c.arguments.items()))) for c in native])
    same = bool(reply[0] or reply[1]) and reply == turn.last_reply
    turn.last_reply = reply
    if same and turn.reheats < min(limit, len(REHEATS)):
        turn.reheats += 1
        return True
    return False


# devagent's own result sentences: never code, whatever the model pastes them into
_RESULT_LINE = re.compile(r"^(?:\S.*\bis now lines \d+-\d+ of \S|Applied \d+ of \d+ hunks to |The changed lines are now:|"
                          r"A static check found problems|Result of [a-z_]+\(|\[\S+ does not exist; this is )")
CODE_ARGS = ("new", "code", "content", "old")  # ``old`` is cut without a newline added: it must still match


def cut_result_echo(call: Any) -> str:
    """A code argument that goes on with devagent's own result text (held-out xmltodict: ``new`` held the test,
    then "XMLToDictTestCase.test_comments_2 is now lines 461-461 of ... Applied 1 of 1 hunks ...", refused as a
    syntax error three times; tuning ctenv: ``old`` held the test and then the "Applied ..." lines, so it matched
    nothing): cut at the first such line. The arguments cut, comma-separated ('' when none was)."""
    cut = []
    for key in CODE_ARGS:
        value = call.arguments.get(key)
        if not isinstance(value, str) or "\n" not in value:
            continue
        lines = value.split("\n")
        at = next((i for i, line in enumerate(lines) if _RESULT_LINE.match(line.strip())), None)
        if at is not None and "\n".join(lines[:at]).strip():
            kept = "\n".join(lines[:at]).rstrip()
            call.arguments[key] = kept if key == "old" else kept + "\n"
            cut.append(key)
    return ", ".join(cut)


def honest(answer: str, turn: Any) -> str:
    """In plain words for the developer, when an answer reports a change that did not happen ('' when not)."""
    if not REPORTS_CHANGE.search(answer) or (turn.changed and not turn.failed_change):
        return ""
    return f"This request changed {', '.join(sorted(turn.touched))}; its last change did not happen." \
        if turn.changed and turn.touched else "No file was changed."


def outcome(agent, turn: Any, answer: str, told: bool = True) -> None:
    """Under an answer that ends the turn (``told``: after the model was told once), what really changed."""
    said = honest(answer, turn) if told else ""
    if said:
        agent.emit(Notice(said, "warning"))
        if turn.failed_change:
            agent.emit(Detail(turn.failed_change))
