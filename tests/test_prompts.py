"""Prompts: each format's own example reply parses into the blocks it means and applies as intended."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

import editblocks
from editblocks import FORMATS, StreamParser, apply_edits, build_messages, parse_reply
from editblocks.cli import main
from editblocks.files.workspace import WorkspaceError
from editblocks.formats import UnknownFormatError
from editblocks.prompts import (
    DEFAULT_FENCE,
    MissingPromptError,
    choose_prompt_fence,
    example_messages,
    reminder,
    system_prompt,
)
from editblocks.reading.stream import BlockCompleted

EXAMPLE = Path(__file__).parent / "prompt_example"
PROMPT_FORMATS = [
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
]
EDITOR = {"editor-diff", "editor-diff-fenced"}
FILE_OPERATIONS = {"patch", "udiff"}
"""Formats whose edits can delete a file: their second example deletes one instead of suggesting ``git rm``."""

# The format each example block is read as: editor-* replies are written like their base format.
BLOCK_FORMAT = {
    "diff": "diff",
    "editor-diff": "diff",
    "diff-fenced": "diff-fenced",
    "editor-diff-fenced": "diff-fenced",
    "edit-v2": "edit-v2",
    "edit-v3": "edit-v3",
    "file-sections": "file-sections",
    "patch": "patch",
    "udiff": "udiff",
    "cline": "cline",
}


def tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` (editblocks' own ``.editblocks/`` folder left out)."""
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".editblocks" not in p.relative_to(root).parts
    }


def assistant_replies(format: str, fence: str = DEFAULT_FENCE) -> list[str]:
    return [m["content"] for m in example_messages(format, fence) if m["role"] == "assistant"]


# -- the example exchange of each format ----------------------------------------------------------


@pytest.mark.parametrize("format", PROMPT_FORMATS)
@pytest.mark.parametrize("fence", [DEFAULT_FENCE, "```", "``````"])
def test_example_reply_parses_into_the_blocks_it_means_and_applies(format: str, fence: str, tmp_path: Path) -> None:
    edits, *rest = assistant_replies(format, fence)
    for requested in (None, format):
        parsed = parse_reply(edits, requested)
        assert parsed.warnings == []
        assert parsed.shell_suggestions == []
        assert [(b.file_path, b.format, b.is_create) for b in parsed.blocks] == [
            ("inventory/stock.py", BLOCK_FORMAT[format], False),
            ("inventory/stock.py", BLOCK_FORMAT[format], False),
            ("inventory/report.py", BLOCK_FORMAT[format], True),
        ]
    parsed = parse_reply(edits)
    # What each block means, whatever the format: add the check, drop describe(), create report.py.
    first, second, third = parsed.blocks
    assert "raise ValueError" in first.replace_text and "raise ValueError" not in first.search_text
    assert "def describe" in second.search_text and "def describe" not in second.replace_text
    assert third.search_text == "" and third.replace_text.startswith("def describe(item):\n")

    project = tmp_path / "project"
    shutil.copytree(EXAMPLE / "before", project)
    result = apply_edits(parsed, project)
    assert [r.status.value for r in result.results] == ["applied"] * 3, [r.reason for r in result.results]
    assert tree(project) == tree(EXAMPLE / "after")

    # Streamed in small pieces, the reply gives the same blocks.
    stream = StreamParser()
    events = [e for i in range(0, len(edits), 5) for e in stream.feed(edits[i : i + 5])] + stream.close()
    assert [e.block for e in events if isinstance(e, BlockCompleted)] == parsed.blocks

    if format in EDITOR:
        assert rest == []
    elif format in FILE_OPERATIONS:
        (delete,) = rest
        parsed_delete = parse_reply(delete)
        assert parsed_delete.warnings == [] and parsed_delete.shell_suggestions == []
        assert [(b.file_path, b.kind) for b in parsed_delete.blocks] == [("inventory/legacy.py", "delete")]
        project = tmp_path / "delete"
        shutil.copytree(EXAMPLE / "before", project)
        deleted = apply_edits(parsed_delete, project)
        assert deleted.ok and not (project / "inventory" / "legacy.py").exists()
    else:
        (shell,) = rest
        parsed_shell = parse_reply(shell)
        assert parsed_shell.blocks == [] and parsed_shell.warnings == []
        assert parsed_shell.shell_suggestions == ["git rm inventory/legacy.py"]


