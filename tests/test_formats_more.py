"""The formats models write besides SEARCH/REPLACE: apply_patch (``patch``), unified diffs (``udiff``),
whole files (``whole``), Cline's markers (``cline``), and Roo's ``:start_line:`` hints in ``diff``."""

from __future__ import annotations

from pathlib import Path

import pytest

import editblocks
from editblocks import EditBlock, StreamParser, parse_reply
from editblocks.formats import detect_format, get_format
from editblocks.formats.whole import partial_reason
from editblocks.reading.stream import BlockCompleted, BlockProgress

from .helpers import apply_to


def blocks_of(text: str, fmt: str | None = None) -> list[EditBlock]:
    return parse_reply(text, fmt).blocks


def warnings_of(text: str, fmt: str | None = None) -> list[str]:
    return [w.message for w in parse_reply(text, fmt).warnings]


def streamed(text: str, fmt: str | None = None, size: int = 3) -> list[EditBlock]:
    """The blocks a reply gives when it arrives in small chunks; their progress adds up to their texts."""
    stream = StreamParser(fmt)
    events = [e for i in range(0, len(text), size) for e in stream.feed(text[i : i + size])] + stream.close()
    done = [e.block for e in events if isinstance(e, BlockCompleted)]
    for block in done:
        old = "".join(e.old_added for e in events if isinstance(e, BlockProgress) and e.reply_line == block.line_number)
        new = "".join(e.new_added for e in events if isinstance(e, BlockProgress) and e.reply_line == block.line_number)
        assert (old, new) == (block.search_text, block.replace_text), block
    return done


# -- patch -------------------------------------------------------------------------------------

PATCH = """Plan: two chunks, a new file, a deletion.

*** Begin Patch
*** Update File: src/app.py
*** Move to: src/main.py
@@ class App:
@@     def run(self):
         self.start()
-        self.wait()
+        self.wait(timeout=5)

         self.stop()
@@
-DEBUG = True
+DEBUG = False
*** Add File: src/new.py
+first

+third
*** Delete File: src/old.py
*** Update File: src/tail.py
@@
+appended
*** End of File
*** End Patch
"""


def test_patch_blocks() -> None:
    blocks = blocks_of(PATCH)
    got = [(b.file_path, b.kind, b.old_lines, b.new_lines, b.scope, b.at_end, b.move_to) for b in blocks]
    assert got == [
        (
            "src/app.py",
            "edit",
            "        self.start()\n        self.wait()\n\n        self.stop()\n",
            "        self.start()\n        self.wait(timeout=5)\n\n        self.stop()\n",
            ("class App:", "    def run(self):"),
            False,
            None,
        ),
        # The move comes with the file's last chunk: it happens only when every chunk applied.
        ("src/app.py", "move", "DEBUG = True\n", "DEBUG = False\n", (), False, "src/main.py"),
        ("src/new.py", "create", "", "first\n\nthird\n", (), False, None),
        ("src/old.py", "delete", "", "", (), False, None),
        ("src/tail.py", "edit", "", "appended\n", (), True, None),
    ]
    assert {b.format for b in blocks} == {"patch"}
    assert warnings_of(PATCH) == []
    assert detect_format(PATCH) == "patch"
    # The first chunk's block covers the file header; blocks never overlap.
    assert blocks[0].line_number == 4
    assert all(a.end_line < b.line_number for a, b in zip(blocks, blocks[1:]))
    assert streamed(PATCH) == blocks == blocks_of(PATCH, "patch")


def test_patch_round_trips() -> None:
    blocks = blocks_of(PATCH)
    again = blocks_of(get_format("patch").render_blocks(blocks), "patch")
    assert [b.same_edit(a) and b.scope == a.scope and b.at_end == a.at_end for a, b in zip(blocks, again)] == [True] * 5


