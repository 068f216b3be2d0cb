"""The workspace pinned on what a user sees: an apply leaves no file anywhere but the edited one,
refuses a name that several files share after Unicode normalisation, and its git operations
(commit exactly the paths asked, remove that commit only while it is HEAD, put the index back)
do what they say."""

from __future__ import annotations

import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

import editblocks
from editblocks import EditStatus
from editblocks.errors import PathError
from editblocks.files.workspace import Workspace

from .helpers import read_tree, sr

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def test_an_apply_writes_nothing_beside_the_edited_file_nor_in_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, elsewhere = tmp_path / "root", tmp_path / "cwd"
    root.mkdir()
    elsewhere.mkdir()
    (root / "m.py").write_text("a = 1\nb = 2\n")
    monkeypatch.chdir(elsewhere)
    result = editblocks.apply_edits(sr("m.py", "b = 2\n", "b = 3\n"), root, journal=False)
    assert result.results[0].status is EditStatus.APPLIED
    assert read_tree(root) == {"m.py": b"a = 1\nb = 3\n"}
    assert sorted(p.name for p in root.iterdir()) in (["m.py"], [".editblocks", "m.py"])
    assert list(elsewhere.iterdir()) == []


def test_a_name_two_files_share_after_normalisation_is_refused(tmp_path: Path) -> None:
    nfc, nfd = unicodedata.normalize("NFC", "café.txt"), unicodedata.normalize("NFD", "café.txt")
    try:
        (tmp_path / nfc).write_text("x = 1\n")
        (tmp_path / nfd).write_text("x = 1\n")
    except OSError:  # pragma: no cover - a file system that normalises names
        pytest.skip("the file system keeps one of the two names")
    if len(list(tmp_path.iterdir())) != 2:  # pragma: no cover
        pytest.skip("the file system keeps one of the two names")
    result = editblocks.apply_edits(sr(nfc, "x = 1\n", "x = 2\n"), tmp_path, journal=False)
    assert result.results[0].status is not EditStatus.APPLIED
    assert "look the same" in (result.results[0].reason or "")
    assert (tmp_path / nfc).read_text() == (tmp_path / nfd).read_text() == "x = 1\n"
    with pytest.raises(PathError, match=f"several files have names that look the same as {nfc!r}"):
        Workspace(tmp_path).read(nfc)


def test_an_existing_name_is_found_through_another_normal_form(tmp_path: Path) -> None:
    nfc, nfd = unicodedata.normalize("NFC", "naïve.txt"), unicodedata.normalize("NFD", "naïve.txt")
    (tmp_path / nfd).write_text("x = 1\n")
    result = editblocks.apply_edits(sr(nfc, "x = 1\n", "x = 2\n"), tmp_path, journal=False)
    assert result.results[0].status is EditStatus.APPLIED
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [nfd]
    assert (tmp_path / nfd).read_text() == "x = 2\n"


@pytest.mark.parametrize(
    "name", [".git", ".GIT", ".git.", ".git ", ".git:stream", "GIT~1", ".editblocks", ".hg", ".svn"]
)
def test_version_control_and_state_folders_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(PathError):
        Workspace(tmp_path).normalize(f"{name}/config")


@pytest.mark.parametrize("name", [".gitignore", ".github/ci.yml", "git/x", ".gitx/y", "x.git/y"])
def test_names_that_only_resemble_them_are_allowed(tmp_path: Path, name: str) -> None:
    assert Workspace(tmp_path).normalize(name) == name


def test_empty_folders_are_removed_innermost_first(tmp_path: Path) -> None:
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    (tmp_path / "a-x").mkdir()
    (tmp_path / "keep").mkdir()
    (tmp_path / "keep" / "f.txt").write_text("x")
    removed = Workspace(tmp_path).remove_empty_folders(["a", "a/b/c", "a/b", "a-x", "keep", "missing"])
    assert sorted(removed) == ["a", "a-x", "a/b", "a/b/c"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep"]


# -- git -----------------------------------------------------------------------------------------------


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(tmp_path),
    }.items():
        monkeypatch.setenv(key, value)
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    (root / "a.txt").write_text("a1\n")
    (root / "b.txt").write_text("b1\n")
    _git(root, "add", "a.txt", "b.txt")
    _git(root, "commit", "-q", "-m", "first")
    return root


