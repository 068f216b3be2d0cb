"""A word-level three-way merge of one line: the file's line plus exactly the model's change.

When the model's copy of a line (SEARCH) differs from the file's line and REPLACE changes that
very line, writing REPLACE's line would also undo whatever the file has that the model's copy
lacks (a word it misremembered). The merge carries only the model's change, SEARCH → REPLACE,
onto the file's line, and only when that is clean: the words the change touches (and the
places where it inserts) are the same in the file's line, and the change and the difference
between SEARCH and the file do not touch the same words. Otherwise there is no merge.
"""

from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")


def _tokens(line: str) -> list[str]:
    return _TOKEN.findall(line)


def _words(tokens: list[str]) -> list[str]:
    return [t for t in tokens if not t.isspace()]


REWRITE = 0.5
"""Below this likeness of its words to SEARCH's, a changed line is rewritten rather than edited."""


def _word_at(tokens: list[str], k: int, step: int) -> int:
    """The index of the first token that is not white space from ``k`` on, going by ``step``
    (past either end when there is none)."""
    while 0 <= k < len(tokens) and tokens[k].isspace():
        k += step
    return k


def merge_line(file_line: str, search_line: str, replace_line: str) -> str | None:
    """``file_line`` with the change ``search_line`` → ``replace_line`` carried onto it, or None
    when the change cannot be carried cleanly and uniquely."""
    s, r, f = _tokens(search_line), _tokens(replace_line), _tokens(file_line)
    # Where each SEARCH token is in the file's line (None: the file differs there).
    to_file: list[int | None] = [None] * len(s)
    # Gaps: SEARCH position i (between token i-1 and i) -> the file position it maps to, when the
    # file has nothing extra there.
    for tag, i1, i2, j1, _ in SequenceMatcher(None, s, f, autojunk=False).get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                to_file[i1 + k] = j1 + k
    placed = [m for m in to_file if m is not None]
    cut_short = bool(placed) and bool(_words(f[: min(placed)]) or _words(f[max(placed) + 1 :]))
    if cut_short and SequenceMatcher(None, _words(s), _words(r), autojunk=False).ratio() < REWRITE:
        # The model's copy is cut short and its change rewrites the line: where the words it did
        # not see belong in the new line is anyone's guess.
        return None
    # Words the file's line has more of than the model's copy: a change that brings one of them
    # may be the model restating a word its copy dropped (``self.write`` for ``self.stdout.write``
    # changed to ``self.stdout.checked``), and carried onto the file it would stand twice.
    dropped = Counter(t for t in f if t[:1].isalnum() or t[:1] == "_") - Counter(
        t for t in s if t[:1].isalnum() or t[:1] == "_"
    )
    out: list[str] = []
    cursor = 0  # next file token not yet copied
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, s, r, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if dropped and any(t in dropped for t in r[j1:j2]):
            return None
        # The change touches SEARCH tokens i1:i2 (none for an insertion at i1). Each must be in the
        # file unchanged, and its file counterparts must be contiguous.
        if i2 > i1:
            mapped = to_file[i1:i2]
            if any(m is None for m in mapped):
                return None
            first, last = mapped[0], mapped[-1]
            assert first is not None and last is not None
            if last - first != i2 - i1 - 1:
                return None
            begin, end = first, last + 1
        else:
            # An insertion: it goes between SEARCH tokens i1-1 and i1; both neighbours must be in
            # the file side by side (or the line's start/end), so the place is certain.
            before = to_file[i1 - 1] if i1 > 0 else -1
            after = to_file[i1] if i1 < len(s) else len(f)
            if before is None or after is None or after != before + 1:
                return None
            begin = end = after
        if begin < cursor:
            return None
        # Neighbours of a replaced run must also be where SEARCH has them, so a change does not
        # land beside a word the file has and the model did not see.
        if i2 > i1:
            if i1 > 0 and (to_file[i1 - 1] is None or to_file[i1 - 1] != begin - 1):
                return None
            if i2 < len(s) and (to_file[i2] is None or to_file[i2] != end):
                return None
        # Beside words the file has and SEARCH lacks, the change must not bring those words too
        # (the model restating a word its copy dropped: ``either either``, ``not None None``).
        after_s, before_s = _word_at(s, i2, 1), _word_at(s, i1 - 1, -1)
        stop = to_file[after_s] if after_s < len(s) else len(f)
        start = to_file[before_s] if before_s >= 0 else -1
        unseen = _words(f[(start + 1 if start is not None else 0) : begin]) + _words(
            f[end : stop if stop is not None else len(f)]
        )
        if set(_words(r[j1:j2])).intersection(unseen):
            return None
        if i2 > i1:
            # At the edge of SEARCH the file may go on with words the model did not see (its copy
            # cut short): a change of SEARCH's last (or first) words is a change of what those
            # words follow (``== `` before an unseen ``1:``), or the model restating them.
            if not _words(s[i2:]) and _words(f[end:]):
                return None
            if not _words(s[:i1]) and _words(f[:begin]):
                return None
        out.extend(f[cursor:begin])
        out.extend(r[j1:j2])
        cursor = end
    out.extend(f[cursor:])
    return "".join(out)