@pytest.mark.parametrize(
    "body, warning",
    [
        ("*** Update File: a.py\n@@\n x\nprose in the middle\n-y\n", "is not a context"),
        ("*** Add File: a.py\n+x\nno plus sign\n", "does not start with '+'"),
        ("*** Update File: a.py\n*** Add File: b.py\n+x\n", "has no chunks"),
        ("*** Frobnicate File: a.py\n", "unknown patch line"),
        ("*** Update File: a.py\n@@\n-x\n+y\n*** Move to: b.py\n", "must follow"),
    ],
)
def test_patch_malformed_parts_are_refused(body: str, warning: str) -> None:
    text = f"*** Begin Patch\n{body}*** End Patch\n"
    assert any(warning in w for w in warnings_of(text)), warnings_of(text)
    assert not any(b.file_path == "a.py" and b.kind == "edit" and b.new_lines == "x = 1\n" for b in blocks_of(text))


def test_patch_truncated_reply_loses_the_open_part_only() -> None:
    text = "*** Begin Patch\n*** Update File: a.py\n@@\n-a\n+b\n@@\n-c\n+d"
    assert [(b.old_lines, b.new_lines) for b in blocks_of(text)] == [("a\n", "b\n")]
    assert any("truncated" in w for w in warnings_of(text))
    # A delete on the last line of a cut reply may name a cut path: it is not kept.
    cut = "*** Begin Patch\n*** Update File: a.py\n@@\n-a\n+b\n*** Delete File: src/ap"
    assert [b.kind for b in blocks_of(cut)] == ["edit"]
    assert any("deleting src/ap" in w for w in warnings_of(cut))


def test_patch_closed_by_a_fence_without_end_patch() -> None:
    text = "```\n*** Begin Patch\n*** Update File: a.py\n@@\n-a\n+b\n```\nDone.\n"
    assert [(b.old_lines, b.new_lines) for b in blocks_of(text)] == [("a\n", "b\n")]
    assert any("no '*** End Patch'" in w for w in warnings_of(text))


def test_patch_markers_inside_chunks_need_their_prefix() -> None:
    """Inside a chunk a line of the file that looks like a marker has its one-character prefix."""
    text = "*** Begin Patch\n*** Update File: a.md\n@@\n ** note **\n-*** Begin Patch\n+*** End Patch here\n*** End Patch\n"
    (block,) = blocks_of(text)
    assert block.old_lines == "** note **\n*** Begin Patch\n"
    assert block.new_lines == "** note **\n*** End Patch here\n"


# -- udiff -------------------------------------------------------------------------------------

UDIFF = """Here is the diff:

```diff
--- a/src/app.py
+++ b/src/app.py
@@ -10,4 +10,5 @@ class App:
     def run(self):
         self.start()
-        self.wait()
+        self.wait(timeout=5)
+        self.log()

@@ -30,3 +31,3 @@
 x = 1
--- y
+++ z
 w = 2
--- /dev/null
+++ b/src/new.py
@@ -0,0 +1,2 @@
+a
+b
--- a/src/old.py
+++ /dev/null
@@ -1,2 +0,0 @@
-gone
-too
```
"""


def test_udiff_blocks() -> None:
    blocks = blocks_of(UDIFF)
    got = [(b.file_path, b.kind, b.old_lines, b.new_lines, b.hint_line) for b in blocks]
    assert got == [
        # The empty line before the next '@@' ends the hunk: it is not context.
        (
            "src/app.py",
            "edit",
            "    def run(self):\n        self.start()\n        self.wait()\n",
            "    def run(self):\n        self.start()\n        self.wait(timeout=5)\n        self.log()\n",
            10,
        ),
        # '--- y' then '+++ z' inside a hunk whose counts are not met: a removed and an added line
        # ('-- y', '++ z'), and the hint is moved by the line the first hunk added.
        ("src/app.py", "edit", "x = 1\n-- y\nw = 2\n", "x = 1\n++ z\nw = 2\n", 31),
        ("src/new.py", "create", "", "a\nb\n", None),
        ("src/old.py", "delete", "gone\ntoo\n", "", None),
    ]
    assert warnings_of(UDIFF) == []
    assert detect_format(UDIFF) == "udiff"
    assert streamed(UDIFF) == blocks


