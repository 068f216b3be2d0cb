"""Helpers shared by the format parsers: fences, path lines, and the look-back for a block's path."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from editblocks.formats.base import LineParser

# ``` or longer, ~~~ or longer, with an optional info string.
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([^`]*?)\s*$")
# Tag fences some tools configure, and the <boltAction> wrapper.
_TAG_FENCE = re.compile(
    r"^\s*<(/?)(source|code|pre|boltAction|boltArtifact)\b([^>]*)>\s*([\w+#.-]*)\s*$", re.IGNORECASE
)
_TAG_PATH_ATTR = re.compile(r"""\b(?:filePath|path|file)\s*=\s*["']([^"']+)["']""")
_HEADING_FILE = re.compile(r"^\s*#{1,6}\s+(?:file|path|filename)\s*:\s*(.+?)\s*$", re.IGNORECASE)
_LABEL = re.compile(r"^(?:file(?:name)?|path)\s*:(?!//)\s*", re.IGNORECASE)
_PARENTHETICAL = re.compile(r"\s+\([^()]*\)$")
_BACKTICKED = re.compile(r"`([^`\s]+)`")
_BAD_PATH_CHARS = re.compile(r"[;=*{}|?\"`$]")
_BARE_FILENAMES = frozenset(
    [
        "Makefile",
        "makefile",
        "GNUmakefile",
        "Dockerfile",
        "Containerfile",
        "LICENSE",
        "LICENCE",
        "COPYING",
        "README",
        "CHANGELOG",
        "AUTHORS",
        "NOTICE",
        "Gemfile",
        "Rakefile",
        "Procfile",
        "Jenkinsfile",
        "Vagrantfile",
        "Brewfile",
        "CODEOWNERS",
        "Pipfile",
        "Justfile",
        "justfile",
        "Caddyfile",
        "Earthfile",
        "Tiltfile",
        "BUILD",
        "WORKSPACE",
    ]
)

_SHELL_LANGS = frozenset({"bash", "sh", "shell", "zsh", "console", "shell-session", "powershell", "ps1", "cmd", "bat"})


@dataclass(frozen=True)
class Fence:
    """A fence line: its marker (``` or a tag name), whether it opens, and its info string."""

    marker: str
    info: str
    closing_tag: bool = False

    @property
    def language(self) -> str:
        """The info string's first word before any ``:`` ("" for ```` ```:x ```` or none)."""
        words = self.info.split(":", 1)[0].split()
        return words[0].lower() if words else ""

    @property
    def is_shell(self) -> bool:
        return self.language in _SHELL_LANGS

    @property
    def path(self) -> str | None:
        """A path carried by the fence itself (```` ```edit:path ````, ```` ```src/a.py ````, ``filePath=``)."""
        info = self.info.strip()
        if not info:
            return None
        if self.marker.startswith("<"):
            m = _TAG_PATH_ATTR.search(info)
            return clean_path(m.group(1)) if m else None
        if info.lower().startswith("edit:"):
            return clean_path(info[5:])
        if " " not in info and ("." in info or "/" in info):
            return clean_path(info)
        return None


@lru_cache(maxsize=512)
def parse_fence(line: str) -> Fence | None:
    """The fence on ``line``, or None when the line is not a fence."""
    m = _FENCE.match(line)
    if m:
        return Fence(m.group(1), m.group(2))
    m = _TAG_FENCE.match(line)
    if m:
        info = (m.group(3).strip() + " " + m.group(4)).strip()
        return Fence("<" + m.group(2).lower() + ">", info, closing_tag=bool(m.group(1)))
    return None


@lru_cache(maxsize=512)
def heading_path(line: str) -> str | None:
    """The path of a ``### File: path`` heading."""
    m = _HEADING_FILE.match(line)
    return clean_path(m.group(1)) if m else None


@lru_cache(maxsize=1024)
def clean_path(line: str) -> str | None:
    """The file path a line names, with markdown and labels stripped; None when it names none.

    Strips ``*``, backticks, quotes, a leading ``#``/``//`` comment or heading prefix, a
    ``File:`` label, a trailing ``:`` and a trailing ``(new file)``-style remark. A language tag
    alone (``php``) or a sentence is not a path.
    """
    s = line.strip()
    if not s or len(s) > 400:
        return None
    quoted = False
    prev = None
    while s != prev:
        prev = s
        s = s.strip()
        # A comment prefix is one when white space follows it: "//home/x" is a network path.
        s = re.sub(r"^(?:#+\s*|//+\s+|--\s+|;+\s*)", "", s)
        s = _LABEL.sub("", s)
        s = s.rstrip(":").rstrip()
        s = _PARENTHETICAL.sub("", s)
        for q in ("**", "*", "`", '"', "'"):
            if len(s) >= 2 * len(q) and s.startswith(q) and s.endswith(q):
                s = s[len(q) : -len(q)]
                quoted = True
        s = s.strip("*").strip()
    if not s or s in {".", "..", "..."}:
        return None
    if any(c.isspace() for c in s) and not quoted:
        if _SPACED_PATH.match(s) and _plausible(s.replace(" ", "_")) and not line.rstrip().endswith(":"):
            return s  # folders or names with spaces: docs/user guide/intro.md
        # Prose. Accept "In `src/app.py`:" — one backticked path on a line that introduces a block.
        if line.rstrip().endswith(":"):
            found = [m for m in _BACKTICKED.findall(line) if _plausible(m)]
            if len(found) == 1:
                return str(found[0])
        return None
    if "\n" in s or "\t" in s:
        return None
    return s if _plausible(s) else None


