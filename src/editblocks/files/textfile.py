"""Text fidelity: reading file bytes as text, and writing edited text back the way the file was.

A file is edited as text with LF line endings. Writing it back restores, byte for byte, everything
the edit did not change: the encoding and byte order mark, each untouched line's own line ending
(LF, CRLF or a lone CR, even when a file mixes them) and the presence or absence of a final
newline. New lines take the file's dominant line ending.
"""

from __future__ import annotations

import bisect
import codecs
import re
from collections import Counter
from dataclasses import dataclass

from editblocks.errors import BinaryFileError, EditblocksError

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_UNICODE = frozenset({"utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"})
_ENDING = re.compile(r"\r\n|\r|\n")
_PREFERRED_LEGACY = "cp1252"
"""Among encodings the detector finds about equally likely, the most common legacy encoding of source files."""
_NEAR = 0.1
"""How close (in charset-normalizer's chaos and coherence, 0 to 1) counts as about equally likely."""


class UnwritableTextError(EditblocksError, ValueError):
    """The edited text cannot be written in the file's encoding."""


def dominant_newline(text: str) -> str:
    """The most common line ending of ``text`` ("\\n" when there is none)."""
    if "\r" not in text:
        return "\n"
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    cr = text.count("\r") - crlf
    if crlf > lf and crlf >= cr:
        return "\r\n"
    if cr > lf and cr > crlf:
        return "\r"
    return "\n"


def _detect(data: bytes, path: str) -> str:
    """The encoding of non-UTF-8 ``data``, as charset-normalizer ranks it."""
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches:
        raise BinaryFileError(f"{path}: not a text file in any encoding that could be recognised")
    best = matches[0]
    # Short files often leave several single-byte encodings about equally likely; prefer the
    # common one among those. A wrong pick cannot damage the file: untouched bytes are written
    # back as read, and new characters the file does not already hold are refused.
    for m in matches:
        if (
            _PREFERRED_LEGACY in m.could_be_from_charset
            and m.chaos <= best.chaos + _NEAR
            and m.coherence >= best.coherence - _NEAR
        ):
            return _PREFERRED_LEGACY
    if best.encoding is None:
        raise BinaryFileError(f"{path}: not a text file in any encoding that could be recognised")
    return codecs.lookup(best.encoding).name


def decode(data: bytes, path: str = "") -> tuple[str, str, bytes]:
    """(text, encoding, bom) of file bytes, line endings untouched.

    Raises :class:`BinaryFileError` for binary data, and for text that would not be written back
    byte for byte in the encoding found.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(encoding), encoding, bom
            except UnicodeDecodeError:
                raise BinaryFileError(f"{path}: not valid {encoding} text despite its byte order mark") from None
    if b"\x00" in data:
        raise BinaryFileError(f"{path}: binary file (contains NUL bytes); edit it with other tools")
    try:
        return data.decode("utf-8"), "utf-8", b""
    except UnicodeDecodeError:
        pass
    encoding = _detect(data, path)
    try:
        text = data.decode(encoding)
        same = text.encode(encoding) == data
    except (UnicodeError, LookupError):
        raise BinaryFileError(f"{path}: not a text file in any encoding that could be recognised") from None
    if not same:
        raise BinaryFileError(
            f"{path}: its {encoding} text would not be written back unchanged; edit it with other tools"
        )
    return text, encoding, b""


@dataclass
class TextFile:
    """A text file as read: its text with LF line endings, and how to write it back the same way."""

    path: str
    text: str
    """The content with every line ending turned into LF."""
    encoding: str = "utf-8"
    bom: bytes = b""
    newline: str = "\n"
    """The dominant line ending: what new lines get."""
    mode: int | None = None
    endings: list[str] | None = None
    """Each line's own ending as read, when the file mixes line endings; None when uniform."""
    data: bytes | None = None
    """The bytes as read (None for a file that does not exist yet)."""

    @classmethod
    def from_bytes(cls, path: str, data: bytes, mode: int | None = None) -> TextFile:
        """Decode ``data``; raises :class:`BinaryFileError` when it is not text."""
        raw, encoding, bom = decode(data, path)
        newline = dominant_newline(raw)
        endings = None
        text = raw
        if "\r" in raw:
            crlf, cr, lf = raw.count("\r\n"), raw.count("\r"), raw.count("\n")
            if not (crlf == cr == lf or lf == 0):
                endings = _ENDING.findall(raw)
            text = raw.replace("\r\n", "\n").replace("\r", "\n")
        return cls(path, text, encoding, bom, newline, mode, endings, data)

    @property
    def detected(self) -> bool:
        """True when the encoding was recognised statistically rather than known (UTF-8 or a BOM)."""
        return self.encoding not in _UNICODE

    def encode(self, text: str, origin: list[int] | None = None) -> bytes:
        """``text`` (LF endings) as bytes in this file's encoding, BOM and line endings.

        ``origin`` gives, for each line of ``text``, the line of the file as read that it is (-1
        for a new line), as the edits that made ``text`` recorded it; without it, lines are
        aligned by their text (see :func:`align_lines`), which cannot tell equal lines apart.
        Raises :class:`UnwritableTextError` when ``text`` cannot be written in the encoding.
        """
        if self.endings is not None:
            text = self._restore_endings(text, origin)
        elif self.newline != "\n":
            text = text.replace("\n", self.newline)
        if self.detected and not text.isascii():
            added = set(text) - set(self.text)
            added = {c for c in added if not c.isascii()}
            if added:
                shown = "".join(sorted(added)[:10])
                raise UnwritableTextError(
                    f"{self.path}: the edit adds characters ({shown!r}) that do not occur in this {self.encoding} "
                    "file; its encoding was recognised from its content, not declared, so editblocks will not "
                    "guess how to write them"
                )
        try:
            return self.bom + text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            bad = exc.object[exc.start : exc.end]
            raise UnwritableTextError(
                f"{self.path}: the edit adds {bad!r}, which cannot be written in the file's encoding ({self.encoding})"
            ) from None

    def _restore_endings(self, text: str, origin: list[int] | None = None) -> str:
        """``text`` with the ending each untouched line had; lines the edit added get the dominant one."""
        assert self.endings is not None
        new = text.split("\n")
        if origin is not None and len(origin) >= len(new) - 1:
            source = origin
        else:
            source = align_lines(self.text.split("\n"), new)
        endings = self.endings
        count = len(endings)
        newline = self.newline
        parts: list[str] = []
        previous = ""
        previous_new = False
        for i in range(len(new) - 1):
            line = new[i]
            j = source[i]
            ending = endings[j] if 0 <= j < count else newline
            if previous == "\r" and not line and ending[0] == "\n":
                # A lone CR then an empty LF line would read back as one CRLF: the empty line
                # would vanish. A line the edit wrote ends with LF instead (when that cannot join
                # a CR before it); otherwise the empty line ends with a CR.
                if previous_new and parts[-2]:
                    parts[-1] = "\n"
                else:
                    ending = "\r"
            parts.append(line)
            parts.append(ending)
            previous = ending
            previous_new = not 0 <= j < count
        parts.append(new[-1])
        return "".join(parts)