def test_udiff_paths_and_headers() -> None:
    text = "--- src/a.py\t2024-01-01 10:00:00\n+++ src/a.py\t2024-01-02 10:00:00\n@@ -1 +1 @@\n-a\n+b\n"
    assert [(b.file_path, b.hint_line) for b in blocks_of(text)] == [("src/a.py", 1)]
    # A file really under a/: only git's paired prefixes are dropped.
    text = "--- a/x.py\n+++ a/x.py\n@@ -1 +1 @@\n-a\n+b\n"
    assert [b.file_path for b in blocks_of(text)] == ["a/x.py"]
    # A hunk without file headers takes its path from the line before the fence.
    text = "In `src/b.py`:\n```diff\n@@ ... @@\n-a\n+b\n```\n"
    assert [(b.file_path, b.hint_line) for b in blocks_of(text)] == [("src/b.py", None)]
    assert any("no file path" in w for w in warnings_of("```diff\n@@ -1 +1 @@\n-a\n+b\n```\n"))


def test_udiff_blank_lines() -> None:
    # Inside a fence, an empty line between hunk lines is a blank context line; at the end it is dropped.
    text = "```diff\n--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n a\n\n-b\n+c\n\n```\n"
    (block,) = blocks_of(text)
    assert (block.old_lines, block.new_lines) == ("a\n\nb\n", "a\n\nc\n")
    # Unfenced, an empty line after the counts are met ends the hunk: a list item after it is prose.
    text = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\n- a point about it\n"
    (block,) = blocks_of(text)
    assert (block.old_lines, block.new_lines) == ("a\nb\n", "a\nc\n")


def test_udiff_miscounted_hunk_is_read_by_its_lines() -> None:
    text = "```diff\n--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n a\n-b\n+c\n d\n```\n"
    (block,) = blocks_of(text)
    assert (block.old_lines, block.new_lines) == ("a\nb\nd\n", "a\nc\nd\n")


def test_udiff_refusals() -> None:
    only_added = "```diff\n--- a/f\n+++ b/f\n@@ -3,0 +4,1 @@\n+x\n```\n"
    assert blocks_of(only_added) == [] and any("only adds lines" in w for w in warnings_of(only_added))
    # Unfenced, at the end of the reply, without counts: possibly cut, so refused.
    cut = "--- a/f\n+++ b/f\n@@ ... @@\n a\n-b"
    assert blocks_of(cut) == [] and any("truncated" in w for w in warnings_of(cut))
    # With counts met it is complete.
    assert len(blocks_of("--- a/f\n+++ b/f\n@@ -1,2 +1,1 @@\n a\n-b")) == 1
    deleting_and_adding = "```diff\n--- a/f\n+++ /dev/null\n@@ -1 +1 @@\n-a\n+b\n```\n"
    assert blocks_of(deleting_and_adding) == [] and any("deletes f" in w for w in warnings_of(deleting_and_adding))


def test_udiff_git_rename() -> None:
    text = "diff --git a/a.py b/b.py\nsimilarity index 100%\nrename from a.py\nrename to b.py\n"
    (block,) = blocks_of("```diff\n" + text + "```\n")
    assert (block.file_path, block.kind, block.move_to) == ("a.py", "move", "b.py")
    with_edit = text + "--- a/a.py\n+++ b/b.py\n@@ -1 +1 @@\n-x\n+y\n"
    (block,) = blocks_of(with_edit + "\n")
    assert (block.file_path, block.kind, block.move_to, block.old_lines) == ("a.py", "move", "b.py", "x\n")


