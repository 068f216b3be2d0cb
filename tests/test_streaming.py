"""StreamParser: whatever the chunking, streaming finds what parse_reply finds in the whole reply."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import editblocks
from editblocks import FORMATS, EditBlock, ParsedReply, ParseWarning, ReplyDecodeError, StreamParser, parse_reply
from editblocks.formats import detect_format, family_formats, get_format
from editblocks.formats.search_replace import REPLACE, SEARCH
from editblocks.reading.reader import ReplyReader, parse_lines, split_reply
from editblocks.reading.scan import ShellScanner
from editblocks.reading.stream import (
    BlockAbandoned,
    BlockCompleted,
    BlockProgress,
    BlockStarted,
    Event,
    ParseWarningEvent,
    ShellSuggestion,
    _EventReader,
    stream_events,
)

HERE = Path(__file__).parent
CORPUS = HERE.parent.parent / "shared" / "corpus" / "real-replies" / "cases"

# -- an independent, whole-reply implementation of parse_reply's rules -------------------------


class _Spans:
    def __init__(self, blocks: list[EditBlock]) -> None:
        self.starts = [b.line_number for b in blocks]
        self.ends = [b.end_line for b in blocks]

    def contains(self, line: int) -> bool:
        i = bisect.bisect_right(self.starts, line) - 1
        return i >= 0 and line <= self.ends[i]


def shell_suggestions(lines: Sequence[str], spans: _Spans) -> list[str]:
    """Every line through the shell scanner, in order; lines of kept blocks marked as such."""
    found: list[str] = []
    scanner = ShellScanner()
    for i, line in enumerate(lines, start=1):
        found.extend(scanner.feed(line, spans.contains(i)))
    return list(dict.fromkeys(found))


def reference_parse(text: str, format: str | None = None) -> ParsedReply:
    """Every family over the whole reply, then keep the earliest of overlapping blocks."""
    lines = split_reply(text)
    formats = [get_format(format)] if format else family_formats()
    candidates: list[EditBlock] = []
    warnings: list[ParseWarning] = []
    for fmt in formats:
        blocks, warns = fmt.parse_lines(lines)
        for block in blocks:
            # A file's content (whole, lazy) that holds another format's edit blocks is not content.
            inner = parse_lines([block.file_path, *block.new_lines.split("\n")[:-1]]).blocks if fmt.content else []
            if inner:
                warnings.append(
                    ParseWarning(
                        block.line_number,
                        f"the fenced block for {block.file_path} holds {inner[0].format} edit blocks "
                        f"(line {block.line_number + inner[0].line_number - 1}), not {fmt.content}; block ignored",
                        block.format,
                    )
                )
            else:
                candidates.append(block)
        warnings.extend(warns)
    candidates.sort(key=lambda b: (b.line_number, -b.end_line))
    kept: list[EditBlock] = []
    last_end = 0
    for block in candidates:
        if block.line_number > last_end:
            kept.append(block)
            last_end = block.end_line
    spans = _Spans(kept)
    warnings = [w for w in warnings if not spans.contains(w.line)]
    searches = [i for i, line in enumerate(lines, start=1) if SEARCH.match(line)]
    replace_lines = [
        i
        for i, line in enumerate(lines, start=1)
        if not SEARCH.match(line) and REPLACE.match(line) and "REPLACE" in line
    ]
    if len(searches) != len(replace_lines):
        # The warning points at the first marker without its partner: a SEARCH that another
        # SEARCH follows before any REPLACE, a REPLACE with no SEARCH open, or the last SEARCH.
        open_at, first = 0, 0
        for i, _line in enumerate(lines, start=1):
            if i in searches:
                first = first or open_at
                open_at = i
            elif i in replace_lines:
                first = first or (0 if open_at else i)
                open_at = 0
        first = first or open_at or (searches[0] if searches else 1)
        warnings.append(
            ParseWarning(
                first, f"Mismatched SEARCH/REPLACE: {len(searches)} SEARCH vs {len(replace_lines)} REPLACE", "diff"
            )
        )
    warnings.sort(key=lambda w: w.line)
    if format:
        name: str | None = format
    elif kept:
        name = Counter(b.format for b in kept).most_common(1)[0][0]
    else:
        name = detect_format("\n".join(lines))
    return ParsedReply(kept, warnings, shell_suggestions(lines, spans), name)


# -- replies --------------------------------------------------------------------------------------

FENCE = "```"

OWN_REPLIES: dict[str, str] = {
    "diff": (
        "I'll rename the helper.\n\nsrc/app.py\n```python\n<<<<<<< SEARCH\ndef helper():\n    return 1\n=======\n"
        "def assist():\n    return 1\n>>>>>>> REPLACE\n```\n\nsrc/app.py\n```python\n<<<<<<< SEARCH\nhelper()\n=======\n"
        "assist()\n>>>>>>> REPLACE\n```\n\nThen:\n\n```bash\ngit rm src/old.py\n$ pytest -q\n```\n"
    ),
    "diff-fenced": (
        "````python\nsrc/app.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n````\n\n"
        "````python\nsrc/new.py\n<<<<<<< SEARCH\n=======\nprint('new')\n>>>>>>> REPLACE\n````\n"
    ),
    "file-sections": (
        "### File: src/app.ts\n\n<<<<<<< SEARCH\nconst a = 1;\n=======\nconst a = 10;\n>>>>>>> REPLACE\n\n"
        "<<<<<<< SEARCH\nconst b = 2;\n=======\n>>>>>>> REPLACE\n\n### File: src/new.ts\n\n<<<<<<< NEW_FILE\n"
        "export const c = 3;\n>>>>>>> NEW_FILE\n"
    ),
    "edit-v2": (
        "src/utils.py\n<<<<<<< EDIT\ndef calculate(a, b):\n-------\n    return a + b\n=======\n    return a * b\n-------\n\n"
        "def other():\n>>>>>>>\n\nsrc/new.py\n<<<<<<< EDIT\n-------\n=======\nNEW = 1\n-------\n>>>>>>>\n\n"
        "Also run `git rm src/legacy.py`.\n"
    ),
    "edit-v3": (
        "src/p.py\n««« EDIT\ndef process():\n    step_one()\n    step_two()\n═══════ REPL\ndef process():\n"
        "    step_one()\n    step_two_updated()\n»»» EDIT END\n\nsrc/n.py\n««« EDIT\n═══════ REPL\nX = '✓ café 🎉'\n»»» EDIT END\n"
    ),
    "mixed": (
        "a.py\n```\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n\nb.py\n<<<<<<< EDIT\nx\n-------\ny\n=======\nz\n"
        "-------\n>>>>>>>\n\nc.py\n««« EDIT\nc\n═══════ REPL\nd\n»»» EDIT END\n\n### File: d.py\n<<<<<<< NEW_FILE\nnew\n>>>>>>> NEW_FILE\n"
    ),
    "sr-holding-v3-markers": (
        "docs/format.md\n```markdown\n<<<<<<< SEARCH\nOld text.\n=======\nsrc/x.py\n««« EDIT\na\n═══════ REPL\nb\n»»» EDIT END\n"
        ">>>>>>> REPLACE\n```\n"
    ),
    "v3-holding-sr-markers": (
        "docs/format.md\n««« EDIT\nOld text.\n═══════ REPL\nsrc/x.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"
        "»»» EDIT END\n"
    ),
    "unclosed-v3-before-sr": (
        "Blocks start with a line like\n««« EDIT\nbut this reply uses SEARCH/REPLACE:\n\na.py\n```\n<<<<<<< SEARCH\n"
        "one\n=======\ntwo\n>>>>>>> REPLACE\n```\n\nb.py\n```\n<<<<<<< SEARCH\nthree\n=======\nfour\n>>>>>>> REPLACE\n```\n"
    ),
    "truncated-diff": "a.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n",
    "truncated-v2": "a.py\n<<<<<<< EDIT\nanchor\n-------\nold\n",
    "truncated-v3": "a.py\n««« EDIT\nold\n═══════ REPL\nne",
    "missing-divider": "a.py\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n\nb.py\n<<<<<<< SEARCH\ny\n=======\nz\n>>>>>>> REPLACE\n",
    "search-restart": "a.py\n<<<<<<< SEARCH\nx\n<<<<<<< SEARCH\ny\n=======\nz\n>>>>>>> REPLACE\n>>>>>>> REPLACE\n",
    "no-path": "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n",
    "crlf": "a.py\r\n```\r\n<<<<<<< SEARCH\r\nx\r\n=======\r\ny\r\n>>>>>>> REPLACE\r\n```\r\n",
    "lone-cr": "a.py\r<<<<<<< SEARCH\rx\n=======\r\ny\r\r\n>>>>>>> REPLACE",
    "no-final-newline": "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE",
    "shell-fence-with-block": "```bash\nls\na.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\nmkdir -p out\n```\n\n`git mv a b`\n",
    "prose-only": "Nothing to change here. `mkdir -p build` first.\n\n```sh\n# comment\n$ make\n```\n",
    "empty": "",
    "newlines-only": "\n\n\r\n",
    "v2-no-trailing": "a.py\n<<<<<<< EDIT\nx\n-------\ny\n=======\nz\n>>>>>>>\n",
    "v2-bad": "a.py\n<<<<<<< EDIT\nx\n=======\nz\n>>>>>>>\n<<<<<<< EDIT\n<<<<<<< EDIT\n-------\n>>>>>>>\n",
    "v3-bad": "a.py\n««« EDIT\nx\n»»» EDIT END\n««« EDIT\n««« EDIT\n═══════ REPL\n»»» EDIT END\n",
    "unicode-path": "src/naïve_✓.py\n<<<<<<< SEARCH\nπ = 3\n=======\nπ = 3.14159\n>>>>>>> REPLACE\n",
}


def _scenario_replies() -> list[str]:
    return [p.read_text(encoding="utf-8", errors="replace") for p in sorted((HERE / "scenarios").glob("*/reply.md"))]


def _corpus_replies(limit: int = 120) -> list[str]:
    if not CORPUS.is_dir():
        return []
    paths = sorted(CORPUS.glob("*/reply.md"))
    step = max(1, len(paths) // limit)
    return [p.read_text(encoding="utf-8", errors="replace") for p in paths[::step]]


def _demo_reply() -> str:
    from importlib import resources

    return (resources.files("editblocks") / "demo" / "reply.md").read_text(encoding="utf-8")


KNOWN_REPLIES = list(OWN_REPLIES.values()) + _scenario_replies() + _corpus_replies() + [_demo_reply()]

FRAGMENTS = [
    "src/a.py",
    "b.txt",
    "### File: src/c.ts",
    "```python",
    "```",
    "````",
    "```bash",
    "~~~",
    "<<<<<<< SEARCH",
    "=======",
    ">>>>>>> REPLACE",
    ">>>>>>>",
    "<<<<<<< EDIT",
    "-------",
    "<<<<<<< NEW_FILE",
    ">>>>>>> NEW_FILE",
    "««« EDIT",
    "═══════ REPL",
    "»»» EDIT END",
    "",
    "some prose",
    "x = 1",
    "    return y",
    "Run `git rm old.py` now",
    "git mv a b",
    "$ mkdir -p build",
    "# comment",
    "<source>",
    "</source>",
    "In `src/app.py`:",
    "**src/d.py**",
    ">>>>>>> EDIT END",
    "<<<<<<< SEARCH>",
    "café ✓ 🎉",
    "\r",
    # White space other than spaces around markers and fences, marker runs of odd lengths, and
    # the fences and inline commands shell suggestions come from.
    " \u2028<<<<<<< SEARCH",
    "\t=======\x0b",
    "\x85>>>>>>> REPLACE ",
    "<<<<<<<<<< SEARCH",
    ">>>>>>>>>> REPLACE",
    "  ```Bash run",
    "~~~~ console",
    "```shell-session",
    "Then `rm -rf dist` and `mkdir -p a`.",
    "  $ make test",
]

fragment_replies = st.builds(
    lambda lines, ending: ending.join(lines) + ending,
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), max_size=50),
    st.sampled_from(["\n", "\r\n", ""]),
)


@st.composite
def rendered_replies(draw: st.DrawFn) -> str:
    """Well-formed blocks of random formats between prose, sometimes cut short."""
    parts: list[str] = []
    lines = st.lists(st.sampled_from(["x = 1", "", "    y()", "« ✓ »", "=====", "def f():"]), max_size=4)
    for _ in range(draw(st.integers(0, 5))):
        fmt = FORMATS[draw(st.sampled_from(sorted(FORMATS)))]
        old = "".join(x + "\n" for x in draw(lines))
        new = "".join(x + "\n" for x in draw(lines))
        path = draw(st.sampled_from(["a.py", "src/b.js", "docs/c.md"]))
        parts.append(draw(st.sampled_from(["", "Some prose.\n\n", "Now `git rm x.py`:\n"])))
        parts.append(fmt.render(EditBlock(path, old_lines=old, new_lines=new)))
    text = "\n".join(parts)
    if text and draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]
    return text


replies = st.one_of(st.sampled_from(KNOWN_REPLIES), fragment_replies, rendered_replies())
formats = st.sampled_from([None, None, None, *sorted(FORMATS)])


# -- running the stream ---------------------------------------------------------------------------


def split_at(data: str | bytes, cuts: Sequence[int]) -> list[str | bytes]:
    points = sorted({c for c in cuts if 0 < c < len(data)})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in zip(edges, edges[1:], strict=False)]


def run_stream(chunks: Sequence[str | bytes], format: str | None = None) -> tuple[list[Event], StreamParser]:
    parser = StreamParser(format)
    events: list[Event] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.close())
    return events, parser


def check_lifecycle(events: list[Event]) -> None:
    """Started -> Progress* -> Completed | Abandoned, one open block at a time; progress adds up."""
    texts: dict[int, list[str]] = {}
    open_lines: list[int] = []
    for e in events:
        if isinstance(e, BlockStarted):
            assert e.reply_line not in texts
            texts[e.reply_line] = ["", ""]
            open_lines.append(e.reply_line)
        elif isinstance(e, BlockProgress):
            texts[e.reply_line][0] += e.old_added
            texts[e.reply_line][1] += e.new_added
        elif isinstance(e, BlockCompleted):
            assert texts.pop(e.reply_line) == [e.block.search_text, e.block.replace_text]
            open_lines.remove(e.reply_line)
        elif isinstance(e, BlockAbandoned):
            texts.pop(e.reply_line)
            open_lines.remove(e.reply_line)
    assert not texts


def check_same(text: str, chunks: Sequence[str | bytes], format: str | None) -> None:
    want = parse_reply(text, format)
    events, parser = run_stream(chunks, format)
    assert [e.block for e in events if isinstance(e, BlockCompleted)] == want.blocks
    warnings = [e.warning for e in events if isinstance(e, ParseWarningEvent)]
    # Warnings arrive in line order; only the marker-balance warning, known at the end, comes last.
    assert sorted(warnings, key=lambda w: w.line) == want.warnings
    assert sorted(warnings[:-1], key=lambda w: w.line) == warnings[:-1]
    assert [e.command for e in events if isinstance(e, ShellSuggestion)] == want.shell_suggestions
    check_lifecycle(events)
    got = parser.reply()
    if not want.blocks and not format:
        assert got.format is None
        got.format = want.format
    assert got == want


# -- properties -----------------------------------------------------------------------------------


@pytest.mark.parametrize("format", [None, *sorted(FORMATS)])
def test_parse_response_keeps_the_whole_reply_rules_on_known_replies(format: str | None) -> None:
    for text in KNOWN_REPLIES:
        assert parse_reply(text, format) == reference_parse(text, format)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies, formats)
def test_parse_response_keeps_the_whole_reply_rules(text: str, format: str | None) -> None:
    assert parse_reply(text, format) == reference_parse(text, format)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(replies, formats, st.data())
def test_any_chunking_gives_the_same_result(text: str, format: str | None, data: st.DataObject) -> None:
    as_bytes = data.draw(st.booleans(), label="bytes")
    payload: str | bytes = text.encode("utf-8") if as_bytes else text
    if data.draw(st.booleans(), label="fixed size"):
        size = data.draw(st.integers(1, 12), label="size")
        cuts = list(range(size, len(payload), size))
    else:
        cuts = data.draw(st.lists(st.integers(0, max(len(payload), 1)), max_size=40), label="cuts")
    check_same(text, split_at(payload, cuts), format)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.lists(st.integers(0, 200), max_size=30))
def test_undecodable_bytes_are_refused_at_their_offset(data: bytes, cuts: list[int]) -> None:
    """Bytes that are not UTF-8 raise ReplyDecodeError with the first bad byte's offset, however
    the reply is cut into chunks; a character cut short at the very end (a reply cut off) is not
    an error; UTF-8 reads as it always did."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.end == len(data) and "end of data" in exc.reason:
            check_same(data.decode("utf-8", "replace"), split_at(data, cuts), None)
            return
        parser = StreamParser()
        with pytest.raises(ReplyDecodeError) as info:
            for chunk in split_at(data, cuts):
                parser.feed(chunk)
            parser.close()
        assert info.value.offset == exc.start
        return
    check_same(text, split_at(data, cuts), None)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(KNOWN_REPLIES), st.lists(st.integers(0, 10_000), max_size=20), st.lists(st.booleans(), min_size=1)
)
def test_str_and_bytes_chunks_can_be_mixed(text: str, cuts: list[int], kinds: list[bool]) -> None:
    chunks = split_at(text, cuts)
    mixed = [c.encode("utf-8") if kinds[i % len(kinds)] else c for i, c in enumerate(chunks)]  # type: ignore[union-attr]
    check_same(text, mixed, None)


