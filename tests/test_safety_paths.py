"""Path safety under attack: no block may write outside the root, into .git, or through a link.

Every attack path is tried as a new-file block and as an edit block; each must fail with a
reason a user understands, and a sentinel tree outside the root must stay exactly as it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import editblocks
from editblocks import EditBlock, EditStatus

from .helpers import sr

ATTACKS: list[tuple[str, str]] = [
    # (path, what the reason must say)
    ("../escape.txt", "'..'"),
    ("a/../../escape.txt", "'..'"),
    ("sub/../existing.txt", "'..'"),
    ("..", "'..'"),
    ("/etc/passwd", "absolute"),
    ("/tmp/editblocks-escape.txt", "absolute"),
    ("//server/share/x.txt", "absolute"),
    ("/dev/null", "absolute"),
    ("C:\\Windows\\win.ini", "backslash"),
    ("C:/Windows/win.ini", "Windows drive"),
    ("c:relative.txt", "Windows drive"),
    ("\\\\server\\share\\x.txt", "backslash"),
    ("..\\escape.txt", "backslash"),
    ("sub\\x.txt", "backslash"),
    ("~/escape.txt", "home-folder"),
    ("~root/.bashrc", "home-folder"),
    ("", "empty"),
    ("   ", "empty"),
    (".", "not a file path"),
    ("./", "names a folder"),
    ("sub/", "names a folder"),
    ("sub/.", "names a folder"),
    (".git/config", "inside .git"),
    (".GIT/config", "inside .git"),
    (".Git/HEAD", "inside .git"),
    ("a/.git/hooks/pre-commit", "inside .git"),
    (".git", "inside .git"),
    (".git./config", "inside .git"),
    (".git::$INDEX_ALLOCATION/config", "inside .git"),
    ("GIT~1/config", "inside .git"),
    (".hg/hgrc", "inside .hg"),
    (".editblocks/journal/000001.json", "inside .editblocks"),
    ("link_out/evil.txt", "outside the root"),
    ("file_link_out.txt", "outside the root"),
    ("dangling_out.txt", "outside the root"),
    ("dir_link_up/escape.txt", "outside the root"),
    ("devnull_link", "outside the root"),
    ("loop_a", "loop of symbolic links"),
    ("loop_dir/x.txt", "loop of symbolic links"),
    ("fifo", "named pipe"),
    ("link_to_git/config", "inside .git"),
    ("root_link", "root folder itself"),
    ("sub", "is a folder"),
    ("existing.txt/child.txt", "is a file, not a folder"),
    ("a\x00b.txt", "NUL"),
    ("a\nb.txt", "control characters"),
    ("a\tb.txt", "control characters"),
    ("a\x1b[31mred.txt", "control characters"),
    ("a\x85b.txt", "control characters"),
    ("x" * 300 + ".txt", "longer than 255 bytes"),
    ("/".join(["d" * 200] * 25) + "/x.txt", "too long"),
    ("evil\u202etxt.py", "invisible formatting character"),
    ("a\u200bb.txt", "invisible formatting character"),
    ("\ufeffbom.txt", "invisible formatting character"),
    ("a\u2215..\u2215b.txt", "looks like a path separator"),
    ("\uff0e\uff0e/escape.txt", "looks like a path separator or dot"),
    ("a\u00a0b.txt", "space other than the ordinary space"),
    ("a\u2028b.txt", "line separator"),
    ("a\ud800b.txt", "unpaired surrogate"),
    (" leading.txt", "white space"),
    ("trailing.txt ", "white space"),
]


def _snapshot(top: Path, skip: Path) -> dict[str, object]:
    """Every entry under ``top`` except ``skip``: file bytes, link targets, folders."""
    found: dict[str, object] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        here = Path(dirpath)
        if here == skip or skip in here.parents:
            dirnames[:] = []
            continue
        for name in dirnames + filenames:
            p = here / name
            rel = str(p.relative_to(top))
            if p.is_symlink():
                found[rel] = ("link", os.readlink(p))
            elif p.is_file():
                found[rel] = p.read_bytes()
            else:
                found[rel] = "folder" if p.is_dir() else "other"
    return found


@pytest.fixture
def arena(tmp_path: Path) -> tuple[Path, Path]:
    """A root full of traps, and a sentinel folder beside it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("x = 1\n")
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "sub").mkdir()
    (root / "existing.txt").write_text("x = 1\n")
    (root / "link_out").symlink_to(outside, target_is_directory=True)
    (root / "file_link_out.txt").symlink_to(outside / "secret.txt")
    (root / "dangling_out.txt").symlink_to(outside / "not-yet.txt")
    (root / "dir_link_up").symlink_to("..", target_is_directory=True)
    (root / "devnull_link").symlink_to("/dev/null")
    (root / "loop_a").symlink_to("loop_b")
    (root / "loop_b").symlink_to("loop_a")
    (root / "loop_dir").symlink_to("loop_dir")
    (root / "link_to_git").symlink_to(".git", target_is_directory=True)
    (root / "root_link").symlink_to(".", target_is_directory=True)
    os.mkfifo(root / "fifo")
    return root, tmp_path