@needs_git
def test_a_commit_holds_exactly_the_paths_asked_and_leaves_the_rest_staged(repo: Path) -> None:
    ws = Workspace(repo)
    assert ws.in_git_worktree()
    (repo / "a.txt").write_text("a2\n")
    (repo / "b.txt").write_text("b2\n")
    _git(repo, "add", "b.txt")
    commit, error = ws.git_commit(["a.txt"], "edit a")
    assert error is None and commit == _git(repo, "rev-parse", "HEAD")
    assert _git(repo, "show", "--name-only", "--format=", "HEAD") == "a.txt"
    assert _git(repo, "log", "-1", "--format=%s") == "edit a"
    assert _git(repo, "diff", "--cached", "--name-only") == "b.txt"


@needs_git
def test_an_apply_commit_is_removed_only_while_it_is_head(repo: Path) -> None:
    ws = Workspace(repo)
    first = _git(repo, "rev-parse", "HEAD")
    (repo / "a.txt").write_text("a2\n")
    commit, _ = ws.git_commit(["a.txt"], "edit a")
    assert commit is not None
    (repo / "b.txt").write_text("b2\n")
    later, _ = ws.git_commit(["b.txt"], "edit b")
    why = ws.git_uncommit(commit)
    assert why is not None and "1 later commit(s) follow it" in why and f"git revert {commit[:10]}" in why
    assert _git(repo, "rev-parse", "HEAD") == later
    assert ws.git_uncommit(later) is None
    assert _git(repo, "rev-parse", "HEAD") == commit
    assert ws.git_uncommit(commit) is None
    assert _git(repo, "rev-parse", "HEAD") == first
    # The files and the index are left as they were: the change is staged, not lost.
    assert (repo / "a.txt").read_text() == "a2\n"
    assert set(_git(repo, "diff", "--cached", "--name-only").split()) == {"a.txt", "b.txt"}
    gone = ws.git_uncommit(later)
    assert gone is not None and "no longer on the current branch" in gone


@needs_git
def test_removing_the_only_commit_leaves_no_head(repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    _git(root, "init", "-q")
    (root / "a.txt").write_text("a\n")
    ws = Workspace(root)
    commit, error = ws.git_commit(["a.txt"], "only")
    assert commit is not None and error is None
    assert ws.git_uncommit(commit) is None
    assert subprocess.run(["git", "rev-parse", "--verify", "--quiet", "HEAD"], cwd=root).returncode != 0
    why = ws.git_uncommit(commit)
    assert why is not None and "has no HEAD any more" in why


@needs_git
def test_the_git_index_is_read_and_put_back(repo: Path) -> None:
    ws = Workspace(repo)
    before = ws.git_index(["a.txt", "new.txt"])
    assert before is not None and before["new.txt"] is None
    assert before["a.txt"] is not None and before["a.txt"].startswith("100644 ")
    (repo / "a.txt").write_text("a2\n")
    (repo / "new.txt").write_text("n\n")
    assert ws.git_add(["a.txt", "new.txt"]) is None
    assert ws.git_index(["a.txt", "new.txt"]) != before
    assert ws.git_restore_index(before) is None
    assert ws.git_index(["a.txt", "new.txt"]) == before
    assert _git(repo, "diff", "--cached", "--name-only") == ""
    assert ws.git_add([]) is None


def test_outside_a_git_work_tree_nothing_is_staged_or_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    (tmp_path / "a.txt").write_text("a\n")
    ws = Workspace(tmp_path)
    assert not ws.in_git_worktree()
    assert ws.git_index(["a.txt"]) is None
    assert ws.git_add(["a.txt"]) == "not a git work tree; nothing staged"
    assert ws.git_commit(["a.txt"], "m") == (None, "not a git work tree; nothing committed")


def test_write_bytes_replaces_a_file_and_guards_what_it_must_hold(tmp_path: Path) -> None:
    from editblocks.errors import ConflictError
    from editblocks.files.workspace import ABSENT

    ws = Workspace(tmp_path)
    assert ws.write_bytes("d/x.txt", b"one\n") == ["d"]
    assert ws.write_bytes("d/x.txt", b"two\n") == []
    assert (tmp_path / "d" / "x.txt").read_bytes() == b"two\n"
    with pytest.raises(ConflictError):
        ws.write_bytes("d/x.txt", b"three\n", expected=b"one\n")
    with pytest.raises(ConflictError):
        ws.write_bytes("d/x.txt", b"three\n", expected=ABSENT)
    assert ws.write_bytes("d/x.txt", b"three\n", expected=b"two\n") == []
    assert ws.write_bytes("d/y.txt", b"new\n", expected=ABSENT) == []
    assert read_tree(tmp_path) == {"d/x.txt": b"three\n", "d/y.txt": b"new\n"}
