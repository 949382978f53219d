"""What kind of request a prompt is, from its words: the loop and the grounding both ask."""

from __future__ import annotations

import re

QUESTION = re.compile(r"^\s*(?:what|which|where|why|how|when|who|explain|describe|tell me|show me|list|count)\b",
                      re.I)  # "does/is/can ..." only with a question mark (``do things`` is a request)
CHANGE_VERBS = (r"(?:add|change|fix|rename|remove|delete|update|write|create|implement|refactor|make|modify|replace|"
                r"clean|move|set|edit|convert|strip|insert|append|drop|raise|lower|increase|decrease|support|export)")
# A change verb asks for a change where it starts a clause or follows "please"/"can you": "what value is X set
# to?" and "which tests fail after the update?" stay questions; "where is the bug? fix it" and "can you add a
# bang?" do not.
IMPERATIVE = re.compile(r"(?:^|[.!?;:\n]\s*|\b(?:and|then)\s+(?:then\s+)?|\bplease\s+|"
                        r"\b(?:can|could|would|will)\s+you\s+(?:please\s+)?|\b(?:i\s+)?(?:want|need)\s+you\s+to\s+|"
                        r"\blet'?s\s+)" + CHANGE_VERBS + r"\b", re.I)


def is_question(prompt: str) -> bool:
    """A request for an answer, not for a change ("What does f return for 0?", "Where is X defined?")."""
    text = prompt.strip()
    return bool(QUESTION.match(text) or text.endswith("?")) and not IMPERATIVE.search(text)


KEEP_TESTS = re.compile(r"(?:\bwithout|\bnot|\bnever|\bno|n't|\bdont)\s+(?:\w+\s+){0,2}?"
                        r"(?:edit|chang|modif|touch|updat|rewrit)\w*\s+(?:\w+\s+){0,3}?tests?\b", re.I)


WANTS_TEST = re.compile(r"\b(?:add|write|creat|extend|new|append|cover)\w*\s+(?:[\w`'\".-]+\s+){0,4}?tests?\b"
                        r"|\btests?\s+(?:for|that|which|covering)\b"
                        r"|\b(?:with|and|plus)\s+(?:an?\s+|one\s+)?(?:(?:new|unit|regression)\s+)?tests?\b"
                        r"(?!\s+(?:pass|fail|suite|run))", re.I)


def wants_test_change(prompt: str) -> bool:
    """The request asks for a test to be written or extended: only then is a named test file a change target
    (a failing test's file named in the request is where the failure shows, not what to change)."""
    return bool(WANTS_TEST.search(prompt)) and not keeps_tests(prompt)


def keeps_tests(prompt: str) -> bool:
    """The developer ruled out editing tests ("fix it without editing the tests", "don't change the tests")."""
    return bool(KEEP_TESTS.search(prompt))


REPORT = re.compile(r"\b(?:how\s+many|tell\s+me|give\s+me|show\s+me|let\s+me\s+know|report|which|counts?|numbers?|"
                    r"summar\w*|list|state|status|results?|(?:are|is)\s+(?:\w+\s+){0,3}(?:passing|failing|green))\b",
                    re.I)  # fresh held-out: "I need the number of passing ...", "What's the state of the test suite"


def reports_on_tests(prompt: str) -> bool:
    """"Run the tests and tell me how many pass": a request for the run's outcome, not for a change."""
    just_run = re.fullmatch(r"\s*(?:please\s+)?run\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?(?:unit\s+)?(?:tests?|test\s+suite|"
                            r"suite)(?:\s+(?:in|for|of)\s+\S+)?\s*[.!]?\s*", prompt, re.I)
    return bool(just_run or re.search(r"\b(?:tests?|suite)\b", prompt, re.I) and REPORT.search(prompt)) and \
        not IMPERATIVE.search(prompt)