_SPACED_PATH = re.compile(r"^[^\s/\\]+(?: [^\s/\\]+){0,2}(?:/[^\s/\\]+(?: [^\s/\\]+){0,2})+$")
"""Segments of at most three words each, joined by "/": a path with spaces, not a sentence."""
_FILEISH = re.compile(r"\w\.([A-Za-z][A-Za-z0-9]{0,7})(?![A-Za-z0-9])")
"""A name with a file extension inside a word."""
_ATTEMPTED = re.compile(r"^[^\s]*(?:[/\\][^\s]*|\.[A-Za-z][\w]{0,7})$")
"""One word with a folder separator or a file extension: a path the model meant to give."""


def attempted_path(line: str, previous: str | None = None) -> bool:
    """True for a short line that names a file, whether or not it can be read as a path
    (``src/a|b.py``, ``notes/draft  v2|final.md``), unless it names ``previous``: a block after
    it never takes the previous block's path."""
    s = line.strip().strip("*`").strip()
    s = re.sub(r"^(?:#+\s*|//+\s+)", "", s).rstrip(":").strip("*`'\"")
    if not s or parse_fence(line) is not None or s.startswith(("<", "[", "(")) or (previous and previous in s):
        return False
    words = s.split()
    if len(words) == 1 and _ATTEMPTED.match(s):
        return True
    if len(words) > 5:
        return False
    if len(words) > 1 and ("/" in s or "\\" in s) and re.search(r"\.[A-Za-z]\w{0,7}$", s):
        return True
    # A word with a file extension anywhere in it ("a|b.py", "decoder.py|x"): the line names a file.
    return any(m.group(1).lower() in _FILE_EXTENSIONS for w in words for m in _FILEISH.finditer(w))


def _plausible(s: str) -> bool:
    if _BAD_PATH_CHARS.search(s) or s.endswith(".") or s.startswith(("-", "<")) or s.endswith(">"):
        return False
    if "/" in s or "\\" in s:
        return True
    if "." in s:
        stem, _, ext = s.rpartition(".")
        return bool(ext) and (bool(stem) or s.startswith(".")) and not ext.isdigit()
    return s in _BARE_FILENAMES


_PROSE_STRIP = "`*\"'()[]{}<>,;:!?"
_FILE_EXTENSIONS = frozenset(
    [
        "py",
        "pyi",
        "pyx",
        "js",
        "mjs",
        "cjs",
        "jsx",
        "ts",
        "tsx",
        "mts",
        "cts",
        "go",
        "rs",
        "java",
        "kt",
        "kts",
        "scala",
        "swift",
        "c",
        "h",
        "cc",
        "cpp",
        "cxx",
        "hpp",
        "hh",
        "cs",
        "fs",
        "rb",
        "php",
        "pl",
        "pm",
        "lua",
        "r",
        "dart",
        "ex",
        "exs",
        "erl",
        "hs",
        "ml",
        "clj",
        "sh",
        "bash",
        "zsh",
        "fish",
        "ps1",
        "bat",
        "sql",
        "md",
        "mdx",
        "rst",
        "txt",
        "adoc",
        "json",
        "jsonc",
        "yaml",
        "yml",
        "toml",
        "ini",
        "cfg",
        "conf",
        "env",
        "xml",
        "html",
        "htm",
        "css",
        "scss",
        "sass",
        "less",
        "vue",
        "svelte",
        "astro",
        "proto",
        "graphql",
        "gql",
        "tf",
        "hcl",
        "gradle",
        "cmake",
        "mk",
        "lock",
        "csv",
        "tsv",
        "ipynb",
    ]
)


def _names_other_file(line: str, path: str) -> bool:
    """True when a sentence names a file (``tests/test_app.py``, ``config.json``) and none is ``path``."""
    named = []
    for word in line.split():
        token = word.strip(_PROSE_STRIP).rstrip(".").strip(_PROSE_STRIP)
        if not token or not _plausible(token):
            continue
        name = token.rsplit("/", 1)[-1]
        if name in _BARE_FILENAMES or ("." in name and name.rsplit(".", 1)[1].lower() in _FILE_EXTENSIONS):
            named.append(token)
    if not named:
        return False
    base = path.rsplit("/", 1)[-1]
    return not any(n in (path, base) or path.endswith("/" + n) for n in named)


