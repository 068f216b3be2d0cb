"""Reply bytes that are not UTF-8: refused with the byte offset, nothing written; a replacement
character the model did not write never reaches a file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import editblocks
from editblocks import ReplyDecodeError

from .helpers import sr


def _project(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text("name = 'cafe'\n", encoding="utf-8")
    return tmp_path


MIXED = (
    sr("a.py", "name = 'cafe'\n", "name = 'caf\u00e9'  # \u00e9\n").encode("utf-8").replace(b"# \xc3\xa9", b"# \xe9")
)


def test_mixed_bytes_are_refused_with_the_offset(tmp_path: Path) -> None:
    root = _project(tmp_path)
    with pytest.raises(ReplyDecodeError) as info:
        editblocks.apply_edits(MIXED, root)
    assert info.value.offset == MIXED.index(b"# \xe9") + 2
    assert (root / "a.py").read_text(encoding="utf-8") == "name = 'cafe'\n"


def test_a_reply_in_a_legacy_encoding_is_refused_not_guessed(tmp_path: Path) -> None:
    """Charset detection reads these few cp1252 accents as another code page (ą for à, č for è):
    guessing would change the model's words, so the reply is refused."""
    root = _project(tmp_path)
    reply = sr(
        "a.py", "name = 'cafe'\n", "name = 'caf\u00e9'  # d\u00e9j\u00e0 vu, \u00e7a va, tr\u00e8s bien\n"
    ).encode("cp1252")
    with pytest.raises(ReplyDecodeError):
        editblocks.apply_edits(reply, root)
    assert (root / "a.py").read_text(encoding="utf-8") == "name = 'cafe'\n"


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_cli_refuses_with_exit_2_and_writes_nothing(tmp_path: Path, how: str) -> None:
    root = _project(tmp_path)
    (tmp_path / "reply.md").write_bytes(MIXED)
    args = [sys.executable, "-m", "editblocks", "apply", "reply.md" if how == "file" else "-"]
    run = subprocess.run(args, cwd=root, input=MIXED if how == "stdin" else None, capture_output=True)
    assert run.returncode == 2, run.stderr
    assert b"not valid UTF-8" in run.stderr and b"byte offset" in run.stderr
    assert (root / "a.py").read_text(encoding="utf-8") == "name = 'cafe'\n"


def test_streamed_chunks_split_inside_a_character_are_fine(tmp_path: Path) -> None:
    root = _project(tmp_path)
    data = sr("a.py", "name = 'cafe'\n", "name = 'caf\u00e9'\n").encode("utf-8")
    cut = data.index("\u00e9".encode()) + 1
    result = editblocks.apply_edits([data[:cut], data[cut:]], root)
    assert result.ok and (root / "a.py").read_text(encoding="utf-8") == "name = 'caf\u00e9'\n"
    with pytest.raises(ReplyDecodeError):
        editblocks.apply_edits([MIXED[:10], MIXED[10:]], root)
