"""A reply the model writes over and over is cut: the same line, or the same piece of one line, six times in a row
(twelve for lines that differ only in their numbers), streamed for minutes on a CPU otherwise."""

from __future__ import annotations

import re


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