@pytest.mark.parametrize("name", sorted(OWN_REPLIES))
@pytest.mark.parametrize("size", [1, 2, 3, 7])
def test_own_replies_byte_by_byte(name: str, size: int) -> None:
    text = OWN_REPLIES[name]
    data = text.encode("utf-8")
    for format in (None, *FORMATS):
        check_same(text, [data[i : i + size] for i in range(0, len(data), size)], format)
        check_same(text, [text[i : i + size] for i in range(0, len(text), size)], format)


@pytest.mark.parametrize("format", [None, *sorted(FORMATS)])
def test_a_finished_reply_reads_as_the_line_by_line_reader_reads_it(format: str | None) -> None:
    # parse_reply reads a finished reply in one pass per format family; the reader that
    # streaming uses settles the same results line by line.
    for text in KNOWN_REPLIES:
        reader = ReplyReader(format)
        for line in split_reply(text):
            reader.feed_line(line)
        reader.close()
        got, want = reader.reply(), parse_reply(text, format)
        if not format and not got.blocks:
            got.format = want.format  # (a guess from the text, made only for a whole reply)
        assert got == want


def test_scenario_replies_stream_like_they_parse() -> None:
    for text in _scenario_replies():
        data = text.encode("utf-8")
        check_same(text, [data[i : i + 7] for i in range(0, len(data), 7)], None)


