"""The outcome verifier: an independent check of every placed block, and the paths to a wrong
edit it closes (a misremembered line, markers written into files, fuzzy "already applied")."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import editblocks
from editblocks import EditBlock, EditStatus
from editblocks.matching.merge import merge_line
from editblocks.pipeline.verifier import check_already_applied, check_edit, check_markers, marker_lines

from .helpers import sr

# -- check_edit ----------------------------------------------------------------------------------

BEFORE = "a = 1\nb = 2\nc = 3\n"


def test_exact_edit_passes() -> None:
    after = "a = 1\nb = 20\nc = 3\n"
    assert check_edit(BEFORE, after, 6, 12, "b = 2\n", "b = 20\n", "exact")


def test_a_change_outside_the_reported_span_is_caught() -> None:
    after = "a = 1\nb = 20\nc = 4\n"
    verdict = check_edit(BEFORE, after, 6, 12, "b = 2\n", "b = 20\n", "exact")
    assert not verdict and "outside" in verdict.reason


def test_exact_claim_with_other_text_is_caught() -> None:
    assert not check_edit(BEFORE, "a = 1\nb = 21\nc = 3\n", 6, 12, "b = 2\n", "b = 20\n", "exact")
    assert not check_edit(BEFORE, "a = 1\nb = 20\nc = 3\n", 6, 12, "b = 3\n", "b = 20\n", "exact")


def test_a_span_off_line_boundaries_is_caught() -> None:
    assert not check_edit(BEFORE, "a = 1\nbX = 2\nc = 3\n", 7, 7, "", "X", "exact")


def test_tolerant_edit_must_make_exactly_the_models_word_change() -> None:
    before = "# cases that are not matched\nx = 1\n"
    search, replace = "# cases that are matched\nx = 1\n", "# cases that are matched now\nx = 1\n"
    dropped = "# cases that are matched now\nx = 1\n"  # REPLACE written verbatim: 'not' is lost
    verdict = check_edit(before, dropped, 0, len(before), search, replace, "fuzzy")
    assert not verdict and "'not'" in verdict.reason
    merged = "# cases that are not matched now\nx = 1\n"
    assert check_edit(before, merged, 0, len(before), search, replace, "fuzzy")


def test_indentation_and_lookalikes_are_not_word_changes() -> None:
    before = "    say(\u201chi\u201d)\n"
    after = "    say(\u201chi\u201d)\n    done()\n"
    assert check_edit(before, after, 0, len(before), 'say("hi")\n', 'say("hi")\ndone()\n', "unicode")


# -- already applied -------------------------------------------------------------------------------


def test_already_applied_needs_replace_once_and_search_nowhere() -> None:
    text = "x = 1\ny = 2\n"
    assert check_already_applied(text, "y = 1\n", "y = 2\n")
    assert not check_already_applied(text + "y = 2\n", "y = 1\n", "y = 2\n")  # twice
    assert not check_already_applied(text + "y = 1\n", "y = 1\n", "y = 2\n")  # SEARCH still there
    assert not check_already_applied(text, "y = 1\n", "y = 3\n")  # not there at all
    assert not check_already_applied(text, "y = 2\nz = 3\n", "")  # a removal is never "applied"


def test_already_applied_equal_but_for_white_space() -> None:
    text = "def f():\n\n        total  =  1\n\n        return total\n"
    assert check_already_applied(text, "total = 0\nreturn total\n", "total = 1\nreturn total\n")
    assert not check_already_applied(
        text + "    total = 1\n  return total\n", "total = 0\nreturn total\n", "total = 1\nreturn total\n"
    )


def test_an_applied_insertion_may_contain_search() -> None:
    text = "import os\nimport sys\nx = 1\n"
    assert check_already_applied(text, "import os\n", "import os\nimport sys\n")


def test_white_space_only_change_is_judged_on_exact_text() -> None:
    assert check_already_applied("if x:\n        y()\n", "if x:\n    y()\n", "if x:\n        y()\n")
    assert not check_already_applied("if x:\n    y()\n", "if x:\n    y()\n", "if x:\n        y()\n")


# -- markers ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "=======",
        "  =======  ",
        ">>>>>>> REPLACE",
        "<<<<<<< SEARCH",
        "*** End Patch",
        " *** Update File: a.py",
        "# ... existing code ...",
        "    // ... rest of the code",
        "<!-- ... -->",
        "{/* ... existing sections ... */}",
        "/* ... */",
        "// rest of the code stays the same",
        "-- ... unchanged",
    ],
)
def test_markers_are_never_written_into_a_file_without_them(line: str) -> None:
    verdict = check_markers("x = 1\n", "x = 1\n", f"x = 2\n{line}\n", "a.js")
    assert not verdict and line.strip()[:20] in verdict.reason


def test_a_file_that_has_such_lines_may_get_more() -> None:
    assert check_markers("<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n", "a\n", "a\n=======\n", "conflict.txt")


def test_underlines_are_text() -> None:
    assert check_markers("Title\n", "Title\n", "Title\n=====\n\nSub\n---\n", "doc.rst")
    assert check_markers('"""Doc."""\n', "", "    Parameters\n    ----------\n", "a.py")
    assert not check_markers("x = 1\n", "x = 1\n", "x = 1\n=======\n", "a.py")


def test_ellipsis_is_code_in_python_and_an_elision_elsewhere() -> None:
    assert marker_lines("class P(Protocol):\n    def f(self): ...\n    ...\n", "p.py")["elision"] == 0
    assert marker_lines("function f() {\n  ...\n}\n", "p.js")["elision"] == 1


def test_document_code_examples_may_hold_elision_comments() -> None:
    assert check_markers("# Doc\n", "", "```ts\n// ... other functions ...\n```\n", "README.md")
    assert not check_markers("# Doc\n", "", "<!-- ... existing sections ... -->\n", "README.md")


# -- the three-way merge of one line ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "search", "replace", "merged"),
    [
        (
            "cases that are not matched",
            "cases that are matched",
            "cases that are matched now",
            "cases that are not matched now",
        ),
        ("if a and b:  # check", "if a and b:", "if a and not b:", "if a and not b:  # check"),
        ("call(a, b, c)", "call(a, c)", "call(a, c, d)", "call(a, b, c, d)"),
        ("return x", "return x", "return y", "return y"),
    ],
)
def test_clean_merges(file: str, search: str, replace: str, merged: str) -> None:
    assert merge_line(file, search, replace) == merged


@pytest.mark.parametrize(
    ("file", "search", "replace"),
    [
        ("cases that are not matched", "cases that are rarely matched", "cases that are often matched"),
        ("x = compute(1, 2, 3)", "x = compute(1, 2, 4)", "x = compute(1, 2, 5)"),
        ("a b c", "a c", "a X c"),  # inserts where the file has a word the model did not see
        (
            "total = price * qty  # euros",
            "total = price * qty",
            "total = price * qty + tax",
        ),  # appends where the file goes on
    ],
)
def test_conflicting_merges_are_refused(file: str, search: str, replace: str) -> None:
    assert merge_line(file, search, replace) is None


# -- end to end ------------------------------------------------------------------------------------


def _apply(
    tmp_path: Path, files: dict[str, str], reply: str, **options: object
) -> tuple[editblocks.ApplyResult, dict[str, str]]:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    result = editblocks.apply_edits(reply, tmp_path, **options)  # type: ignore[arg-type]
    return result, {name: (tmp_path / name).read_text() for name in files}


def test_fuzzy_similarity_is_never_reported_already_applied(tmp_path: Path) -> None:
    """A region 90-98% similar to SEARCH and REPLACE is not "already applied": it fails, with feedback."""
    text = "def total(items):\n    subtotal = sum(i.price for i in items)\n    tax = subtotal * 0.2\n    return subtotal + tax\n"
    search = "def total(items):\n    subtotal = sum(i.price for i in items)\n    tax = subtotal * 0.25\n    return subtotal + tax\n"
    replace = "def total(items):\n    subtotal = sum(i.price for i in items)\n    tax = subtotal * 0.2\n    return round(subtotal + tax, 2)\n"
    result, files = _apply(tmp_path, {"cart.py": text}, sr("cart.py", search, replace))
    (res,) = result.results
    assert res.status is EditStatus.FAILED and not res.already_applied
    assert not result.ok and result.feedback_message()
    assert files["cart.py"] == text


def test_misremembered_word_is_kept_by_the_merge(tmp_path: Path) -> None:
    text = "def f(cases):\n    # Report the cases that are not matched by any rule.\n    return [c for c in cases if not c.rule]\n"
    search = "def f(cases):\n    # Report the cases that are matched by any rule.\n    return [c for c in cases if not c.rule]\n"
    replace = "def f(cases):\n    # Report the cases that are matched by any rule, in order.\n    return [c for c in cases if not c.rule]\n"
    result, files = _apply(tmp_path, {"r.py": text}, sr("r.py", search, replace))
    assert result.results[0].status is EditStatus.APPLIED
    assert "# Report the cases that are not matched by any rule, in order.\n" in files["r.py"]


@pytest.mark.parametrize("fmt", ["diff", "edit-v2", "edit-v3", "cline", "patch"])
def test_elision_in_replace_only_keeps_the_lines_in_every_format(tmp_path: Path, fmt: str) -> None:
    text = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n"
    old = "    a = 1\n    b = 2\n    c = 3\n    return a\n"
    new = "    a = 10\n    # ... existing code ...\n    return a\n"
    block = EditBlock(
        "m.py", old_lines=old, new_lines=new, anchor="def f():\n" if fmt in ("edit-v2", "edit-v3") else ""
    )
    reply = editblocks.get_format(fmt).render(block)
    result, files = _apply(tmp_path, {"m.py": text}, reply, format=fmt)
    assert result.results[0].status is EditStatus.APPLIED, result.results[0].reason
    assert files["m.py"] == "def f():\n    a = 10\n    b = 2\n    c = 3\n    return a\n"


@pytest.mark.parametrize("fmt", ["diff", "edit-v3", "cline", "patch"])
def test_elision_in_replace_that_is_not_certain_is_refused(tmp_path: Path, fmt: str) -> None:
    text = "def f():\n    a = 1\n    b = 2\n"
    block = EditBlock(
        "m.py",
        old_lines="def f():\n    a = 1\n",
        new_lines="def f():\n    a = 1\n    # ... existing code ...\n    z = 9\n",
    )
    result, files = _apply(tmp_path, {"m.py": text}, editblocks.get_format(fmt).render(block), format=fmt)
    assert result.results[0].status is EditStatus.FAILED
    assert files["m.py"] == text


def test_a_whole_file_with_markers_is_refused(tmp_path: Path) -> None:
    reply = "notes.py\n```python\nx = 1\n<<<<<<< SEARCH\ny = 2\n```\n"
    result, files = _apply(tmp_path, {"notes.py": "x = 0\n"}, reply, format="whole")
    assert result.results[0].status is EditStatus.FAILED
    assert files["notes.py"] == "x = 0\n"


# -- real code nobody here wrote -------------------------------------------------------------------


def _stdlib_copy(tmp_path: Path) -> tuple[Path, str]:
    src = Path(textwrap.__file__)
    shutil.copyfile(src, tmp_path / "textwrap.py")
    return tmp_path / "textwrap.py", src.read_text(encoding="utf-8")


def test_stdlib_misremembered_lines_merge_or_refuse_never_drop_words(tmp_path: Path) -> None:
    """Every line of textwrap.py with a word in the middle, recalled without that word and changed
    at its end: the file's word is always kept, or the edit is refused."""
    target, original = _stdlib_copy(tmp_path)
    lines = original.split("\n")
    tried = changed = 0
    for k, line in enumerate(lines[1:-2], start=1):
        words = line.split()
        if len(words) < 5 or not line.strip() or not lines[k - 1].strip() or not lines[k + 1].strip():
            continue
        if original.count(line) != 1 or original.count(lines[k - 1] + "\n" + line + "\n" + lines[k + 1]) != 1:
            continue
        dropped = words[2]
        recalled = line.replace(" " + dropped + " ", " ", 1)
        if recalled == line:
            continue
        search = f"{lines[k - 1]}\n{recalled}\n{lines[k + 1]}\n"
        replace = f"{lines[k - 1]}\n{recalled}  # edited\n{lines[k + 1]}\n"
        target.write_text(original, encoding="utf-8")
        result = editblocks.apply_edits(sr("textwrap.py", search, replace), tmp_path, journal=False)
        after = target.read_text(encoding="utf-8")
        tried += 1
        if result.results[0].status is EditStatus.APPLIED:
            changed += 1
            assert after == original.replace(line, line + "  # edited", 1), (k, line)
        else:
            assert after == original
        if tried >= 25:
            break
    assert tried >= 10 and changed >= 1


