"""Seed 000 (edit-v2, anchored EDIT blocks): one test per item of its "Testing" list, plus its error table."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

import editblocks
from editblocks import EditBlock, EditStatus, parse_reply
from editblocks.cli import main

from .helpers import apply_to, read_tree, v2, write_tree

UTILS = """def calculate(a, b):
    return a + b

def other_function():
    pass
"""

MODIFY = v2(
    "src/utils.py", "def calculate(a, b):\n", "    return a + b\n", "    return a * b\n", "\ndef other_function():\n"
)


# -- unit tests for the parser -------------------------------------------------------------


def test_parse_single_edit_block() -> None:
    parsed = parse_reply(MODIFY)
    assert parsed.format == "edit-v2"
    assert parsed.warnings == []
    assert len(parsed.blocks) == 1
    b = parsed.blocks[0]
    assert (b.file_path, b.leading_anchor, b.old_lines, b.new_lines, b.trailing_anchor) == (
        "src/utils.py",
        "def calculate(a, b):\n",
        "    return a + b\n",
        "    return a * b\n",
        "\ndef other_function():\n",
    )
    assert b.format == "edit-v2"
    assert b.line_number == 2
    assert b.raw_block.startswith("<<<<<<< EDIT\n") and b.raw_block.endswith(">>>>>>>\n")


def test_parse_multiple_edit_blocks_in_one_response() -> None:
    text = MODIFY + "\n" + v2("b.py", "", "x\n", "y\n", "") + v2("c/d.py", "k\n", "", "z\n", "")
    parsed = parse_reply(text)
    assert [b.file_path for b in parsed.blocks] == ["src/utils.py", "b.py", "c/d.py"]
    assert [(b.old_lines, b.new_lines) for b in parsed.blocks[1:]] == [("x\n", "y\n"), ("", "z\n")]
    assert parsed.warnings == []


def test_parse_edit_block_with_surrounding_markdown_text() -> None:
    text = (
        "# Plan\n\nI'll change **calculate** to multiply.\n\n"
        "- step one\n- step two\n\n" + MODIFY + "\nThat's it. Let me know if `other_function` needs changes too.\n"
    )
    parsed = parse_reply(text)
    assert len(parsed.blocks) == 1
    assert parsed.blocks[0].file_path == "src/utils.py"
    assert parsed.blocks[0].new_lines == "    return a * b\n"
    assert parsed.warnings == []


def test_handle_malformed_blocks_gracefully() -> None:
    malformed = [
        "a.py\n<<<<<<< EDIT\nanchor\n",  # unclosed
        "a.py\n<<<<<<< EDIT\nanchor\n-------\nold\n>>>>>>>\n",  # no =======
        "a.py\n<<<<<<< EDIT\nanchor\n=======\nnew\n>>>>>>>\n",  # no -------
        "<<<<<<< EDIT\n-------\nold\n=======\nnew\n-------\n>>>>>>>\n",  # no path
        "a.py\n<<<<<<< EDIT\n<<<<<<< EDIT\n>>>>>>>\n>>>>>>>\n",
    ]
    for text in malformed:
        parsed = parse_reply(text)  # must not raise
        assert parsed.blocks == [], text
        assert parsed.warnings, f"malformed input must not be silent: {text!r}"
        assert all(w.line >= 1 for w in parsed.warnings)


# -- validation ----------------------------------------------------------------------------


def test_validate_exact_matching(root: Path) -> None:
    # Only CRLF -> LF is normalised: a CRLF file matches an LF block ...
    result, files = apply_to(root, {"crlf.py": UTILS.replace("\n", "\r\n")}, MODIFY.replace("src/utils.py", "crlf.py"))
    assert result.results[0].status is EditStatus.APPLIED
    assert result.results[0].strategy == "exact"
    assert files["crlf.py"] == UTILS.replace("a + b", "a * b").replace("\n", "\r\n")
    # ... but any other difference (here: indentation) is refused for edit-v2, whose seed requires exact matching.
    reply = v2("ws.py", "def calculate(a, b):\n", "  return a + b\n", "  return a * b\n", "")
    result, files = apply_to(root, {"ws.py": UTILS}, reply)
    assert result.results[0].status is EditStatus.FAILED
    assert "whitespace" in (result.results[0].reason or "")
    assert files["ws.py"] == UTILS


def test_reject_when_anchor_not_found(root: Path) -> None:
    reply = v2("u.py", "def calculate_sum(a, b):\n", "    return a + b\n", "    return a * b\n", "")
    result, files = apply_to(root, {"u.py": UTILS}, reply)
    res = result.results[0]
    assert res.status is EditStatus.FAILED
    assert res.reason is not None and res.reason.startswith("Leading anchor not found")
    assert files["u.py"] == UTILS


def test_reject_when_multiple_anchor_matches(root: Path) -> None:
    text = "def f():\n    pass\n\ndef g():\n    pass\n\ndef h():\n    pass\n"
    reply = v2("m.py", "", "    pass\n", "    return 1\n", "")
    result, files = apply_to(root, {"m.py": text}, reply)
    res = result.results[0]
    assert res.status is EditStatus.FAILED
    assert "Edit location is ambiguous (matches at lines 2, 5 and 8)" in (res.reason or "")
    assert files["m.py"] == text


def test_reject_when_old_lines_dont_match(root: Path) -> None:
    reply = v2("u.py", "def calculate(a, b):\n", "    return a - b\n", "    return a * b\n", "")
    result, files = apply_to(root, {"u.py": UTILS}, reply)
    res = result.results[0]
    assert res.status is EditStatus.FAILED
    assert (res.reason or "").startswith("Old lines don't match content after anchor")
    assert "line 2" in (res.reason or "")
    assert res.estimated_line == 1
    assert files["u.py"] == UTILS


def test_reject_when_trailing_anchor_not_found(root: Path) -> None:
    reply = v2(
        "u.py", "def calculate(a, b):\n", "    return a + b\n", "    return a * b\n", "def renamed_function():\n"
    )
    result, files = apply_to(root, {"u.py": UTILS}, reply)
    assert (result.results[0].reason or "").startswith("Trailing anchor not found after old lines")
    assert files["u.py"] == UTILS


def test_reject_binary_files(root: Path) -> None:
    data = b"GIF89a\x01\x00\x01\x00\x00\xff\x00return a + b\n"
    reply = v2("img.gif", "", "return a + b\n", "return a * b\n", "")
    result, _ = apply_to(root, {"img.gif": data}, reply)
    res = result.results[0]
    assert res.status is EditStatus.FAILED
    assert "binary" in (res.reason or "").lower()
    assert (root / "img.gif").read_bytes() == data
    assert result.files_modified == []


def test_file_not_found_is_reported(root: Path) -> None:
    result, files = apply_to(root, {"u.py": UTILS}, MODIFY.replace("src/utils.py", "src/nowhere_to_be_found.py"))
    assert result.results[0].status is EditStatus.FAILED
    assert "file not found" in (result.results[0].reason or "").lower()
    assert files == {"u.py": UTILS}


# -- applying ------------------------------------------------------------------------------


def test_apply_modifications_correctly(root: Path) -> None:
    result, files = apply_to(root, {"src/utils.py": UTILS}, MODIFY)
    assert [r.status for r in result.results] == [EditStatus.APPLIED]
    assert files["src/utils.py"] == UTILS.replace("return a + b", "return a * b")
    assert result.files_modified == ["src/utils.py"]


def test_apply_insertions_correctly(root: Path) -> None:
    text = "def existing():\n    pass\n\ndef another():\n    pass\n"
    reply = v2(
        "i.py", "def existing():\n    pass\n", "", "\ndef new_function():\n    return 42\n", "\ndef another():\n"
    )
    result, files = apply_to(root, {"i.py": text}, reply)
    assert result.results[0].status is EditStatus.APPLIED
    assert (
        files["i.py"] == "def existing():\n    pass\n\ndef new_function():\n    return 42\n\ndef another():\n    pass\n"
    )


def test_apply_deletions_correctly(root: Path) -> None:
    text = "def main():\n    deprecated_call()\n    important_call()\n"
    reply = v2("d.py", "def main():\n", "    deprecated_call()\n", "", "    important_call()\n")
    result, files = apply_to(root, {"d.py": text}, reply)
    assert result.results[0].status is EditStatus.APPLIED
    assert files["d.py"] == "def main():\n    important_call()\n"


def test_create_new_files(root: Path) -> None:
    content = '"""New module."""\n\ndef hello():\n    print("Hello!")\n'
    result, files = apply_to(root, {}, v2("src/new_file.py", "", "", content, ""))
    res = result.results[0]
    assert (res.status, res.strategy) == (EditStatus.APPLIED, "create")
    assert files == {"src/new_file.py": content}
    # Creating must never overwrite a file that has content.
    result, files = apply_to(root, {}, v2("src/new_file.py", "", "", "replaced\n", ""))
    assert result.results[0].status is EditStatus.FAILED
    assert "exists" in (result.results[0].reason or "")
    assert files == {"src/new_file.py": content}


def test_handle_empty_anchors_correctly(root: Path) -> None:
    text = "import os\n\ndef f():\n    return final_value\n"
    # Empty leading anchor: insert at the start of the file.
    start = v2("e.py", "", "", '"""Doc."""\n\n', "import os\n")
    # Empty trailing anchor: append at the end of the file.
    end = v2("e.py", "    return final_value\n", "", "\ndef appended():\n    pass\n", "")
    # Both anchors empty but old lines given: a plain replacement of those lines.
    middle = v2("e.py", "", "def f():\n", "def g():\n", "")
    result, files = apply_to(root, {"e.py": text}, start + end + middle)
    assert [r.status for r in result.results] == [EditStatus.APPLIED] * 3, [r.reason for r in result.results]
    assert files["e.py"] == '"""Doc."""\n\nimport os\n\ndef g():\n    return final_value\n\ndef appended():\n    pass\n'


def test_results_carry_seed_fields_and_previews(root: Path) -> None:
    long_anchor = "def calculate(a, b):  # " + "x" * 80 + "\n"
    text = long_anchor + "    return a + b\n"
    reply = v2("p.py", long_anchor, "    return a + b\n", "\n    return a * b\n", "")
    result, _ = apply_to(root, {"p.py": text}, reply)
    res = result.results[0]
    assert res.status is EditStatus.APPLIED
    assert res.file_path == "p.py"
    assert res.reason is None
    assert res.anchor_preview == long_anchor[:50]
    assert res.old_preview == "    return a + b"
    assert res.new_preview == "    return a * b"  # first non-empty line
    assert isinstance(res.block, EditBlock) and res.block.file_path == "p.py"
    assert res.estimated_line == 1
    assert res.reply_line == 2


# -- integration ---------------------------------------------------------------------------


def test_full_flow_parse_apply_verify_file(root: Path) -> None:
    reply = "Sure! Multiply instead of add:\n\n" + MODIFY + "\nDone.\n"
    write_tree(root, {"src/utils.py": UTILS})
    parsed = parse_reply(reply)
    result = editblocks.apply_edits(parsed, root)
    assert result.ok
    assert (root / "src/utils.py").read_text() == UTILS.replace("a + b", "a * b")
    assert "-    return a + b" in result.diffs["src/utils.py"]
    assert "+    return a * b" in result.diffs["src/utils.py"]


def test_streaming_with_edit_detection() -> None:
    """Fed one line at a time, the parser reports the block exactly when its end marker arrives."""
    lines = ("Intro text\n\n" + MODIFY + "\nAfter.\n").split("\n")
    parser = editblocks.get_format("edit-v2").parser()
    emitted_at = []
    inside = []
    for i, line in enumerate(lines, start=1):
        for item in parser.feed(line, i):
            assert isinstance(item, EditBlock)
            emitted_at.append((i, item.file_path, item.new_lines))
        inside.append(parser.in_block())
    assert parser.close(len(lines)) == []
    end_line = lines.index(">>>>>>>") + 1
    assert emitted_at == [(end_line, "src/utils.py", "    return a * b\n")]
    start_line = lines.index("<<<<<<< EDIT") + 1
    assert inside[start_line - 1 : end_line - 1] == [True] * (end_line - start_line)
    assert not inside[end_line - 1]


def test_streaming_reply_cut_mid_block_reports_it_on_close() -> None:
    lines = MODIFY.split("\n")[:5]
    parser = editblocks.get_format("edit-v2").parser()
    items = [item for i, line in enumerate(lines, start=1) for item in parser.feed(line, i)]
    assert items == []
    closing = parser.close(len(lines))
    assert len(closing) == 1 and "truncated" in closing[0].message  # type: ignore[union-attr]


def test_multiple_edits_to_same_file_in_sequence(root: Path) -> None:
    text = "a = 1\nb = 2\n"
    first = v2("s.py", "a = 1\n", "", "c = 3\n", "b = 2\n")  # insert c between a and b
    second = v2("s.py", "c = 3\n", "b = 2\n", "b = 20\n", "")  # sees the line the first edit added
    result, files = apply_to(root, {"s.py": text}, first + second)
    assert [r.status for r in result.results] == [EditStatus.APPLIED, EditStatus.APPLIED]
    assert files["s.py"] == "a = 1\nc = 3\nb = 20\n"


def test_mix_of_successful_and_failed_edits(root: Path) -> None:
    files_before = {"ok.py": "x = 1\n", "bad.py": "y = 1\n", "ok2.py": "z = 1\n"}
    reply = (
        v2("ok.py", "", "x = 1\n", "x = 2\n", "")
        + v2("bad.py", "no such anchor\n", "y = 1\n", "y = 2\n", "")
        + v2("bad.py", "", "y = 1\n", "y = 3\n", "")
        + v2("ok2.py", "", "z = 1\n", "z = 2\n", "")
    )
    result, files = apply_to(root, files_before, reply)
    assert [(r.file_path, r.status) for r in result.results] == [
        ("ok.py", EditStatus.APPLIED),
        ("bad.py", EditStatus.FAILED),
        ("bad.py", EditStatus.SKIPPED),
        ("ok2.py", EditStatus.APPLIED),
    ]
    assert result.results[2].reason == "previous edit to this file failed"
    assert files == {"ok.py": "x = 2\n", "bad.py": "y = 1\n", "ok2.py": "z = 2\n"}
    assert sorted(result.files_modified) == ["ok.py", "ok2.py"]
    assert not result.ok
    assert [len(result.applied), len(result.failed), len(result.skipped)] == [2, 1, 1]


def test_ui_displays_results_correctly(root: Path, tmp_path: Path) -> None:
    write_tree(root, {"ok.py": "x = 1\n", "bad.py": "y = 1\n"})
    reply_file = tmp_path / "reply.md"
    reply_file.write_text(v2("ok.py", "", "x = 1\n", "x = 2\n", "") + v2("bad.py", "nope\n", "y = 1\n", "y = 2\n", ""))
    out = CliRunner().invoke(main, ["apply", str(reply_file), "--root", str(root)])
    assert out.exit_code == 1
    text = " ".join(out.output.split())
    for needle in (
        "ok.py",
        "bad.py",
        "applied",
        "failed",
        "Leading anchor not found",
        "1 applied, 1 failed, 0 skipped",
        "+x = 2",
    ):
        assert needle in text, (needle, out.output)
    assert read_tree(root)["bad.py"] == b"y = 1\n"