def test_udiff_is_not_read_inside_a_patch() -> None:
    text = "*** Begin Patch\n*** Update File: a.py\n@@ -1 +1 @@\n-a\n+b\n*** End Patch\n"
    assert [b.format for b in blocks_of(text)] == ["patch"]
    assert warnings_of(text) == []


def test_udiff_render_uses_hints_as_line_numbers() -> None:
    blocks = [
        EditBlock("f.py", old_lines="a\nb\n", new_lines="a\nc\nd\n", hint_line=3),
        EditBlock("f.py", old_lines="x\n", new_lines="y\n", hint_line=20),
    ]
    text = get_format("udiff").render_blocks(blocks)
    assert "@@ -3,2 +3,3 @@\n a\n-b\n+c\n+d\n" in text
    assert "@@ -19,1 +20,1 @@\n-x\n+y\n" in text  # -19: the old file's numbering
    assert [(b.hint_line, b.old_lines) for b in blocks_of(text, "udiff")] == [(3, "a\nb\n"), (20, "x\n")]


NO_EOL = "\\ No newline at end of file\n"


@pytest.mark.parametrize(
    ("before", "hunk", "after"),
    [
        # The new text ends without a newline: the file does too.
        ("a\nb\n", " a\n-b\n+c\n" + NO_EOL, "a\nc"),
        # The old text had none and the new one has: the file gains it.
        ("a\nb", " a\n-b\n" + NO_EOL + "+c\n", "a\nc\n"),
        # Neither has one.
        ("a\nb", " a\n-b\n" + NO_EOL + "+c\n" + NO_EOL, "a\nc"),
        # A kept last line without one stays without.
        ("a\nb", "-a\n+z\n b\n" + NO_EOL, "z\nb"),
    ],
    ids=["drops", "adds", "keeps-without", "context"],
)
def test_udiff_no_newline_at_end_of_file_is_honoured(tmp_path: Path, before: str, hunk: str, after: str) -> None:
    reply = f"```diff\n--- a/f.txt\n+++ b/f.txt\n@@ ... @@\n{hunk}```\n"
    result, files = apply_to(tmp_path, {"f.txt": before}, reply)
    assert result.ok, result.results
    assert files["f.txt"] == after
    (block,) = blocks_of(reply)
    assert block.no_final_newline == (not after.endswith("\n"))
    rendered = get_format("udiff").render(block)
    assert rendered.count("No newline at end of file") == (1 if block.no_final_newline else 0)
    (again,) = blocks_of(rendered)
    assert (again.old_lines, again.new_lines, again.no_final_newline) == (
        block.old_lines,
        block.new_lines,
        block.no_final_newline,
    )


def test_udiff_new_file_without_final_newline(tmp_path: Path) -> None:
    reply = "```diff\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n" + NO_EOL + "```\n"
    result, files = apply_to(tmp_path, {}, reply)
    assert result.ok and files["new.txt"] == "one\ntwo"


def test_no_final_newline_mark_mid_file_changes_nothing_else(tmp_path: Path) -> None:
    # The mark claims the hunk ends the file, but its text is in the middle: the edit is made,
    # and the lines after it keep their newlines.
    reply = "```diff\n--- a/f.txt\n+++ b/f.txt\n@@ ... @@\n a\n-b\n+c\n" + NO_EOL + "```\n"
    result, files = apply_to(tmp_path, {"f.txt": "a\nb\nz\n"}, reply)
    assert result.ok and files["f.txt"] == "a\nc\nz\n"


# -- whole ---------------------------------------------------------------------------------------

WHOLE = """src/a.py
```python
x = 1
```

A usage example (not a file):

```python
import a
```

src/README.md
````markdown
# Title
```python
code
```
````
"""


def test_whole_blocks_only_when_asked_for() -> None:
    blocks = blocks_of(WHOLE, "whole")
    assert [(b.file_path, b.kind, b.new_lines) for b in blocks] == [
        ("src/a.py", "whole", "x = 1\n"),
        ("src/README.md", "whole", "# Title\n```python\ncode\n```\n"),
    ]
    assert blocks_of(WHOLE) == [] and detect_format(WHOLE) is None
    assert streamed(WHOLE, "whole") == blocks


