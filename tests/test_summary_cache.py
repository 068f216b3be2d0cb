"""The summary's cache under ``.editblocks/``: a second summary reads only changed files, and
gives the same text; many files are read by several processes, with the same result."""

from __future__ import annotations

from pathlib import Path

import pytest

from editblocks.syntax import summarize
from editblocks.syntax import summary as summary_module

from .syntax_support import no_git_above


def _tree(root: Path) -> None:
    (root / "pkg").mkdir()
    for i in range(6):
        (root / "pkg" / f"m{i}.py").write_text(
            f"def helper_{i}(x):\n    return x\n\n\nclass Thing{i}:\n    def run(self):\n        return helper_{(i + 1) % 6}(1)\n"
        )
    (root / "notes.txt").write_text("not code\n")


def test_second_summary_reads_only_changed_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not no_git_above(tmp_path):
        pytest.skip("the temporary folder is inside a git work tree")
    _tree(tmp_path)
    first = summarize(None, tmp_path, 200)
    assert (tmp_path / ".editblocks" / "summary-cache.json").is_file()
    read: list[str] = []
    real = summary_module._analyse

    def counting(base: Path, path: str, problem: str | None, data: bytes | None = None) -> object:
        read.append(path)
        return real(base, path, problem, data)

    monkeypatch.setattr(summary_module, "_analyse", counting)
    again = summarize(None, tmp_path, 200)
    assert again.text == first.text and again.notes == first.notes and read == []
    changed = tmp_path / "pkg" / "m3.py"
    changed.write_text(changed.read_text() + "\n\ndef added_later():\n    pass\n")
    third = summarize(None, tmp_path, None)
    assert read == ["pkg/m3.py"] and "added_later" in third.text
    assert third.text == summarize(None, tmp_path, None, cache=False).text


def test_a_file_changed_in_place_is_read_again(tmp_path: Path) -> None:
    if not no_git_above(tmp_path):
        pytest.skip("the temporary folder is inside a git work tree")
    _tree(tmp_path)
    summarize(None, tmp_path)
    target = tmp_path / "pkg" / "m0.py"
    text = target.read_text().replace("helper_0", "helper_z")
    target.write_text(text)
    assert "helper_z" in summarize(None, tmp_path, None).text


def test_files_read_in_processes_give_the_same_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not no_git_above(tmp_path):
        pytest.skip("the temporary folder is inside a git work tree")
    _tree(tmp_path)
    alone = summarize(None, tmp_path, None, cache=False)
    monkeypatch.setattr(summary_module, "PARALLEL_FILES", 2)
    shared = summarize(None, tmp_path, None, cache=False)
    assert shared.text == alone.text and shared.notes == alone.notes