def test_replies_streamed_a_line_at_a_time_report_every_line_of_progress() -> None:
    # One line per chunk is how a quiet line's progress is reported without rereading the
    # block's texts: each line must still land in the text it belongs to.
    for text in [*_scenario_replies(), *OWN_REPLIES.values(), *KNOWN_REPLIES]:
        lines = text.splitlines(keepends=True)
        check_same(text, lines, None)
        check_same(text, [line.encode("utf-8") for line in lines], None)


HINTED = """src/a.py
```
<<<<<<< SEARCH
:start_line:2
first = 1
second = 2
=======
first = 10
second = 2
>>>>>>> REPLACE
```

src/b.py
```
<<<<<<< SEARCH
:start_line:7
:end_line:8
-------
alpha
beta
=======
alpha
gamma
>>>>>>> REPLACE
```
"""


@pytest.mark.parametrize("size", [None, 1, 5])
def test_line_hints_are_not_progress_of_the_searched_text(size: int | None) -> None:
    chunks = (
        HINTED.splitlines(keepends=True)
        if size is None
        else [HINTED[i : i + size] for i in range(0, len(HINTED), size)]
    )
    check_same(HINTED, chunks, None)
    events, _ = run_stream(chunks)
    old = [e.old_added for e in events if isinstance(e, BlockProgress) and e.reply_line == 3]
    assert "".join(old) == "first = 1\nsecond = 2\n"


