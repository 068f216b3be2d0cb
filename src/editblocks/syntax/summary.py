"""A repository summary for a model: each file's definitions that matter, cut to a token budget.

Per file the summary shows the headers (signatures) of its classes, functions and methods, in
the summaries' layout: the path, then ``│``-marked lines with hidden runs as ``⋮``. Definitions are
ranked by how often their name occurs in the other summarised files (a word count), so the
most used come first when the budget is short. Files git
ignores are skipped: in a git work tree the files are those ``git ls-files`` lists (tracked,
and untracked but not ignored).

Token counts are estimated as one token per four characters (rounded up), the usual rule of
thumb for English and code with the common tokenizers; the budget is checked on the whole
text exactly as :func:`editblocks.build_messages` lays it out.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import subprocess
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from editblocks.errors import WorkspaceError
from editblocks.syntax.budget import CHARS_PER_TOKEN, DEFAULT_MAX_TOKENS
from editblocks.syntax.languages import CODE_LANGUAGES, language_for
from editblocks.syntax.render import render
from editblocks.syntax.tree import SyntaxUnavailable, definitions, missing, parse

MAX_FILE_BYTES = 1_000_000
"""Larger files are left out (generated or vendored code, data)."""
MINIFIED_LINE_CHARS = 400
"""Files whose lines average more characters than this are minified code, and left out."""
PRIVATE_WEIGHT = 0.1
"""Rank weight of names that start with an underscore (private by convention), and of names
defined in more than :data:`COMMON_DEFINITIONS` places (``run``, ``__init__``)."""
COMMON_DEFINITIONS = 5
DISTINCTIVE_CHARS = 8
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__"})
"""Folders left out outside a git work tree (as are folders whose name starts with a dot)."""

_WORD = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")
_CAMEL = re.compile(r"[a-z][A-Z]")
_CONSTRUCTORS = frozenset({"__init__", "constructor", "new"})


def estimate_tokens(text: str) -> int:
    """Tokens in ``text`` by the four-characters rule, rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


class RepoSummary(Mapping[str, str]):
    """A mapping from path to outline, most relevant file first, plus notes on what was left out.

    Pass it as ``summaries=`` to :func:`editblocks.build_messages`; :attr:`text` is the exact
    text the messages then carry.
    """

    def __init__(
        self, files: dict[str, str], notes: list[str], *, max_tokens: int | None, definitions: int, shown: int
    ) -> None:
        self.files = files
        self.notes = notes
        self.max_tokens = max_tokens
        self.definitions = definitions
        """Definitions found in the summarised files."""
        self.shown = shown
        """Definitions shown (their ancestors' headers come with them)."""

    def __getitem__(self, path: str) -> str:
        return self.files[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    @property
    def text(self) -> str:
        """The summary as one text, laid out as the messages carry it."""
        return layout(self.files)

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"RepoSummary({len(self.files)} files, {self.shown} of {self.definitions} definitions, ~{self.tokens} tokens)"


def layout(files: Mapping[str, str]) -> str:
    """Outlines as :func:`editblocks.build_messages` lays out a mapping of summaries."""
    return "\n\n".join(f"{path}:\n{text.rstrip()}" for path, text in files.items())


# -- which files ------------------------------------------------------------------------------------


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes] | None:
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None


def in_git_worktree(root: Path) -> bool:
    out = _git(root, "rev-parse", "--is-inside-work-tree")
    return out is not None and out.returncode == 0 and out.stdout.strip() == b"true"