# -- the verifier is wired in: a placer that goes wrong is caught ----------------------------------


def test_a_wrong_placement_is_failed_by_the_verifier(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fault injection: the matcher claims a fuzzy placement that also drops a word."""
    import editblocks.pipeline.placer as apply_module
    from editblocks.matching import Match

    text = "a = 1\n# not here\nb = 2\n"

    def wrong(text: str, old: str, new: str, **_: object) -> Match:
        start = text.index("# not here")
        return Match(start, start + len("# not here\n"), "# here\n", "fuzzy", 2, 0.95)

    monkeypatch.setattr(apply_module, "locate", wrong)
    result, files = _apply(tmp_path, {"m.py": text}, sr("m.py", "# not here\n", "# not here\n# added\n"))
    assert result.results[0].status is EditStatus.FAILED and "would not make the change" in (
        result.results[0].reason or ""
    )
    assert files["m.py"] == text


def test_a_wrong_already_applied_claim_is_failed_by_the_verifier(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import editblocks.pipeline.placer as apply_module
    from editblocks.matching import Match

    text = "a = 1\nb = 2\n"
    monkeypatch.setattr(
        apply_module,
        "locate",
        lambda text, old, new, **_: Match(0, 6, "a = 1\n", "fuzzy", 1, 0.9, already_applied=True),
    )
    result, files = _apply(tmp_path, {"m.py": text}, sr("m.py", "a = 0\n", "a = 2\n"))
    assert result.results[0].status is EditStatus.FAILED and not result.results[0].already_applied
    assert files["m.py"] == text


def test_a_stray_divider_after_a_title_is_not_guessed(tmp_path: Path) -> None:
    """'=======' right after a short title at the end of REPLACE could be its underline or a stray
    divider: refused. After a longer line it cannot be an underline: dropped."""
    reply = sr("README.md", "Intro text.\n", "Intro text.\n\nUsage\n=======\n=======\n")
    result, files = _apply(tmp_path, {"README.md": "# Tool\n\nIntro text.\n"}, reply)
    assert result.results[0].status is EditStatus.FAILED and files["README.md"] == "# Tool\n\nIntro text.\n"
    reply = sr("LICENSE.txt", "Agreement.\n", "Agreement, amended.\n=======\n")
    result, files = _apply(tmp_path, {"LICENSE.txt": "Terms\nAgreement.\n"}, reply)
    assert result.ok and files["LICENSE.txt"] == "Terms\nAgreement, amended.\n"


def test_an_ambiguous_block_shows_each_place_with_its_current_lines(tmp_path: Path) -> None:
    text = "def f():\n    x = 1\n    return x\n\n\ndef g():\n    x = 1\n    return x\n"
    result, _ = _apply(tmp_path, {"a.py": text}, sr("a.py", "    x = 1\n    return x\n", "    x = 2\n    return x\n"))
    feedback = result.feedback_message()
    assert "1 | def f():" in feedback and "6 | def g():" in feedback and "8 |     return x" in feedback


def test_a_line_replace_restates_beside_the_span_is_refused() -> None:
    # SEARCH left out `target.voidcmd(type)`, which the file has there; REPLACE has it: placed
    # tolerantly, the line would stand twice.
    before = "    source.voidcmd(type)\n    target.voidcmd(type)\n    host = parse(source)\n"
    after = "    source.voidcmd(type)\n    target.voidcmd(type)\n    target.voidcmd(type)\n    host = parse(source)\n"
    search = "    source.voidcmd(type)\n    host = parse(sourse)\n"
    replace = "    source.voidcmd(type)\n    target.voidcmd(type)\n    host = parse(sourse)\n"
    verdict = check_edit(before, after, 0, len(before), search, replace, "fuzzy")
    assert not verdict and "target.voidcmd(type)" in verdict.reason
    # the same edit made by an exact placement is what SEARCH says, and a line of one word may repeat
    assert check_edit("x\n}\n", "x\n}\n}\n", 0, 2, "x\n", "x\n}\n", "fuzzy")


@pytest.mark.parametrize("module", ["textwrap.py", "shlex.py", "ftplib.py", "calendar.py"])
def test_a_line_left_out_of_search_and_kept_in_replace_is_not_written_twice(tmp_path: Path, module: str) -> None:
    import os

    text = Path(os.path.dirname(os.__file__), module).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    tried = 0
    for i in range(10, len(lines) - 4, max(1, len(lines) // 12)):
        span = lines[i : i + 5]
        if not all(len(x.split()) >= 2 for x in span) or text.count("".join(span)) != 1:
            continue
        # SEARCH leaves out the second line, REPLACE (the model's full text) keeps it and adds one
        search = "".join(span[:1] + span[2:])
        indent = span[4][: len(span[4]) - len(span[4].lstrip())]
        replace = "".join(span[:4]) + f"{indent}name = width.data()\n" + span[4]
        if text.count(search):
            continue
        (tmp_path / "m.py").write_text(text, encoding="utf-8")
        (res,) = editblocks.apply_edits([EditBlock("m.py", search, replace)], tmp_path, journal=False).results
        after = (tmp_path / "m.py").read_text(encoding="utf-8")
        assert after.count(span[1]) == text.count(span[1]), (span, res.status)
        tried += 1
    assert tried


def test_a_one_word_line_restated_beside_the_span_is_refused() -> None:
    # an insertion of `pass` applied again, tolerantly: `pass` stands right above already
    before = "def f(x):\n    pass\n    if x:\n        return 1\n"
    after = "def f(x):\n    pass\n    pass\n    if x:\n        return 1\n"
    start = before.index("    if x:")
    verdict = check_edit(
        before, after, start, len(before), "if x:\n    return 1\n", "pass\nif x:\n    return 1\n", "indentation"
    )
    assert not verdict and "'pass'" in verdict.reason


def _loose_places(text: str, needle: list[str]) -> list[tuple[int, int]]:
    """Reference: (first, last) line indexes where ``needle`` occurs among the non-blank lines
    of ``text``, each compared with its white space runs collapsed."""
    kept = [(i, " ".join(x.split())) for i, x in enumerate(text.split("\n")) if x.strip()]
    n = len(needle)
    return [
        (kept[k][0], kept[k + n - 1][0]) for k in range(len(kept) - n + 1) if [x for _, x in kept[k : k + n]] == needle
    ]


_FILLER = ["x = 1", "y = x", "  y  =  x", "return x", "x.append(x)", "", "if x:", "x = total_12"]
_EDITED = ["x = 12", "z = x + 12", "return  total_1", "if x: total_12()", "x.append(x)", "y = x"]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_FILLER), max_size=150),
    st.lists(st.sampled_from(_EDITED), min_size=1, max_size=3),
    st.lists(st.sampled_from(_EDITED), min_size=1, max_size=3),
    st.integers(0, 150),
    st.one_of(st.none(), st.integers(0, 150)),
)
def test_already_applied_agrees_with_a_line_by_line_reading(
    filler: list[str], search: list[str], replace: list[str], at: int, search_at: int | None
) -> None:
    """Whatever word the check finds places by (a word on most lines, one inside a longer word):
    REPLACE once, equal but for white space, and SEARCH nowhere outside it."""
    lines = list(filler)
    lines[at:at] = replace
    if search_at is not None:
        lines[search_at:search_at] = search
    text = "".join(x + "\n" for x in lines)
    s, r = [" ".join(x.split()) for x in search], [" ".join(x.split()) for x in replace]
    if s == r:
        return
    r_at, s_at = _loose_places(text, r), _loose_places(text, s)
    expected = len(r_at) == 1 and all(r_at[0][0] <= a and b <= r_at[0][1] for a, b in s_at)
    got = check_already_applied(text, "".join(x + "\n" for x in search), "".join(x + "\n" for x in replace))
    assert bool(got) == expected


def test_a_change_that_restates_a_word_the_copy_dropped_is_not_merged() -> None:
    """SEARCH dropped ``stdout.``, REPLACE (the true line, changed) has it: carried onto the file's
    line the word would stand twice (``self.stdout.stdout.checked``); there is no clean merge."""
    assert (
        merge_line("self.stdout.write(self.prompt)", "self.write(self.prompt)", "self.stdout.checked(self.prompt)")
        is None
    )
    assert merge_line("if os.path.exists(name):", "if os.exists(name):", "if os.path.exists(name, extra=1):") is None
    # A change that brings no word the copy lacks is still carried: the file keeps its own words.
    assert merge_line("self.stdout.write(self.prompt)", "self.write(self.prompt)", "self.write(self.banner)") == (
        "self.stdout.write(self.banner)"
    )
