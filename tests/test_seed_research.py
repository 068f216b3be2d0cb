"""Seed 003 (copy-and-edit research summary): one test per item of its "10.2 Testing Strategy".

The parser items map to :func:`editblocks.parse_reply`, the ``applyEdit`` items to
:func:`editblocks.apply_edits`, and the message-parser items to the line-driven parser that
reads ``<boltAction>`` wrappers.
"""

from __future__ import annotations

from pathlib import Path

import editblocks
from editblocks import EditBlock, EditStatus, parse_reply

from .helpers import apply_to, sr

HERO = """export function Hero() {
  return (
    <section className="hero">
      <h1>Welcome</h1>
    </section>
  );
}
"""


# -- 1. edit parser --------------------------------------------------------------------------


def test_parses_single_block() -> None:
    parsed = parse_reply(
        sr("src/App.tsx", "import React from 'react';\n", "import React, { useState } from 'react';\n")
    )
    assert [(b.file_path, b.old_lines, b.new_lines) for b in parsed.blocks] == [
        ("src/App.tsx", "import React from 'react';\n", "import React, { useState } from 'react';\n")
    ]


def test_parses_multiple_blocks_same_file() -> None:
    text = (
        sr("src/App.tsx", "a\n", "b\n")
        + "\n"
        + sr("src/App.tsx", "c\n", "d\n")
        + "\n"
        + sr("src/App.tsx", "e\n", "f\n")
    )
    parsed = parse_reply(text)
    assert [b.file_path for b in parsed.blocks] == ["src/App.tsx"] * 3
    assert [b.old_lines for b in parsed.blocks] == ["a\n", "c\n", "e\n"]


def test_parses_multiple_blocks_different_files() -> None:
    text = sr("src/App.tsx", "a\n", "b\n") + sr("src/styles/main.css", "c\n", "d\n") + sr("README.md", "e\n", "f\n")
    parsed = parse_reply(text)
    assert [b.file_path for b in parsed.blocks] == ["src/App.tsx", "src/styles/main.css", "README.md"]


def test_handles_empty_search_new_file(root: Path) -> None:
    parsed = parse_reply(sr("src/components/Footer.tsx", "", "export const Footer = () => null;\n"))
    block = parsed.blocks[0]
    assert block.is_create and block.old_lines == ""
    result, files = apply_to(root, {}, sr("src/components/Footer.tsx", "", "export const Footer = () => null;\n"))
    assert (result.results[0].status, result.results[0].strategy) == (EditStatus.APPLIED, "create")
    assert files == {"src/components/Footer.tsx": "export const Footer = () => null;\n"}


def test_handles_malformed_markers_gracefully() -> None:
    texts = [
        "src/a.ts\n<<<<<<< SEARCH\nx\n",
        "src/a.ts\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n",
        "src/a.ts\n=======\nx\n>>>>>>> REPLACE\n",
        "src/a.ts\n<<<<<<< SEARCH\n<<<<<<< SEARCH\n=======\n=======\n>>>>>>> REPLACE\n>>>>>>> REPLACE\n",
    ]
    for text in texts:
        parsed = parse_reply(text)
        assert parsed.blocks == [], text
        assert parsed.warnings, f"malformed markers must be reported: {text!r}"
    # Bare conflict-style markers without SEARCH/REPLACE are neither blocks nor errors.
    assert parse_reply("<<<<<<<\n=======\n>>>>>>>\n").blocks == []


def test_preserves_whitespace_in_content() -> None:
    old = "  <div>\n\t\t<span>  x  </span>   \n\n  </div>\n"
    new = "  <div>\n\t\t<span>  y  </span>   \n\n\n  </div>\n"
    block = parse_reply(sr("a.html", old, new)).blocks[0]
    assert block.old_lines == old
    assert block.new_lines == new


# -- 2. applying -----------------------------------------------------------------------------


def test_applies_exact_match(root: Path) -> None:
    reply = sr(
        "src/components/Hero.tsx",
        'export function Hero() {\n  return (\n    <section className="hero">\n      <h1>Welcome</h1>\n',
        'export function Hero({ title }: { title: string }) {\n  return (\n    <section className="hero">\n      <h1>{title}</h1>\n',
    )
    result, files = apply_to(root, {"src/components/Hero.tsx": HERO}, reply)
    res = result.results[0]
    assert (res.status, res.strategy, res.estimated_line) == (EditStatus.APPLIED, "exact", 1)
    assert files["src/components/Hero.tsx"] == HERO.replace("Hero()", "Hero({ title }: { title: string })").replace(
        "<h1>Welcome</h1>", "<h1>{title}</h1>"
    )


def test_applies_whitespace_normalized_match(root: Path) -> None:
    """SEARCH indented differently from the file: applied in the file's own indentation, or refused; never wrong."""
    search = 'return (\n  <section className="hero">\n    <h1>Welcome</h1>\n'
    replace = 'return (\n  <section className="hero">\n    <h1>Hello</h1>\n'
    result, files = apply_to(root, {"Hero.tsx": HERO}, sr("Hero.tsx", search, replace))
    res = result.results[0]
    expected = HERO.replace("<h1>Welcome</h1>", "<h1>Hello</h1>")
    if res.status is EditStatus.APPLIED:
        assert res.strategy != "exact"
        assert files["Hero.tsx"] == expected
    else:
        assert res.status is EditStatus.FAILED
        assert "whitespace" in (res.reason or "") or "indentation" in (res.reason or "")
        assert files["Hero.tsx"] == HERO


