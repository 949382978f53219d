"""A rule: one small object at one named point of a turn, owning its state, the text it tells the model and the
class of failure it answers. The loop asks the rules of each point in order; the first that does not pass
decides what happens next.

Points: ``before_turn`` (once, before the first model step), ``after_reply`` (the model's call or answer, before
anything runs), ``before_call`` (one call, before the gate), ``after_result`` (one call's result), ``at_end`` (the
answer that would end the turn).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

POINTS = ("before_turn", "after_reply", "before_call", "after_result", "at_end")
Do = Literal["pass", "say", "refuse", "answer", "note"]


@dataclass
class Verdict:
    """``say``: tell the model ``text`` and ask again; ``refuse``: do not run this call, tell the model ``text``;
    ``answer``: end the turn, asking the model for its answer (no more calls); ``note``: add ``text`` to what the
    developer sees with the answer. ``detail`` goes to the turn's collapsed details line."""

    do: Do
    text: str = ""
    detail: str = ""


PASS = Verdict("pass")


@dataclass
class TurnState:
    """What one turn has done, for the rules to read (the loop fills it in)."""

    prompt: str
    kind: str = ""  # the request's kind when the pipelines' classifier decided one ("question", "fix", ...)
    question: bool = False  # the request has the form of a question (facts.question)
    names_code: bool = False  # it names a file, directory or definition of the repository (facts)
    started: float = 0.0  # monotonic
    calls: list[tuple[str, str]] = field(default_factory=list)  # (name, arguments as JSON) of each call run
    since_change: set[str] = field(default_factory=set)  # call keys run since the tree last changed
    looked: bool = False  # a read-only tool or a run showed the model something this turn
    changes: list[str] = field(default_factory=list)  # the diff of each change applied this turn
    failed_change: str = ""  # the last change call's error, while no later change applied
    steps: int = 0


class Rule:
    name: ClassVar[str]
    point: ClassVar[str]
    failure: ClassVar[str]  # the class of failure it answers, in words (docs/model-layer.md lists it)

    def reset(self) -> None:
        """A new turn: forget what the last one told."""

    def check(self, turn: TurnState, **seen: Any) -> Verdict:
        return PASS