# -- events as a reply arrives --------------------------------------------------------------------

SIMPLE = "Intro.\n\nsrc/a.py\n```python\n<<<<<<< SEARCH\nx = 1\ny = 2\n=======\nx = 10\n>>>>>>> REPLACE\n```\nDone.\n"


def test_events_of_a_simple_reply_split_inside_markers() -> None:
    parser = StreamParser()
    assert parser.feed("Intro.\n\nsrc/a.py\n```python\n<<<<<<< SEA") == []
    assert parser.feed("RCH") == []
    assert parser.feed("\nx = 1\n") == [
        BlockStarted("src/a.py", "diff", 5),
        BlockProgress("src/a.py", "diff", 5, "x = 1\n", ""),
    ]
    assert parser.feed("y = 2\n====") == [BlockProgress("src/a.py", "diff", 5, "y = 2\n", "")]
    assert parser.feed("===\nx = 10\n>>>>>>> REPL") == [BlockProgress("src/a.py", "diff", 5, "", "x = 10\n")]
    partial = parser.partial()
    assert partial is not None and (partial.old_text, partial.new_text) == ("x = 1\ny = 2\n", "x = 10\n")
    events = parser.feed("ACE\n")
    (block,) = parse_reply(SIMPLE).blocks
    assert events == [BlockCompleted(block)]
    assert events[0].path == "src/a.py" and events[0].reply_line == 5 and events[0].format == "diff"
    assert parser.partial() is None
    assert parser.feed("```\nDone.\n") == []
    assert parser.close() == []
    assert parser.line_count == 12