def test_applies_fuzzy_match_with_high_similarity(root: Path) -> None:
    """One misremembered context line: applied with only the intended change, or refused; never wrong."""
    text = (
        "def total(items):\n    result = 0\n    for item in items:\n        result += item.price\n    return result\n"
    )
    search = (
        "def total(items):\n    result = 0\n    for item in items:\n        result += item.cost\n    return result\n"
    )
    replace = "def total(items):\n    result = 0\n    for item in items:\n        result += item.cost\n    return round(result, 2)\n"
    result, files = apply_to(root, {"t.py": text}, sr("t.py", search, replace))
    res = result.results[0]
    if res.status is EditStatus.APPLIED:
        assert res.strategy != "exact"
        # The misremembered line keeps the file's text; only the intended change is made.
        assert files["t.py"] == text.replace("return result", "return round(result, 2)")
    else:
        assert res.status is EditStatus.FAILED and res.reason
        assert files["t.py"] == text


def test_rejects_fuzzy_match_with_multiple_candidates(root: Path) -> None:
    text = (
        "def init_a():\n    value = compute(1)\n    return value\n\n"
        "def init_b():\n    value = compute(1)\n    return value\n"
    )
    search = "def init_c():\n    value = compute(1)\n    return value\n"
    replace = "def init_c():\n    value = compute(2)\n    return value\n"
    result, files = apply_to(root, {"i.py": text}, sr("i.py", search, replace))
    res = result.results[0]
    assert res.status is EditStatus.FAILED
    assert "ambiguous" in (res.reason or "").lower()
    assert "1" in (res.reason or "") and "5" in (res.reason or "")
    assert files["i.py"] == text


def test_rejects_low_similarity_fuzzy_match(root: Path) -> None:
    text = "def total(items):\n    return sum(i.price for i in items)\n"
    search = "class ShoppingBasket:\n    def __init__(self):\n        self.entries = {}\n"
    result, files = apply_to(root, {"t.py": text}, sr("t.py", search, "class ShoppingBasket:\n    pass\n"))
    res = result.results[0]
    assert res.status is EditStatus.FAILED
    assert "not found" in (res.reason or "").lower()
    assert files["t.py"] == text


def test_handles_empty_file(root: Path) -> None:
    # An empty SEARCH fills an empty file ...
    result, files = apply_to(root, {"empty.ts": ""}, sr("empty.ts", "", "export {};\n"))
    assert (result.results[0].status, result.results[0].strategy) == (EditStatus.APPLIED, "create")
    assert files["empty.ts"] == "export {};\n"
    # ... and a SEARCH with text fails on an empty file without touching it.
    result, files = apply_to(root, {"empty2.ts": ""}, sr("empty2.ts", "const a = 1;\n", "const a = 2;\n"))
    assert result.results[0].status is EditStatus.FAILED
    assert "not found" in (result.results[0].reason or "").lower()
    assert files["empty2.ts"] == ""


# -- 3. message-parser integration -----------------------------------------------------------


def test_streams_file_actions_unchanged() -> None:
    """A ``<boltAction type="file">`` (whole-file content) next to an edit action is left alone: only the edit is a block."""
    text = (
        '<boltArtifact id="a" title="App">\n'
        '<boltAction type="file" filePath="src/main.tsx">\n'
        "import React from 'react';\nconst sep = '=======';\n=======\n"
        "</boltAction>\n"
        '<boltAction type="edit">\n'
        "src/App.tsx\n<<<<<<< SEARCH\nconst a = 1;\n=======\nconst a = 2;\n>>>>>>> REPLACE\n"
        "</boltAction>\n"
        '<boltAction type="shell">\nnpm install\n</boltAction>\n'
        "</boltArtifact>\n"
    )
    parsed = parse_reply(text)
    assert [(b.file_path, b.old_lines, b.new_lines) for b in parsed.blocks] == [
        ("src/App.tsx", "const a = 1;\n", "const a = 2;\n")
    ]
    assert parsed.warnings == []


def test_accumulates_edit_action_content() -> None:
    """Lines of a ``<boltAction type="edit">`` accumulate into one block, blank lines and all."""
    body = "line one\n\n  line three\n"
    text = f'<boltAction type="edit">\nsrc/App.tsx\n<<<<<<< SEARCH\n{body}=======\n{body}extra\n>>>>>>> REPLACE\n</boltAction>\n'
    parser = editblocks.get_format("diff").parser()
    items = []
    lines = text.split("\n")[:-1]
    for i, line in enumerate(lines, start=1):
        items.extend(parser.feed(line, i))
    items.extend(parser.close(len(lines)))
    assert len(items) == 1
    block = items[0]
    assert isinstance(block, EditBlock)
    assert (block.file_path, block.old_lines, block.new_lines) == ("src/App.tsx", body, body + "extra\n")


def test_emits_edit_action_on_close() -> None:
    """The block is emitted when its closing marker arrives, not before; a wrapper left open does not matter."""
    lines = [
        '<boltAction type="edit" filePath="src/App.tsx">',
        "<<<<<<< SEARCH",
        "a",
        "=======",
        "b",
        ">>>>>>> REPLACE",
    ]
    parser = editblocks.get_format("diff").parser()
    for i, line in enumerate(lines[:-1], start=1):
        assert parser.feed(line, i) == []
    (block,) = parser.feed(lines[-1], len(lines))
    assert isinstance(block, EditBlock)
    assert (block.file_path, block.old_lines, block.new_lines, block.end_line) == (
        "src/App.tsx",
        "a\n",
        "b\n",
        len(lines),
    )
    assert parser.close(len(lines)) == []