def list_files(root: Path, paths: Iterable[str] = ()) -> tuple[list[str], bool]:
    """(files under ``paths`` relative to ``root``, sorted; whether git listed them).

    In a git work tree, the files ``git ls-files`` lists: tracked ones and untracked ones that
    are not ignored. Elsewhere every file, leaving out folders whose name starts with a dot,
    ``node_modules`` and ``__pycache__``.
    """
    specs = [p for p in paths if p not in ("", ".")]
    if in_git_worktree(root):
        out = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *(specs or ["."]))
        if out is not None and out.returncode == 0:
            names = {n.decode("utf-8", "surrogateescape") for n in out.stdout.split(b"\0") if n}
            return sorted(n for n in names if (root / n).is_file() and not (root / n).is_symlink()), True
    found: set[str] = set()
    for spec in specs or ["."]:
        start = root / spec
        if start.is_file():
            found.add(Path(spec).as_posix())
            continue
        for dirpath, dirnames, filenames in os.walk(start):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIPPED_DIRS)
            rel = Path(dirpath).relative_to(root).as_posix()
            for name in filenames:
                full = Path(dirpath, name)
                if full.is_symlink():
                    continue
                found.add(name if rel == "." else f"{rel}/{name}")
    return sorted(found), False


# -- what each file defines ------------------------------------------------------------------------


@dataclass
class _Entry:
    """A definition of a file as the summary needs it."""

    name: str
    rows: tuple[int, int]
    parent: int | None
    """Index of the enclosing definition in the same file."""
    score: float = 0.0


@dataclass
class _Outline:
    path: str
    total: int
    entries: list[_Entry] = field(default_factory=list)
    lines: dict[int, str] = field(default_factory=dict)
    own: dict[str, int] = field(default_factory=dict)
    """How often each name defined here occurs in this file."""


_PLAIN = re.compile(
    r"^(\s*)(?:export\s+)?(?:default\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:public\s+|private\s+|protected\s+|static\s+|abstract\s+|final\s+)*"
    r"(?:async\s+)?(def|class|function|func|fn|interface|struct|impl|enum|trait|type|mod|namespace)\b\s*(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)"
)


def _plain_definitions(lines: list[str]) -> list[_Entry]:
    """Definitions by a line pattern (``def``, ``class``, ``function``, ``func``, ``fn`` ...): the
    outline without syntax support. Nesting is read from indentation."""
    out: list[_Entry] = []
    stack: list[tuple[int, int]] = []
    for row, line in enumerate(lines):
        m = _PLAIN.match(line)
        if not m:
            continue
        indent = len(m.group(1).expandtabs())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        out.append(_Entry(m.group(3), (row, row), stack[-1][1] if stack else None))
        stack.append((indent, len(out) - 1))
    return out


def _tree_definitions(text: str, language: str) -> list[_Entry]:
    tree = parse(text, language)
    defs = definitions(tree, language, text, deep=False)
    index = {id(d): i for i, d in enumerate(defs)}
    return [_Entry(d.name, d.header, index[id(d.parent)] if d.parent is not None else None) for d in defs]


@dataclass
class _Facts:
    """What the summary needs of one file, as kept in the cache: its definitions (name, first and
    last header row, index of the enclosing one), its line count, the header lines, and how often
    each word occurs in it (the words, space-separated, and their counts)."""

    entries: list[tuple[str, int, int, int | None]]
    total: int
    lines: dict[str, str]
    words: str
    numbers: list[int]

    def counts(self) -> dict[str, int]:
        return dict(zip(self.words.split(" "), self.numbers)) if self.words else {}


def _analyse(base: Path, path: str, problem: str | None, data: bytes | None = None) -> _Facts | str:
    """One file's facts, or the reason it is left out."""
    full = base / path
    language = language_for(path)
    if language not in CODE_LANGUAGES:
        if language is None and not full.suffix:
            head = _head(full)
            language = language_for(path, head) if head else None
        if language not in CODE_LANGUAGES:
            return "not source code in a supported language"
    if data is None:
        try:
            data = full.read_bytes() if full.stat().st_size <= MAX_FILE_BYTES else None
        except OSError:
            return "unreadable"
        if data is None:
            return f"larger than {MAX_FILE_BYTES // 1_000_000} MB"
    if b"\0" in data[:8192]:
        return "binary"
    text = data.decode("utf-8", "replace").replace("\r\n", "\n")
    lines = text.split("\n")
    if len(text) > 20_000 and len(text) / max(1, len(lines)) > MINIFIED_LINE_CHARS:
        return "minified"
    language = language_for(path, text) or language
    entries: list[_Entry] | None = None
    if not problem:
        try:
            entries = _tree_definitions(text, language)
        except SyntaxUnavailable:
            entries = None
    if entries is None:
        entries = _plain_definitions(lines)
    counts = Counter(_WORD.findall(data))
    shown: dict[str, str] = {}
    for e in entries:
        for r in range(e.rows[0], e.rows[1] + 1):
            if r < len(lines):
                shown[str(r)] = lines[r]
    return _Facts(
        [(e.name, e.rows[0], e.rows[1], e.parent) for e in entries],
        len(lines) - 1 if lines and lines[-1] == "" else len(lines),
        shown,
        " ".join(w.decode("ascii") for w in counts),
        list(counts.values()),
    )