@pytest.mark.parametrize("format", PROMPT_FORMATS)
def test_example_conversation_alternates_user_and_assistant(format: str) -> None:
    messages = example_messages(format)
    assert [m["role"] for m in messages] == ["user", "assistant"] * (len(messages) // 2)
    assert messages[0]["content"] == example_messages("diff")[0]["content"]  # one request for every format


# -- the texts -------------------------------------------------------------------------------------


@pytest.mark.parametrize("format", PROMPT_FORMATS)
def test_prompt_texts_are_complete(format: str) -> None:
    texts = [system_prompt(format), reminder(format)] + [m["content"] for m in example_messages(format)]
    for text in texts:
        assert text.strip()
        assert "{{" not in text and "}}" not in text.replace("{item.name}: {item.quantity}", "")
        assert "<!--" not in text
    system = system_prompt(format)
    assert len(reminder(format)) < len(system) / 2
    markers = {
        "edit-v2": ["<<<<<<< EDIT", "-------", ">>>>>>>"],
        "edit-v3": ["««« EDIT", "═══════ REPL", "»»» EDIT END"],
        "file-sections": ["### File:", "<<<<<<< NEW_FILE", "<<<<<<< SEARCH"],
        "patch": ["*** Begin Patch", "*** Update File:", "*** Add File:", "*** End Patch"],
        "udiff": ["--- a/", "+++ b/", "@@ -", "/dev/null"],
        "cline": ["------- SEARCH", "=======", "+++++++ REPLACE", "<path>"],
        "whole": ["full path", "complete new content"],
    }.get(format, ["<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"])
    for marker in markers:
        assert marker in system and marker in reminder(format), marker


@pytest.mark.parametrize("format", PROMPT_FORMATS)
def test_editor_variants_leave_out_shell_commands(format: str) -> None:
    texts = "\n".join([system_prompt(format), reminder(format)] + [m["content"] for m in example_messages(format)])
    shell_words = ["git rm", "git mv", "bash"]
    if format in EDITOR:
        for word in shell_words:
            assert word not in texts, word
        assert "no shell commands" in reminder(format) or "Do not suggest shell commands" in system_prompt(format)
    else:
        for word in shell_words:
            assert word in system_prompt(format), word


def test_path_placement_differs_between_diff_and_diff_fenced() -> None:
    assert "inside the fence" in system_prompt("diff-fenced")
    assert "inside the fence" in reminder("diff-fenced")
    assert "inside the fence" not in system_prompt("diff")


def test_whole_file_example_parses_and_applies(tmp_path: Path) -> None:
    """``whole`` rewrites files: its example gives stock.py in full and the new report.py."""
    texts = [system_prompt("whole"), reminder("whole")] + [m["content"] for m in example_messages("whole")]
    for text in texts:
        assert "{{" not in text and "<!--" not in text
    edits, shell = assistant_replies("whole")
    parsed = parse_reply(edits, "whole")
    assert parsed.warnings == []
    assert [(b.file_path, b.kind) for b in parsed.blocks] == [
        ("inventory/stock.py", "whole"),
        ("inventory/report.py", "whole"),
    ]
    assert parse_reply(edits).blocks == []  # never read unless asked for
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE / "before", project)
    result = apply_edits(edits, project, format="whole")
    assert result.ok, [r.reason for r in result.results]
    assert tree(project) == tree(EXAMPLE / "after")
    assert parse_reply(shell).shell_suggestions == ["git rm inventory/legacy.py"]


def test_every_registered_format_has_prompts() -> None:
    for name in FORMATS:
        assert system_prompt(name) and reminder(name) and example_messages(name), name


def test_unknown_format() -> None:
    with pytest.raises(UnknownFormatError):
        system_prompt("no-such-format")
    with pytest.raises(UnknownFormatError):
        build_messages("no-such-format", "hi")


def test_missing_prompt_text_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    from editblocks import prompts

    with pytest.raises(MissingPromptError):
        prompts._template("no-such-folder/system.md")