def test_whole_fence_after_prose_reuses_no_path() -> None:
    text = "a.py\n```\nx = 1\n```\nThen run it:\n```python\nprint(1)\n```\n"
    assert [b.file_path for b in blocks_of(text, "whole")] == ["a.py"]


def test_whole_block_holding_edit_markers_is_refused() -> None:
    text = "a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"
    assert blocks_of(text, "whole") == []
    assert any("holds diff edit blocks" in w for w in warnings_of(text, "whole"))
    # Text that only resembles a marker is content.
    (block,) = blocks_of("a.md\n```\n<<<<<<<SEARCH.\n--- a note\n```\n", "whole")
    assert block.new_lines == "<<<<<<<SEARCH.\n--- a note\n"


@pytest.mark.parametrize(
    "line",
    [
        "// ... rest of code",
        "# ... existing code ...",
        "    # ...",
        "/* ... */",
        "// rest of the code stays the same",
        "# existing methods",
        "<!-- ... -->",
        "    // ... other methods unchanged",
    ],
)
def test_partial_whole_file_lines(line: str) -> None:
    assert partial_reason(f"a = 1\n{line}\nb = 2\n", "a = 1\nold\nb = 2\n") is not None
    # A line the file already has is content, not an elision.
    assert partial_reason(f"a = 1\n{line}\n", f"{line}\n") is None


def test_whole_file_content_that_is_not_partial() -> None:
    assert partial_reason("def f():\n    ...\n", None) is None  # a stub body
    assert partial_reason("x = [1, 2, ...]\n# rest easy\n", "") is None


def test_whole_apply(root: Path) -> None:
    result, files = apply_to(root, {"a.py": "x = 1\ny = 2\n"}, "a.py\n```\nx = 10\ny = 2\n```\n", format="whole")
    assert result.ok and files == {"a.py": "x = 10\ny = 2\n"}
    assert result.diffs["a.py"].count("\n-") == 1  # the diff shows the one changed line
    again = editblocks.apply_edits("a.py\n```\nx = 10\ny = 2\n```\n", root, format="whole")
    assert again.results[0].already_applied
    empty = editblocks.apply_edits("a.py\n```\n```\n", root, format="whole")
    assert "empty" in (empty.results[0].reason or "")


# -- cline ---------------------------------------------------------------------------------------


def test_cline_blocks_and_paths() -> None:
    text = (
        "src/plain.py\n------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n\n"
        "<replace_in_file>\n<path>src/tagged file.py</path>\n<diff>\n--- SEARCH\nc\n===\nd\n+++ REPLACE\n"
        "---------- SEARCH\ne\n==========\nf\n++++++++++ REPLACE\n</diff>\n</replace_in_file>\n"
    )
    blocks = blocks_of(text)
    assert [(b.file_path, b.old_lines, b.new_lines, b.format) for b in blocks] == [
        ("src/plain.py", "a\n", "b\n", "cline"),
        ("src/tagged file.py", "c\n", "d\n", "cline"),
        ("src/tagged file.py", "e\n", "f\n", "cline"),
    ]
    assert detect_format(text) == "cline"
    assert streamed(text) == blocks


def test_cline_malformed() -> None:
    assert any("'=======' separator" in w for w in warnings_of("a.py\n------- SEARCH\nx\n+++++++ REPLACE\n"))
    assert any("truncated" in w for w in warnings_of("a.py\n------- SEARCH\nx\n=======\ny\n"))
    assert any("without a '------- SEARCH'" in w for w in warnings_of("+++++++ REPLACE\n"))


# -- Roo's :start_line: hints ----------------------------------------------------------------------


