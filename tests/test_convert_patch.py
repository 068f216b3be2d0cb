"""``convert --to udiff --root``: a patch that ``git apply`` and ``patch -p1`` accept, for every
scenario that converts (three lines of context, the file's own line endings, ``a/`` and ``b/``
paths, true line numbers, no Markdown fence unless ``--fence``)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks.cli import main

from .helpers import read_tree, sr, write_tree

SCENARIOS = Path(__file__).parent / "scenarios"
CASES = sorted(p for p in SCENARIOS.iterdir() if p.is_dir() and (p / "reply.md").is_file())

pytestmark = pytest.mark.skipif(
    shutil.which("patch") is None or shutil.which("git") is None, reason="needs git and patch"
)


def convert(reply: Path, root: Path, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["convert", str(reply), "--to", "udiff", "--root", str(root), *extra])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout_bytes.decode("utf-8")


def accepted(patch: str, root: Path) -> None:
    """``git apply --check`` and ``patch --dry-run -p1`` both take ``patch`` in ``root``."""
    data = patch.encode("utf-8")
    git = subprocess.run(["git", "apply", "--check", "-"], cwd=root, input=data, capture_output=True)
    assert git.returncode == 0, git.stderr.decode() + "\n" + patch
    gnu = subprocess.run(["patch", "-p1", "--dry-run", "--batch", "-s"], cwd=root, input=data, capture_output=True)
    assert gnu.returncode == 0, gnu.stdout.decode() + gnu.stderr.decode() + "\n" + patch


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_scenario_that_converts_is_a_patch_git_and_patch_accept(case: Path, tmp_path: Path) -> None:
    root = tmp_path / "project"
    if (case / "before").is_dir():
        shutil.copytree(case / "before", root, symlinks=True)
    else:
        root.mkdir()
    options = json.loads((case / "options.json").read_text()) if (case / "options.json").is_file() else {}
    extra = ["--format", options["format"]] if options.get("format") else []
    before = read_tree(root)
    code, out = convert(case / "reply.md", root, *extra)
    assert read_tree(root) == before  # converting writes nothing
    if code == 2 or not out:
        pytest.skip("nothing converts")
    assert not out.startswith("```")
    accepted(out, root)
    if code == 0 and (case / "after").is_dir() and not options.get("continue_after_failure"):
        subprocess.run(["git", "apply", "-"], cwd=root, input=out.encode(), check=True, capture_output=True)
        assert read_tree(root) == read_tree(case / "after")


def test_three_lines_of_context_true_line_numbers_and_crlf_kept(tmp_path: Path) -> None:
    root = tmp_path / "p"
    lines = [f"line {i}" for i in range(1, 21)]
    write_tree(root, {"a.txt": "\r\n".join(lines) + "\r\n", "b.txt": "one\ntwo\n"})
    reply = tmp_path / "reply.md"
    reply.write_text(sr("a.txt", "line 10\n", "line ten\n") + sr("b.txt", "one\n", "uno\n") + sr("c.txt", "", "new\n"))
    code, out = convert(reply, root)
    assert code == 0
    assert out.startswith(
        "--- a/a.txt\n+++ b/a.txt\n@@ -7,7 +7,7 @@\n line 7\r\n line 8\r\n line 9\r\n-line 10\r\n+line ten\r\n line 11\r\n"
    )
    assert "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-one\n+uno\n two\n" in out
    assert "--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+new\n" in out
    accepted(out, root)
    _, fenced = convert(reply, root, "--fence")
    assert fenced.startswith("```diff\n--- a/a.txt\n") and fenced.endswith("```\n")