def test_a_block_completes_as_soon_as_its_closing_line_ends() -> None:
    text = OWN_REPLIES["diff"]
    parser = StreamParser()
    cut = text.index(">>>>>>> REPLACE") + len(">>>>>>> REPLACE\n")
    events = parser.feed(text[:cut])
    assert [type(e) for e in events][-1] is BlockCompleted
    # Not before its line ending: ">>>>>>> REPLACE" could still continue.
    parser2 = StreamParser()
    events2 = parser2.feed(text[: cut - 1])
    assert not any(isinstance(e, BlockCompleted) for e in events2)


def test_multibyte_characters_split_across_chunks() -> None:
    text = OWN_REPLIES["edit-v3"]
    data = text.encode("utf-8")
    events, _ = run_stream([data[i : i + 1] for i in range(len(data))])
    blocks = [e.block for e in events if isinstance(e, BlockCompleted)]
    assert blocks == parse_reply(text).blocks
    assert blocks[1].new_lines == "X = '✓ café 🎉'\n"


def test_crlf_split_between_cr_and_lf() -> None:
    text = OWN_REPLIES["crlf"]
    for i in range(len(text)):
        events, _ = run_stream([text[:i], text[i:]])
        (block,) = [e.block for e in events if isinstance(e, BlockCompleted)]
        assert (block.old_lines, block.new_lines) == ("x\n", "y\n")