def test_prompts_are_in_our_own_words() -> None:
    """A few sentences that other tools' prompts use word for word do not appear."""
    borrowed = [
        "Act as an expert software developer",
        "ONLY EVER RETURN CODE IN A",
        "Do what they ask, but no more",
        "Trust this message as the true contents",
        "Every *SEARCH* section must *EXACTLY MATCH*",
        "Never wrap edit blocks in markdown code fences",
    ]
    root = resources.files("editblocks") / "prompts"
    texts = []
    for folder in root.iterdir():
        if folder.is_dir():
            texts += [f.read_text(encoding="utf-8") for f in folder.iterdir() if f.name.endswith(".md")]
    assert len(texts) > 20
    for text in texts:
        for sentence in borrowed:
            assert sentence.lower() not in text.lower(), sentence


# -- fences ----------------------------------------------------------------------------------------


def test_fence_is_longer_than_any_fence_in_the_files() -> None:
    assert choose_prompt_fence() == "````"
    assert choose_prompt_fence("```python\nx\n```\n") == "````"
    assert choose_prompt_fence("a\n  `````\n") == "``````"
    text = "Docs:\n````markdown\n```python\nx = 1\n```\n````\n"
    messages = build_messages("diff", "Fix the docs.", files=[("docs/guide.md", text)])
    fence = "`````"
    system = messages[0]["content"]
    assert f"Use exactly {fence} (5 backticks)" in system
    listing = next(m["content"] for m in messages if "docs/guide.md" in m["content"])
    assert f"docs/guide.md\n{fence}\n{text}{fence}" in listing
    assert f"\n{fence}python\n" in messages[2]["content"]  # the example uses the same fence
    assert fence in messages[-1]["content"]


def test_fence_covers_read_only_files_and_summaries() -> None:
    messages = build_messages("diff", "x", read_only=[("r.md", "``````\n")])
    assert "```````" in messages[0]["content"]
    messages = build_messages("diff", "x", summaries="a.md:\n`````\n")
    assert "``````" in messages[0]["content"]


# -- message lists ---------------------------------------------------------------------------------