def test_roo_hint_lines_are_not_searched_for() -> None:
    text = (
        "a.py\n<<<<<<< SEARCH\n:start_line:12\n:end_line:13\n-------\nx = 1\n-------\n=======\nx = 2\n>>>>>>> REPLACE\n"
    )
    (block,) = blocks_of(text)
    assert (block.old_lines, block.new_lines, block.hint_line) == ("x = 1\n-------\n", "x = 2\n", 12)
    assert streamed(text, size=1) == [block]
    # Without a hint line, a '-------' line is content.
    (plain,) = blocks_of("a.py\n<<<<<<< SEARCH\n-------\nx\n=======\ny\n>>>>>>> REPLACE\n")
    assert (plain.old_lines, plain.hint_line) == ("-------\nx\n", None)
    # The hint without its '-------' line, as Roo also reads it.
    (short,) = blocks_of("a.py\n<<<<<<< SEARCH\n:start_line:3\nx\n=======\ny\n>>>>>>> REPLACE\n")
    assert (short.old_lines, short.hint_line) == ("x\n", 3)


# -- every new format: parsing never raises, blocks never overlap ------------------------------------


@pytest.mark.parametrize("fmt", [None, "patch", "udiff", "cline", "whole"])
def test_marker_soup_never_raises(fmt: str | None) -> None:
    lines = [
        "*** Begin Patch",
        "*** Update File: a.py",
        "*** Move to: b.py",
        "@@",
        "@@ def f():",
        " x",
        "-y",
        "+z",
        "",
        "*** End of File",
        "*** Add File: c.py",
        "*** Delete File: d.py",
        "*** End Patch",
        "--- a/a.py",
        "+++ b/a.py",
        "@@ -1,2 +1,3 @@",
        "--- /dev/null",
        "+++ /dev/null",
        "diff --git a/a b/b",
        "rename from a",
        "rename to b",
        "------- SEARCH",
        "=======",
        "+++++++ REPLACE",
        "<path>a.py</path>",
        "```",
        "```diff",
        "a.py",
        "\\ No newline",
    ]
    import random

    rng = random.Random(7)
    for _ in range(300):
        text = "\n".join(rng.choice(lines) for _ in range(rng.randint(0, 40)))
        parsed = parse_reply(text, fmt)
        starts = [b.line_number for b in parsed.blocks]
        assert starts == sorted(starts)
        for a, b in zip(parsed.blocks, parsed.blocks[1:]):
            assert a.end_line < b.line_number


def test_udiff_only_hunk_without_context_or_numbers_appends_as_aider_does(tmp_path: Path) -> None:
    text = "class T:\n    def a(self):\n        pass\n"
    reply = "```diff\n--- t.py\n+++ t.py\n@@ ... @@\n+\n+    def b(self):\n+        pass\n```\n"
    result, files = apply_to(tmp_path, {"t.py": text}, reply)
    assert result.ok and files["t.py"] == text + "\n    def b(self):\n        pass\n"
    again = editblocks.apply_edits(reply, tmp_path)
    assert again.results[0].already_applied and (tmp_path / "t.py").read_text() == files["t.py"]


@pytest.mark.parametrize(
    "hunks",
    [
        "@@ -2,0 +3,2 @@\n+    def b(self):\n+        pass\n",  # line numbers alone are not trusted
        "@@ ... @@\n+x = 1\n@@ ... @@\n     def a(self):\n+        x = 2\n",  # not the file's only hunk
    ],
)
def test_udiff_add_only_hunks_that_stay_uncertain_are_refused(tmp_path: Path, hunks: str) -> None:
    text = "class T:\n    def a(self):\n        pass\n"
    result, files = apply_to(tmp_path, {"t.py": text}, f"```diff\n--- t.py\n+++ t.py\n{hunks}```\n")
    assert not result.ok and "pass" in files["t.py"]
    assert "def b" not in files["t.py"] and "x = 1" not in files["t.py"]
    assert any("only adds lines" in w.message for w in result.warnings)
