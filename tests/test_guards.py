"""The guards that keep edits right, each pinned at its boundary: weaken one and a test here fails.

- the least similarity between a changed line and the file line it is taken to be;
- the already-applied check of an insertion (weakened, an applied insertion is inserted twice);
- the exact level of edit-v2/edit-v3 (weakened, trailing-space drift is accepted);
- ``Workspace.delete``'s check that the file still holds what was read;
- each fuzzy threshold and the margin, just above and just below;
- each tolerant strategy on its own, at the ``tolerant`` level (no fuzzy step to hide its absence).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

import editblocks
from editblocks import EditBlock, EditResult, EditStatus
from editblocks.files.workspace import Workspace, WorkspaceError
from editblocks.matching import CHANGED_LINE_SIMILARITY, FUZZY_MARGIN, Match, MatchFailure, locate
from editblocks.matching.fuzzy import line_similarity

from .helpers import sr, v2

# Distinct filler lines, so that only the lines under test decide.
FILLER = [f"filler_{k} = compute_{k}(alpha_{k}, beta_{k})\n" for k in range(40)]


def _file(*middle: str) -> str:
    return "".join(FILLER[:15]) + "".join(middle) + "".join(FILLER[15:30])


# -- changed-line similarity -----------------------------------------------------------------------


def test_a_changed_line_must_resemble_its_file_line() -> None:
    """SEARCH's changed line is compared with the file line fuzzy matching maps it to: below the
    least similarity the edit is refused, even where a word-level merge would go through."""
    context = [
        "alpha_value = load_alpha(config)\n",
        "beta_value = load_beta(config)\n",
        "gamma_value = load_gamma(config)\n",
    ]
    recalled = "result = combine(alpha_value, beta_value)"
    changed = "result = combine(alpha_value, beta_value, gamma_value)"
    near = recalled + "  # sum"
    far = recalled + "  # the sum of every input the configuration names, in the order it names them"
    assert line_similarity(recalled, near) >= CHANGED_LINE_SIMILARITY > line_similarity(recalled, far)
    for file_line, ok in ((near, True), (far, False)):
        text = _file(*context, file_line + "\n", "return result\n")
        found = locate(
            text,
            "".join(context) + recalled + "\nreturn result\n",
            "".join(context) + changed + "\nreturn result\n",
            level="fuzzy",
        )
        assert isinstance(found, Match) is ok, found
        if isinstance(found, Match):
            merged = file_line.replace(recalled, changed)
            assert text[: found.start] + found.replacement + text[found.end :] == _file(
                *context, merged + "\n", "return result\n"
            )


# -- insertion applied before ------------------------------------------------------------------------


def test_an_insertion_applied_twice_is_inserted_once(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(_file("anchor_line = 1\n"))
    reply = sr("m.py", "anchor_line = 1\n", "anchor_line = 1\ninserted_line = 2\n")
    first = editblocks.apply_edits(reply, tmp_path)
    assert first.results[0].status is EditStatus.APPLIED
    second = editblocks.apply_edits(reply, tmp_path)
    assert second.results[0].already_applied
    assert (tmp_path / "m.py").read_text().count("inserted_line = 2\n") == 1


# -- the exact level of edit-v2 / edit-v3 ------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["edit-v2", "edit-v3"])
def test_exact_formats_refuse_trailing_space_drift(tmp_path: Path, fmt: str) -> None:
    text = _file("def f():\n", "    value = 1   \n", "    return value\n")
    (tmp_path / "m.py").write_text(text)
    if fmt == "edit-v2":
        reply = v2("m.py", "def f():\n", "    value = 1\n", "    value = 2\n", "    return value\n")
    else:
        reply = "m.py\n««« EDIT\ndef f():\n    value = 1\n═══════ REPL\ndef f():\n    value = 2\n»»» EDIT END\n"
    result = editblocks.apply_edits(reply, tmp_path, format=fmt)
    assert result.results[0].status is EditStatus.FAILED
    assert (tmp_path / "m.py").read_text() == text


# -- Workspace.delete ---------------------------------------------------------------------------------


def test_delete_refuses_a_file_changed_since_it_was_read(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"as read\n")
    workspace = Workspace(tmp_path)
    (tmp_path / "a.txt").write_bytes(b"changed by someone else\n")
    with pytest.raises(WorkspaceError):
        workspace.delete("a.txt", expected=b"as read\n")
    assert (tmp_path / "a.txt").read_bytes() == b"changed by someone else\n"
    workspace.delete("a.txt", expected=b"changed by someone else\n")
    assert not (tmp_path / "a.txt").exists()


# -- fuzzy thresholds and margin -----------------------------------------------------------------------


def _region_with_score(lines: int, target: float) -> tuple[str, str]:
    """(file region, SEARCH) where SEARCH is about ``target`` similar to the region."""
    region = "".join(f"    step_{k}_value = transform_{k}(input_{k}, option_{k})\n" for k in range(lines))
    search_lines = region.split("\n")[:-1]
    # Change characters of the middle line until the score drops to the target.
    k = lines // 2
    line = search_lines[k]
    for cut in range(1, len(line)):
        candidate = search_lines[:k] + [line[: len(line) - cut] + "X" * cut] + search_lines[k + 1 :]
        text = "\n".join(candidate) + "\n"
        score = _score(region, text)
        if score <= target:
            return region, text
    raise AssertionError("no such SEARCH")


def _score(region: str, search: str) -> float:
    from editblocks.matching.fuzzy import ranked_regions
    from editblocks.matching.strategies import FileView

    view = FileView.of(region)
    regions, _ = ranked_regions(view, search.split("\n")[:-1], limit=1)
    assert regions and regions[0].score is not None
    return regions[0].score


@pytest.mark.parametrize("lines", [3, 5])
def test_fuzzy_threshold_boundary(lines: int) -> None:
    """Just above the threshold a similar region is placed (unchanged lines kept); below it, refused."""
    for target, placed in ((0.93, True), (0.86, False)):  # either side of FUZZY_THRESHOLD (0.90)
        region, search = _region_with_score(lines, target)
        text = "".join(FILLER[:10]) + region + "".join(FILLER[10:20])
        s_lines = search.split("\n")[:-1]
        # Change a line the model saw correctly (the first), so the change has a certain place.
        replace = "".join(x + "\n" for x in ["    first_line_changed = 1", *s_lines[1:]])
        found = locate(text, search, replace, level="fuzzy")
        assert isinstance(found, Match) is placed, (target, _score(region, search), found)


def test_short_search_needs_the_higher_threshold() -> None:
    """One or two lines need FUZZY_THRESHOLD_SHORT: a 0.92 match of two lines is refused."""
    region, search = _region_with_score(2, 0.92)
    text = "".join(FILLER[:10]) + region + "".join(FILLER[10:20])
    s_lines = search.split("\n")[:-1]
    found = locate(text, search, "    first_line_changed = 1\n" + s_lines[1] + "\n", level="fuzzy")
    assert isinstance(found, MatchFailure)


def test_fuzzy_margin_refuses_two_close_regions() -> None:
    """Two regions within the margin of each other: ambiguous, never the better one."""
    a = "".join(f"    part_{k} = build_part_{k}(source, width, height)\n" for k in range(4))
    b = a.replace("part_3 = build_part_3(source, width, height)", "part_3 = build_part_3(source, width, depth)")
    search = a.replace("part_3 = build_part_3(source, width, height)", "part_3 = build_part_3(source, widht, heigth)")
    text = "".join(FILLER[:5]) + a + "".join(FILLER[5:10]) + b + "".join(FILLER[10:15])
    replace = "    part_zero = 0\n" + "".join(search.split("\n", 1)[1:])
    found = locate(text, search, replace, level="fuzzy")
    assert isinstance(found, MatchFailure) and found.kind == "ambiguous"
    assert FUZZY_MARGIN > 0


# -- tolerant strategies, each on its own ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "file_lines", "search", "replace", "expected"),
    [
        (
            "whitespace",
            ["    a = 1   \n", "    b = 2\n"],
            "    a = 1\n    b = 2\n",
            "    a = 1\n    b = 3\n",
            ["    a = 1   \n", "    b = 3\n"],
        ),
        (
            "indentation",
            ["        a = 1\n", "        b = 2\n"],
            "a = 1\nb = 2\n",
            "a = 1\nb = 3\n",
            ["        a = 1\n", "        b = 3\n"],
        ),
        (
            "blank-lines",
            ["    a = 1\n", "    b = 2\n"],
            "\n    a = 1\n    b = 2\n",
            "\n    a = 1\n    b = 3\n",
            ["    a = 1\n", "    b = 3\n"],
        ),
        (
            "unicode",
            ["    say(\u201chi\u201d)\n", "    b = 2\n"],
            '    say("hi")\n    b = 2\n',
            '    say("hi")\n    b = 3\n',
            ["    say(\u201chi\u201d)\n", "    b = 3\n"],
        ),
        (
            "elision",
            ["    a = 1\n", "    x = 9\n", "    b = 2\n"],
            "    a = 1\n    ...\n    b = 2\n",
            "    a = 1\n    ...\n    b = 3\n",
            ["    a = 1\n", "    x = 9\n", "    b = 3\n"],
        ),
    ],
)
def test_each_tolerant_strategy_on_its_own(
    name: str, file_lines: list[str], search: str, replace: str, expected: list[str]
) -> None:
    text = _file(*file_lines)
    found = locate(text, search, replace, level="tolerant")
    assert isinstance(found, Match) and found.strategy == name, found
    assert text[: found.start] + found.replacement + text[found.end :] == _file(*expected)
    assert isinstance(locate(text, search, replace, level="exact"), MatchFailure)


# -- "already applied" is never claimed while a region like SEARCH still stands -----------------

_MAIN = "def main():\n    setup_logging()\n    load_config(path)\n    warm_cache(config, verbose=True)\n    run()\n"


@pytest.mark.parametrize("level", ["exact", "tolerant", "fuzzy"])
def test_a_misremembered_deletion_is_not_already_applied(tmp_path: Path, level: str) -> None:
    # REPLACE (the kept line) is in the file, SEARCH is not, only because its second line has a
    # typo: the line the edit deletes is still there, so the edit was never made.
    (tmp_path / "app.py").write_text(_MAIN)
    block = EditBlock(
        "app.py", "    load_config(path)\n    warm_caches(config, verbose=True)\n", "    load_config(path)\n"
    )
    result = editblocks.apply_edits([block], tmp_path, match=level)
    (res,) = result.results
    assert res.status is EditStatus.FAILED and not result.ok
    assert "looks applied already" in (res.reason or "") and (tmp_path / "app.py").read_text() == _MAIN


def test_a_replacement_found_in_another_function_is_not_already_applied(tmp_path: Path) -> None:
    text = "def f(items):\n    total = compute_total(items)\n    log(total)\n    return total\n\n\ndef g():\n    return None\n"
    (tmp_path / "app.py").write_text(text)
    block = EditBlock(
        "app.py", "    total = compute_total(item)\n    log(total)\n    return total\n", "    return None\n"
    )
    (res,) = editblocks.apply_edits([block], tmp_path).results
    assert res.status is EditStatus.FAILED and res.candidates == [2, 8]
    assert (tmp_path / "app.py").read_text() == text


def test_a_misremembered_move_neither_moves_nor_reports_applied(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(_MAIN)
    patch = (
        "*** Begin Patch\n*** Update File: app.py\n*** Move to: main.py\n@@\n"
        "     load_config(path)\n-    warm_caches(config, verbose=True)\n*** End Patch\n"
    )
    result = editblocks.apply_edits(patch, tmp_path)
    assert [r.status for r in result.results] == [EditStatus.FAILED]
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["app.py"]


@pytest.mark.parametrize(
    ("search", "replace"),
    [
        ("    load_config(path)\n    warm_cache(config, verbose=True)\n", "    load_config(path)\n"),  # a deletion
        ("    load_config(path)\n", "    load_config(path, strict=True)\n"),  # a change
        ("    load_config(path)\n", "    load_config(path)\n    check(config)\n"),  # an insertion
        ("    warm_cache(config, verbose=True)\n", "    warm_cache(config, verbose=False)\n"),  # one word
    ],
)
def test_an_edit_really_made_is_still_already_applied(tmp_path: Path, search: str, replace: str) -> None:
    (tmp_path / "app.py").write_text(_MAIN)
    block = EditBlock("app.py", search, replace)
    first = editblocks.apply_edits([block], tmp_path)
    assert first.results[0].status is EditStatus.APPLIED
    made = (tmp_path / "app.py").read_text()
    again = editblocks.apply_edits([block], tmp_path)
    assert again.results[0].status is EditStatus.ALREADY_APPLIED, again.results[0].reason
    assert (tmp_path / "app.py").read_text() == made


# -- REPLACE written in the file's indentation while SEARCH is not: never indented twice ----------


def test_replace_indented_as_the_file_while_search_is_not_is_refused(tmp_path: Path) -> None:
    text = 'services:\n  web:\n    image: nginx\n    ports:\n      - "80:80"\n  db:\n    image: postgres\n'
    (tmp_path / "compose.yaml").write_text(text)
    block = EditBlock("compose.yaml", "web:\n  image: nginx\n", "  web:\n    image: nginx:1.25\n")
    (res,) = editblocks.apply_edits([block], tmp_path).results
    assert res.status is EditStatus.FAILED and "indentation" in (res.reason or "")
    assert (tmp_path / "compose.yaml").read_text() == text


def test_search_and_replace_dedented_alike_are_still_indented_to_the_file(tmp_path: Path) -> None:
    text = "def run(items):\n    for x in items:\n        process(x)\n    log_done()\n"
    (tmp_path / "app.py").write_text(text)
    block = EditBlock("app.py", "for x in items:\n    process(x)\n", "for x in items:\n    process(x)\n    count(x)\n")
    (res,) = editblocks.apply_edits([block], tmp_path).results
    assert res.status is EditStatus.APPLIED and res.strategy == "indentation"
    assert (tmp_path / "app.py").read_text() == text.replace("process(x)\n", "process(x)\n        count(x)\n")


def test_a_short_misremembered_search_whose_replace_stands_elsewhere_is_not_already_applied(tmp_path: Path) -> None:
    text = "class Client:\n    timeout = 30\n    retries = 3\n\n\nclass Uploader:\n    timeout = 10\n    retries = 5\n"
    (tmp_path / "c.py").write_text(text)
    (res,) = editblocks.apply_edits([EditBlock("c.py", "    timeout = 10.0\n", "    timeout = 30\n")], tmp_path).results
    assert res.status is EditStatus.FAILED and res.candidates == [2, 7]
    assert (tmp_path / "c.py").read_text() == text


def test_a_near_twin_of_the_replacement_does_not_make_a_misremembered_edit_already_applied(tmp_path: Path) -> None:
    def body(open_: str, close: str) -> str:
        return (
            f"    if start in inserts:\n        inserts[start] += ' {open_}'\n    else:\n        inserts[start] = '{open_}'\n"
            f"    if end in inserts:\n        inserts[end] += '{close}'\n    else:\n        inserts[end] = '{close}'\n"
        )

    text = (
        "def mark_optional(inserts, start, end):\n"
        + body("[", "]")
        + "\n\ndef mark_group(inserts, start, end):\n"
        + body("(", ")")
    )
    (tmp_path / "b.py").write_text(text)
    search = body("(", ")").replace("if end in inserts", "if end in insert")
    (res,) = editblocks.apply_edits([EditBlock("b.py", search, body("[", "]"))], tmp_path).results
    assert res.status is EditStatus.FAILED and (tmp_path / "b.py").read_text() == text


def test_an_indentation_change_is_not_already_applied_by_the_unindented_line(tmp_path: Path) -> None:
    text = "def run(items):\n    setup()\n    for it in items:\n        handle(it)\n    report(items)\n    teardown()\n"
    (tmp_path / "r.py").write_text(text)
    block = EditBlock("r.py", "    report(items)  # summary\n", "        report(items)\n")
    (res,) = editblocks.apply_edits([block], tmp_path).results
    assert res.status is EditStatus.FAILED and (tmp_path / "r.py").read_text() == text


def test_a_changed_line_written_in_the_files_indentation_while_search_is_not_is_refused(tmp_path: Path) -> None:
    text = "def handle(request):\n    if request.user:\n        log(request.user)\n    save_request(request)\n"
    (tmp_path / "h.py").write_text(text)
    (res,) = editblocks.apply_edits(
        [EditBlock("h.py", "save_request(request)\n", "    store_request(request)\n")], tmp_path
    ).results
    assert res.status is EditStatus.FAILED and (tmp_path / "h.py").read_text() == text


def test_moving_a_line_into_a_loop_with_search_and_replace_dedented_alike_applies(tmp_path: Path) -> None:
    text = "def run(xs):\n    for x in xs:\n        process(x)\n    flush()\n    return len(xs)\n"
    (tmp_path / "r.py").write_text(text)
    block = EditBlock("r.py", "for x in xs:\n    process(x)\nflush()\n", "for x in xs:\n    process(x)\n    flush()\n")
    (res,) = editblocks.apply_edits([block], tmp_path).results
    assert res.status is EditStatus.APPLIED, res.reason
    assert (tmp_path / "r.py").read_text() == text.replace("    flush()", "        flush()")


def test_a_reply_applied_again_does_not_edit_a_copy_at_another_indentation(tmp_path: Path) -> None:
    text = (
        "def parse(args):\n    for a in args:\n        if a.startswith('--'):\n            if a == '--x':\n"
        "                handle(a)\n            else:\n                msg = 'ignored %r'\n                raise Error(msg % a)\n"
        "        else:\n            msg = 'ignored %r'\n            raise Error(msg % a)\n"
    )
    (tmp_path / "p.py").write_text(text)
    block = EditBlock(
        "p.py",
        "        else:\n            msg = 'ignored %r'\n            raise Error(msg % a)\n",
        "        else:\n            msg = 'ignored %r'\n            warn(msg % a)\n",
    )
    assert editblocks.apply_edits([block], tmp_path).results[0].status is EditStatus.APPLIED
    made = (tmp_path / "p.py").read_text()
    (again,) = editblocks.apply_edits([block], tmp_path).results
    assert again.status is not EditStatus.APPLIED and (tmp_path / "p.py").read_text() == made


@pytest.mark.parametrize("level", ["tolerant", "fuzzy"])
def test_a_blank_search_in_an_empty_text_finds_no_place(level: str) -> None:
    # An empty file has no line for a blank SEARCH line to stand on: no place, no crash.
    found = locate("", "\n", "x\n", level=level)
    assert isinstance(found, MatchFailure)


# -- a SEARCH line copied without its indentation ------------------------------------------------


@pytest.mark.parametrize("module", ["textwrap.py", "shlex.py", "calendar.py"])
def test_a_search_line_that_lost_its_indentation_never_indents_the_change_twice(tmp_path: Path, module: str) -> None:
    """Spans of standard-library code whose first SEARCH line lost all or part of its
    indentation, with one line changed: every block is applied exactly as meant or refused."""
    import os
    import random

    text = Path(os.path.dirname(os.__file__), module).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    rng = random.Random(module)
    outcomes = set()
    for _ in range(25):
        length = rng.randint(2, 5)
        for _ in range(200):
            i = rng.randrange(len(lines) - length)
            span = lines[i : i + length]
            if all(x.strip() for x in span) and span[0].startswith("    ") and text.count("".join(span)) == 1:
                break
        else:
            continue
        changed = rng.choice([0, rng.randrange(length)])
        new_span = list(span)
        new_span[changed] = new_span[changed].rstrip("\n") + "  # changed\n"
        search = list(span)
        search[0] = search[0].lstrip(" ") if rng.random() < 0.5 else search[0][4:]
        (tmp_path / "m.py").write_text(text, encoding="utf-8")
        result = editblocks.apply_edits(sr("m.py", "".join(search), "".join(new_span)), tmp_path, journal=False)
        status = result.results[0].status
        after = (tmp_path / "m.py").read_text(encoding="utf-8")
        outcomes.add(status)
        if status is EditStatus.APPLIED:
            assert after == "".join(lines[:i] + new_span + lines[i + length :])
        else:
            assert status is EditStatus.FAILED and after == text
    assert EditStatus.FAILED in outcomes


# -- "already applied" against near twins: a SEARCH line misremembered or cut short ---------------


def _apply_once(tmp_path: Path, text: str, search: str, replace: str) -> EditResult:
    """The result of one block on ``m.py`` holding ``text`` (no undo journal)."""
    (tmp_path / "m.py").write_text(text, encoding="utf-8")
    (res,) = editblocks.apply_edits([EditBlock("m.py", search, replace)], tmp_path, journal=False).results
    return res


def _stdlib(module: str) -> str:
    import os

    return Path(os.path.dirname(os.__file__), module).read_text(encoding="utf-8")


@pytest.mark.parametrize("module", ["calendar.py", "textwrap.py", "email/_header_value_parser.py"])
def test_a_search_cut_short_to_a_keyword_does_not_make_a_twin_already_applied(tmp_path: Path, module: str) -> None:
    """SEARCH ``def`` (or ``class``) is a piece of every such line: the REPLACE line standing in
    the file says nothing of which line the edit was meant for, shortest twin or longest."""
    text = _stdlib(module)
    outcomes = []
    for keyword in ("def", "class"):
        heads = [x for x in text.splitlines() if x.lstrip().startswith(keyword + " ") and text.count(x + "\n") == 1]
        by_indent: dict[str, list[str]] = {}
        for x in heads:
            by_indent.setdefault(x[: len(x) - len(x.lstrip())], []).append(x)
        for indent, same in by_indent.items():
            if len(same) < 2:
                continue
            for replace in (min(same, key=len), max(same, key=len)):
                (tmp_path / "m.py").write_text(text, encoding="utf-8")
                block = sr("m.py", f"{indent}{keyword}\n", replace + "\n")
                (res,) = editblocks.apply_edits(block, tmp_path, journal=False).results
                outcomes.append(res.status)
                assert res.status is EditStatus.FAILED, (replace, res.status)
                assert (tmp_path / "m.py").read_text(encoding="utf-8") == text
    assert outcomes


def _twins(text: str) -> list[tuple[int, int]]:
    """Pairs of unique two-line spans of ``text`` sharing their first line (a ``\"\"\"`` or an
    ``else:`` before different lines)."""
    lines = text.splitlines(keepends=True)
    firsts: dict[str, list[int]] = {}
    for i in range(len(lines) - 1):
        span = lines[i] + lines[i + 1]
        if lines[i].strip() and len(lines[i + 1].split()) >= 2 and text.count(span) == 1:
            firsts.setdefault(lines[i], []).append(i)
    return [(a, b) for same in firsts.values() if len(same) >= 2 for a, b in zip(same, same[1:], strict=False)]


@pytest.mark.parametrize("module", ["calendar.py", "configparser.py"])
def test_a_misremembered_line_beside_a_common_one_does_not_make_a_twin_already_applied(
    tmp_path: Path, module: str
) -> None:
    """Two-line SEARCH: a common line (which finds no region by itself) and a line with its first
    word misspelt, for which REPLACE is the twin span's second line. The edit was never made."""
    text = _stdlib(module)
    lines = text.splitlines(keepends=True)
    pairs = [(a, b) for a, b in _twins(text) if lines[a + 1].strip() != lines[b + 1].strip()][:40]
    assert pairs
    for a, b in pairs:
        head, *rest = lines[a + 1].lstrip().split(" ")
        indent = lines[a + 1][: len(lines[a + 1]) - len(lines[a + 1].lstrip())]
        search = lines[a] + indent + " ".join([head + "s", *rest])
        (tmp_path / "m.py").write_text(text, encoding="utf-8")
        (res,) = editblocks.apply_edits(sr("m.py", search, lines[b] + lines[b + 1]), tmp_path, journal=False).results
        after = (tmp_path / "m.py").read_text(encoding="utf-8")
        assert res.status is not EditStatus.ALREADY_APPLIED, (search, lines[b + 1])
        if res.status is EditStatus.APPLIED:
            assert after == "".join(lines[:a] + [lines[b], lines[b + 1]] + lines[a + 2 :])
        else:
            assert after == text


