"""``git_add=True`` stages the modified files in a real git repository."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

import editblocks
from editblocks.cli import main

from .helpers import sr, write_tree

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git command")


def git(root: Path, *args: str) -> str:
    env_args = ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"]
    out = subprocess.run(["git", *env_args, *args], cwd=root, capture_output=True, text=True, check=True, timeout=60)
    return out.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write_tree(root, {"src/app.py": "x = 1\n", "README.md": "# App\n", "untouched.txt": "same\n"})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def staged(root: Path) -> list[str]:
    return sorted(git(root, "diff", "--cached", "--name-only").split())


def test_git_add_stages_modified_and_created_files(repo: Path) -> None:
    reply = (
        sr("src/app.py", "x = 1\n", "x = 2\n")
        + sr("src/new.py", "", "NEW = 1\n")
        + sr("README.md", "no such line\n", "x\n")
    )
    result = editblocks.apply_edits(reply, repo, git_add=True)
    assert [r.status.value for r in result.results] == ["applied", "applied", "failed"]
    assert staged(repo) == ["src/app.py", "src/new.py"]
    assert git(repo, "show", ":src/app.py") == "x = 2\n"
    assert git(repo, "show", ":src/new.py") == "NEW = 1\n"
    # Nothing else was staged or changed.
    assert git(repo, "status", "--porcelain").splitlines() == ["M  src/app.py", "A  src/new.py"]


def test_without_git_add_nothing_is_staged(repo: Path) -> None:
    editblocks.apply_edits(sr("src/app.py", "x = 1\n", "x = 2\n"), repo)
    assert staged(repo) == []
    assert git(repo, "status", "--porcelain").splitlines() == [" M src/app.py"]


def test_dry_run_with_git_add_stages_nothing(repo: Path) -> None:
    editblocks.apply_edits(sr("src/app.py", "x = 1\n", "x = 2\n"), repo, git_add=True, dry_run=True)
    assert staged(repo) == []
    assert (repo / "src/app.py").read_text() == "x = 1\n"


def test_git_add_from_a_subfolder_root(repo: Path) -> None:
    result = editblocks.apply_edits(sr("app.py", "x = 1\n", "x = 3\n"), repo / "src", git_add=True)
    assert result.ok
    assert staged(repo) == ["src/app.py"]


def test_git_add_outside_a_work_tree_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write_tree(root, {"a.txt": "a\n"})
    if subprocess.run(["git", "rev-parse", "--is-inside-work-tree"], cwd=root, capture_output=True).returncode == 0:
        pytest.skip("the temporary folder is inside a git work tree")
    result = editblocks.apply_edits(sr("a.txt", "a\n", "b\n"), root, git_add=True)
    assert result.ok
    assert (root / "a.txt").read_text() == "b\n"
    assert any("git" in w.message for w in result.warnings)


def test_cli_git_add(repo: Path, tmp_path: Path) -> None:
    reply = tmp_path / "reply.md"
    reply.write_text(sr("README.md", "# App\n", "# App\n\nNow documented.\n"))
    out = CliRunner().invoke(main, ["apply", str(reply), "--root", str(repo), "--git-add"])
    assert out.exit_code == 0, out.output
    assert staged(repo) == ["README.md"]


def test_undo_after_git_add_restores_the_index(tmp_path: Path) -> None:
    """A real repository: a file staged before the apply, one created by it; undo puts both the
    files and the index back as they were."""
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    git = lambda *args: subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout  # noqa: E731
    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    (repo / "src" / "a.py").write_text("x = 1\n")
    git("add", ".")
    git("commit", "-qm", "init")
    (repo / "src" / "a.py").write_text("x = 1\ny = 2\n")
    git("add", "src/a.py")  # staged before the apply
    index_before = git("ls-files", "-s")
    reply = sr("src/a.py", "y = 2\n", "y = 3\n") + sr("src/new file.py", "", "z = 1\n")
    result = editblocks.apply_edits(reply, repo, git_add=True)
    assert result.ok and "new file.py" in git("diff", "--cached", "--name-only")
    done = editblocks.undo(repo)
    assert any("git index restored" in n for n in done.notes)
    assert git("ls-files", "-s") == index_before
    assert (repo / "src" / "a.py").read_text() == "x = 1\ny = 2\n" and not (repo / "src" / "new file.py").exists()