CACHE_FILE = "summary-cache.json"
CACHE_VERSION = 1
PARALLEL_FILES = 200
"""Fewer files to read than this are read in this process."""


def _analyse_one(job: tuple[str, str, str | None]) -> tuple[_Facts | str, str | None, tuple[int, int] | None]:
    """(facts, content hash, (size, modification time)) of one file: the work a process does."""
    base, path, problem = job
    full = Path(base) / path
    try:
        st = full.stat()
        data = full.read_bytes() if st.st_size <= MAX_FILE_BYTES else None
    except OSError:
        return _analyse(Path(base), path, problem), None, None
    facts = _analyse(Path(base), path, problem, data) if data is not None else _analyse(Path(base), path, problem)
    digest = hashlib.blake2b(data, digest_size=16).hexdigest() if data is not None else None
    return facts, digest, (st.st_size, st.st_mtime_ns)


def _analyse_all(base: Path, paths: list[str], problem: str | None, use_cache: bool) -> list[_Facts | str]:
    """Every file's facts, in order: from the cache where the file is unchanged, the rest read
    (by a process per core when there are many), and the cache brought up to date."""
    cached = _load_cache(base, problem) if use_cache else {}
    out: list[_Facts | str | None] = [None] * len(paths)
    todo: list[int] = []
    fresh: dict[str, dict[str, Any]] = {}
    for i, path in enumerate(paths):
        entry = cached.get(path)
        if entry is not None:
            try:
                st = (base / path).stat()
                if [st.st_size, st.st_mtime_ns] == entry["stat"]:
                    data = (base / path).read_bytes()
                    if hashlib.blake2b(data, digest_size=16).hexdigest() == entry["hash"]:
                        facts = entry["facts"]
                        out[i] = facts if isinstance(facts, str) else _Facts(**facts)
                        fresh[path] = entry
                        continue
            except (OSError, KeyError, TypeError):
                pass
        todo.append(i)
    jobs = [(str(base), paths[i], problem) for i in todo]
    if len(jobs) >= PARALLEL_FILES and (os.cpu_count() or 1) > 1:
        results = _in_processes(jobs)
    else:
        results = [_analyse_one(job) for job in jobs]
    added = False
    for i, (facts, digest, size_time) in zip(todo, results):
        out[i] = facts
        if digest is not None and size_time is not None:
            added = True
            fresh[paths[i]] = {
                "stat": list(size_time),
                "hash": digest,
                "facts": facts if isinstance(facts, str) else facts.__dict__,
            }
    if use_cache and (added or len(fresh) != len(cached)):
        # Files outside this summary's paths stay cached while they exist.
        kept = {p: e for p, e in cached.items() if p not in fresh and (base / p).is_file()}
        _save_cache(base, problem, {**kept, **fresh})
    return [f for f in out if f is not None]