def test_a_comment_missing_a_word_does_not_make_another_line_already_applied(tmp_path: Path) -> None:
    text = _stdlib("textwrap.py")
    lines = text.splitlines(keepends=True)
    # Short comments, so that the line missing its longest word is far from it by similarity.
    comments = [i for i, x in enumerate(lines) if x.strip().startswith("# ") and 4 <= len(x.split()) <= 5]
    comments = [i for i in comments if text.count(lines[i]) == 1][:20]
    assert comments
    for i in comments:
        words = lines[i].rstrip("\n").split(" ")
        inner = [k for k, w in enumerate(words) if w][1:-1]  # neither the "#" nor the last word
        middle = max(inner, key=lambda k: len(words[k]))
        search = " ".join(words[:middle] + words[middle + 1 :]) + "\n"
        replace = next(x for x in lines[i + 4 :] + lines[:i] if x.strip() and text.count(x) == 1)
        (tmp_path / "m.py").write_text(text, encoding="utf-8")
        (res,) = editblocks.apply_edits(sr("m.py", search, replace), tmp_path, journal=False).results
        assert res.status is EditStatus.FAILED, (search, replace)
        assert (tmp_path / "m.py").read_text(encoding="utf-8") == text


def test_a_misremembered_line_indented_as_its_twin_is_not_already_applied(tmp_path: Path) -> None:
    # `returns` is about as like `return s` (REPLACE, at line 3) as `return` (line 7); indented as
    # line 7 is, the edit was meant there.
    text = (
        "def name(s):\n    if s:\n        return s\n    return ''\n\n\n"
        "def close(self):\n    if self.closed:\n            return\n    self.release()\n"
    )
    (tmp_path / "m.py").write_text(text)
    (res,) = editblocks.apply_edits(sr("m.py", "            returns\n", "        return s\n"), tmp_path).results
    assert res.status is EditStatus.FAILED and (tmp_path / "m.py").read_text() == text


