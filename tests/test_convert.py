"""Converting a reply's blocks to another format: what is converted means the same edit, what cannot
be expressed is named and left out, and with the project at hand the converted reply applies the same."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import editblocks
from editblocks import FORMATS, EditBlock, convert, convert_reply, parse_reply
from editblocks.cli import main
from editblocks.formats import UnknownFormatError
from editblocks.pipeline.conversion import ConversionError, same_meaning
from editblocks.reading.reader import split_reply

from .helpers import read_tree, write_tree

SCENARIOS = Path(__file__).parent / "scenarios"
CASES = sorted(p for p in SCENARIOS.iterdir() if p.is_dir() and (p / "reply.md").is_file())
TARGETS = sorted(FORMATS)


def _case(case: Path) -> tuple[str, dict]:
    options = json.loads((case / "options.json").read_text()) if (case / "options.json").is_file() else {}
    return (case / "reply.md").read_bytes().decode("utf-8"), options


def _check(done: editblocks.Conversion, source: list[EditBlock], target: str) -> None:
    """Every source block is converted (the same edit, in order) or named as a problem."""
    assert len(done.blocks) + len(done.problems) == len(source), (target, done.problems)
    it = iter(done.blocks)
    pending = next(it, None)
    for block in source:
        if pending is not None and same_meaning(pending, block, target):
            pending = next(it, None)
    assert pending is None, (target, "a converted block is not the same edit as any source block, in order")
    if done.text:
        again = parse_reply(done.text, target)
        assert again.blocks == done.blocks and again.warnings == [], target
        if FORMATS[target].auto:
            assert [b for b in parse_reply(done.text).blocks] == done.blocks, target


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_every_pair_of_formats_round_trips_on_the_scenario_corpus(case: Path) -> None:
    """parse(render(x)) for every (source, target): the corpus replies as written, then each of
    their conversions converted again to every format."""
    reply, options = _case(case)
    source = parse_reply(reply, options.get("format")).blocks
    converted = 0
    for first in TARGETS:
        done = convert_reply(reply, first, format=options.get("format"))
        _check(done, source, first)
        if not done.blocks:
            continue
        converted += 1
        for second in TARGETS:
            again = convert_reply(done.text, second, format=first)
            _check(again, done.blocks, second)
    # A conversion that converts nothing passes the checks above: at least one target must take a block.
    # (Blocks with several '=======' lines are decided against the file: without it, none converts.)
    assert converted or all(b.other_splits for b in source), "no format could express any block of this reply"


def _apply_copy(
    case: Path, tmp: Path, reply: str, **options: object
) -> tuple[editblocks.ApplyResult, dict[str, bytes]]:
    root = tmp / "project"
    if root.exists():
        shutil.rmtree(root)
    if (case / "before").is_dir():
        shutil.copytree(case / "before", root)
    else:
        root.mkdir(parents=True)
    result = editblocks.apply_edits(reply, root, **options)  # type: ignore[arg-type]
    return result, read_tree(root)


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_converted_with_the_project_applies_the_same(case: Path, tmp_path: Path) -> None:
    """With the project (``root``), a reply whose blocks all apply converts to every format that can
    express it, and the converted reply leaves exactly the same files."""
    reply, options = _case(case)
    original, files = _apply_copy(case, tmp_path, reply, **options)
    if original.results and not all(r.status.value == "applied" for r in original.results):
        # The blocks that apply, as a reply of their own (each in its own format), stand in for it.
        kept = [r.block for r in original.results if r.status.value == "applied"]
        if not kept:
            # Nothing applies: converted with the project, no failed block may pass for resolved.
            failed = {str(r.reply_line) for r in original.results if r.status.value == "failed"}
            if options.get("allow_delete") is False:
                failed = set()  # refused by an apply option that a conversion does not have
            for target in TARGETS:
                done = convert_reply(reply, target, root=tmp_path / "project", format=options.get("format"))
                named = {
                    m.group(1) for m in re.finditer(r"block at reply line (\d+)", " ".join(done.notes + done.problems))
                }
                assert failed <= named, (target, done.notes, done.problems)
            return
        reply = "\n".join(FORMATS[b.format].render(b) for b in kept)
        options = {k: v for k, v in options.items() if k in ("match",)}
        original, files = _apply_copy(case, tmp_path, reply, **options)
    if not original.results or not all(r.status.value == "applied" for r in original.results):
        pytest.skip("the blocks that apply do not apply on their own")
    before = tmp_path / "before"
    if (case / "before").is_dir():
        shutil.copytree(case / "before", before)
    else:
        before.mkdir()
    compared = 0
    for target in TARGETS:
        done = convert_reply(reply, target, root=before, format=options.get("format"))
        if done.problems or done.notes:
            continue
        compared += 1
        result, converted = _apply_copy(
            case,
            tmp_path,
            done.text,
            format=target,
            continue_after_failure=options.get("continue_after_failure", False),
        )
        assert all(r.status.value == "applied" for r in result.results), (
            target,
            [r.reason for r in result.results],
            done.text,
        )
        assert converted == files, (target, done.text)
    # A conversion that converts nothing would compare nothing: every such reply converts to some format.
    sketches = all(b.sketch for b in parse_reply(reply, options.get("format")).blocks)
    assert compared or sketches, "no format could express this reply with the project at hand"
    assert read_tree(before) == read_tree(case / "before") if (case / "before").is_dir() else True


# -- the API ------------------------------------------------------------------------------------------

EDIT = "a.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"


def test_convert_function() -> None:
    text = convert(EDIT, to="udiff")
    assert text == "```diff\n--- a/a.py\n+++ b/a.py\n@@ ... @@\n-x = 1\n+x = 2\n```\n"
    assert convert(text, "diff") == EDIT
    with pytest.raises(UnknownFormatError):
        convert(EDIT, "nope")
    with pytest.raises(ConversionError, match="need the project"):
        convert(EDIT, "whole")
    with pytest.raises(ConversionError, match="deletes the file"):
        convert("*** Begin Patch\n*** Delete File: a.py\n*** End Patch\n", "diff")


def test_content_that_looks_like_the_targets_markers_is_not_converted() -> None:
    reply = "a.txt\n```\n<<<<<<< SEARCH\nold\n=======\n------- SEARCH\n>>>>>>> REPLACE\n```\n"
    done = convert_reply(reply, "cline")
    assert done.blocks == [] and "reads as its own markers" in done.problems[0]
    assert convert_reply(reply, "patch").blocks  # patch carries it


def test_convert_with_root_resolves_and_numbers(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "def a():\n    x = 1\n\n\ndef b():\n    y = 2\n    return y\n"})
    reply = "m.py\n```\n<<<<<<< SEARCH\ndef b():\n    ...\n    return y\n=======\ndef b():\n    ...\n    return y + 1\n>>>>>>> REPLACE\n```\n"
    text = convert(reply, "udiff", root=tmp_path)
    assert "@@ -4,4 +4,4 @@\n \n def b():\n     y = 2\n-    return y\n+    return y + 1\n" in text
    whole = convert(reply, "whole", root=tmp_path)
    assert whole.endswith("def b():\n    y = 2\n    return y + 1\n```\n")
    insertion = '*** Begin Patch\n*** Update File: m.py\n@@ def a():\n+    """A."""\n*** End Patch\n'
    with pytest.raises(ConversionError, match="give --root"):
        convert(insertion, "diff")
    assert 'def a():\n=======\ndef a():\n    """A."""\n' in convert(insertion, "diff", root=tmp_path)


def test_block_whose_separator_the_file_decides_needs_the_project(tmp_path: Path) -> None:
    reply = (SCENARIOS / "rst-underline-in-search" / "reply.md").read_text()
    done = convert_reply(reply, "udiff")
    assert done.blocks == [] and "give --root" in done.problems[0]
    root = tmp_path / "p"
    shutil.copytree(SCENARIOS / "rst-underline-in-search" / "before", root)
    text = convert(reply, "udiff", root=root)
    assert "-Old text.\n+New text.\n" in text
    # Written back as SEARCH/REPLACE it would have several '=======' lines again: refused.
    assert convert_reply(text, "diff").problems


def test_same_meaning() -> None:
    a = EditBlock("a.py", old_lines="x\n", new_lines="y\n", hint_line=3)
    assert same_meaning(EditBlock("a.py", old_lines="x\n", new_lines="y\n"), a)
    assert not same_meaning(EditBlock("a.py", old_lines="x\n", new_lines="z\n"), a)
    assert not same_meaning(EditBlock("b.py", old_lines="x\n", new_lines="y\n"), a)
    assert same_meaning(EditBlock("a.py", delete=True), EditBlock("a.py", delete=True, old_lines="x\n"))
    assert not same_meaning(EditBlock("a.py", new_lines="x\n", scope=("def f():",)), EditBlock("a.py", new_lines="x\n"))


def test_cli_convert(tmp_path: Path) -> None:
    reply = tmp_path / "reply.md"
    reply.write_text(EDIT + "\n*** Begin Patch\n*** Delete File: b.py\n*** End Patch\n")
    runner = CliRunner()
    out = runner.invoke(main, ["convert", str(reply), "--to", "patch"])
    assert out.exit_code == 0, out.output
    assert out.output.startswith("*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** Delete File: b.py\n")
    partial = runner.invoke(main, ["convert", str(reply), "--to", "cline"])
    assert partial.exit_code == 1
    assert "<path>a.py</path>" in partial.stdout and "deletes the file" in partial.stderr
    empty = tmp_path / "prose.md"
    empty.write_text("Just prose.\n")
    assert runner.invoke(main, ["convert", str(empty), "--to", "udiff"]).exit_code == 2
    write_tree(tmp_path / "proj", {"a.py": "x = 1\n"})
    whole = runner.invoke(
        main, ["convert", str(tmp_path / "one.md"), "--to", "whole", "--root", str(tmp_path / "proj")]
    )
    assert whole.exit_code == 2  # the reply file is missing
    (tmp_path / "one.md").write_text(EDIT)
    whole = runner.invoke(
        main, ["convert", str(tmp_path / "one.md"), "--to", "whole", "--root", str(tmp_path / "proj")]
    )
    assert whole.exit_code == 0 and whole.stdout == "a.py\n```\nx = 2\n```\n"
    assert split_reply(whole.stdout) == ["a.py", "```", "x = 2", "```"]


def test_edits_convert_to_lazy_sketches_that_merge_to_the_same_file(tmp_path: Path) -> None:
    """With the project, each edit becomes a sketch of its file (its new lines with a few of the
    file's own lines around them, between elision comments), kept only when merging it gives
    exactly the edit's result: here on the standard library's textwrap.py, as found."""
    import textwrap as module

    text = Path(module.__file__).read_text(encoding="utf-8")
    (tmp_path / "tw.py").write_text(text)
    lines = text.split("\n")
    defs = [i for i, line in enumerate(lines) if line.startswith("    def ")][:3]
    assert len(defs) == 3
    reply = "".join(
        f"tw.py\n```\n<<<<<<< SEARCH\n{lines[i]}\n=======\n{lines[i]}  # edited\n>>>>>>> REPLACE\n```\n" for i in defs
    )
    done = convert_reply(reply, "lazy", root=tmp_path)
    assert done.problems == [] and len(done.blocks) == 3
    assert all("# ... existing code ..." in b.replace_text for b in done.blocks)
    want = editblocks.apply_edits(reply, tmp_path, dry_run=True)
    got = editblocks.apply_edits(done.text, tmp_path, format="lazy", dry_run=True)
    assert got.ok and got.after == want.after
    # Without the project there is no file to sketch against.
    assert "needs the project" in convert_reply(reply, "lazy").problems[0]
