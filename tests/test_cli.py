"""The ``editblocks`` command: exit codes, JSON output, dry runs, unusable replies, other commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import editblocks
from editblocks.cli import main

from .helpers import read_tree, sr, write_tree

GOOD = sr("a.py", "x = 1\n", "x = 2\n")
BAD = sr("a.py", "this_text_is_in_no_file = True\n", "y\n")
RESULT_KEYS = {"file_path", "status", "reason", "strategy", "estimated_line", "reply_line"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write_tree(root, {"a.py": "x = 1\n", "b.py": "y = 1\n"})
    return root


def run(*args: str, input: str | bytes | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def write_reply(tmp_path: Path, text: str | bytes, name: str = "reply.md") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


# -- exit codes ------------------------------------------------------------------------------


def test_exit_0_when_every_block_applied(project: Path, tmp_path: Path) -> None:
    code, out, _ = run("apply", str(write_reply(tmp_path, GOOD)), "--root", str(project))
    assert code == 0, out
    assert (project / "a.py").read_text() == "x = 2\n"
    assert "1 applied, 0 failed, 0 skipped" in " ".join(out.split())


def test_exit_1_when_a_block_failed(project: Path, tmp_path: Path) -> None:
    reply = write_reply(tmp_path, sr("b.py", "y = 1\n", "y = 2\n") + BAD)
    code, out, _ = run("apply", str(reply), "--root", str(project))
    assert code == 1
    assert (project / "b.py").read_text() == "y = 2\n"
    assert (project / "a.py").read_text() == "x = 1\n"
    assert "not found" in " ".join(out.split()).lower()


def test_exit_1_when_a_block_was_skipped(project: Path, tmp_path: Path) -> None:
    code, out, _ = run("apply", str(write_reply(tmp_path, BAD + GOOD)), "--root", str(project), "--json")
    assert code == 1
    assert [r["status"] for r in json.loads(out)["results"]] == ["failed", "skipped"]
    assert (project / "a.py").read_text() == "x = 1\n"


def test_exit_2_when_reply_has_no_blocks(project: Path, tmp_path: Path) -> None:
    before = read_tree(project)
    code, out, err = run(
        "apply", str(write_reply(tmp_path, "Sure, here is an explanation without edits.\n")), "--root", str(project)
    )
    assert code == 2
    assert "no edit blocks" in err
    assert read_tree(project) == before


@pytest.mark.parametrize(
    "args, needle",
    [
        (["apply", "{tmp}/missing-reply.md", "--root", "{project}"], "not found"),
        (["apply", "{reply}", "--root", "{tmp}/no-such-root"], "root"),
        (["apply", "{reply}", "--root", "{project}", "--format", "bogus"], "bogus"),
        (["apply", "{reply}", "--root", "{project}", "--no-such-option"], "no-such-option"),
        (["no-such-command"], "no-such-command"),
    ],
)
def test_exit_2_on_usage_errors(project: Path, tmp_path: Path, args: list[str], needle: str) -> None:
    reply = write_reply(tmp_path, GOOD)
    before = read_tree(project)
    filled = [a.format(tmp=tmp_path, project=project, reply=reply) for a in args]
    code, _, err = run(*filled)
    assert code == 2
    assert needle in err
    assert read_tree(project) == before


@pytest.mark.parametrize(
    "content, needle",
    [(b"", "empty"), (b"   \n\n\t\n", "empty"), (b"a.py\n\x00\x01\x02binary", "binary")],
    ids=["empty", "blank", "binary"],
)
def test_unusable_reply_is_a_usage_error(project: Path, tmp_path: Path, content: bytes, needle: str) -> None:
    before = read_tree(project)
    code, out, err = run("apply", str(write_reply(tmp_path, content)), "--root", str(project))
    assert code == 2
    assert needle in err.lower()
    assert read_tree(project) == before


def test_reply_from_stdin(project: Path) -> None:
    code, _, _ = run("apply", "-", "--root", str(project), input=GOOD)
    assert code == 0
    assert (project / "a.py").read_text() == "x = 2\n"


def test_empty_stdin_is_a_usage_error(project: Path) -> None:
    code, _, err = run("apply", "-", "--root", str(project), input="")
    assert code == 2
    assert "empty" in err.lower()
    assert (project / "a.py").read_text() == "x = 1\n"


# -- output ------------------------------------------------------------------------------------


def test_json_output_keys(project: Path, tmp_path: Path) -> None:
    reply = write_reply(tmp_path, "Then `git rm b.py`.\n\n" + GOOD + BAD.replace("a.py", "b.py"))
    code, out, _ = run("apply", str(reply), "--root", str(project), "--json")
    assert code == 1
    data = json.loads(out)
    assert {"format", "results", "files_modified", "shell_suggestions", "warnings"} <= set(data)
    assert data["format"] == "diff"
    assert data["files_modified"] == ["a.py"]
    assert data["shell_suggestions"] == ["git rm b.py"]
    assert data["warnings"] == []
    assert [r["status"] for r in data["results"]] == ["applied", "failed"]
    for row in data["results"]:
        assert set(row) >= RESULT_KEYS
    first, second = data["results"]
    assert (first["file_path"], first["strategy"], first["estimated_line"], first["reply_line"], first["reason"]) == (
        "a.py",
        "exact",
        1,
        5,
        None,
    )
    assert second["file_path"] == "b.py" and "not found" in second["reason"].lower()


def test_json_warnings_carry_line_numbers(project: Path, tmp_path: Path) -> None:
    reply = write_reply(tmp_path, GOOD + "\nb.py\n```\n<<<<<<< SEARCH\ny = 1\n")
    code, out, _ = run("apply", str(reply), "--root", str(project), "--json")
    data = json.loads(out)
    # The complete block applied, but a truncated reply is not a success: exit 1, and the JSON
    # says which block was cut.
    assert code == 1 and data["ok"] is False
    assert data["results"][0]["status"] == "applied"
    assert any(w["line"] == 12 and "truncated" in w["message"] and w["in_reply"] for w in data["warnings"])


def test_dry_run_writes_nothing(project: Path, tmp_path: Path) -> None:
    reply = write_reply(tmp_path, GOOD + sr("new/file.py", "", "NEW = 1\n"))
    before = read_tree(project)
    code, out, _ = run("apply", str(reply), "--root", str(project), "--dry-run", "--json")
    assert code == 0
    assert read_tree(project) == before
    assert not (project / "new").exists()
    data = json.loads(out)
    assert sorted(data["files_modified"]) == ["a.py", "new/file.py"]
    # The human-readable dry run shows the diff it would apply.
    code, out, _ = run("apply", str(reply), "--root", str(project), "--dry-run")
    assert code == 0
    assert "+x = 2" in out and "-x = 1" in out
    assert read_tree(project) == before


def test_format_option_restricts_parsing(project: Path, tmp_path: Path) -> None:
    reply = write_reply(tmp_path, GOOD)
    code, _, err = run("apply", str(reply), "--root", str(project), "--format", "edit-v2")
    assert code == 2
    assert "no edit blocks" in err
    assert (project / "a.py").read_text() == "x = 1\n"


def test_formats_lists_every_format_with_a_description() -> None:
    code, out, _ = run("formats")
    assert code == 0
    starts = {line.split()[0] for line in out.splitlines() if line.strip()}
    for name, fmt in editblocks.FORMATS.items():
        assert name in starts
        assert fmt.description.split()[0] in out


def test_formats_prints_one_line_per_format() -> None:
    code, out, _ = run("formats")
    assert code == 0
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == len(editblocks.FORMATS)
    for line, (name, fmt) in zip(lines, editblocks.FORMATS.items()):
        assert line.split()[0] == name
        assert line.rstrip().endswith(fmt.description)


def test_check_lists_blocks_and_warnings_without_touching_files(project: Path, tmp_path: Path) -> None:
    reply = write_reply(tmp_path, GOOD + "\nb.py\n```\n<<<<<<< SEARCH\ny = 1\n")
    before = read_tree(project)
    code, out, _ = run("check", str(reply))
    assert code == 1  # blocks found, but one was malformed
    flat = " ".join(out.split())
    assert "a.py" in flat and "truncated" in flat
    code, out, _ = run("check", str(reply), "--json")
    data = json.loads(out)
    assert [(b["file_path"], b["kind"], b["reply_line"]) for b in data["blocks"]] == [("a.py", "edit", 3)]
    assert any(w["line"] == 12 and "truncated" in w["message"] for w in data["warnings"])
    assert read_tree(project) == before
    code, _, _ = run("check", str(write_reply(tmp_path, GOOD, "clean.md")))
    assert code == 0
    code, _, _ = run("check", str(write_reply(tmp_path, "no blocks here\n", "none.md")))
    assert code == 2


def test_demo_runs_and_prints_a_result() -> None:
    code, out, _ = run("demo")
    assert code == 0
    flat = " ".join(out.split())
    assert "applied" in flat and "failed" in flat  # the demo reply contains one stale block on purpose
    assert "shop/cart.py" in flat
    assert "discount" in flat


def test_version_option() -> None:
    code, out, _ = run("--version")
    assert code == 0 and editblocks.__version__ in out


def test_python_dash_m_behaves_like_the_command(project: Path, tmp_path: Path) -> None:
    reply = write_reply(tmp_path, GOOD + BAD.replace("a.py", "b.py"))
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "editblocks", "apply", str(reply), "--root", str(project), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert [r["status"] for r in data["results"]] == ["applied", "failed"]
    assert (project / "a.py").read_text() == "x = 2\n"
    assert (project / "b.py").read_text() == "y = 1\n"
    usage = subprocess.run(
        [sys.executable, "-m", "editblocks", "apply", str(tmp_path / "nope.md"), "--root", str(project)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert usage.returncode == 2
    assert "not found" in usage.stderr


def test_a_flood_of_warnings_prints_twenty_and_a_count(tmp_path: Path) -> None:
    """25,000 malformed markers: the terminal shows 20 warnings and how many more; --json keeps all."""
    reply = "a.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n" + ">>>>>>> REPLACE\n" * 25_000
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "reply.md").write_text(reply)
    run = subprocess.run(
        [sys.executable, "-m", "editblocks", "apply", "reply.md", "--no-diff"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    shown = [line for line in (run.stdout + run.stderr).splitlines() if line.startswith("warning:")]
    assert len(shown) == 20 and "more warning" in run.stdout + run.stderr
    as_json = subprocess.run(
        [sys.executable, "-m", "editblocks", "apply", "reply.md", "--json", "--dry-run"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert len(json.loads(as_json.stdout)["warnings"]) > 20


def test_a_truncated_reply_on_standard_input_exits_1(tmp_path: Path) -> None:
    """Piped and cut off inside its second block: the first block is written, the exit status is 1."""
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 1\n")
    reply = sr("a.py", "x = 1\n", "x = 2\n") + "\nb.py\n```\n<<<<<<< SEARCH\ny = 1\n=======\ny = 2\n"
    run = subprocess.run(
        [sys.executable, "-m", "editblocks", "apply", "-", "--json"],
        cwd=tmp_path,
        input=reply,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1, run.stderr
    data = json.loads(run.stdout)
    assert data["ok"] is False and any(w["in_reply"] and "truncated" in w["message"] for w in data["warnings"])
    assert (tmp_path / "a.py").read_text() == "x = 2\n" and (tmp_path / "b.py").read_text() == "y = 1\n"
    atomic = subprocess.run(
        [sys.executable, "-m", "editblocks", "apply", "-", "--atomic"],
        cwd=tmp_path,
        input=reply.replace("x = 1", "x = 2").replace("x = 2\n>", "x = 3\n>"),
        capture_output=True,
        text=True,
    )
    assert atomic.returncode == 1 and (tmp_path / "a.py").read_text() == "x = 2\n"