def test_a_property_cut_short_does_not_make_its_twin_already_applied(tmp_path: Path) -> None:
    text = (
        "class Address:\n    @property\n    def ip(self):\n        for x in self:\n            return x.ip\n\n"
        "    @property\n    def route(self):\n        for x in self:\n            return x.route\n"
    )
    (tmp_path / "m.py").write_text(text)
    search = "    @property\n    def\n        for x in self:\n"
    block = sr("m.py", search, "    @property\n    def route(self):\n        for x in self:\n")
    (res,) = editblocks.apply_edits(block, tmp_path).results
    assert res.status is EditStatus.FAILED and (tmp_path / "m.py").read_text() == text


@pytest.mark.parametrize(
    ("search", "replace"),
    [
        ("    wrapping behaviour.\n", "    wrapping behaviour.  # changed\n"),  # its end stands elsewhere
        ("    raise Error('starting at',\n", "    raise Error('starting new_at',\n"),  # its start does
    ],
)
def test_an_edit_made_is_already_applied_though_its_search_is_a_piece_of_another_line(
    tmp_path: Path, search: str, replace: str
) -> None:
    text = (
        "def wrap(text):\n    '''Wrap text, with the\n    wrapping behaviour.\n    '''\n    if not text:\n"
        "        raise Error('starting at', text, 0)\n    raise Error('starting at',\n                text)\n\n\n"
        "def fill(text):\n    '''See wrap() for the available keyword args to customize wrapping behaviour.\n    '''\n"
    )
    (tmp_path / "m.py").write_text(text)
    block = EditBlock("m.py", search, replace)
    assert editblocks.apply_edits([block], tmp_path).results[0].status is EditStatus.APPLIED
    made = (tmp_path / "m.py").read_text()
    again = editblocks.apply_edits([block], tmp_path).results[0]
    assert again.status is EditStatus.ALREADY_APPLIED, again.reason
    assert (tmp_path / "m.py").read_text() == made


