"""Smaller promises about files: network paths and URLs refused as absolute, look-alike Unicode
names resolved to the existing file, owner and group kept, nested roots taking turns."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import editblocks
from editblocks import EditBlock, EditStatus
from editblocks.files.workspace import PathError, Workspace

from .helpers import read_tree


@pytest.mark.parametrize(
    "path",
    [
        "//home/user/.bashrc",
        "///x",
        "file:///etc/x",
        "\\\\\\\\server\\\\share\\\\x",
        "\\\\server\\share\\x",
        "https://example.com/x.py",
    ],
)
def test_network_paths_and_urls_are_refused_as_absolute(tmp_path: Path, path: str) -> None:
    with pytest.raises(PathError, match="absolute"):
        Workspace(tmp_path).normalize(path)
    result = editblocks.apply_edits([EditBlock(path, "", "owned = True\n", new_file=True)], tmp_path)
    assert result.results[0].status is EditStatus.FAILED
    assert "absolute" in (result.results[0].reason or "")
    assert read_tree(tmp_path) == {}


def test_a_decomposed_name_edits_the_existing_composed_file(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "caf\u00e9.txt").write_text("x = 1\n")
    result = editblocks.apply_edits(
        [
            EditBlock("docs/cafe\u0301.txt", "x = 1\n", "x = 2\n"),
            EditBlock("docs/cafe\u0301.txt", "", "x = 3\n", new_file=True),
        ],
        tmp_path,
        continue_after_failure=True,
    )
    assert result.results[0].status is EditStatus.APPLIED, result.results[0].reason
    assert os.listdir(tmp_path / "docs") == ["caf\u00e9.txt"]
    assert (tmp_path / "docs" / "caf\u00e9.txt").read_text() != "x = 1\n"
    assert result.files_modified == ["docs/caf\u00e9.txt"]


def test_a_composed_name_finds_a_decomposed_folder(tmp_path: Path) -> None:
    (tmp_path / "re\u0301sume\u0301").mkdir()
    result = editblocks.apply_edits([EditBlock("r\u00e9sum\u00e9/cv.md", "", "# cv\n", new_file=True)], tmp_path)
    assert result.ok
    assert sorted(os.listdir(tmp_path)) == sorted(["re\u0301sume\u0301", ".editblocks"])
    assert (tmp_path / "re\u0301sume\u0301" / "cv.md").read_text() == "# cv\n"


def test_two_existing_look_alike_names_are_refused(tmp_path: Path) -> None:
    (tmp_path / "caf\u00e9.txt").write_text("a = 1\n")
    (tmp_path / "cafe\u0301.txt").write_text("a = 1\n")
    result = editblocks.apply_edits([EditBlock("caf\u00e9.txt", "a = 1\n", "a = 2\n")], tmp_path)
    assert result.results[0].status is EditStatus.FAILED
    assert "look the same" in (result.results[0].reason or "")
    assert (tmp_path / "caf\u00e9.txt").read_text() == (tmp_path / "cafe\u0301.txt").read_text() == "a = 1\n"


needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="changing a file's owner needs root"
)


@needs_root
def test_owner_group_and_setuid_are_kept_when_root_edits_a_users_file(tmp_path: Path) -> None:
    target = tmp_path / "tool.sh"
    target.write_text("echo 1\n")
    os.chown(target, 1000, 1000)
    os.chmod(target, 0o4755)
    assert editblocks.apply_edits([EditBlock("tool.sh", "echo 1\n", "echo 2\n")], tmp_path).ok
    st = os.stat(target)
    assert (st.st_uid, st.st_gid) == (1000, 1000)
    assert stat.S_IMODE(st.st_mode) == 0o4755
    assert target.read_text() == "echo 2\n"


@needs_root
def test_setuid_is_dropped_when_the_owner_cannot_be_kept(tmp_path: Path) -> None:
    folder = Path(tempfile.mkdtemp(prefix="eb-owner-"))
    try:
        os.chmod(folder, 0o777)
        target = folder / "tool.sh"
        target.write_text("echo 1\n")
        os.chown(target, 2000, 2000)
        os.chmod(target, 0o6777)
        # Act as user 1000, who may not give a file to user 2000.
        os.setegid(1000)
        os.seteuid(1000)
        try:
            result = editblocks.apply_edits([EditBlock("tool.sh", "echo 1\n", "echo 2\n")], folder, journal=False)
        finally:
            os.seteuid(0)
            os.setegid(0)
        assert result.ok, result.results[0].reason
        st = os.stat(target)
        assert st.st_uid == 1000
        assert not st.st_mode & (stat.S_ISUID | stat.S_ISGID), oct(st.st_mode)
        assert target.read_text() == "echo 2\n"
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)


NESTED = r"""
import json, sys
import editblocks
from editblocks import EditBlock
root, path, who, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
applied, failed = [], []
for i in range(n):
    line = f"{who} {i}"
    r = editblocks.apply_edits([EditBlock(path, "end\n", f"{line}\nend\n")], root, journal=False)
    (applied if r.results[0].status.value == "applied" else failed).append([line, r.results[0].reason])
print(json.dumps({"applied": applied, "failed": failed}))
"""


def test_nested_roots_take_turns_on_the_same_file(tmp_path: Path) -> None:
    outer = tmp_path / "r"
    inner = outer / "sub"
    inner.mkdir(parents=True)
    target = inner / "list.txt"
    target.write_text("start\nend\n")
    n = 40
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", NESTED, str(root), path, who, str(n)], stdout=subprocess.PIPE, text=True
        )
        for root, path, who in ((outer, "sub/list.txt", "outer"), (inner, "list.txt", "inner"))
    ]
    reports = [json.loads(p.communicate(timeout=300)[0]) for p in procs]
    lines = target.read_text().splitlines()
    for report in reports:
        for line, _ in report["applied"]:
            assert line in lines, f"{line} was reported applied and then lost"
        assert report["failed"] == [], "each apply should wait for the other, reading the file after it"
    assert len(lines) == 2 + 2 * n


def test_an_atomic_apply_of_a_file_and_one_whose_name_extends_it(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("a = 1\n")
    (tmp_path / "a.py").write_text("b = 1\n")
    blocks = [EditBlock("a.py", "b = 1\n", "b = 2\n"), EditBlock("a", "a = 1\n", "a = 2\n")]
    result = editblocks.apply_edits(blocks, tmp_path, atomic=True)
    assert result.ok, [r.reason for r in result.results]
    assert read_tree(tmp_path) == {"a": b"a = 2\n", "a.py": b"b = 2\n"}
