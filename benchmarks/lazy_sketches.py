"""Lazy sketches made from real files, with the file each one means (for ``bench_lazy.py`` and the tests).

A case takes a file, makes an intended change (lines changed, added or removed), and writes the
changed file as a model writes a sketch of it: stretches of unchanged lines replaced by an
elision comment, keeping at least one unchanged line between each elision and each change (as
the ``lazy`` prompt asks). Some sketches are one whole definition without elision, some the
complete file. Applying a sketch must give exactly the intended file, or refuse it.
"""

from __future__ import annotations

import ast
import random
import textwrap
from dataclasses import dataclass

ELISIONS = {
    "python": [
        "# ... existing code ...",
        "# ...",
        "# ... rest of the file ...",
        "# rest of code unchanged",
        "# existing code",
        "# ... (unchanged) ...",
    ],
    "c": [
        "// ... existing code ...",
        "// ...",
        "/* ... */",
        "// rest of the code stays the same",
        "...",
        "// ... unchanged ...",
    ],
    "html": ["<!-- ... existing code ... -->", "<!-- ... -->", "<!-- rest of the file -->", "<!-- unchanged -->"],
}


def family(path: str) -> str:
    if path.endswith(".py"):
        return "python"
    if path.endswith((".html", ".md", ".xml")):
        return "html"
    return "c"


@dataclass(frozen=True)
class Case:
    path: str
    before: str
    sketch: str
    intended: str
    kind: str
    """``elided``, ``definition`` or ``whole``."""


def _changed_line(line: str, n: int, fam: str) -> str:
    """``line`` with a new trailing comment (a changed line that still parses)."""
    if not line.strip() or line.rstrip().endswith("\\"):
        return line
    note = (
        f"# lazy-change {n}"
        if fam == "python"
        else f"/* lazy-change {n} */"
        if fam == "c"
        else f"<!-- lazy-change {n} -->"
    )
    return f"{line.rstrip()}  {note}"


def _new_line(indent: str, n: int, fam: str) -> str:
    return (
        f"{indent}_lazy_added_{n} = {n}"
        if fam == "python"
        else f"{indent}var lazyAdded{n} = {n};"
        if fam == "c"
        else f"{indent}<p>added {n}</p>"
    )


def elided_case(rng: random.Random, path: str, text: str) -> Case | None:
    """A sketch with elisions of a random change to ``text``."""
    fam = family(path)
    lines = text.split("\n")[:-1]
    if len(lines) < 12:
        return None
    # The change: 1-3 places, each a changed, added or removed line, at least 4 lines apart.
    places = sorted(rng.sample(range(1, len(lines) - 1), min(len(lines) // 8, rng.randint(1, 3))))
    places = [p for i, p in enumerate(places) if i == 0 or p - places[i - 1] >= 4]
    new: list[str] = []
    changed: list[bool] = []  # per line of ``new``: changed or added
    deleted_before: list[bool] = []  # per line of ``new``: a line was removed just before it
    removed = False
    for i, line in enumerate(lines):
        if i in places:
            what = rng.choice(["change", "add", "remove"]) if line.strip() else "add"
            if what == "change" and _changed_line(line, i, fam) != line:
                new.append(_changed_line(line, i, fam))
                changed.append(True)
                deleted_before.append(removed)
                removed = False
                continue
            if what == "remove" and line.strip():
                removed = True
                continue
            indent = line[: len(line) - len(line.lstrip())]
            new.append(_new_line(indent, i, fam))
            changed.append(True)
            deleted_before.append(removed)
            removed = False
        new.append(line)
        changed.append(False)
        deleted_before.append(removed)
        removed = False
    if new == lines:
        return None
    # Lines that must stay written out: each change with 1-3 unchanged lines on each side (a removal
    # is between two lines, both kept).
    # Blank lines do not count: a blank line cannot show where a change goes.
    keep = [False] * len(new)
    for i in range(len(new)):
        if changed[i] or deleted_before[i]:
            lo = i - rng.randint(1, 3)
            while lo > 0 and not any(new[j].strip() and not changed[j] for j in range(lo, i)):
                lo -= 1
            hi = i + rng.randint(1, 3) if changed[i] else i + rng.randint(0, 2)
            while hi < len(new) - 1 and not any(
                new[j].strip() and not changed[j] for j in range(i + (1 if changed[i] else 0), hi + 1)
            ):
                hi += 1
            for j in range(max(0, lo), min(len(new), hi + 1)):
                keep[j] = True
    # Elide some stretches of the other lines.
    sketch: list[str] = []
    i = 0
    elisions = ELISIONS[fam]
    while i < len(new):
        if keep[i]:
            sketch.append(new[i])
            i += 1
            continue
        j = i
        while j < len(new) and not keep[j]:
            j += 1
        if rng.random() < 0.85:
            indent = ""
            if rng.random() < 0.5:
                first = next((x for x in new[i:j] if x.strip()), "")
                indent = first[: len(first) - len(first.lstrip())]
            sketch.append(indent + rng.choice(elisions))
        else:
            sketch.extend(new[i:j])
        i = j
    if rng.random() < 0.2:
        sketch = [x.rstrip() for x in sketch]  # trailing white space the model dropped
    return Case(path, text, "".join(x + "\n" for x in sketch), "".join(x + "\n" for x in new), "elided")


def definition_case(rng: random.Random, path: str, text: str) -> Case | None:
    """One whole Python function or method, changed and sent alone (no elision)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    if not defs:
        return None
    d = rng.choice(defs)
    lines = text.split("\n")[:-1]
    first = min([d.lineno, *(x.lineno for x in d.decorator_list)]) - 1
    last = (d.end_lineno or d.lineno) - 1
    body = lines[first : last + 1]
    k = rng.randrange(len(body))
    changed = _changed_line(body[k], k, "python")
    if changed == body[k]:
        return None
    body = [*body[:k], changed, *body[k + 1 :]]
    intended = [*lines[:first], *body, *lines[last + 1 :]]
    sketch = textwrap.dedent("".join(x + "\n" for x in body)) if rng.random() < 0.5 else "".join(x + "\n" for x in body)
    return Case(path, text, sketch, "".join(x + "\n" for x in intended), "definition")


def whole_case(rng: random.Random, path: str, text: str) -> Case | None:
    """The complete changed file, without elision."""
    lines = text.split("\n")[:-1]
    if not lines:
        return None
    k = rng.randrange(len(lines))
    changed = _changed_line(lines[k], k, family(path))
    if changed == lines[k]:
        return None
    intended = "".join(x + "\n" for x in [*lines[:k], changed, *lines[k + 1 :]])
    return Case(path, text, intended, intended, "whole")


def make_case(rng: random.Random, path: str, text: str) -> Case | None:
    """A random case for ``text``, or None. A Python change that would not parse is not made (an
    edit that breaks a file's syntax is refused, whatever its form)."""
    roll = rng.random()
    if roll < 0.8:
        case = elided_case(rng, path, text)
    elif roll < 0.93 and path.endswith(".py"):
        case = definition_case(rng, path, text)
    else:
        case = whole_case(rng, path, text)
    if case is not None and path.endswith(".py"):
        try:
            compile(case.intended, path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
        except (SyntaxError, ValueError):
            return None
    return case