_OPTIONS = (
    "def store(self, parser):\n    for opt in parser.option_list:\n        strings = self.format_option_strings(opt)\n"
    "        self.option_strings[opt] = strings\n    for group in parser.option_groups:\n"
    "        for opt in group.option_list:\n            strings = self.format_option_strings(opt)\n"
    "            self.option_strings[opt] = strings\n"
)


def test_a_line_cut_to_one_word_beside_lines_copied_verbatim_is_not_already_applied(tmp_path: Path) -> None:
    # SEARCH's first line stands verbatim at line 2; its cut-short `strings` is as much a piece
    # of the REPLACE text's last line as of line 3: line by line, line 2's place is as like SEARCH.
    (tmp_path / "m.py").write_text(_OPTIONS)
    search = "    for opt in parser.option_list:\n        strings\n        self.option_strings[opt] = strings\n"
    replace = (
        "    for opt in group.option_list:\n        strings = self.format_option_strings(opt)\n"
        "        self.option_strings[opt] = strings\n"
    )
    (res,) = editblocks.apply_edits(sr("m.py", search, replace), tmp_path).results
    assert res.status is EditStatus.FAILED and 2 in res.candidates
    assert (tmp_path / "m.py").read_text() == _OPTIONS


@pytest.mark.parametrize(
    ("text", "search", "replace"),
    [
        # `n = 0` is `n = p = 0` with a word left out, and the start of the REPLACE line
        (
            "def a():\n    n = 0\n    return n\n\n\ndef b():\n    n = p = 0\n    return n, p\n",
            "    n = 0\n",
            "    n = 0  # checked\n",
        ),
        # a lone `)` ends many lines: it is no line cut short
        ("x = f(\n    1,\n)\n\n\ndef g(b):\n    n = len(b)\n    return n\n", ")\n", ")  # checked\n"),
    ],
)
def test_a_comment_appended_is_already_applied_though_its_line_is_a_piece_of_others(
    tmp_path: Path, text: str, search: str, replace: str
) -> None:
    (tmp_path / "m.py").write_text(text)
    block = EditBlock("m.py", search, replace)
    assert editblocks.apply_edits([block], tmp_path).results[0].status is EditStatus.APPLIED
    again = editblocks.apply_edits([block], tmp_path).results[0]
    assert again.status is EditStatus.ALREADY_APPLIED, again.reason


