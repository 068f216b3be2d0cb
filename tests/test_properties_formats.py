"""Property-based tests for the patch, udiff, cline and whole parsers: what they render they read back
(operations, scopes and line hints included), a conversion never turns an edit into another one,
parsing never raises, and a streamed reply gives the blocks of the whole one."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from editblocks import EditBlock, StreamParser, convert_reply, parse_reply
from editblocks.formats import get_format
from editblocks.pipeline.conversion import same_meaning
from editblocks.reading.stream import BlockCompleted

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_SEGMENT = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
path = st.builds(lambda d, n: "/".join([*d, n + ".py"]), st.lists(_SEGMENT, max_size=2), _SEGMENT)
# Content that starts with the characters the diff formats use as prefixes and markers.
_CHARS = st.sampled_from(list(" -+@*`=<>ab\t") + ["--- ", "+++ ", "*** ", "@@ ", "```", "End Patch", "/dev/null"])
any_line = st.lists(_CHARS, max_size=5).map("".join)
plain_line = st.lists(st.sampled_from(list(" ab_=()x") + ["    "]), max_size=6).map("".join)


def text(lines: list[str]) -> str:
    return "".join(x + "\n" for x in lines)


@st.composite
def patch_blocks(draw: st.DrawFn, line: st.SearchStrategy[str] = any_line) -> list[EditBlock]:
    blocks: list[EditBlock] = []
    for _ in range(draw(st.integers(1, 5))):
        p = draw(path)
        kind = draw(st.sampled_from(["edit", "edit", "insert", "append", "add", "delete", "move"]))
        if kind == "add":
            blocks.append(EditBlock(p, new_lines=text(draw(st.lists(line, max_size=4))), new_file=True))
        elif kind == "delete":
            blocks.append(EditBlock(p, delete=True))
        elif kind == "move":
            blocks.append(EditBlock(p, move_to=draw(path)))
        else:
            old = [] if kind != "edit" else draw(st.lists(line, min_size=1, max_size=4))
            new = draw(st.lists(line, min_size=0 if old else 1, max_size=4))
            scope = tuple(
                draw(
                    st.lists(
                        st.from_regex(r"[a-z][a-z ():]{0,10}[a-z:]", fullmatch=True),
                        min_size=kind == "insert",
                        max_size=2,
                    )
                )
            )
            blocks.append(EditBlock(p, old_lines=text(old), new_lines=text(new), scope=scope, at_end=kind == "append"))
    return blocks


def _same(got: list[EditBlock], want: list[EditBlock], fmt: str) -> None:
    assert len(got) == len(want), (fmt, got, want)
    for g, w in zip(got, want):
        assert same_meaning(g, w, fmt), (fmt, g, w)


@SETTINGS
@given(patch_blocks())
def test_patch_reads_back_what_it_writes(blocks: list[EditBlock]) -> None:
    rendered = get_format("patch").render_blocks(blocks)
    parsed = parse_reply(rendered, "patch")
    assert parsed.warnings == [], (parsed.warnings, rendered)
    _same(parsed.blocks, blocks, "patch")
    assert [(b.scope, b.at_end, b.move_to) for b in parsed.blocks] == [(b.scope, b.at_end, b.move_to) for b in blocks]
    assert parse_reply(rendered).blocks == parsed.blocks


@st.composite
def udiff_blocks(draw: st.DrawFn) -> list[EditBlock]:
    blocks: list[EditBlock] = []
    for _ in range(draw(st.integers(1, 4))):
        p = draw(path)
        kind = draw(st.sampled_from(["edits", "edits", "create", "delete"]))
        if kind == "create":
            blocks.append(EditBlock(p, new_lines=text(draw(st.lists(plain_line, max_size=4))), new_file=True))
        elif kind == "delete":
            blocks.append(EditBlock(p, old_lines=text(draw(st.lists(plain_line, min_size=1, max_size=3))), delete=True))
        else:
            line = draw(st.integers(1, 50))
            numbered = draw(st.booleans())
            for _ in range(draw(st.integers(1, 3))):
                old = draw(st.lists(plain_line, min_size=1, max_size=4))
                new = draw(st.lists(plain_line, max_size=4))
                blocks.append(
                    EditBlock(p, old_lines=text(old), new_lines=text(new), hint_line=line if numbered else None)
                )
                line += len(new) + draw(st.integers(1, 30))
    return blocks


@SETTINGS
@given(udiff_blocks())
def test_udiff_reads_back_what_it_writes_with_its_line_hints(blocks: list[EditBlock]) -> None:
    rendered = get_format("udiff").render_blocks(blocks)
    parsed = parse_reply(rendered, "udiff")
    assert parsed.warnings == [], (parsed.warnings, rendered)
    _same(parsed.blocks, blocks, "udiff")
    assert [b.hint_line for b in parsed.blocks] == [b.hint_line for b in blocks], rendered
    assert parse_reply(rendered).blocks == parsed.blocks


@SETTINGS
@given(patch_blocks(), st.sampled_from(["udiff", "cline", "diff", "edit-v2", "edit-v3", "file-sections", "whole"]))
def test_a_conversion_never_changes_an_edit(blocks: list[EditBlock], target: str) -> None:
    """Whatever the content (prefix characters, marker look-alikes), every converted block is the
    same edit as its source, in order, and every other one is reported."""
    reply = get_format("patch").render_blocks(blocks)
    source = parse_reply(reply, "patch").blocks
    done = convert_reply(reply, target, format="patch")
    assert len(done.blocks) + len(done.problems) == len(source)
    pending = iter(done.blocks)
    current = next(pending, None)
    for block in source:
        if current is not None and same_meaning(current, block, target):
            current = next(pending, None)
    assert current is None, (done.text, done.problems)
    assert parse_reply(done.text, target).blocks == done.blocks


@SETTINGS
@given(
    st.lists(st.lists(st.sampled_from(list("ab -+")), max_size=4).map("".join), max_size=5),
    st.integers(3, 9),
    st.integers(3, 9),
    st.integers(3, 9),
)
def test_cline_markers_of_any_length(lines: list[str], a: int, b: int, c: int) -> None:
    body = text(lines)
    assume(not any(line.strip("-+ ") == "" and line.strip() for line in lines))
    reply = f"<path>x.py</path>\n{'-' * a} SEARCH\n{body}{'=' * b}\nnew\n{'+' * c} REPLACE\n"
    (block,) = parse_reply(reply).blocks
    assert (block.file_path, block.old_lines, block.new_lines) == ("x.py", body, "new\n")


_SOUP = st.sampled_from(
    [
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
        "@@ -0,0 +1 @@",
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
        "\\ No newline at end of file",
        "<<<<<<< SEARCH",
        ":start_line:3",
        "-------",
        ">>>>>>> REPLACE",
        "--- y",
        "+++ z",
    ]
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(_SOUP, max_size=60), st.sampled_from([None, "patch", "udiff", "cline", "whole", "diff"]), st.integers(1, 9)
)
def test_parsing_never_raises_and_streams_the_same(lines: list[str], fmt: str | None, size: int) -> None:
    reply = "\n".join(lines)
    parsed = parse_reply(reply, fmt)
    for a, b in zip(parsed.blocks, parsed.blocks[1:]):
        assert a.end_line < b.line_number
    stream = StreamParser(fmt)
    events = [e for i in range(0, len(reply), size) for e in stream.feed(reply[i : i + size])] + stream.close()
    assert [e.block for e in events if isinstance(e, BlockCompleted)] == parsed.blocks
