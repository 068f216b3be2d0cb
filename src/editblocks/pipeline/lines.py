"""A file's text during an apply, as chunks of lines with an index of where each line occurs.

A file is indexed once per apply; a block whose text occurs in it is then found, proven unique
and spliced in at a cost that depends on the block, not on the file: the lines are held in
chunks of a few hundred, each distinct line is counted, and a line that occurs once is known by
its chunk. The whole text is built only when something asks for it (a block that needs the
whole matching chain, or the write at the end), and kept until the next splice.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from itertools import accumulate, chain, compress, repeat

CHUNK = 512
"""Lines per chunk when a text is indexed; a chunk grown past twice this is split."""
NAMED_SHARE = 8
"""A file is indexed counting only the lines its blocks name when they are fewer than one in
this many of its lines (otherwise counting every line at once is quicker)."""
TEXT_SEARCHES = 4
"""Searches of a text that scan the string before it is indexed: a block looks for its SEARCH
text, and when it is not there for its REPLACE text, so one or two blocks applied again are not
worth indexing a large file for."""


class FileLines:
    """The whole-line text of a file (every line ends with ``"\\n"``), held as a string, as indexed
    chunks of lines, or both; see the module documentation."""

    def __init__(self, text: str) -> None:
        self._text: str | None = text
        self._chunks: list[list[str]] | None = None
        self._searches = 0
        self._stripped: Counter[str] | None = None
        """Every line stripped of white space at its ends, counted (made when first needed)."""
        self._memo: tuple[list[str], list[int]] | None = None
        """The last search and what it found (while the text is unchanged)."""
        self._anchor = (0, 0)
        """A line of the text as a string and where it starts (before the text is indexed)."""
        self._wanted: set[str] | None = None
        """The lines the blocks to come name, when known (see :meth:`expect`)."""
        self._tracked: set[str] | None = None
        """The lines whose counts are kept (every line when None); another line is counted
        when first asked for (see :meth:`_n`)."""

    # -- the text --------------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """The whole text (built from the lines when a splice changed them, then kept)."""
        if self._text is None:
            chunks = self._chunks
            assert chunks is not None
            self._text = "".join("\n".join(c) + "\n" for c in chunks if c)
        return self._text

    @property
    def indexed(self) -> bool:
        return self._chunks is not None

    @property
    def indexable(self) -> bool:
        """Whether the text is whole lines (every line ends with a newline), as indexing needs."""
        return self._text is None or not self._text or self._text.endswith("\n")

    def _build(self) -> None:
        text = self._text
        assert text is not None
        lines = text[:-1].split("\n") if text else []
        chunks = [lines[i : i + CHUNK] for i in range(0, len(lines), CHUNK)] or [[]]
        self._chunks = chunks
        self._ids = list(range(len(chunks)))
        self._next_id = len(chunks)
        self._nlines = [len(c) for c in chunks]
        self._nchars = [len(text) if len(chunks) == 1 else sum(map(len, c)) + len(c) for c in chunks]
        self._valid = 0
        self._line_start: list[int] = []
        self._char_start: list[int] = []
        self._pos: dict[int, int] = {}
        self._many: dict[str, Counter[int]] = {}
        """For some lines that occur more than once: how many times in each chunk."""
        wanted = self._wanted
        if wanted is not None and len(wanted) * NAMED_SHARE < len(lines):
            # Only the lines the blocks name are counted (and their chunks known) now; a line
            # they do not name is counted when first asked for.
            self._tracked = set(wanted)
            at = list(compress(range(len(lines)), map(wanted.__contains__, lines)))
            named = [lines[i] for i in at]
            self._count: Counter[str] = Counter(named)
            # The chunk of each named line; right for a line that occurs once.
            self._one: dict[str, int] = dict(zip(named, [i // CHUNK for i in at]))
        else:
            self._tracked = None
            # The chunk of every line; right for a line that occurs once (see _chunks_of).
            self._one = dict(zip(lines, chain.from_iterable(repeat(i, len(c)) for i, c in enumerate(chunks))))
            # When no line repeats, the counts are the keys above, each once: a C-speed copy
            # instead of a second pass over the lines.
            self._count = Counter(dict.fromkeys(self._one, 1) if len(self._one) == len(lines) else lines)
        self._stripped = None
        self._nonascii = 0 if text.isascii() else sum(1 for line in lines if not line.isascii())

    def _ensure(self) -> None:
        if self._chunks is None:
            self._build()

    def _prefixes(self) -> None:
        """Line and character starts of every chunk (and the ends), recomputed from the first changed chunk."""
        n = len(self._chunks or ())
        if self._valid >= n and len(self._line_start) == n + 1:
            return
        v = min(self._valid, len(self._line_start) - 1)
        if v < 0:
            self._line_start = list(accumulate(self._nlines, initial=0))
            self._char_start = list(accumulate(self._nchars, initial=0))
        else:
            self._line_start[v + 1 :] = list(accumulate(self._nlines[v:], initial=self._line_start[v]))[1:]
            self._char_start[v + 1 :] = list(accumulate(self._nchars[v:], initial=self._char_start[v]))[1:]
        self._valid = n

    @property
    def line_count(self) -> int:
        if self._chunks is None:
            return (self._text or "").count("\n")
        self._prefixes()
        return self._line_start[-1]

    def __len__(self) -> int:
        if self._chunks is None:
            return len(self._text or "")
        self._prefixes()
        return self._char_start[-1]

    def _locate(self, line: int) -> tuple[int, int]:
        """(chunk position, index inside it) of 0-based ``line`` (the end counts as the last chunk's end)."""
        self._prefixes()
        starts = self._line_start
        p = max(bisect_right(starts, line, 0, len(starts) - 1) - 1, 0)
        return p, line - starts[p]

    def _text_offset(self, line: int) -> int:
        """Where 0-based ``line`` starts in the text as a string, walked to from the anchor."""
        text = self._text or ""
        at, off = self._anchor
        if line - at > 32:
            pieces = self._ahead(off, line - at)
            off = min(len(text), off + sum(map(len, pieces)) + len(pieces))
            at += len(pieces)
        while at < line and off < len(text):
            off = text.find("\n", off) + 1 or len(text)
            at += 1
        while at > line and off > 0:
            off = text.rfind("\n", 0, off - 1) + 1
            at -= 1
        self._anchor = (at, off)
        return off

    def _ahead(self, off: int, count: int) -> list[str]:
        """Up to ``count`` lines of the string from offset ``off`` (a line start), cut in C."""
        text = self._text or ""
        span = max(256, 64 * count)
        while True:
            stop = min(len(text), off + span)
            if stop == len(text) or text.count("\n", off, stop) >= count:
                break
            span *= 2
        pieces = text[off:stop].split("\n")
        if stop == len(text) and not pieces[-1]:
            pieces.pop()
        return pieces[:count]

    def lines(self, start: int, end: int) -> list[str]:
        """Lines ``start:end`` (0-based, clipped to the text)."""
        if self._chunks is None:
            start = max(0, start)
            return self._ahead(self._text_offset(start), end - start) if end > start else []
        self._ensure()
        chunks = self._chunks
        assert chunks is not None
        total = self.line_count
        start, end = max(0, start), min(end, total)
        out: list[str] = []
        if start >= end:
            return out
        p, i = self._locate(start)
        need = end - start
        while need > 0:
            part = chunks[p][i : i + need]
            out.extend(part)
            need -= len(part)
            p, i = p + 1, 0
        return out

    def offset(self, line: int) -> int:
        """Character offset where 0-based ``line`` starts (the text's length past the last line)."""
        if self._chunks is None:
            return self._text_offset(line)
        p, i = self._locate(line)
        chunk = (self._chunks or [[]])[p]
        return self._char_start[p] + sum(map(len, chunk[:i])) + i

    def window(self, start: int, end: int) -> str:
        """The text of lines ``start:end`` (0-based, clipped)."""
        return "".join(x + "\n" for x in self.lines(start, end))

    # -- finding ---------------------------------------------------------------------------------

    def expect(self, blocks: int, lines: Iterable[str] | None = None) -> None:
        """``blocks`` blocks will search the text: when that is more searches than a scan of the
        string serves (:data:`TEXT_SEARCHES`), it is indexed at the first, so the first blocks'
        splices do not rebuild the whole string. ``lines``, the lines those blocks name, when
        known: the index then counts only those at first (any other line is counted when asked
        for, so every count stays exact)."""
        if self._chunks is None and 2 * blocks > TEXT_SEARCHES:
            self._searches = max(self._searches, TEXT_SEARCHES)
            if lines is not None:
                self._wanted = set(lines)

    def _n(self, line: str) -> int:
        """How many lines of the (indexed) text are exactly ``line``: kept for a tracked line,
        otherwise counted over the chunks now, and kept from then on."""
        tracked = self._tracked
        if tracked is not None and line not in tracked:
            n = sum(c.count(line) for c in self._chunks or ())
            if n:
                self._count[line] = n
            tracked.add(line)
            return n
        return self._count[line]

    def count(self, line: str) -> int:
        """How many lines of the text are exactly ``line``."""
        self._ensure()
        return self._n(line)

    def has_stripped(self, stripped: str) -> bool:
        """Whether some line of the text is ``stripped`` (not empty) once stripped of white space
        at its ends: the lines holding it are looked at while the whole text is at hand, otherwise
        every line is counted stripped once."""
        text = self._text
        if text is not None and self._stripped is None:
            pos = text.find(stripped)
            while pos != -1:
                start = text.rfind("\n", 0, pos) + 1
                end = text.find("\n", pos)
                if text[start : len(text) if end == -1 else end].strip() == stripped:
                    return True
                pos = text.find(stripped, pos + 1)
            return False
        self._ensure()
        if self._stripped is None:
            self._stripped = Counter(map(str.strip, chain.from_iterable(self._chunks or ())))
        return self._stripped[stripped] > 0

    def isascii(self) -> bool:
        if self._chunks is None:
            return (self._text or "").isascii()
        return self._nonascii == 0

    def _chunks_of(self, line: str) -> list[int]:
        """Ids of the chunks holding ``line``."""
        n = self._n(line)
        if n == 0:
            return []
        many = self._many.get(line)
        if many is not None:
            return list(many)
        if n == 1 and line in self._one:
            return [self._one[line]]
        found = Counter({cid: k for cid, c in zip(self._ids, self._chunks or ()) if (k := c.count(line))})
        if n == 1:
            self._one[line] = next(iter(found))
        else:
            self._many[line] = found
        return list(found)

    def find(self, needle: list[str]) -> list[int]:
        """0-based first lines of every place the lines ``needle`` occur, in order.

        The first searches of a text not yet indexed scan the string (:data:`TEXT_SEARCHES`): a
        file that gets one or two blocks is not indexed. The text is indexed when searched more."""
        if not needle:
            return []
        memo = self._memo
        if memo is not None and memo[0] == needle:
            return list(memo[1])
        self._searches += 1
        if self._chunks is None and self._searches <= TEXT_SEARCHES:
            found = self._find_in_text(needle)
        else:
            found = self._find_indexed(needle)
        self._memo = (list(needle), found)
        return list(found)

    def _find_indexed(self, needle: list[str]) -> list[int]:
        self._ensure()
        count = self._n
        k = min(range(len(needle)), key=lambda j: count(needle[j]))
        anchor = needle[k]
        cids = self._chunks_of(anchor)
        if not cids:
            return []
        self._prefixes()
        if not self._pos:
            self._pos = {cid: p for p, cid in enumerate(self._ids)}
        chunks = self._chunks
        assert chunks is not None
        n = len(needle)
        starts: list[int] = []
        for cid in sorted(cids, key=self._pos.__getitem__):
            p = self._pos[cid]
            chunk, base = chunks[p], self._line_start[p]
            i = chunk.index(anchor)
            while True:
                start = base + i - k
                if start >= 0 and (n == 1 or self.lines(start, start + n) == needle):
                    starts.append(start)
                try:
                    i = chunk.index(anchor, i + 1)
                except ValueError:
                    break
        return starts

    def _find_in_text(self, needle: list[str]) -> list[int]:
        text = self._text or ""
        wanted = "\n".join(needle) + "\n"
        hits = [0] if text.startswith(wanted) else []
        pos = text.find("\n" + wanted)
        while pos != -1:
            hits.append(pos + 1)
            pos = text.find("\n" + wanted, pos + 1)
        starts: list[int] = []
        line = previous = 0
        for hit in hits:
            line += text.count("\n", previous, hit)
            previous = hit
            starts.append(line)
        if hits:
            self._anchor = (starts[0], hits[0])
        return starts

    # -- changing --------------------------------------------------------------------------------

    def replace_text(self, text: str) -> None:
        """The file's whole text becomes ``text`` (indexed again when searched twice)."""
        self._text, self._chunks, self._searches, self._anchor, self._memo = text, None, 0, (0, 0), None
        self._stripped = None

    def splice(self, start: int, end: int, new: list[str]) -> None:
        """Lines ``start:end`` (0-based) become ``new``."""
        self._memo = None
        if self._chunks is None:
            # Not indexed: the string is rebuilt (the text is indexed when searched more).
            text = self._text or ""
            a = self._text_offset(start)
            b = self._text_offset(end)
            self._text = text[:a] + "".join(x + "\n" for x in new) + text[b:]
            self._anchor = (start, a)
            return
        chunks = self._chunks
        assert chunks is not None
        self._text = None
        pa, ia = self._locate(start)
        pb, ib = self._locate(end - 1) if end > start else (pa, ia - 1)
        ib += 1
        if pb > pa:
            # Spans several chunks: they become one (the first's id), then the splice is inside it.
            merged = list(chain.from_iterable(chunks[pa : pb + 1]))
            first = self._ids[pa]
            for q in range(pa + 1, pb + 1):
                for line in chunks[q]:
                    self._retag(line, self._ids[q], first)
            ib += self._line_start[pb] - self._line_start[pa]
            chunks[pa : pb + 1] = [merged]
            self._ids[pa : pb + 1] = [first]
            self._nlines[pa : pb + 1] = [len(merged)]
            self._nchars[pa : pb + 1] = [sum(map(len, merged)) + len(merged)]
            self._pos = {}
        chunk, cid = chunks[pa], self._ids[pa]
        old = chunk[ia:ib]
        if self._tracked is not None:
            for line in chain(old, new):
                self._n(line)  # counted before the splice changes what a count over the chunks finds
        chunk[ia:ib] = new
        for line in old:
            self._remove(line, cid)
        for line in new:
            self._add(line, cid)
        self._nlines[pa] = len(chunk)
        self._nchars[pa] += sum(map(len, new)) + len(new) - sum(map(len, old)) - len(old)
        self._valid = min(self._valid, pa)
        if len(chunk) > 2 * CHUNK:
            self._split(pa)

    def _split(self, p: int) -> None:
        chunks = self._chunks
        assert chunks is not None
        chunk, cid = chunks[p], self._ids[p]
        pieces = [chunk[i : i + CHUNK] for i in range(0, len(chunk), CHUNK)]
        ids = [cid]
        for piece in pieces[1:]:
            new_id = self._next_id
            self._next_id += 1
            ids.append(new_id)
            for line in piece:
                self._retag(line, cid, new_id)
        chunks[p : p + 1] = pieces
        self._ids[p : p + 1] = ids
        self._nlines[p : p + 1] = [len(x) for x in pieces]
        self._nchars[p : p + 1] = [sum(map(len, x)) + len(x) for x in pieces]
        self._valid = min(self._valid, p)
        self._pos = {}

    def _retag(self, line: str, old: int, new: int) -> None:
        """One occurrence of ``line`` moved from chunk ``old`` to chunk ``new``."""
        many = self._many.get(line)
        if many is not None:
            _take(many, old)
            many[new] += 1
        elif self._count[line] == 1 and line in self._one:
            self._one[line] = new

    def _remove(self, line: str, cid: int) -> None:
        if self._stripped is not None:
            self._stripped[line.strip()] -= 1
        if not line.isascii():
            self._nonascii -= 1
        n = self._count[line] - 1
        self._count[line] = n
        many = self._many.get(line)
        if many is not None:
            _take(many, cid)
            if n <= 1:
                del self._many[line]
                if n == 1:
                    self._one[line] = next(iter(many))
        elif n == 1:
            self._one.pop(line, None)  # which of the two went is not known: found again when needed
        if n == 0:
            del self._count[line]
            self._one.pop(line, None)

    def _add(self, line: str, cid: int) -> None:
        if self._stripped is not None:
            self._stripped[line.strip()] += 1
        if not line.isascii():
            self._nonascii += 1
        n = self._count[line] + 1
        self._count[line] = n
        if n == 1:
            self._one[line] = cid
            return
        many = self._many.get(line)
        if many is not None:
            many[cid] += 1
        elif n == 2 and line in self._one:
            self._many[line] = Counter((self._one.pop(line), cid))
        else:
            self._one.pop(line, None)


def _take(counts: Counter[int], key: int) -> None:
    """One fewer of ``key`` (gone at none)."""
    left = counts[key] - 1
    if left:
        counts[key] = left
    else:
        del counts[key]