@pytest.mark.parametrize("module", ["calendar.py", "textwrap.py", "pprint.py"])
def test_a_line_cut_inside_a_word_does_not_make_another_line_already_applied(tmp_path: Path, module: str) -> None:
    """SEARCH ``with differen`` is the file's ``with different_locale(...)`` cut short inside a
    word; the REPLACE line standing elsewhere in the file does not show the edit made."""
    text = _stdlib(module)
    lines = [x for x in text.splitlines() if text.count(x + "\n") == 1 and len(x.split()) >= 4]
    picked = lines[:: max(1, len(lines) // 12)][:12]
    for line, replace in zip(picked, reversed(picked)):
        if line == replace:
            continue
        cut = line[: len(line) // 2]
        if cut.endswith(" ") or line[len(cut)] == " " or text.count(cut) != 1:
            continue  # cut at a word's edge, or found in another line: not this case
        res = _apply_once(tmp_path, text, cut + "\n", replace + "\n")
        assert res.status is EditStatus.FAILED, (cut, replace, res.status)
        assert (tmp_path / "m.py").read_text(encoding="utf-8") == text


def _unique_pairs(text: str, count: int) -> list[tuple[str, str]]:
    """Up to ``count`` pairs of consecutive lines of ``text``, each line unique, of three words or more."""
    lines = text.splitlines()
    ok = [text.count(x + "\n") == 1 and len(x.split()) >= 3 for x in lines]
    pairs = [(lines[i], lines[i + 1]) for i in range(len(lines) - 1) if ok[i] and ok[i + 1]]
    return pairs[:: max(1, len(pairs) // count)][:count]


@pytest.mark.parametrize("module", ["textwrap.py", "calendar.py", "shlex.py"])
def test_a_deletion_whose_removed_line_still_stands_beside_is_not_already_applied(tmp_path: Path, module: str) -> None:
    """The line the edit deletes still stands beside the lines it keeps: copied cut inside a word,
    or with SEARCH's two lines in the wrong order, the edit was not made."""
    text = _stdlib(module)
    tried = 0
    for first, second in _unique_pairs(text, 8):
        cut = first[: len(first) // 2]
        for search in (f"{cut}\n{second}\n", f"{second}\n{first}\n"):
            if text.count(search) or cut.endswith(" "):
                continue
            keep = second if search.startswith(cut) else first
            res = _apply_once(tmp_path, text, search, keep + "\n")
            assert res.status is EditStatus.FAILED, (search, res.status)
            assert (tmp_path / "m.py").read_text(encoding="utf-8") == text
            tried += 1
    assert tried


def test_a_deletion_applied_again_does_not_delete_from_a_near_twin(tmp_path: Path) -> None:
    # (the line the edit keeps stands in another function too: the edit is not known applied by it)
    text = (
        "def f(level):\n    if level == 1:\n        write('(')\n    body()\n    if level == 1:\n        write(')')\n\n\n"
        "def g(items):\n    for item in items:\n        write(')')\n"
    )
    (tmp_path / "m.py").write_text(text)
    block = EditBlock("m.py", "    if level == 1:\n        write(')')\n", "        write(')')\n")
    assert editblocks.apply_edits([block], tmp_path).results[0].status is EditStatus.APPLIED
    once = (tmp_path / "m.py").read_text()
    again = editblocks.apply_edits([block], tmp_path).results[0]
    assert again.status in (EditStatus.ALREADY_APPLIED, EditStatus.FAILED)
    assert (tmp_path / "m.py").read_text() == once


@pytest.mark.parametrize("module", ["textwrap.py", "calendar.py"])
def test_a_deletion_whose_removed_line_lost_a_word_is_not_already_applied(tmp_path: Path, module: str) -> None:
    """``raise (`` for ``raise JSONDecodeError(``: the line the edit deletes, copied with a word
    left out, still stands beside the line it keeps."""
    text = _stdlib(module)
    tried = 0
    for first, second in _unique_pairs(text, 8):
        words = first.split()
        if len(words) < 3:
            continue
        copy = first.replace(" " + words[1], "", 1)
        search = f"{copy}\n{second}\n"
        if copy == first or text.count(search) or text.count(copy):
            continue
        res = _apply_once(tmp_path, text, search, second + "\n")
        assert res.status is EditStatus.FAILED, (search, res.status)
        assert (tmp_path / "m.py").read_text(encoding="utf-8") == text
        tried += 1
    assert tried


@pytest.mark.parametrize("module", ["textwrap.py", "calendar.py", "shlex.py"])
@pytest.mark.parametrize(("copied", "added"), [("", "        "), ("      ", "            ")])
def test_a_line_added_beside_a_one_line_search_short_of_its_indentation_is_refused(
    tmp_path: Path, module: str, copied: str, added: str
) -> None:
    """SEARCH's one line copied without (or with less than) its indentation, a new line written at
    (or past) the file's: meant there, or nested under the line? Refused, never indented twice."""
    text = _stdlib(module)
    lines = [x for x in text.splitlines() if x[:9].lstrip() == x[8:9] != "" and text.count(x.strip()) == 1][:10]
    for line in lines:
        res = _apply_once(
            tmp_path, text, copied + line.strip() + "\n", f"{added}check_state()\n{copied}{line.strip()}\n"
        )
        assert res.status is EditStatus.FAILED, (line, res.status)
        assert (tmp_path / "m.py").read_text(encoding="utf-8") == text
    assert lines


@pytest.mark.parametrize("module", ["textwrap.py", "calendar.py", "shlex.py"])
def test_search_lines_swapped_are_not_already_applied_by_a_copy_elsewhere(tmp_path: Path, module: str) -> None:
    """SEARCH's two lines copied in the wrong order, and the intended result already standing
    elsewhere (pasted there): the lines the edit was meant for still stand, unedited."""
    base = _stdlib(module)
    tried = 0
    for a, b in _unique_pairs(base, 10):
        intended = f"{a}\n{b}  # checked\n"
        text = base + "\n\n" + intended
        search = f"{b}\n{a}\n"
        if text.count(search):
            continue
        res = _apply_once(tmp_path, text, search, intended)
        assert res.status is not EditStatus.ALREADY_APPLIED, (search, res.status)
        assert (tmp_path / "m.py").read_text(encoding="utf-8") == text or res.status is EditStatus.APPLIED
        tried += 1
    assert tried


@pytest.mark.parametrize("module", ["textwrap.py", "calendar.py"])
def test_a_line_cut_to_a_piece_of_a_word_among_kept_lines_is_not_already_applied(tmp_path: Path, module: str) -> None:
    """``cat`` for ``category=DeprecationWarning,`` among lines copied as the file has them, and the
    intended result already standing elsewhere (pasted there): the edit was not made here."""
    base = _stdlib(module)
    lines = base.splitlines()
    tried = 0
    for i in range(20, len(lines) - 3, max(1, len(lines) // 10)):
        a, b, c = lines[i : i + 3]
        word = b.split()[0] if b.split() else ""
        if len(word) < 6 or not a.strip() or not c.strip() or base.count(f"{a}\n{b}\n{c}\n") != 1:
            continue
        indent = b[: len(b) - len(b.lstrip())]
        intended = f"{a}\n{indent}return cls_{i}\n{c}\n"
        text = base + "\n\n" + intended  # the intended lines stand elsewhere already
        search = f"{a}\n{indent}{word[:3]}\n{c}\n"
        res = _apply_once(tmp_path, text, search, intended)
        assert res.status is not EditStatus.ALREADY_APPLIED, (search, res.status)
        tried += 1
    assert tried


@pytest.mark.parametrize("module", ["textwrap.py", "calendar.py"])
def test_a_deletion_whose_kept_line_was_copied_cut_short_is_not_already_applied(tmp_path: Path, module: str) -> None:
    """SEARCH deletes its first line and has the second cut short; REPLACE is the second line whole.
    The first line still stands right above it: the edit was not made."""
    text = _stdlib(module)
    tried = 0
    for first, second in _unique_pairs(text, 10):
        words = second.split()
        cut = second[: second.index(words[-1])].rstrip()
        search = f"{first}\n{cut}\n"
        if len(words) < 3 or text.count(search) or text.count(cut + "\n"):
            continue
        res = _apply_once(tmp_path, text, search, second + "\n")
        assert res.status is not EditStatus.ALREADY_APPLIED, (search, res.status)
        assert (tmp_path / "m.py").read_text(encoding="utf-8") == text or res.status is EditStatus.APPLIED
        tried += 1
    assert tried


@pytest.mark.parametrize("module", ["argparse.py", "inspect.py", "difflib.py"])
@pytest.mark.parametrize("change", ["delete", "rewrite"])
def test_a_one_line_edit_applied_again_does_not_edit_its_twin_at_another_nesting(
    tmp_path: Path, module: str, change: str
) -> None:
    """A line whose text stands at two indentations: the edit made once, applying it again must not
    carry it onto the other one."""
    text = _stdlib(module)
    lines = text.splitlines()
    by_text: dict[str, set[str]] = {}
    for x in lines:
        if len(x.split()) >= 3:
            by_text.setdefault(x.strip(), set()).add(x)
    twins = [x for shapes in by_text.values() if len(shapes) > 1 for x in sorted(shapes) if text.count(x + "\n") == 1]
    assert twins
    for line in twins[:6]:
        (tmp_path / "m.py").write_text(text, encoding="utf-8")
        block = EditBlock("m.py", line + "\n", "" if change == "delete" else line + "  # checked\n")
        assert editblocks.apply_edits([block], tmp_path, journal=False).results[0].status is EditStatus.APPLIED
        once = (tmp_path / "m.py").read_text(encoding="utf-8")
        again = editblocks.apply_edits([block], tmp_path, journal=False).results[0]
        assert again.status is not EditStatus.APPLIED, (line, again.strategy)
        assert (tmp_path / "m.py").read_text(encoding="utf-8") == once


@pytest.mark.parametrize("module", ["textwrap.py", "calendar.py", "shlex.py"])
def test_search_missing_a_line_is_not_already_applied_by_a_copy_elsewhere(tmp_path: Path, module: str) -> None:
    """SEARCH copied with a line missing, and the intended result already standing elsewhere
    (pasted there): the line the edit rewrites still stands at its place, among the lines it keeps."""
    base = _stdlib(module)
    lines = base.splitlines()
    tried = 0
    for i in range(30, len(lines) - 4, max(1, len(lines) // 12)):
        a, b, c, d = lines[i : i + 4]
        if not all(len(x.split()) >= 2 for x in (a, b, c, d)) or base.count(f"{a}\n{b}\n{c}\n{d}\n") != 1:
            continue
        intended = f"{a}\n{b}\n{c}  # checked\n{d}\n"
        text = base + "\n\n" + intended
        search = f"{a}\n{c}\n{d}\n"  # the second line left out
        if text.count(search):
            continue
        res = _apply_once(tmp_path, text, search, intended)
        assert res.status is not EditStatus.ALREADY_APPLIED, (search, res.status)
        tried += 1
    assert tried


@pytest.mark.parametrize("module", ["calendar.py", "argparse.py", "shlex.py"])
def test_search_shifted_whole_with_replace_in_the_files_indentation_is_never_indented_twice(
    tmp_path: Path, module: str
) -> None:
    """SEARCH copied one level shallower throughout; REPLACE written as the file has it, with a
    line (``else:``) that equals a shifted SEARCH line of another depth: not a sign of SEARCH's
    indentation. The result is the intended file or a refusal."""
    text = _stdlib(module)
    lines = text.splitlines()
    tried = 0
    for i in range(len(lines) - 6):
        span = lines[i : i + 6]
        elses = {x[: len(x) - len(x.lstrip())] for x in span if x.strip() == "else:"}
        if len(elses) < 2 or not all(x.startswith("    ") or not x.strip() for x in span):
            continue
        if text.count("\n".join(span) + "\n") != 1:
            continue
        search = "".join(x[4:] + "\n" for x in span)
        replace = span[0] + "  # checked\n" + "".join(x + "\n" for x in span[1:])
        res = _apply_once(tmp_path, text, search, replace)
        after = (tmp_path / "m.py").read_text(encoding="utf-8")
        intended = text.replace("\n".join(span) + "\n", replace, 1)
        assert after in (text, intended), (span, res.status)
        assert (after == intended) == (res.status is EditStatus.APPLIED)
        tried += 1
    assert tried


@pytest.mark.parametrize("module", ["string.py", "textwrap.py", "shlex.py"])
def test_a_line_added_beside_a_search_line_that_lost_its_indentation_is_never_misplaced(
    tmp_path: Path, module: str
) -> None:
    """SEARCH's second line copied at column 0 (REPLACE repeating it so), and a new line added
    right above it: it goes where the model meant (the file's indentation of that line) or the
    block is refused; never at column 0, never nested elsewhere."""
    text = _stdlib(module)
    lines = text.splitlines()
    tried = 0
    for i in range(0, len(lines) - 3, max(1, len(lines) // 40)):
        a, b, c = lines[i : i + 3]
        ind = b[: len(b) - len(b.lstrip())]
        if not (a.strip() and b.strip() and c.strip() and ind and a.startswith("    ")):
            continue
        if text.count(f"{a}\n{b}\n{c}\n") != 1:
            continue
        search = f"{a}\n{b.strip()}\n{c}\n"
        replace = f"{a}\nnote_value()\n{b.strip()}\n{c}\n"
        res = _apply_once(tmp_path, text, search, replace)
        after = (tmp_path / "m.py").read_text(encoding="utf-8")
        intended = text.replace(f"{a}\n{b}\n{c}\n", f"{a}\n{ind}note_value()\n{b}\n{c}\n", 1)
        assert after in (text, intended), (a, b, res.status)
        tried += 1
    assert tried


def test_a_reply_with_a_line_copied_without_indentation_applied_again_does_not_edit_a_near_twin(
    tmp_path: Path,
) -> None:
    text = (
        "def left(a, x, lo, hi, key=None):\n    if key is None:\n        while lo < hi:\n"
        "            mid = (lo + hi) // 2\n            if x < a[mid]:\n                hi = mid\n"
        "    else:\n        while lo < hi:\n            mid = (lo + hi) // 2\n            if x < key(a[mid]):\n"
        "                hi = mid\n    return lo\n"
    )
    (tmp_path / "m.py").write_text(text)
    block = EditBlock(
        "m.py",
        "            mid = (lo + hi) // 2\n            if x < a[mid]:\nhi = mid\n",
        "            mid = (lo + hi) // 2\n            if x < a[result_index_value_here]:\nhi = mid\n",
    )
    assert editblocks.apply_edits([block], tmp_path).results[0].status is EditStatus.APPLIED
    once = (tmp_path / "m.py").read_text()
    assert "if x < a[result_index_value_here]:\n                hi = mid\n" in once
    again = editblocks.apply_edits([block], tmp_path).results[0]
    assert again.status is not EditStatus.APPLIED
    assert (tmp_path / "m.py").read_text() == once


def _unique_runs(text: str, size: int, limit: int) -> list[list[str]]:
    """Up to ``limit`` runs of ``size`` consecutive lines of ``text``, each line unique in the file,
    holding two words or more (spread over the file)."""
    lines = text.splitlines()
    counts = Counter(x.strip() for x in lines)
    runs = [
        lines[i : i + size]
        for i in range(len(lines) - size + 1)
        if all(len(x.split()) >= 2 and counts[x.strip()] == 1 for x in lines[i : i + size])
    ]
    return runs[:: max(1, len(runs) // limit)][:limit]


@pytest.mark.parametrize("module", ["pprint.py", "calendar.py", "string.py", "shlex.py", "ftplib.py", "fractions.py"])
def test_a_search_missing_its_middle_line_never_edits_another_line(tmp_path: Path, module: str) -> None:
    """SEARCH is three lines of the file with the middle one left out, the middle one like the
    last (``y1 -= 1`` before ``y2 -= 1``), and REPLACE changes the last (still without it): right
    is that edit, the middle line kept, or a refusal; never the change carried onto the line like it."""
    text = _stdlib(module)
    outcomes: Counter[EditStatus] = Counter()
    runs = [r for r in _unique_runs(text, 3, 100_000) if line_similarity(r[1].strip(), r[2].strip()) >= 0.7]
    for a, b, c in runs[:60]:
        meant = text.replace(f"{a}\n{b}\n{c}\n", f"{a}\n{b}\n{c}  # checked\n")
        res = _apply_once(tmp_path, text, f"{a}\n{c}\n", f"{a}\n{c}  # checked\n")
        written = (tmp_path / "m.py").read_text(encoding="utf-8")
        outcomes[res.status] += 1
        assert written in (text, meant), (a, b, c, res.status, res.reason)
        assert (res.status is EditStatus.APPLIED) == (written == meant != text), (a, b, c, res.status)
    assert sum(outcomes.values()) >= 2


@pytest.mark.parametrize("module", ["tarfile.py", "csv.py", "tempfile.py", "heapq.py", "enum.py"])
def test_a_deletion_copied_swapped_and_cut_is_never_called_applied(tmp_path: Path, module: str) -> None:
    """Deleting the first of two lines, SEARCH has them the other way round and the deleted one
    cut short or missing its last word; REPLACE is the kept line. The file still has the line to
    delete: never "already applied", and a placement must delete exactly that line."""
    text = _stdlib(module)
    tried = 0
    for a, b in _unique_runs(text, 2, 80):
        words = a.split()
        for flawed in (a[: len(a) - len(words[-1]) - 1].rstrip(), a.replace(words[-1], "", 1).rstrip()):
            if len(re.findall(r"\w+", flawed)) < 2 or flawed == a:
                continue  # (a single word left is a piece of too many lines to stand for one)
            tried += 1
            meant = text.replace(f"{a}\n{b}\n", f"{b}\n")
            res = _apply_once(tmp_path, text, f"{b}\n{flawed}\n", f"{b}\n")
            written = (tmp_path / "m.py").read_text(encoding="utf-8")
            assert res.status is not EditStatus.ALREADY_APPLIED, (a, b, flawed, res.reason)
            assert written in (text, meant), (a, b, flawed, res.status)
    assert tried >= 10


@pytest.mark.parametrize("module", ["calendar.py", "json/decoder.py", "tarfile.py", "difflib.py"])
def test_a_line_search_left_out_and_replace_restores_never_stands_twice(tmp_path: Path, module: str) -> None:
    """The file has ``a, b, c, b``; SEARCH leaves out the first ``b`` (``a, c, b``) and REPLACE
    restores it while changing the last two lines (``a, b, c', b'``). REPLACE's ``b`` reads as
    SEARCH's last line kept, so carrying the change over keeps the file's ``b`` as well: right is
    the edit meant, or a refusal; never ``b`` twice."""
    text = _stdlib(module)
    lines = text.splitlines()
    tried = 0
    for i in range(len(lines) - 3):
        a, b, c, d = lines[i : i + 4]
        if not (a.strip() and c.strip() and b.strip() and b.strip() == d.strip()):
            continue
        if len({a.strip(), b.strip(), c.strip()}) < 3 or text.count(f"{a}\n{b}\n{c}\n{d}\n") != 1:
            continue
        tried += 1
        c2, d2 = f"{c}  # checked", f"{d[: len(d) - len(d.lstrip())]}finish_step()"
        meant = text.replace(f"{a}\n{b}\n{c}\n{d}\n", f"{a}\n{b}\n{c2}\n{d2}\n")
        res = _apply_once(tmp_path, text, f"{a}\n{c}\n{d}\n", f"{a}\n{b}\n{c2}\n{d2}\n")
        written = (tmp_path / "m.py").read_text(encoding="utf-8")
        assert written in (text, meant), (a, b, c, res.status)
        assert (res.status is EditStatus.APPLIED) == (written == meant), (a, b, c, res.status)
    assert tried >= 3


@pytest.mark.parametrize("module", ["argparse.py", "calendar.py", "textwrap.py"])
def test_replace_restating_the_line_after_an_exact_search_is_refused(tmp_path: Path, module: str) -> None:
    """SEARCH is two lines of the file, found exactly; REPLACE changes the first, keeps the second
    and then restates the file's next line (SEARCH stopped a line short of what REPLACE was
    copied from): written literally, that line would stand twice. Refused, the file untouched;
    the same edit adding a new line instead applies."""
    text = _stdlib(module)
    tried = 0
    for x, a, b, c in _unique_runs(text, 4, 30):
        for restated in (f"{b}\n", f"{b}\n{c}\n"):
            res = _apply_once(tmp_path, text, f"{x}\n{a}\n", f"{x}  # checked\n{a}\n{restated}")
            assert res.status is EditStatus.FAILED, (x, a, restated, res.status)
            assert "would stand twice" in (res.reason or "")
            assert (tmp_path / "m.py").read_text(encoding="utf-8") == text
        res = _apply_once(tmp_path, text, f"{a}\n{b}\n", f"{x}\n{a}\n{b}  # checked\n")
        assert res.status is EditStatus.FAILED and "would stand twice" in (res.reason or ""), (x, a, b, res.status)
        added = f"{a[: len(a) - len(a.lstrip())]}note_step()"
        res = _apply_once(tmp_path, text, f"{x}\n{a}\n", f"{x}  # checked\n{a}\n{added}\n")
        assert res.status is EditStatus.APPLIED, res.reason
        tried += 1
    assert tried >= 10


@pytest.mark.parametrize("module", ["site.py", "calendar.py", "textwrap.py", "argparse.py"])
def test_a_line_search_left_out_restated_with_more_written_to_it_never_stands_twice(
    tmp_path: Path, module: str
) -> None:
    """SEARCH leaves out its second line (``sethelper()`` after ``setcopyright()``); REPLACE has it
    back with a comment written after it. Right is that edit, or a refusal; never the line twice
    (the region taken one line low, the left-out line kept and REPLACE's copy added)."""
    text = _stdlib(module)
    tried = 0
    for a, t, *rest in _unique_runs(text, 5, 60):
        meant = text.replace("\n".join([a, t, *rest]) + "\n", "\n".join([a, f"{t}  # noted", *rest]) + "\n")
        res = _apply_once(tmp_path, text, "\n".join([a, *rest]) + "\n", "\n".join([a, f"{t}  # noted", *rest]) + "\n")
        written = (tmp_path / "m.py").read_text(encoding="utf-8")
        assert written in (text, meant), (a, t, res.status)
        assert (res.status is EditStatus.APPLIED) == (written == meant != text), (a, t, res.status)
        tried += 1
    assert tried >= 20


@pytest.mark.parametrize(
    ("text", "search", "replace"),
    [
        # the next line restated, then more added after it
        ("import os\nimport sys\n\nx = 1\n", "import os\n", "import os\nimport sys\nimport re\n"),
        # SEARCH's last line changed, the next two lines restated
        (
            "def f():\n    x = 1\n    y = 2\n    return x\n",
            "def f():\n    x = 1\n",
            "def f():\n    x = 11\n    y = 2\n    return x\n",
        ),
        # the next line restated at another indentation
        ("def f():\n    x = 1\n    return x\n", "def f():\n    x = 1\n", "def f():\n    x = 2\n        return x\n"),
        # the line before restated, SEARCH's first line changed
        ("class A:\n    def f(self):\n        return 1\n", "    def f(self):\n", "class A:\n    def g(self):\n"),
    ],
)
def test_replace_restating_a_neighbouring_line_of_an_exact_search_is_refused(
    tmp_path: Path, text: str, search: str, replace: str
) -> None:
    res = _apply_once(tmp_path, text, search, replace)
    assert res.status is EditStatus.FAILED and "would stand twice" in (res.reason or ""), res.reason
    assert (tmp_path / "m.py").read_text() == text