def test_there_are_at_least_forty_attacks() -> None:
    assert len(ATTACKS) >= 40
    assert len({p for p, _ in ATTACKS}) == len(ATTACKS)


def test_every_attack_path_is_refused_with_its_reason_and_nothing_outside_changes(arena: tuple[Path, Path]) -> None:
    root, top = arena
    before_outside = _snapshot(top, skip=root)
    before_inside = _snapshot(root, skip=root / ".editblocks")
    blocks = []
    for path, _ in ATTACKS:
        blocks.append(EditBlock(path, "", "owned = True\n", new_file=True))
        blocks.append(EditBlock(path, "x = 1\n", "owned = True\n"))
    result = editblocks.apply_edits(blocks, root, continue_after_failure=True)
    assert len(result.results) == 2 * len(ATTACKS)
    problems = []
    for i, (path, needle) in enumerate(ATTACKS):
        for res in result.results[2 * i : 2 * i + 2]:
            kind = "new-file" if res.block.new_file else "edit"
            if res.status is not EditStatus.FAILED:
                problems.append(f"{path!r} ({kind}): {res.status.value}")
            elif needle.lower() not in (res.reason or "").lower():
                problems.append(f"{path!r} ({kind}): reason {res.reason!r} lacks {needle!r}")
    assert not problems, "\n".join(problems)
    assert result.files_modified == []
    assert _snapshot(top, skip=root) == before_outside
    inside = _snapshot(root, skip=root / ".editblocks")
    inside.pop(".editblocks", None)  # the lock
    assert inside == before_inside


def test_attacks_through_the_cli_write_nothing_outside(arena: tuple[Path, Path]) -> None:
    root, top = arena
    reply_file = top / "reply.md"
    reply_file.write_text("")
    before_outside = _snapshot(top, skip=root)
    git_before = _snapshot(root / ".git", skip=root / ".git" / "nothing")
    parseable = [p for p, _ in ATTACKS if p.strip() and p.isprintable() and "\n" not in p and len(p) < 200]
    reply = "".join(sr(p, "", "owned = True\n") + sr(p, "x = 1\n", "owned = True\n") for p in parseable)
    reply_file.write_text(reply, encoding="utf-8", errors="surrogatepass")
    before_outside["reply.md"] = reply_file.read_bytes()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "editblocks",
            "apply",
            str(reply_file),
            "--root",
            str(root),
            "--json",
            "--continue-after-failure",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode in (1, 2), out.stderr
    # The reply parser may clean a path into a harmless one (a "//" comment prefix, spaces);
    # whatever applied landed inside the root and outside .git.
    for res in json.loads(out.stdout)["results"]:
        if res["status"] == "applied":
            landed = (root / res["file_path"]).resolve()
            assert root in landed.parents and ".git" not in landed.relative_to(root).parts, res
    after = _snapshot(top, skip=root)
    assert after == before_outside
    assert _snapshot(root / ".git", skip=root / ".git" / "nothing") == git_before


def test_ordinary_paths_still_work(arena: tuple[Path, Path]) -> None:
    root, _ = arena
    blocks = [
        EditBlock("existing.txt", "x = 1\n", "x = 2\n"),
        EditBlock("./sub/new.py", "", "n = 1\n", new_file=True),
        EditBlock("docs/caf\u00e9 notes.md", "", "# notes\n", new_file=True),
        EditBlock(".github/workflows/ci.yml", "", "on: push\n", new_file=True),
        EditBlock(".gitignore", "", "*.pyc\n", new_file=True),
        EditBlock("root_link/via_link.txt", "", "ok\n", new_file=True),
    ]
    result = editblocks.apply_edits(blocks, root)
    assert result.ok, [r.reason for r in result.results]
    assert (root / "existing.txt").read_text() == "x = 2\n"
    assert (root / "sub" / "new.py").read_text() == "n = 1\n"
    assert (root / "docs" / "caf\u00e9 notes.md").exists()
    assert (root / "via_link.txt").read_text() == "ok\n"


@pytest.mark.parametrize("path", ["//home/user/.bashrc", "///x", "file:///etc/x", "\\\\server\\share\\x"])
def test_network_paths_and_urls_on_a_path_line_are_refused(root: Path, path: str) -> None:
    """A path line is a path as written: '//x' is not a comment prefix, 'file:' is not a label."""
    reply = f"{path}\n```\n<<<<<<< SEARCH\n=======\npwned\n>>>>>>> REPLACE\n```\n"
    result = editblocks.apply_edits(reply, root)
    assert result.results and all(r.status is EditStatus.FAILED for r in result.results)
    assert not any(root.rglob("*")) or all(p.name.startswith(".") for p in root.rglob("*"))
