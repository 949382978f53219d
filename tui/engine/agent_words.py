"""What kind of request a prompt is, from its words: the loop and the grounding both ask."""

from __future__ import annotations

import re

QUESTION = re.compile(r"^\s*(?:what|which|where|why|how|when|who|explain|describe|tell me|show me|list|count)\b",
                      re.I)  # "does/is/can ..." only with a question mark (``do things`` is a request)
CHANGE_REQUEST = re.compile(r"\b(?:add|change|fix|rename|remove|delete|update|write|create|implement|refactor|make|"
                            r"modify|replace|clean|move|set|edit|convert|strip|insert|append|drop|raise|lower|"
                            r"increase|decrease|support|export)\b", re.I)


def is_question(prompt: str) -> bool:
    """A request for an answer, not for a change ("What does f return for 0?", "Where is X defined?")."""
    text = prompt.strip()
    return bool(QUESTION.match(text) or text.endswith("?")) and not CHANGE_REQUEST.search(text)


KEEP_TESTS = re.compile(r"(?:\bwithout|\bnot|\bnever|\bno|n't|\bdont)\s+(?:\w+\s+){0,2}?"
                        r"(?:edit|chang|modif|touch|updat|rewrit)\w*\s+(?:\w+\s+){0,3}?tests?\b", re.I)


def keeps_tests(prompt: str) -> bool:
    """The developer ruled out editing tests ("fix it without editing the tests", "don't change the tests")."""
    return bool(KEEP_TESTS.search(prompt))
