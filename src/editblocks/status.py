"""The outcome of one block: :class:`EditStatus` (re-exported by :mod:`editblocks.models`, and
in a module of its own so that what reports outcomes needs nothing else of the model)."""

from __future__ import annotations

from enum import Enum


class EditStatus(str, Enum):
    """Outcome of one block."""

    APPLIED = "applied"
    FAILED = "failed"
    SKIPPED = "skipped"
    """Not tried: an earlier block of its file failed (see ``continue_after_failure``)."""
    ALREADY_APPLIED = "already_applied"
    """Nothing to do: the replacement is in the file already and the searched text is not (a
    reply applied twice); proven by the verifier, never by a similarity."""

    def __str__(self) -> str:
        return self.value

    @property
    def done(self) -> bool:
        """The file holds the block's edit: applied now, or already applied."""
        return self is EditStatus.APPLIED or self is EditStatus.ALREADY_APPLIED


class Strategy(str, Enum):
    """How a block was placed (``EditResult.strategy`` holds its value): :attr:`label` says it in
    words and :attr:`confidence` how much a person should look at it ("high", "medium", "low")."""

    EXACT = "exact"
    CREATE = "create"
    WHITESPACE = "whitespace"
    INDENTATION = "indentation"
    BLANK_LINES = "blank-lines"
    UNICODE = "unicode"
    ELISION = "elision"
    FUZZY = "fuzzy"
    AST = "ast"
    APPEND = "append"
    WHOLE = "whole"
    DELETE = "delete"
    MOVE = "move"
    SCOPE = "scope"
    END = "end"
    SKETCH = "sketch"
    DEFINITION = "definition"
    JOURNAL = "journal"
    """Made by the same reply's last apply, whose files are unchanged since (already applied)."""

    def __str__(self) -> str:
        return self.value

    @property
    def label(self) -> str:
        return _LABELS.get(self.value, (self.value.replace("-", " ").capitalize(), ""))[0]

    @property
    def confidence(self) -> str:
        return _LABELS.get(self.value, ("", "medium"))[1]


_LABELS = {
    "exact": ("Exact match", "high"),
    "create": ("New file", "high"),
    "whitespace": ("Whitespace adjusted", "medium"),
    "indentation": ("Indentation adjusted", "medium"),
    "blank-lines": ("Blank lines adjusted", "medium"),
    "unicode": ("Look-alike characters adjusted", "medium"),
    "elision": ("'...' expanded", "medium"),
    "fuzzy": ("Fuzzy match", "low"),
    "ast": ("Matched by definition name", "low"),
    "journal": ("Made by this reply's last apply", "high"),
}
"""Words and confidence of the strategies a person is shown most; the others read as their name."""