def test_truncated_reply_ends_with_an_abandoned_block_and_a_warning() -> None:
    events, _ = run_stream([OWN_REPLIES["truncated-diff"]])
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "BlockStarted"
    assert kinds[-2:] == ["BlockAbandoned", "ParseWarningEvent"] or kinds[-3:-1] == [
        "BlockAbandoned",
        "ParseWarningEvent",
    ]
    warning = next(e for e in events if isinstance(e, ParseWarningEvent))
    assert "truncated" in warning.message and warning.line == 3


def test_a_block_waits_while_an_earlier_block_of_another_format_is_open() -> None:
    text = OWN_REPLIES["unclosed-v3-before-sr"]
    parser = StreamParser()
    events = parser.feed(text)
    # The stray "««« EDIT" opened an edit-v3 block that could still swallow the SEARCH blocks.
    assert not any(isinstance(e, BlockCompleted) for e in events)
    events += parser.close()
    blocks = [e.block for e in events if isinstance(e, BlockCompleted)]
    assert [b.file_path for b in blocks] == ["a.py", "b.py"]
    assert blocks == parse_reply(text).blocks
    check_lifecycle(events)


def test_markers_inside_a_kept_block_start_nothing() -> None:
    for name in ("sr-holding-v3-markers", "v3-holding-sr-markers"):
        events, _ = run_stream([OWN_REPLIES[name]])
        assert [type(e) for e in events if not isinstance(e, BlockProgress)] == [BlockStarted, BlockCompleted], name


def test_a_format_can_be_chosen() -> None:
    text = OWN_REPLIES["mixed"]
    events, parser = run_stream([text], "edit-v3")
    assert [e.block.format for e in events if isinstance(e, BlockCompleted)] == ["edit-v3"]
    assert parser.reply().format == "edit-v3"
    with pytest.raises(ValueError):
        StreamParser("no-such-format")


def test_shell_suggestions_are_reported_once_each() -> None:
    text = "Run `git rm a.py`.\n\n```bash\ngit rm a.py\nmkdir -p out\n```\n"
    events, _ = run_stream([text])
    assert events == [ShellSuggestion("git rm a.py"), ShellSuggestion("mkdir -p out")]


