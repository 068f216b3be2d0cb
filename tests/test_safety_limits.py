"""Limits: too-large replies and files are refused with a clear message; pathological inputs finish.

Timing here uses ceilings only a quadratic blow-up would reach (the inputs take a second or two
when handled in linear time), enforced by running each input in a child process with a timeout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import editblocks
from editblocks import EditStatus
from editblocks.files.workspace import TooLargeError

from .helpers import sr, write_tree

MB = 1024 * 1024
SCALE = int(os.environ.get("EDITBLOCKS_STRESS_SCALE", "1"))
"""Multiplies the pathological input sizes (``EDITBLOCKS_STRESS_SCALE=10`` for two million marker lines)."""


def _cli(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "editblocks", *args], capture_output=True, text=True, timeout=120, **kwargs
    )  # type: ignore[call-overload]


def test_reply_over_the_limit_is_refused(root: Path) -> None:
    write_tree(root, {"a.py": "a = 1\n"})
    reply = sr("a.py", "a = 1\n", "a = 2\n")
    with pytest.raises(TooLargeError, match=r"reply is too large .*the limit is 100 bytes"):
        editblocks.apply_edits(reply + "#" * 100, root, max_reply_bytes=100)
    assert (root / "a.py").read_text() == "a = 1\n"
    # Multi-byte text counts in bytes.
    with pytest.raises(TooLargeError):
        editblocks.apply_edits(reply + "\u4e2d" * 40, root, max_reply_bytes=len(reply) + 100)


def test_default_reply_limit_is_50_mb(root: Path) -> None:
    with pytest.raises(TooLargeError, match="limit is 50.0 MB"):
        editblocks.apply_edits("x" * (50 * MB + 1), root)


def test_cli_refuses_a_reply_file_over_50_mb(root: Path, tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    with open(big, "wb") as fh:
        fh.truncate(50 * MB + 1)
    out = _cli("apply", str(big), "--root", str(root))
    assert out.returncode == 2
    assert "larger than 50 MB" in out.stderr
    small = tmp_path / "small.md"
    small.write_text(sr("a.py", "", "x = 1\n") + "#" * 2000)
    out = _cli("apply", str(small), "--root", str(root), "--max-reply-mb", "0.001")
    assert out.returncode == 2 and "larger than" in out.stderr
    assert not (root / "a.py").exists()


def test_file_over_the_limit_is_refused_and_untouched(root: Path) -> None:
    data = b"x = 1\n" + b"# padding\n" * 30
    write_tree(root, {"a.py": data})
    result = editblocks.apply_edits(sr("a.py", "x = 1\n", "x = 2\n"), root, max_file_bytes=100)
    assert result.results[0].status is EditStatus.FAILED
    assert "too large to edit" in (result.results[0].reason or "") and "limit" in (result.results[0].reason or "")
    assert (root / "a.py").read_bytes() == data


def test_default_file_limit_is_20_mb(root: Path) -> None:
    with open(root / "huge.txt", "wb") as fh:
        fh.write(b"x = 1\n")
        fh.truncate(20 * MB + 1)
    result = editblocks.apply_edits(sr("huge.txt", "x = 1\n", "x = 2\n"), root)
    assert result.results[0].status is EditStatus.FAILED
    assert "the limit is 20.0 MB" in (result.results[0].reason or "")
    with open(root / "huge.txt", "rb") as fh:
        assert fh.read(6) == b"x = 1\n"


def test_cli_max_file_mb(root: Path, tmp_path: Path) -> None:
    write_tree(root, {"a.py": "x = 1\n" + "#" * 5000 + "\n"})
    (tmp_path / "r.md").write_text(sr("a.py", "x = 1\n", "x = 2\n"))
    out = _cli("apply", str(tmp_path / "r.md"), "--root", str(root), "--max-file-mb", "0.001", "--json")
    assert out.returncode == 1
    assert "too large to edit" in out.stdout


# -- pathological inputs, each in a child process under a ceiling -------------------------------------

_PATHOLOGICAL = {
    "marker-lines": (
        "write('a.py', 'x = 1\\n')\n"
        f"n = {200_000 * SCALE} // 4\n"
        "reply = 'a.py\\n```\\n' + ('<<<<<<< SEARCH\\n' + '=======\\n' + '>>>>>>> REPLACE\\n' + '<<<<<<< SEARCH\\n') * n\n"
        "result = editblocks.apply_edits(reply, root)\n"
        "assert read('a.py') == 'x = 1\\n'\n"
    ),
    "one-10-mb-line-in-the-reply": (
        "write('a.py', ''.join(f'line {i}\\n' for i in range(50)))\n"
        "reply = 'a.py\\n```\\n<<<<<<< SEARCH\\n' + 'y' * (10 * 2**20) + '\\n=======\\nz\\n>>>>>>> REPLACE\\n```\\n'\n"
        "result = editblocks.apply_edits(reply, root)\n"
        "assert result.results[0].status.value == 'failed'\n"
    ),
    "one-10-mb-line-in-the-file": (
        "write('a.py', 'q' * (10 * 2**20) + '\\nend\\n')\n"
        "result = editblocks.apply_edits('a.py\\n```\\n<<<<<<< SEARCH\\nend\\n=======\\nEND\\n>>>>>>> REPLACE\\n```\\n', root)\n"
        "assert result.ok and read('a.py').endswith('q\\nEND\\n')\n"
    ),
    "one-10-mb-line-replacing-a-line": (
        "write('a.py', 'a\\nb\\nc\\n')\n"
        "result = editblocks.apply_edits('a.py\\n```\\n<<<<<<< SEARCH\\nb\\n=======\\n' + 'z' * (10 * 2**20) + '\\n>>>>>>> REPLACE\\n```\\n', root)\n"
        "assert result.ok and len(read('a.py')) == 10 * 2**20 + 5\n"
    ),
    "deeply-repeated-content": (
        f"write('a.py', 'x = 1\\n' * {100_000 * SCALE})\n"
        "reply = 'a.py\\n```\\n<<<<<<< SEARCH\\n' + 'x = 1\\n' * 1000 + '=======\\ny = 2\\n>>>>>>> REPLACE\\n```\\n'\n"
        "result = editblocks.apply_edits(reply, root)\n"
        "assert result.results[0].status.value == 'failed' and 'ambiguous' in result.results[0].reason\n"
    ),
    "many-small-blocks": (
        f"n = {20_000 * SCALE}\n"
        "write('a.py', ''.join(f'v{i} = {i}\\n' for i in range(n)))\n"
        "reply = ''.join(f'a.py\\n```\\n<<<<<<< SEARCH\\nv{i} = {i}\\n=======\\nv{i} = -{i}\\n>>>>>>> REPLACE\\n```\\n' for i in range(0, n, 4))\n"
        "result = editblocks.apply_edits(reply, root, match='exact')\n"
        "assert result.ok and read('a.py').count('= -') == n // 4\n"
    ),
}

_PRELUDE = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    import editblocks
    root = Path(sys.argv[1])
    def write(name, text):
        (root / name).write_text(text)
    def read(name):
        return (root / name).read_text()
    """
)

# Each case takes about a second or two in linear time; a quadratic blow-up on these sizes takes
# hours. The ceiling is far above any noisy-machine slowdown of the linear case.
CEILING_SECONDS = 120


@pytest.mark.parametrize("name", list(_PATHOLOGICAL))
def test_pathological_input_finishes(name: str, tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    out = subprocess.run(
        [sys.executable, "-c", _PRELUDE + _PATHOLOGICAL[name], str(root)],
        capture_output=True,
        text=True,
        timeout=CEILING_SECONDS,
    )
    assert out.returncode == 0, out.stderr[-2000:]


def test_repeated_content_with_a_missing_line_is_not_applied_at_an_arbitrary_place(root: Path) -> None:
    write_tree(root, {"a.py": "x = 1\n" * 20_000})
    reply = sr("a.py", "x = 1\n" * 300 + "x = 2\n", "y = 2\n")
    result = editblocks.apply_edits(reply, root, dry_run=True)
    assert result.results[0].status is not EditStatus.APPLIED