def test_build_messages_order_and_contents(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_bytes(b"def main():\r\n    pass\r\n")
    messages = build_messages(
        "edit-v3",
        "Make main() print hello.",
        files=["src/app.py", ("src/new.py", "X = 1")],
        read_only=[("docs/notes.md", "Read me.\n")],
        summaries={"src/lib.py": "⋮\n│def helper():\n⋮"},
        root=tmp_path,
    )
    roles = [m["role"] for m in messages]
    assert roles[0] == "system"
    assert roles[1:] == ["user", "assistant"] * ((len(roles) - 2) // 2) + ["user"]
    assert messages[0]["content"] == system_prompt("edit-v3")
    n_example = len(example_messages("edit-v3"))
    assert messages[1 : 1 + n_example] == example_messages("edit-v3")
    rest = [m["content"] for m in messages[1 + n_example :]]
    after_example, _, read_only, _, summaries, _, files, _, request = rest
    assert "not part of my project" in after_example
    assert "docs/notes.md\n````\nRead me.\n````" in read_only
    assert "src/lib.py:\n⋮\n│def helper():\n⋮" in summaries
    assert "src/app.py\n````\ndef main():\n    pass\n````" in files  # read under root, CRLF as LF
    assert "src/new.py\n````\nX = 1\n````" in files
    assert request.startswith("Make main() print hello.\n\n# Reminder")
    assert request.endswith(reminder("edit-v3").rstrip("\n"))
    json.dumps(messages)


def test_optional_parts_are_left_out() -> None:
    messages = build_messages("diff", "Create hello.py printing hello.")
    n_example = len(example_messages("diff"))
    assert len(messages) == 1 + n_example + 2 + 1
    assert messages[-1]["content"].startswith("Create hello.py printing hello.")
    summaries = build_messages("diff", "x", summaries="  \n")
    assert len(summaries) == len(messages)


def test_file_contents_are_never_read_as_template_syntax() -> None:
    text = "{{fence}} {{include shared/role.md}} {{request}}\n<!-- role: user -->\n"
    messages = build_messages("diff", "{{reminder}}", files=[("t.txt", text)])
    assert any(text in m["content"] for m in messages)
    assert messages[-1]["content"].startswith("{{reminder}}\n\n# Reminder")


def test_paths_are_read_safely_under_root(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x\n")
    with pytest.raises(WorkspaceError):
        build_messages("diff", "x", files=["../outside.py"], root=tmp_path)
    with pytest.raises(WorkspaceError):
        build_messages("diff", "x", files=["missing.py"], root=tmp_path)
    assert any(
        "a.py\n````\nx\n````" in m["content"] for m in build_messages("diff", "x", files=[Path("a.py")], root=tmp_path)
    )


def test_public_name() -> None:
    assert editblocks.build_messages is build_messages
    assert "build_messages" in editblocks.__all__


# -- command line ----------------------------------------------------------------------------------


def test_cli_prints_the_system_prompt(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("````\n")
    runner = CliRunner()
    result = runner.invoke(main, ["prompt", "--format", "edit-v2"])
    assert result.exit_code == 0, result.output
    assert result.output == system_prompt("edit-v2")
    result = runner.invoke(main, ["prompt", "--root", str(tmp_path), "a.md"])
    assert result.exit_code == 0, result.output
    assert result.output == system_prompt("diff", "`````")


def test_cli_prints_the_messages_as_json(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    (tmp_path / "notes.md").write_text("n\n")
    runner = CliRunner()
    args = ["prompt", "--format", "file-sections", "--root", str(tmp_path), "--messages", "--request", "Rename x."]
    result = runner.invoke(main, [*args, "src/a.py", str(tmp_path / "src" / "a.py"), "--read-only", "notes.md"])
    assert result.exit_code == 0, result.output
    messages = json.loads(result.output)
    assert messages == build_messages(
        "file-sections", "Rename x.", files=["src/a.py", "src/a.py"], read_only=["notes.md"], root=tmp_path
    )
    result = runner.invoke(main, ["prompt", "--messages", "--request", "-"], input="From stdin.\n")
    assert json.loads(result.output)[-1]["content"].startswith("From stdin.\n\n# Reminder")


def test_cli_refuses_bad_files(tmp_path: Path) -> None:
    runner = CliRunner()
    for args in (["missing.py"], ["../x.py"], [str(Path(tmp_path).parent / "elsewhere.py")]):
        result = runner.invoke(main, ["prompt", "--root", str(tmp_path), *args])
        assert result.exit_code == 2, (args, result.output)
    result = runner.invoke(main, ["prompt", "--format", "nope"])
    assert result.exit_code == 2


# -- packaging -------------------------------------------------------------------------------------


def test_prompt_texts_ship_in_the_wheel(tmp_path: Path) -> None:
    builders = pytest.importorskip("hatchling.builders.wheel")
    project = Path(__file__).resolve().parent.parent
    source = resources.files("editblocks") / "prompts"
    if not Path(str(source)).is_relative_to(project):
        pytest.skip("editblocks is not installed from this source tree")
    (wheel,) = builders.WheelBuilder(str(project)).build(directory=str(tmp_path), versions=["standard"])
    import zipfile

    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        "editblocks/prompts/" + p.relative_to(Path(str(source))).as_posix() for p in Path(str(source)).rglob("*.md")
    }
    assert expected and expected <= names
    for name in PROMPT_FORMATS:
        for part in ("system", "example", "reminder"):
            assert f"editblocks/prompts/{name}/{part}.md" in names
    # The prompts load from the wheel itself, imported as a zip archive.
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import editblocks, editblocks.prompts as p; "
        "assert editblocks.__file__.startswith(sys.argv[1]), editblocks.__file__; "
        "print(len(editblocks.build_messages('edit-v3', 'hi', files=[('a', 'b')])))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, "-c", code, wheel], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) == len(build_messages("edit-v3", "hi", files=[("a", "b")]))


def test_example_files_match_the_request() -> None:
    """The fixture really is the example's project: the searched text occurs once in the 'before' files."""
    before = tree(EXAMPLE / "before")
    for format in PROMPT_FORMATS:
        for block in parse_reply(assistant_replies(format)[0]).blocks:
            if block.search_text:
                assert before[block.file_path].count(block.search_text) == 1, (format, block)
    assert re.search(r"def describe", before["inventory/stock.py"])
