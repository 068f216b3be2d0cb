"""Quoting a line of a file or reply in a message, and fencing a block of text."""

from __future__ import annotations

ELLIPSIS = "…"


def quote(text: str, limit: int = 70) -> str:
    """``text`` in quotes (Python's repr), cut at ``limit`` characters with an ellipsis when longer."""
    if len(text) > limit:
        text = text[:limit] + ELLIPSIS
    return repr(text)


def percent(score: float | None) -> str:
    """A similarity as a whole percentage, rounded down: only an identical text is ``100%``
    (a near match of 0.996 is ``99%``, never ``100%``); an unknown one (None) is ``0%``."""
    score = score or 0.0
    whole = int(score * 100)
    return f"{min(whole, 99) if score < 1 else 100}%"


def choose_fence(*texts: str) -> str:
    """A backtick fence longer than any backtick run that starts a line of ``texts``."""
    longest = 2
    for text in texts:
        for line in text.split("\n"):
            s = line.lstrip()
            if s.startswith("```"):
                longest = max(longest, len(s) - len(s.lstrip("`")))
    return "`" * (longest + 1)