def _in_processes(
    jobs: list[tuple[str, str, str | None]],
) -> list[tuple[_Facts | str, str | None, tuple[int, int] | None]]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    workers = min(os.cpu_count() or 1, 8)
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            return list(pool.map(_analyse_one, jobs, chunksize=max(1, len(jobs) // (workers * 8))))
    except (OSError, RuntimeError):
        return [_analyse_one(job) for job in jobs]


def _load_cache(base: Path, problem: str | None) -> dict[str, dict[str, Any]]:
    from editblocks.files.lock import state_dir

    try:
        raw = json.loads((state_dir(base, create=False) / CACHE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, WorkspaceError):
        return {}
    if not isinstance(raw, dict) or raw.get("version") != CACHE_VERSION or raw.get("syntax") != (problem or ""):
        return {}
    files = raw.get("files")
    return files if isinstance(files, dict) else {}


def _save_cache(base: Path, problem: str | None, files: dict[str, dict[str, Any]]) -> None:
    """Write the cache (atomically; a cache that cannot be written is not kept)."""
    from editblocks.files.lock import state_dir

    try:
        folder = state_dir(base)
        tmp = folder / f".{CACHE_FILE}.{os.getpid()}.tmp"
        tmp.write_text(
            json.dumps({"version": CACHE_VERSION, "syntax": problem or "", "files": files}, separators=(",", ":")),
            encoding="utf-8",
        )
        os.replace(tmp, folder / CACHE_FILE)
    except (OSError, WorkspaceError):
        pass


# -- ranking and cutting -------------------------------------------------------------------------------


def summarize(
    paths: Iterable[str | os.PathLike[str]] | None = None,
    root: str | os.PathLike[str] = ".",
    max_tokens: int | None = DEFAULT_MAX_TOKENS,
    *,
    exclude: Iterable[str] = (),
    cache: bool = True,
) -> RepoSummary:
    """Summarise the source files under ``paths`` (relative to ``root``; all of it by default).

    ``max_tokens`` caps the estimated tokens of :attr:`RepoSummary.text` (None: no cap).
    ``exclude`` names files to leave out, e.g. the ones the messages carry in full. Raises
    ``ValueError`` for a path outside ``root`` and ``FileNotFoundError`` for a missing one.

    What each file defines is kept in ``root/.editblocks/summary-cache.json`` (by path, size,
    modification time and content hash), so a second summary reads only what changed; without
    ``cache`` nothing is read from it or written. Many files to read are shared among processes,
    one per core.
    """
    base = Path(root).resolve()
    if not base.is_dir():
        raise FileNotFoundError(f"root folder not found: {root}")
    rel_paths = [_relative(base, p) for p in (paths or [])]
    for p in rel_paths:
        if not (base / p).exists():
            raise FileNotFoundError(f"no such file or folder: {p}")
    files, by_git = list_files(base, rel_paths)
    excluded = {_relative(base, e) for e in exclude}
    notes: list[str] = []
    problem = missing()
    if problem:
        notes.append(f"{problem}; definitions were found by a line pattern, without nesting from the syntax")

    skipped: Counter[str] = Counter()
    outlines: list[_Outline] = []
    counted: list[dict[str, int]] = []
    wanted = [path for path in files if path not in excluded]
    for path, facts in zip(wanted, _analyse_all(base, wanted, problem, cache)):
        if isinstance(facts, str):
            skipped[facts] += 1
            continue
        counts = facts.counts()
        counted.append(counts)
        if not facts.entries:
            continue
        entries = [_Entry(name, (first, last), parent) for name, first, last, parent in facts.entries]
        outline = _Outline(path, facts.total, entries, {int(r): line for r, line in facts.lines.items()})
        outline.own = {e.name: counts.get(e.name, 0) for e in entries}
        outlines.append(outline)
    names = {e.name for o in outlines for e in o.entries}
    words: Counter[str] = Counter()
    for counts in counted:
        for name in names.intersection(counts):
            words[name] += counts[name]
    for reason, n in sorted(skipped.items()):
        notes.append(f"{n} file{'s' if n != 1 else ''} left out: {reason}")
    if by_git and not files:
        notes.append("git lists no files there (they may all be ignored)")

    _score(outlines, words)
    ranked = sorted(
        ((e.score, o.path, e.rows[0], k, o) for o in outlines for k, e in enumerate(o.entries)),
        key=lambda t: (-t[0], t[1], t[2]),
    )
    total = len(ranked)
    chosen = _fit(ranked, max_tokens)
    result = _render(ranked[:chosen])
    if chosen < total:
        notes.append(
            f"cut to the budget of {max_tokens} tokens: {chosen} of {total} definitions shown, most referenced first"
        )
    return RepoSummary(result, notes, max_tokens=max_tokens, definitions=total, shown=chosen)


def _relative(base: Path, path: str | os.PathLike[str]) -> str:
    p = Path(path)
    if p.is_absolute():
        try:
            return p.resolve().relative_to(base).as_posix()
        except ValueError:
            raise ValueError(f"{p} is not inside the root folder {base}") from None
    parts = [x for x in p.as_posix().split("/") if x not in ("", ".")]
    if ".." in parts:
        resolved = (base / p).resolve()
        try:
            return resolved.relative_to(base).as_posix() or "."
        except ValueError:
            raise ValueError(f"{p} is not inside the root folder {base}") from None
    return "/".join(parts) or "."


def _head(full: Path) -> str:
    try:
        with open(full, "rb") as f:
            return f.read(200).decode("utf-8", "replace")
    except OSError:
        return ""


def _score(outlines: list[_Outline], words: Counter[str]) -> None:
    """Each definition's rank, from how often its name occurs in the other summarised files.

    The count is damped (square root), and weighted as repository maps commonly do: distinctive
    names (``snake_case`` or ``camelCase``, eight characters or more) count ten times, names
    starting with an underscore and names defined in more than five places a tenth.
    """
    defined: Counter[str] = Counter(e.name for o in outlines for e in o.entries)
    for o in outlines:
        for e in o.entries:
            refs = max(words.get(e.name, 0) - o.own.get(e.name, 0), 0)
            e.score = math.sqrt(refs) * _weight(e.name, defined[e.name])
        for e in o.entries:
            # A constructor's signature is how the class is used: it ranks with its class.
            if e.name in _CONSTRUCTORS and e.parent is not None:
                e.score = max(e.score, o.entries[e.parent].score)


def _weight(name: str, definitions: int) -> float:
    weight = 1.0
    if len(name) >= DISTINCTIVE_CHARS and ("_" in name.strip("_") or _CAMEL.search(name)):
        weight *= 10
    if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
        weight *= PRIVATE_WEIGHT
    if definitions > COMMON_DEFINITIONS:
        weight *= PRIVATE_WEIGHT
    return weight


def _render(chosen: list[tuple[float, str, int, int, _Outline]]) -> dict[str, str]:
    """The outlines of the chosen definitions, files ordered by their best definition."""
    rows: dict[str, set[int]] = {}
    best: dict[str, float] = {}
    outline_of: dict[str, _Outline] = {}
    for score, path, _, k, o in chosen:
        outline_of[path] = o
        best.setdefault(path, score)
        shown = rows.setdefault(path, set())
        index: int | None = k
        while index is not None:
            e = o.entries[index]
            shown.update(range(e.rows[0], e.rows[1] + 1))
            index = e.parent
    order = sorted(rows, key=lambda p: (-best[p], p))
    return {p: render(outline_of[p].lines, rows[p], outline_of[p].total).rstrip("\n") for p in order}


def _fit(ranked: list[tuple[float, str, int, int, _Outline]], max_tokens: int | None) -> int:
    """How many of the ranked definitions fit the budget (the most that do, by bisection)."""
    if max_tokens is None:
        return len(ranked)
    if max_tokens <= 0:
        return 0

    def fits(k: int) -> bool:
        # Every distinct first row shown is a line of at least one character (its mark): when
        # they alone are over the budget, the text is not rendered to know it.
        rows = {(path, o.entries[j].rows[0]) for _, path, _, j, o in ranked[:k] if o.entries[j].rows[0] < o.total}
        if -(-len(rows) // CHARS_PER_TOKEN) > max_tokens:
            return False
        return estimate_tokens(layout(_render(ranked[:k]))) <= max_tokens

    if fits(len(ranked)):
        return len(ranked)
    lo, hi = 0, len(ranked)  # fits(lo) holds, fits(hi) does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_MAX_TOKENS",
    "RepoSummary",
    "estimate_tokens",
    "layout",
    "list_files",
    "summarize",
]