def align_lines(old: list[str], new: list[str]) -> list[int]:
    """For each line of ``new``, the line of ``old`` whose ending it keeps, or -1 for a new line.

    Untouched lines map to themselves: common leading and trailing lines match first; in
    between, lines that occur once on both sides anchor the match (as in patience diff) and the
    gaps between anchors are matched the same way. A gap that replaces as many lines as it had
    maps line to line. Linear in the number of lines for the few, local changes an edit makes.
    """
    source = [-1] * len(new)
    stack = [(0, len(old), 0, len(new))]
    while stack:
        alo, ahi, blo, bhi = stack.pop()
        while alo < ahi and blo < bhi and old[alo] == new[blo]:
            source[blo] = alo
            alo += 1
            blo += 1
        while alo < ahi and blo < bhi and old[ahi - 1] == new[bhi - 1]:
            ahi -= 1
            bhi -= 1
            source[bhi] = ahi
        if alo == ahi or blo == bhi:
            continue
        count_old = Counter(old[alo:ahi])
        count_new = Counter(new[blo:bhi])
        where: dict[str, int] = {}
        for i in range(alo, ahi):
            line = old[i]
            if count_old[line] == 1 and count_new.get(line) == 1:
                where[line] = i
        pairs = [(where[new[j]], j) for j in range(blo, bhi) if new[j] in where]
        anchors = increasing_run(pairs)
        if not anchors:
            if ahi - alo == bhi - blo:
                # As many lines replaced as replacing them: each keeps the ending of the line it replaces.
                source[blo:bhi] = range(alo, ahi)
            continue
        prev_a, prev_b = alo, blo
        for i, j in anchors:
            source[j] = i
            if prev_a < i and prev_b < j:
                stack.append((prev_a, i, prev_b, j))
            prev_a, prev_b = i + 1, j + 1
        if prev_a < ahi and prev_b < bhi:
            stack.append((prev_a, ahi, prev_b, bhi))
    return source


def increasing_run(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of ``pairs`` (ordered by their second item) whose first items increase."""
    if not pairs:
        return []
    tails: list[int] = []
    tail_at: list[int] = []
    back = [-1] * len(pairs)
    for k, (i, _) in enumerate(pairs):
        pos = bisect.bisect_left(tails, i)
        if pos == len(tails):
            tails.append(i)
            tail_at.append(k)
        else:
            tails[pos] = i
            tail_at[pos] = k
        back[k] = tail_at[pos - 1] if pos else -1
    out = []
    k = tail_at[-1]
    while k != -1:
        out.append(pairs[k])
        k = back[k]
    out.reverse()
    return out