_FENCE_OR_HEADING = re.compile(r"\s*[`~<#]")
"""How every fence (backticks, tildes, tags) and heading starts: other lines need no look."""


class PathLookback:
    """Finds the path of a block that starts now, reading back over the reply's lines.

    Looks back over blank lines and fences (which may themselves carry the path) at up to
    three non-blank lines since the previous block, and falls back to the latest of the last
    ``### File:`` heading and the previous block's path. Only fence and heading lines need to be
    :meth:`note`-d; the other lines are read from the shared line store.
    """

    def __init__(self, lines: list[str] | None = None) -> None:
        self.lines: list[str] = lines if lines is not None else []
        self._floor = 0
        self._fence_open = False
        self.previous: str | None = None
        self.previous_source = "none"

    def note(self, line: str, lineno: int) -> None:
        """Record a fence or heading line seen outside any block."""
        if _FENCE_OR_HEADING.match(line) is None:
            return
        hp = heading_path(line)
        if hp:
            self.previous, self.previous_source = hp, "heading"
        fence = parse_fence(line)
        if fence is not None:
            if fence.marker.startswith("<"):
                self._fence_open = not fence.closing_tag
            elif self._fence_open and not fence.info:
                self._fence_open = False
            else:
                self._fence_open = True

    def replay(self, first: int, last: int) -> None:
        """Lines ``first`` to ``last`` (of an abandoned, unclosed block) count as outside any block:
        they may hold the next block's path."""
        self._floor = first - 1
        lines = self.lines
        for n in range(first, last + 1):
            self.note(lines[n - 1], n)

    def reset_after_block(self, path: str | None, source: str, lineno: int) -> None:
        """A block ended on line ``lineno``: its lines are not path candidates for the next block."""
        self._floor = lineno
        if path:
            self.previous = path
            if source != "previous":
                self.previous_source = source

    def find(self, lineno: int) -> tuple[str | None, str]:
        """The path for a block starting on line ``lineno``, and where it came from.

        The source is ``"line"`` (a path line outside a fence), ``"fenced"`` (the first line
        inside the fence), ``"fence"`` (the fence's info string), ``"heading"``, ``"previous"``,
        or ``"none"``.
        """
        seen = 0
        skipped_fence = False
        lines = self.lines
        for n in range(lineno - 1, max(self._floor, lineno - 17), -1):
            text = lines[n - 1]
            if not text.strip():
                continue
            seen += 1
            if seen > 3:
                break
            fence = parse_fence(text)
            if fence is not None:
                if fence.path:
                    return fence.path, "fence"
                skipped_fence = True
                continue
            hp = heading_path(text)
            if hp:
                return hp, "heading"
            candidate = clean_path(text)
            if candidate:
                return candidate, "fenced" if (self._fence_open and not skipped_fence) else "line"
            if attempted_path(text, self.previous) or (
                self.previous and self.previous_source != "heading" and _names_other_file(text, self.previous)
            ):
                # A path that cannot be read ("src/a|b.py"), or "Now update tests/test_app.py as
                # well:", names another file: reusing the previous block's path would edit the
                # wrong file, so the block gets no path.
                return None, "none"
            break
        if self.previous:
            return self.previous, "heading" if self.previous_source == "heading" else "previous"
        return None, "none"


class MarkerParser(LineParser):
    """What the parsers of marker-delimited blocks share: a state (0 outside a block), the line
    the open block started on, its path and where the path came from, and the path look-back
    reading the shared line store."""

    paths_class: type[PathLookback] = PathLookback

    def __init__(self) -> None:
        self._state = 0
        self._paths = self.paths_class()
        self.lines = self._paths.lines
        self._start = 0
        self._path: str | None = None
        self._source = "none"

    def bind(self, lines: list[str]) -> None:
        super().bind(lines)
        self._paths.lines = lines

    def in_block(self) -> bool:
        return self._state != 0

    def open_start(self) -> int | None:
        return self._start if self._state != 0 else None

    def _enter(self, state: int, lineno: int) -> None:
        """A block starts on ``lineno``: find its path."""
        self._state = state
        self._start = lineno
        self._path, self._source = self._paths.find(lineno)

    def _leave(self, lineno: int, kept: bool) -> None:
        """The block ends on ``lineno``, kept (its path is the next block's default) or abandoned."""
        self._state = 0
        if kept:
            self._paths.reset_after_block(self._path, self._source, lineno)
        else:
            self._paths.reset_after_block(None, "none", lineno)
