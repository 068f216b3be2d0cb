"""Parsing rules users rely on: markers, paths, fences, wrappers, malformed and truncated replies, shell suggestions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import editblocks
from editblocks import EditBlock, ParseWarning, parse_reply
from editblocks.formats import detect_format

from .helpers import sr, v2, v3

BODY = "<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n"


def only_block(text: str, format: str | None = None) -> EditBlock:
    parsed = parse_reply(text, format)
    assert len(parsed.blocks) == 1, (parsed.blocks, parsed.warnings)
    return parsed.blocks[0]


# -- markers -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [5, 6, 7, 8, 9])
def test_marker_runs_of_5_to_9_are_accepted(n: int) -> None:
    text = f"a.py\n```\n{'<' * n} SEARCH\nold\n{'=' * n}\nnew\n{'>' * n} REPLACE\n```\n"
    block = only_block(text)
    assert (block.file_path, block.old_lines, block.new_lines) == ("a.py", "old\n", "new\n")


@pytest.mark.parametrize("n", [4, 10])
def test_marker_runs_outside_5_to_9_are_not_markers(n: int) -> None:
    text = f"a.py\n```\n{'<' * n} SEARCH\nold\n{'=' * n}\nnew\n{'>' * n} REPLACE\n```\n"
    assert parse_reply(text).blocks == []


def test_search_marker_with_trailing_angle_bracket() -> None:
    block = only_block("a.py\n```\n<<<<<<< SEARCH>\nold\n=======\nnew\n>>>>>>> REPLACE\n```\n")
    assert (block.old_lines, block.new_lines) == ("old\n", "new\n")


def test_markers_may_have_surrounding_spaces() -> None:
    block = only_block("a.py\n  <<<<<<< SEARCH  \nold\n  =======\t\nnew\n >>>>>>> REPLACE \n")
    assert (block.old_lines, block.new_lines) == ("old\n", "new\n")


@pytest.mark.parametrize(
    "content",
    [
        'sep = "======="',
        "# ======= section =======",
        "x <<<<<<< SEARCH",
        "============",  # an .rst underline longer than a marker
        "=====x",
        "print('>>>>>>> REPLACE')",
    ],
)
def test_lines_merely_containing_marker_text_are_content(content: str) -> None:
    text = f"a.py\n```\n<<<<<<< SEARCH\nbefore\n{content}\nafter\n=======\nbefore\n{content}\nchanged\n>>>>>>> REPLACE\n```\n"
    block = only_block(text)
    assert block.old_lines == f"before\n{content}\nafter\n"
    assert block.new_lines == f"before\n{content}\nchanged\n"
    assert parse_reply(text).warnings == []


def test_replace_may_end_with_bare_closing_marker() -> None:
    block = only_block("a.py\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>>\n")
    assert block.new_lines == "new\n"


def test_content_whitespace_is_preserved_verbatim() -> None:
    old = "\tdef f():\n    \treturn 1   \n\n  \n"
    new = "  x = 1\t\n\n"
    block = only_block(sr("a.py", old, new))
    assert (block.old_lines, block.new_lines) == (old, new)


def test_crlf_reply_gives_lf_sections() -> None:
    text = "a.py\r\n```\r\n<<<<<<< SEARCH\r\nold\r\n=======\r\nnew\r\n>>>>>>> REPLACE\r\n```\r\n"
    block = only_block(text)
    assert (block.file_path, block.old_lines, block.new_lines) == ("a.py", "old\n", "new\n")


# -- paths ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "src/app.py",
        "**src/app.py**",
        "`src/app.py`",
        "**`src/app.py`**",
        "# src/app.py",
        "### src/app.py",
        "// src/app.py",
        "src/app.py:",
        "`src/app.py`:",
        '"src/app.py"',
        "'src/app.py'",
        "File: src/app.py",
        "In `src/app.py`:",
        "  src/app.py  ",
    ],
)
def test_path_line_decorations_are_stripped(line: str) -> None:
    assert only_block(f"{line}\n```python\n{BODY}```\n").file_path == "src/app.py"


@pytest.mark.parametrize("tag", ["php", "sql", "python", "typescript", "bash", "json", "diff", "text"])
def test_language_tag_alone_is_never_a_path(tag: str) -> None:
    for text in (f"```{tag}\n{BODY}```\n", f"{tag}\n```{tag}\n{BODY}```\n"):
        parsed = parse_reply(text)
        assert parsed.blocks == []
        assert any("no file path" in w.message for w in parsed.warnings)


@pytest.mark.parametrize(
    "line",
    ["Here is the change:", "Update the function as follows", "1.5", "e.g.", "...", "Note: this is important."],
)
def test_prose_before_a_block_is_not_a_path(line: str) -> None:
    parsed = parse_reply(f"{line}\n```\n{BODY}```\n")
    assert parsed.blocks == []
    assert [w.line for w in parsed.warnings] == [3]


def test_bare_well_known_file_names_are_paths() -> None:
    assert only_block(f"Makefile\n```make\n{BODY}```\n").file_path == "Makefile"
    assert only_block(f"Dockerfile\n```dockerfile\n{BODY}```\n").file_path == "Dockerfile"


def test_path_found_by_looking_back_over_fence_and_blank_lines() -> None:
    block = only_block(f"src/a.py\n\n````python\n\n{BODY}````\n")
    assert block.file_path == "src/a.py"
    assert block.format == "diff"


def test_look_back_stops_after_three_lines() -> None:
    # The path is four non-blank lines above the marker: too far to be the block's path.
    parsed = parse_reply(f"src/a.py\n```\n```\n```\n{BODY}")
    assert parsed.blocks == []


def test_look_back_does_not_jump_over_prose() -> None:
    parsed = parse_reply(f"src/a.py\nSome explanation of the change.\n```\n{BODY}```\n")
    assert parsed.blocks == []
    assert parsed.warnings and parsed.warnings[0].line == 4


def test_path_inside_fence_is_diff_fenced() -> None:
    block = only_block(f"````python\nsrc/a.py\n{BODY}````\n")
    assert (block.file_path, block.format) == ("src/a.py", "diff-fenced")


def test_block_without_path_reuses_previous_blocks_path() -> None:
    text = sr("lib/x.py", "a\n", "b\n") + "\nAnd also:\n\n```\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n```\n"
    parsed = parse_reply(text)
    assert [b.file_path for b in parsed.blocks] == ["lib/x.py", "lib/x.py"]
    assert parsed.blocks[1].old_lines == "c\n"


@pytest.mark.parametrize(
    "prose",
    ["Now update tests/test_app.py as well:", "Next, the same import in conftest.py.", "And in **README.md**:"],
)
def test_block_after_prose_naming_another_file_does_not_reuse_the_previous_path(prose: str) -> None:
    second = "```python\n<<<<<<< SEARCH\nimport os\n=======\nimport os\nimport pytest\n>>>>>>> REPLACE\n```\n"
    text = sr("app.py", "import os\n", "import os\nimport sys\n") + f"\n{prose}\n\n" + second
    parsed = parse_reply(text)
    # Editing app.py with the second block would be a wrong edit: it is refused with a warning instead.
    assert [b.file_path for b in parsed.blocks] == ["app.py"]
    assert [w.line for w in parsed.warnings if "no file path" in w.message] == [
        text.split("\n").index("<<<<<<< SEARCH", 3) + 1
    ]


@pytest.mark.parametrize(
    "prose",
    [
        "Also in app.py, the second import:",
        "And the next change, for and/or handling:",
        "It needs Python 3.12 or later:",
    ],
)
def test_block_after_prose_about_the_same_file_reuses_its_path(prose: str) -> None:
    second = "```python\n<<<<<<< SEARCH\nimport os\n=======\nimport os\nimport pytest\n>>>>>>> REPLACE\n```\n"
    text = sr("src/app.py", "import os\n", "import os\nimport sys\n") + f"\n{prose}\n\n" + second
    assert [b.file_path for b in parse_reply(text).blocks] == ["src/app.py", "src/app.py"]


def test_first_block_without_any_path_is_a_warning_with_its_line() -> None:
    text = "Some intro\n\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n\n" + sr("ok.py", "c\n", "d\n")
    parsed = parse_reply(text)
    assert [b.file_path for b in parsed.blocks] == ["ok.py"]
    assert [(w.line, "no file path" in w.message) for w in parsed.warnings] == [(3, True)]


def test_edit_colon_fence_carries_the_path() -> None:
    block = only_block(f"```edit:src/components/Hero.tsx\n{BODY}```\n")
    assert block.file_path == "src/components/Hero.tsx"


def test_fence_info_that_is_a_path_carries_the_path() -> None:
    assert only_block(f"```src/a.py\n{BODY}```\n").file_path == "src/a.py"


def test_bolt_action_edit_wrapper_with_path_line() -> None:
    block = only_block(f'<boltAction type="edit">\nsrc/App.tsx\n{BODY}</boltAction>\n')
    assert (block.file_path, block.old_lines, block.new_lines) == ("src/App.tsx", "old\n", "new\n")


def test_bolt_action_edit_wrapper_with_file_path_attribute() -> None:
    block = only_block(f'<boltAction type="edit" filePath="src/App.tsx">\n{BODY}</boltAction>\n')
    assert block.file_path == "src/App.tsx"


@pytest.mark.parametrize(
    "open_, close",
    [("<source>", "</source>"), ("<code>", "</code>"), ("<pre>", "</pre>"), ("~~~", "~~~"), ("`````", "`````")],
)
def test_tag_and_alternative_fences(open_: str, close: str) -> None:
    block = only_block(f"src/a.py\n{open_}\n{BODY}{close}\n")
    assert (block.file_path, block.old_lines) == ("src/a.py", "old\n")


@pytest.mark.parametrize(
    "render",
    [
        lambda: "a.py\n```\n" + v2("a.py", "x\n", "y\n", "z\n", "").split("\n", 1)[1] + "```\n",
        lambda: "```\n" + v3("a.py", "x\ny\n", "x\nz\n") + "```\n",
        lambda: "a.py\n~~~text\n" + v3("a.py", "x\ny\n", "x\nz\n").split("\n", 1)[1] + "~~~\n",
    ],
)
def test_fences_around_edit_blocks_are_optional(render: Callable[[], str]) -> None:
    block = only_block(render())
    assert (block.file_path, block.anchor, block.old_lines, block.new_lines) == ("a.py", "x\n", "y\n", "z\n")


# -- formats and detection ---------------------------------------------------------------


def test_every_issue_format_is_registered() -> None:
    assert set(editblocks.FORMATS) == {
        "diff",
        "diff-fenced",
        "editor-diff",
        "editor-diff-fenced",
        "edit-v2",
        "edit-v3",
        "file-sections",
        "patch",
        "udiff",
        "cline",
        "whole",
        "lazy",
    }
    for fmt in editblocks.FORMATS.values():
        assert fmt.description and "\n" not in fmt.description


def test_get_format_unknown_name_lists_known_ones() -> None:
    with pytest.raises(ValueError, match="edit-v2"):
        editblocks.get_format("no-such-format")


@pytest.mark.parametrize(
    "text, name",
    [
        (sr("a.py", "x\n", "y\n"), "diff"),
        (v2("a.py", "x\n", "y\n", "z\n", ""), "edit-v2"),
        (v3("a.py", "x\n", "y\n"), "edit-v3"),
        ("### File: a.py\n" + BODY, "file-sections"),
    ],
)
def test_detect_and_parse_report_the_format(text: str, name: str) -> None:
    assert detect_format(text) == name
    assert parse_reply(text).format == name


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Just some prose.\n\nNothing to see.",
        "```python\ndef f():\n    return '=======' \n```\n",
        "Title\n=======\n\nSubtitle\n-------\n",
        "<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> branch\n",
        "<< SEARCH >> and ==== and >>>> are just words here\n",
    ],
)
def test_ordinary_prose_and_code_are_never_blocks(text: str) -> None:
    parsed = parse_reply(text)
    assert parsed.blocks == []
    assert detect_format(text) is None


def test_a_diff_fence_is_a_udiff_block() -> None:
    """A ```diff fence with file headers is an edit in the ``udiff`` format, not ordinary code."""
    parsed = parse_reply("```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n```\n")
    assert [(b.file_path, b.format, b.old_lines, b.new_lines, b.hint_line) for b in parsed.blocks] == [
        ("x", "udiff", "a\n", "b\n", 1)
    ]


def test_mixed_reply_is_parsed_block_by_block_in_reply_order() -> None:
    text = "\n".join(
        [
            v3("c.py", "c\n", "C\n"),
            sr("a.py", "a\n", "A\n"),
            v2("b.py", "", "b\n", "B\n", ""),
            "### File: d.py\n" + BODY,
        ]
    )
    parsed = parse_reply(text)
    assert [(b.file_path, b.format) for b in parsed.blocks] == [
        ("c.py", "edit-v3"),
        ("a.py", "diff"),
        ("b.py", "edit-v2"),
        ("d.py", "file-sections"),
    ]
    assert [b.line_number for b in parsed.blocks] == sorted(b.line_number for b in parsed.blocks)
    assert parsed.warnings == []


def test_forced_format_ignores_other_formats() -> None:
    text = sr("a.py", "a\n", "A\n") + v2("b.py", "", "b\n", "B\n", "")
    assert [b.file_path for b in parse_reply(text, "edit-v2").blocks] == ["b.py"]
    assert [b.file_path for b in parse_reply(text, "diff").blocks] == ["a.py"]


def test_block_line_numbers_point_into_the_reply() -> None:
    text = "intro\n\n" + sr("a.py", "x\n", "y\n")
    block = only_block(text)
    lines = text.split("\n")
    assert lines[block.line_number - 1] == "<<<<<<< SEARCH"
    assert lines[block.end_line - 1] == ">>>>>>> REPLACE"
    assert "<<<<<<< SEARCH" in block.raw_block and ">>>>>>> REPLACE" in block.raw_block


# -- malformed and truncated replies -------------------------------------------------------


def _good(path: str) -> str:
    return sr(path, f"{path} old\n", f"{path} new\n")


@pytest.mark.parametrize(
    "bad, offset, needle",
    [
        ("bad.py\n```\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n```\n", 3, "separator"),
        ("bad.py\n<<<<<<< EDIT\nx\n=======\ny\n>>>>>>>\n", 2, "-------"),
        ("bad.py\n<<<<<<< EDIT\nx\n-------\ny\n>>>>>>>\n", 2, "======="),
        ("bad.py\n««« EDIT\nx\ny\n»»» EDIT END\n", 2, "REPL"),
    ],
)
def test_malformed_block_is_a_warning_and_neighbours_survive(bad: str, offset: int, needle: str) -> None:
    prefix = _good("first.py") + "\n"
    text = prefix + bad + "\n" + _good("last.py")
    parsed = parse_reply(text)
    assert [b.file_path for b in parsed.blocks] == ["first.py", "last.py"]
    assert parsed.blocks[1].old_lines == "last.py old\n"
    bad_start = prefix.count("\n") + offset
    assert any(needle in w.message and w.line == bad_start for w in parsed.warnings), parsed.warnings
    for w in parsed.warnings:
        assert isinstance(w, ParseWarning) and w.line >= 1 and str(w).startswith(f"line {w.line}: ")


@pytest.mark.parametrize(
    "unclosed",
    [
        "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n",  # no REPLACE marker
        "a.py\n<<<<<<< SEARCH\nx\ny\n",  # no separator either
    ],
)
def test_unclosed_block_does_not_swallow_the_next_one(unclosed: str) -> None:
    text = unclosed + "\nNow the second file:\n\nb.py\n```\n<<<<<<< SEARCH\nz\n=======\nw\n>>>>>>> REPLACE\n```\n"
    parsed = parse_reply(text)
    assert [(b.file_path, b.old_lines, b.new_lines) for b in parsed.blocks] == [("b.py", "z\n", "w\n")]
    assert any(w.line == 2 and "block ignored" in w.message for w in parsed.warnings)


def test_unclosed_edit_blocks_do_not_swallow_the_next_one() -> None:
    v2_text = "a.py\n<<<<<<< EDIT\nx\n-------\n\nb.py\n" + v2("b.py", "", "z\n", "w\n", "").split("\n", 1)[1]
    v3_text = "a.py\n««« EDIT\nx\n\n" + v3("b.py", "z\n", "w\n")
    for text in (v2_text, v3_text):
        parsed = parse_reply(text)
        assert [(b.file_path, b.old_lines, b.new_lines) for b in parsed.blocks] == [("b.py", "z\n", "w\n")], text
        assert [w.line for w in parsed.warnings] == [2]


def test_stray_replace_marker_is_a_warning() -> None:
    parsed = parse_reply("Some text\n>>>>>>> REPLACE\n")
    assert parsed.blocks == []
    assert any(w.line == 2 for w in parsed.warnings)


def test_mismatched_marker_counts_are_reported() -> None:
    text = _good("a.py") + "b.py\n<<<<<<< SEARCH\nx\n=======\ny\n"
    messages = [w.message for w in parse_reply(text).warnings]
    assert "Mismatched SEARCH/REPLACE: 2 SEARCH vs 1 REPLACE" in messages


@pytest.mark.parametrize("cut", range(3, 9))
def test_truncated_reply_keeps_complete_blocks_and_warns_for_the_cut_one(cut: int) -> None:
    second = ["b.py", "```", "<<<<<<< SEARCH", "b1", "b2", "=======", "B1", "B2", ">>>>>>> REPLACE", "```", ""]
    # The reply stops after its SEARCH marker and before its REPLACE marker.
    text = _good("a.py") + "\n" + "\n".join(second[:cut]) + "\n"
    parsed = parse_reply(text)
    assert [b.file_path for b in parsed.blocks] == ["a.py"]
    cut_start = _good("a.py").count("\n") + 1 + 3
    assert [w.line for w in parsed.warnings if "truncated" in w.message] == [cut_start], parsed.warnings


@pytest.mark.parametrize(
    "text",
    [
        v2("a.py", "x\n", "y\n", "z\n", "w\n").rsplit(">>>>>>>", 1)[0],
        v3("a.py", "x\n", "y\n").rsplit("»»» EDIT END", 1)[0],
        "### File: a.py\n<<<<<<< NEW_FILE\ncontent\n",
    ],
)
def test_truncated_reply_in_every_family(text: str) -> None:
    parsed = parse_reply(text)
    assert parsed.blocks == []
    assert [w.line for w in parsed.warnings if "truncated" in w.message] == [2]


# -- shell suggestions ---------------------------------------------------------------------


def test_inline_shell_suggestions_are_collected() -> None:
    text = "Remove it with `git rm old.py`, rename with `git mv a.py b.py`, `mkdir -p src/x` and `rm -rf build`.\n"
    assert parse_reply(text).shell_suggestions == [
        "git rm old.py",
        "git mv a.py b.py",
        "mkdir -p src/x",
        "rm -rf build",
    ]


@pytest.mark.parametrize("lang", ["bash", "sh", "shell", "console"])
def test_fenced_shell_block_lines_are_collected(lang: str) -> None:
    text = f"Run:\n\n```{lang}\n$ pip install -e .\n# a comment\n\npytest -q\n```\n"
    assert parse_reply(text).shell_suggestions == ["pip install -e .", "pytest -q"]


