"""The command line in a developer's day: quiet and plain output, colour, messages that say
what to do, paths, git, configuration (issue "A command line that fits a developer's day")."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks.cli import main

from .helpers import sr, write_tree

LONG_PATH = "src/click/some_rather_long_folder_name/utils_with_a_long_name.py"


def run(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=input, env=env)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def in_terminal(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """The output of ``editblocks ARGS`` with standard output on a pseudo-terminal."""
    master, slave = os.openpty()
    full_env = {**os.environ, "COLUMNS": "100", **(env or {})}
    full_env.pop("NO_COLOR", None) if env is None or "NO_COLOR" not in env else None
    proc = subprocess.Popen(
        [sys.executable, "-m", "editblocks", *args], cwd=cwd, stdout=slave, stderr=subprocess.PIPE, env=full_env
    )
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write_tree(root, {LONG_PATH: "def f():\n    return 1\n", "b.py": "y = 1\n"})
    return root


def reply_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "reply.md"
    path.write_text(text, encoding="utf-8")
    return path


TWO = sr(LONG_PATH, "    return 1\n", "    return 2\n") + "\n" + sr("b.py", "no such line\n", "y = 2\n")


# -- 1. output -----------------------------------------------------------------------------------


def test_quiet_prints_one_line_per_block_and_nothing_else(project: Path, tmp_path: Path) -> None:
    code, out, _ = run("apply", "-q", str(reply_file(tmp_path, TWO)), "--root", str(project))
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 2, out
    assert lines[0] == f"block 1 {LONG_PATH}: applied (exact, line 2)"
    assert lines[1].startswith("block 2 b.py: failed: SEARCH text not found")
    assert (project / LONG_PATH).read_text() == "def f():\n    return 2\n"


def test_quiet_with_a_piped_reply_prints_one_line_per_block(project: Path) -> None:
    code, out, _ = run("apply", "--quiet", "-", "--root", str(project), input=TWO)
    assert code == 1
    assert [line.split(":")[0] for line in out.splitlines()] == [f"block 1 {LONG_PATH}", "block 2 b.py"]


def test_output_to_a_pipe_is_plain_lines_with_full_paths(project: Path, tmp_path: Path) -> None:
    code, out, _ = run("apply", str(reply_file(tmp_path, TWO)), "--root", str(project))
    assert code == 1
    assert f"block 1 {LONG_PATH}: applied (exact, line 2)" in out.splitlines()[1]
    assert "…" not in out and "┃" not in out and "│" not in out  # no table, no cut cells
    assert f"+++ b/{LONG_PATH}" in out
    assert "1 applied, 1 failed, 0 skipped" in out
    code, out, _ = run("check", str(reply_file(tmp_path, TWO)))
    assert f"reply line 3: diff edit {LONG_PATH}" in out and "…" not in out


def test_a_terminal_gets_the_table_with_whole_paths(project: Path, tmp_path: Path) -> None:
    out = in_terminal(["check", str(reply_file(tmp_path, TWO))], project)
    assert "Edit blocks (diff)" in out
    assert "…" not in out  # the file column folds rather than cuts
    assert "\x1b[" in out  # styled


def test_no_color_variable_drops_bold_and_italic_too(project: Path, tmp_path: Path) -> None:
    out = in_terminal(["check", str(reply_file(tmp_path, TWO))], project, env={"NO_COLOR": "1"})
    assert "Edit blocks (diff)" in out
    assert "\x1b[" not in out


def test_no_color_flag_in_a_terminal_and_color_flag_in_a_pipe(project: Path, tmp_path: Path) -> None:
    out = in_terminal(["check", "--no-color", str(reply_file(tmp_path, TWO))], project)
    assert "Edit blocks" in out and "\x1b[" not in out
    out = in_terminal(["--no-color", "check", str(reply_file(tmp_path, TWO))], project)
    assert "\x1b[" not in out
    _, out, _ = run("apply", "--color", "--dry-run", str(reply_file(tmp_path, TWO)), "--root", str(project))
    assert "\x1b[" in out
    _, out, _ = run("apply", "--dry-run", str(reply_file(tmp_path, TWO)), "--root", str(project))
    assert "\x1b[" not in out


# -- 2. failure reasons and JSON -----------------------------------------------------------------


def test_a_long_quoted_line_is_cut_with_an_ellipsis(tmp_path: Path) -> None:
    long_line = "value = compute_something(" + ", ".join(f"argument_{i}" for i in range(20)) + ")"
    root = tmp_path / "p"
    write_tree(root, {"a.py": f"def f():\n    {long_line}\n    return value\n"})
    wrong = long_line.replace("argument_3", "argument_three")
    reply = reply_file(tmp_path, sr("a.py", f"def f():\n    {wrong}\n    return value\n", "pass\n"))
    code, out, _ = run("apply", "-q", str(reply), "--root", str(root), "--match", "exact")
    assert code == 1
    assert f"{long_line[:70]}…'" in out, out


def test_a_near_match_is_never_shown_as_100_percent() -> None:
    from editblocks.quoting import percent

    assert percent(0.996) == "99%"
    assert percent(1.0) == "100%"
    assert percent(0.5) == "50%"


def test_a_fuzzy_match_shows_less_than_100_percent(tmp_path: Path) -> None:
    body = "".join(f"    line_number_{i} = compute_value({i}, other_argument_{i})\n" for i in range(60))
    root = tmp_path / "p"
    write_tree(root, {"a.py": "def f():\n" + body})
    search = body.replace("line_number_30 =", "line_numbr_30 =")
    reply = reply_file(tmp_path, sr("a.py", search, search.replace("compute_value(59", "compute(59")))
    code, out, _ = run("apply", "-q", str(reply), "--root", str(root))
    assert code == 0, out
    assert "fuzzy" in out and "100%" not in out


def test_a_mixed_reply_is_titled_mixed_and_json_names_each_blocks_format(tmp_path: Path) -> None:
    root = tmp_path / "p"
    write_tree(root, {"a.py": "x = 1\n", "b.py": "y = 1\n"})
    udiff = "```diff\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-y = 1\n+y = 2\n```\n"
    reply = reply_file(tmp_path, sr("a.py", "x = 1\n", "x = 2\n") + "\n" + udiff)
    _, out, _ = run("check", str(reply))
    assert "edit blocks (mixed (diff, udiff))" in out
    _, out, _ = run("apply", "--dry-run", str(reply), "--root", str(root))
    assert out.startswith("edit blocks (mixed (diff, udiff))")
    _, out, _ = run("apply", "--json", str(reply), "--root", str(root))
    payload = json.loads(out)
    assert [r["format"] for r in payload["results"]] == ["diff", "udiff"]
    assert payload["feedback"] is None


def test_json_carries_the_feedback_message(project: Path, tmp_path: Path) -> None:
    code, out, _ = run("apply", "--json", str(reply_file(tmp_path, TWO)), "--root", str(project))
    assert code == 1
    payload = json.loads(out)
    assert payload["feedback"].startswith("1 of 2 edit blocks failed to apply")
    assert "Block 2 for b.py failed" in payload["feedback"]


# -- 3. messages that say what to do -------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        ("a.py\n```\n<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE\n```\n", "put the lines to replace in SEARCH"),
        ("*** Begin Patch\n*** Add File: a.py\n+new\n*** End Patch\n", "*** Update File with context lines"),
        (
            "```diff\n--- /dev/null\n+++ b/a.py\n@@ -0,0 +1 @@\n+new\n```\n",
            "hunk (--- a/path, +++ b/path) with context lines",
        ),
    ],
)
def test_creating_an_existing_file_says_how_in_the_formats_own_words(tmp_path: Path, reply: str, words: str) -> None:
    root = tmp_path / "p"
    write_tree(root, {"a.py": "old\n"})
    code, out, _ = run("apply", "-q", str(reply_file(tmp_path, reply)), "--root", str(root))
    assert code == 1
    assert words in out, out
    assert "anchor" not in out


# -- 4. paths ------------------------------------------------------------------------------------


def test_a_wrong_folder_gets_a_suggestion_that_is_not_applied(tmp_path: Path) -> None:
    root = tmp_path / "p"
    write_tree(root, {"src/click/utils.py": "x = 1\n"})
    reply = reply_file(tmp_path, sr("lib/utils.py", "x = 1\n", "x = 2\n"))
    code, out, _ = run("apply", "-q", str(reply), "--root", str(root))
    assert code == 1
    assert "did you mean src/click/utils.py?" in out
    assert (root / "src/click/utils.py").read_text() == "x = 1\n"
    assert not (root / "lib").exists()


WHOLE = "Here is the file:\n\nsrc/a.py\n```python\ndef f():\n    return 3\n```\n"


@pytest.mark.parametrize("how", ["file", "stdin", "check"])
def test_a_whole_file_reply_says_how_to_apply_it(tmp_path: Path, how: str) -> None:
    root = tmp_path / "p"
    write_tree(root, {"src/a.py": "def f():\n    return 1\n"})
    if how == "stdin":
        code, _, err = run("apply", "-", "--root", str(root), input=WHOLE)
    elif how == "check":
        code, _, err = run("check", str(reply_file(tmp_path, WHOLE)))
    else:
        code, _, err = run("apply", str(reply_file(tmp_path, WHOLE)), "--root", str(root))
    assert code == 2
    assert "no edit blocks found in the reply; it looks like whole files (src/a.py)" in err
    assert "--format whole" in err
    assert (root / "src/a.py").read_text() == "def f():\n    return 1\n"
    code, _, _ = run("apply", str(reply_file(tmp_path, WHOLE)), "--root", str(root), "--format", "whole")
    assert code == 0 and (root / "src/a.py").read_text() == "def f():\n    return 3\n"


def test_match_ast_without_the_extra_is_a_usage_error_naming_it(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "tree_sitter", None)
    code, _, err = run("apply", str(reply_file(tmp_path, TWO)), "--root", str(project), "--match", "ast")
    assert code == 2
    assert "pip install 'editblocks[ast]'" in err
    assert (project / LONG_PATH).read_text() == "def f():\n    return 1\n"


def test_prompt_messages_without_a_request_is_a_usage_error(tmp_path: Path) -> None:
    code, out, err = run("prompt", "--messages", "--root", str(tmp_path))
    assert code == 2 and out == ""
    assert "--messages needs --request" in err
    code, out, _ = run("prompt", "--messages", "--request", "add a test", "--root", str(tmp_path))
    assert code == 0 and json.loads(out)[-1]["content"].startswith("add a test")


# -- 5. git --------------------------------------------------------------------------------------


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write_tree(root, {"a.py": "x = 1\n", "b.py": "y = 1\n", "src/pkg/util.py": "def f():\n    return 1\n"})
    git(root, "init", "-q")
    git(root, "config", "user.email", "dev@example.com")
    git(root, "config", "user.name", "Dev")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    return root


COMMITTED = sr("a.py", "x = 1\n", "x = 2\n") + "\n" + sr("new.py", "", "z = 1\n")


def test_commit_commits_exactly_the_files_the_apply_wrote(repo: Path, tmp_path: Path) -> None:
    (repo / "b.py").write_text("y = 3\n")
    git(repo, "add", "b.py")  # staged before: stays staged, not committed
    (repo / "notes.txt").write_text("untracked\n")
    code, _, _ = run("apply", str(reply_file(tmp_path, COMMITTED)), "--root", str(repo), "--commit", "-q")
    assert code == 0
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["a.py", "new.py"]
    message = git(repo, "log", "-1", "--format=%B")
    assert message.startswith("Apply edit blocks from reply.md to a.py, new.py")
    assert "- block 1 a.py (reply line 3): applied (exact, line 1)" in message
    assert "- block 2 new.py" in message
    assert git(repo, "status", "--porcelain").splitlines() == ["M  b.py", "?? notes.txt"]


def test_commit_with_a_message(repo: Path, tmp_path: Path) -> None:
    code, _, _ = run("apply", str(reply_file(tmp_path, COMMITTED)), "--root", str(repo), "--commit=Bump x")
    assert code == 0
    assert git(repo, "log", "-1", "--format=%s").strip() == "Bump x"


def test_undo_of_a_committed_apply_removes_the_commit(repo: Path, tmp_path: Path) -> None:
    (repo / "b.py").write_text("y = 3\n")
    git(repo, "add", "b.py")
    head = git(repo, "rev-parse", "HEAD")
    run("apply", str(reply_file(tmp_path, COMMITTED)), "--root", str(repo), "--commit")
    assert git(repo, "rev-parse", "HEAD") != head
    code, out, _ = run("undo", "--root", str(repo))
    assert code == 0, out
    assert "removed (git reset --soft HEAD~1)" in out
    assert git(repo, "rev-parse", "HEAD") == head
    assert (repo / "a.py").read_text() == "x = 1\n" and not (repo / "new.py").exists()
    assert git(repo, "status", "--porcelain").splitlines() == ["M  b.py"]


def test_undo_refuses_when_later_commits_follow_the_applys_commit(repo: Path, tmp_path: Path) -> None:
    run("apply", str(reply_file(tmp_path, COMMITTED)), "--root", str(repo), "--commit")
    (repo / "b.py").write_text("y = 9\n")
    git(repo, "commit", "-qam", "later work")
    head = git(repo, "rev-parse", "HEAD")
    code, _, err = run("undo", "--root", str(repo))
    assert code == 1
    assert "refused" in err and "1 later commit(s) follow it" in err and "git revert" in err
    assert git(repo, "rev-parse", "HEAD") == head
    assert (repo / "a.py").read_text() == "x = 2\n" and (repo / "new.py").exists()


def test_undo_list_shows_when_which_reply_and_files_and_drops_applies_whose_files_are_gone(
    repo: Path, tmp_path: Path
) -> None:
    run("apply", str(reply_file(tmp_path, sr("new.py", "", "z = 1\n"))), "--root", str(repo))
    run("apply", "-", "--root", str(repo), input="Make x two.\n\n" + sr("a.py", "x = 1\n", "x = 2\n"))
    code, out, _ = run("undo", "--list", "--root", str(repo))
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("#2  20") and "Make x two." in lines[0] and "a.py (changed)" in lines[0]
    assert "reply.md" in lines[1] and "new.py (created)" in lines[1]
    (repo / "new.py").unlink()
    _, out, _ = run("undo", "--list", "--root", str(repo))
    assert len(out.splitlines()) == 1 and "new.py" not in out


def test_from_a_subfolder_the_root_defaults_to_the_repositorys_top_level(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo / "src" / "pkg")
    reply = reply_file(tmp_path, sr("src/pkg/util.py", "    return 1\n", "    return 2\n"))
    code, _, err = run("apply", "-q", str(reply))
    assert code == 0
    assert err.count("repository's top level") == 1 and str(repo) in err
    assert (repo / "src/pkg/util.py").read_text() == "def f():\n    return 2\n"
    assert not (repo / "src/pkg/src").exists()


def test_from_a_subfolder_paths_under_it_stay_there(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo / "src" / "pkg")
    code, _, err = run("apply", "-q", str(reply_file(tmp_path, sr("util.py", "    return 1\n", "    return 3\n"))))
    assert code == 0 and "top level" not in err
    assert (repo / "src/pkg/util.py").read_text() == "def f():\n    return 3\n"
    # An explicit --root is never changed.
    code, _, err = run("apply", "-q", str(reply_file(tmp_path, sr("src/pkg/util.py", "x\n", "y\n"))), "--root", ".")
    assert code == 1 and "top level" not in err


# -- 6. configuration ----------------------------------------------------------------------------


def test_settings_come_from_pyproject_then_the_environment_then_flags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "proj"
    write_tree(
        project,
        {
            "pyproject.toml": '[tool.editblocks]\natomic = true\nroot = "code"\nmatch = "exact"\n',
            "code/a.py": "x = 1\n",
            "code/b.py": "y = 1\n",
        },
    )
    monkeypatch.chdir(project)
    for key in ("ROOT", "FORMAT", "MATCH", "ATOMIC", "CONTINUE_AFTER_FAILURE", "MODEL", "BASE_URL"):
        monkeypatch.delenv(f"EDITBLOCKS_{key}", raising=False)
    reply = reply_file(tmp_path, sr("a.py", "x = 1\n", "x = 2\n") + sr("b.py", "nope\n", "y = 2\n"))
    # atomic from the file: nothing written, under the configured root
    code, _, _ = run("apply", "-q", str(reply))
    assert code == 1 and (project / "code/a.py").read_text() == "x = 1\n"
    # the environment overrides the file
    code, _, _ = run("apply", "-q", str(reply), env={"EDITBLOCKS_ATOMIC": "false"})
    assert code == 1 and (project / "code/a.py").read_text() == "x = 2\n"
    run("undo")
    assert (project / "code/a.py").read_text() == "x = 1\n"
    # a flag overrides both
    code, _, _ = run("apply", "-q", str(reply), "--no-atomic")
    assert (project / "code/a.py").read_text() == "x = 2\n"
    code, out, _ = run("config", env={"EDITBLOCKS_MODEL": "local-model"})
    assert code == 0
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert f"{project / 'code'}" in lines["root"] and "(" + str(project / "pyproject.toml") + ")" in lines["root"]
    assert "true" in lines["atomic"] and "exact" in lines["match"]
    assert "local-model  (EDITBLOCKS_MODEL)" in lines["model"]
    assert "(default)" in lines["format"]


def test_editblocks_toml_and_a_bad_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(tmp_path / "p", {".editblocks.toml": 'format = "udiff"\n'})
    monkeypatch.chdir(tmp_path / "p")
    monkeypatch.delenv("EDITBLOCKS_FORMAT", raising=False)
    _, out, _ = run("config")
    assert "udiff  (" + str(tmp_path / "p" / ".editblocks.toml") + ")" in out
    (tmp_path / "p" / ".editblocks.toml").write_text('match = "psychic"\n')
    code, _, err = run("config")
    assert code == 2 and "match in" in err and "psychic" in err


def test_settings_are_read_from_the_root_given_not_only_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "proj"
    write_tree(project, {".editblocks.toml": "atomic = true\n", "a.py": "x = 1\n", "b.py": "y = 1\n"})
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    monkeypatch.delenv("EDITBLOCKS_ATOMIC", raising=False)
    reply = reply_file(tmp_path, sr("a.py", "x = 1\n", "x = 2\n") + sr("b.py", "nope\n", "y = 2\n"))
    for root_args in (["--root", str(project)], [f"--root={project}"]):
        code, _, _ = run("apply", "-q", str(reply), *root_args)
        assert code == 1 and (project / "a.py").read_text() == "x = 1\n"  # atomic: nothing written
    code, _, _ = run("apply", "-q", str(reply), "--root", str(project), "--no-atomic")
    assert code == 1 and (project / "a.py").read_text() == "x = 2\n"


def test_a_pyproject_without_editblocks_settings_is_not_read_and_a_broken_one_with_them_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path / "p", {"pyproject.toml": "[project\nname = broken\n", "a.py": "x = 1\n"})
    monkeypatch.chdir(tmp_path / "p")
    reply = reply_file(tmp_path, sr("a.py", "x = 1\n", "x = 2\n"))
    code, _, err = run("apply", "-q", str(reply), "--root", ".")
    assert code == 0 and (tmp_path / "p/a.py").read_text() == "x = 2\n", err
    (tmp_path / "p/pyproject.toml").write_text("[tool.editblocks\natomic = true\n")
    code, _, err = run("apply", "-q", str(reply), "--root", ".")
    assert code == 2 and "cannot read the configuration" in err
    assert (tmp_path / "p/a.py").read_text() == "x = 2\n"


# -- 7. release ----------------------------------------------------------------------------------

REPO = Path(__file__).resolve().parent.parent


def test_the_version_lives_in_one_place_and_version_prints_it() -> None:
    import tomllib

    import editblocks

    meta = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in meta["project"] and "version" in meta["project"]["dynamic"]
    assert meta["tool"]["hatch"]["version"]["path"] == "src/editblocks/__init__.py"
    code, out, _ = run("--version")
    assert code == 0 and out.strip() == f"editblocks, version {editblocks.__version__}"
    assert {"build>=1.0", "twine>=5.0"} <= set(meta["project"]["optional-dependencies"]["test"])


def test_readme_documents_installing_completion_version_and_every_exit_status() -> None:
    readme = (REPO / "README.md").read_text()
    for text in (
        "pipx install .",
        "uv tool install .",
        "_EDITBLOCKS_COMPLETE=bash_source editblocks",
        "editblocks --version",
    ):
        assert text in readme, text
    for status in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 130 |"):
        assert status in readme, status
    assert (REPO / "CHANGELOG.md").read_text().startswith("# Changelog")
    ci = (REPO / ".ci" / "run").read_text()
    assert "python -m build" in ci and "twine check dist/*" in ci and 'editblocks" demo' in ci


def test_shell_completion_script_is_generated() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "from editblocks.cli import main; main(prog_name='editblocks')"],
        env={**os.environ, "_EDITBLOCKS_COMPLETE": "bash_source"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "_editblocks_completion" in out.stdout


# -- 8. documentation site -----------------------------------------------------------------------


def test_the_site_has_a_guide_per_face_and_a_page_per_format() -> None:
    from editblocks.formats import FORMATS

    site = (REPO / "mkdocs.yml").read_text()
    for page in (
        "guide/cli.md",
        "guide/python.md",
        "guide/review.md",
        "guide/mcp.md",
        "guide/run.md",
        "matching.md",
        "reference.md",
    ):
        assert page in site and (REPO / "docs" / page).is_file(), page
    pages = {p.stem: p.read_text() for p in (REPO / "docs" / "formats").glob("*.md")}
    for name in FORMATS:
        assert name in pages or any(name in text.splitlines()[0] for text in pages.values()), name
    for page in (REPO / "docs" / "formats").glob("*.md"):
        text = page.read_text()
        assert "## Rules" in text and "## Refused" in text and "## Example" in text, page
    assert "mkdocs build --strict" in (REPO / ".ci" / "run").read_text()


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "site" / "formats" / "udiff" / "index.html").is_file()