def test_feed_after_close_and_bad_chunks() -> None:
    parser = StreamParser()
    parser.feed("a.py\n")
    assert parser.close() == []
    assert parser.close() == []
    assert parser.closed
    with pytest.raises(ValueError):
        parser.feed("more\n")
    with pytest.raises(TypeError):
        StreamParser().feed(42)  # type: ignore[arg-type]


def test_bytearray_and_memoryview_chunks() -> None:
    data = OWN_REPLIES["diff"].encode("utf-8")
    events, _ = run_stream([bytearray(data[:20]), memoryview(data[20:])])
    assert [e.block for e in events if isinstance(e, BlockCompleted)] == parse_reply(OWN_REPLIES["diff"]).blocks


def test_stream_events_yields_as_chunks_arrive() -> None:
    seen: list[str] = []

    def chunks():
        for i in range(0, len(SIMPLE), 5):
            seen.append(SIMPLE[i : i + 5])
            yield SIMPLE[i : i + 5]

    for event in stream_events(chunks()):
        if isinstance(event, BlockCompleted):
            assert "".join(seen).startswith(SIMPLE[: SIMPLE.index("```\nDone")])
            assert len("".join(seen)) < len(SIMPLE)
            break
    else:
        pytest.fail("no block")


def test_each_line_is_read_once_however_small_the_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    original_lines = ReplyReader.feed_lines
    original_line = ReplyReader.feed_line
    original_one = _EventReader.feed_one
    inside_one = [False]

    def spy_lines(self: ReplyReader, lines: Sequence[str]) -> None:
        calls.extend(lines)
        original_lines(self, lines)

    def spy_line(self: ReplyReader, line: str) -> None:
        if not inside_one[0]:
            calls.append(line)
        original_line(self, line)

    def spy_one(self: _EventReader, line: str) -> list[Event]:
        # One line, read by feed_one itself or handed on to feed_line: counted once.
        calls.append(line)
        inside_one[0] = True
        try:
            return original_one(self, line)
        finally:
            inside_one[0] = False

    monkeypatch.setattr(ReplyReader, "feed_lines", spy_lines)
    monkeypatch.setattr(ReplyReader, "feed_line", spy_line)
    monkeypatch.setattr(_EventReader, "feed_one", spy_one)
    text = OWN_REPLIES["mixed"] * 3
    data = text.encode("utf-8")
    run_stream([data[i : i + 1] for i in range(len(data))])
    assert calls == split_reply(text)


def test_public_names() -> None:
    assert editblocks.StreamParser is StreamParser
    assert editblocks.reading.stream.Warning is ParseWarningEvent
    assert not hasattr(editblocks, "Warning")


_space = st.text(alphabet=" \t\x0b\x85\u2028\x1c", max_size=2)
marker_lines = st.one_of(
    st.builds(
        lambda a, run, b, word, c: a + run + b + word + c,
        _space,
        st.sampled_from(
            ["<" * n for n in (3, 5, 7, 9, 10)] + [">" * n for n in (4, 5, 7, 9, 11)] + ["=======", "<<<>>"]
        ),
        _space,
        st.sampled_from(["SEARCH", "REPLACE", "SEARCH>", "SEARCH >", "REPLACEX", "NEW_FILE", "", "search"]),
        _space,
    ),
    st.text(alphabet="<> SEARCHPL", max_size=12),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(marker_lines, max_size=30))
def test_marker_balance_reads_the_same_from_text_as_line_by_line(lines: list[str]) -> None:
    # A large batch's SEARCH/REPLACE markers are counted with patterns over its joined lines, a
    # single line's with SEARCH and REPLACE themselves. The counts must agree.
    from editblocks.reading.scan import MarkerBalance

    one_by_one = MarkerBalance()
    for k, line in enumerate(lines):
        one_by_one.count(line, k + 1)
    at_once = MarkerBalance()
    at_once.count_text("\n" + "\n".join(lines), range(1, len(lines) + 1))
    assert (at_once.searches, at_once.replaces, at_once.first_search, at_once.unbalanced) == (
        one_by_one.searches,
        one_by_one.replaces,
        one_by_one.first_search,
        one_by_one.unbalanced,
    )
    assert at_once.warning() == one_by_one.warning()