def test_shell_fence_holding_an_edit_block_is_not_a_shell_suggestion() -> None:
    text = "scripts/build.sh\n```bash\n<<<<<<< SEARCH\necho a\n=======\necho b\n>>>>>>> REPLACE\n```\n\n```bash\nmake test\n```\n"
    parsed = parse_reply(text)
    assert [b.file_path for b in parsed.blocks] == ["scripts/build.sh"]
    assert parsed.shell_suggestions == ["make test"]


def test_shell_text_inside_edit_content_or_other_code_is_not_collected() -> None:
    text = (
        sr("README.md", "Old\n", "Run `git rm junk.txt` first.\n")
        + "\n```python\nos.system('rm -rf /tmp/x')  # `rm -rf /tmp/x`\n```\n"
    )
    assert parse_reply(text).shell_suggestions == []


def test_shell_suggestions_are_deduplicated_and_never_run(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("still here\n")
    text = f"`rm -rf {victim}` and again `rm -rf {victim}`\n" + sr("a.txt", "", "x\n")
    result = editblocks.apply_edits(text, tmp_path)
    assert result.shell_suggestions == [f"rm -rf {victim}"]
    assert victim.read_text() == "still here\n"


def test_parse_response_rejects_non_text() -> None:
    with pytest.raises(TypeError):
        parse_reply(b"a.py\n<<<<<<< SEARCH\n")  # type: ignore[arg-type]


def test_blocks_made_by_the_parsers_fast_path_are_ordinary_blocks() -> None:
    import dataclasses

    from editblocks.models import make_block

    values = {
        "old_lines": "a\n",
        "new_lines": "b\n",
        "format": "edit-v2",
        "line_number": 3,
        "end_line": 9,
        "hint_line": 4,
    }
    made, built = make_block("src/a.py", **values), EditBlock("src/a.py", **values)
    assert made == built and hash(made) == hash(built) and repr(made) == repr(built)
    assert dataclasses.replace(made, new_lines="c\n") == EditBlock("src/a.py", **{**values, "new_lines": "c\n"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.file_path = "other.py"  # type: ignore[misc]
    with pytest.raises(TypeError, match="no field 'old_line'"):
        make_block("src/a.py", old_line="x\n")


def test_parse_lines_refuses_lines_that_hold_line_endings() -> None:
    from editblocks.reading.reader import parse_lines

    lines = ["a.py", "<<<<<<< SEARCH", "x", "=======", "y", ">>>>>>> REPLACE"]
    assert [b.file_path for b in parse_lines(lines).blocks] == ["a.py"]
    with pytest.raises(ValueError, match="without line endings"):
        parse_lines(["a.py\n<<<<<<< SEARCH", "x", "=======", "y", ">>>>>>> REPLACE"])


@pytest.mark.parametrize("info", [":x", " :sh", ":", "  "])
def test_a_fence_whose_info_has_no_word_before_a_colon_is_read(info: str) -> None:
    """```` ```:x ```` once raised IndexError while looking for shell commands."""
    reply = (
        f"Run this:\n```{info}\nrm -rf build\n```\n"
        + "a.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"
    )
    parsed = parse_reply(reply)
    assert [b.replace_text for b in parsed.blocks] == ["x = 2\n"]
    assert parsed.shell_suggestions == []
